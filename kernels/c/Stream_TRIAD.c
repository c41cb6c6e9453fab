// Stream_TRIAD: a[i] = b[i] + alpha * c[i]
KERNEL void triad(GLOBAL REAL* a, GLOBAL const REAL* b, GLOBAL const REAL* c, const REAL alpha,
                  const uint n)
{
    FOR_EACH(i, n) {
        a[i] = b[i] + alpha * c[i];
    }
}

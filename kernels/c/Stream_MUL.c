// Stream_MUL: b[i] = alpha * c[i]
KERNEL void mul(GLOBAL REAL* b, GLOBAL const REAL* c, const REAL alpha, const uint n)
{
    FOR_EACH(i, n) {
        b[i] = alpha * c[i];
    }
}

// Stream_COPY: c[i] = a[i]
KERNEL void copy(GLOBAL const REAL* a, GLOBAL REAL* c, const uint n)
{
    FOR_EACH(i, n) {
        c[i] = a[i];
    }
}

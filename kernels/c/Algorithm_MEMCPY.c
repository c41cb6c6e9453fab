// Algorithm_MEMCPY: y[i] = x[i]
KERNEL void memcpy_loop(GLOBAL const REAL* x, GLOBAL REAL* y, const uint n)
{
    FOR_EACH(i, n) {
        y[i] = x[i];
    }
}

// Algorithm_MEMSET: x[i] = val
KERNEL void memset_loop(GLOBAL REAL* x, const REAL val, const uint n)
{
    FOR_EACH(i, n) {
        x[i] = val;
    }
}

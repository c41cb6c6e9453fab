// Basic_INIT_VIEW1D: a[i] = (i+1) * v
KERNEL void init_view1d(GLOBAL REAL* a, const REAL v, const uint n)
{
    FOR_EACH(i, n) {
        a[i] = (REAL)(i + 1) * v;
    }
}

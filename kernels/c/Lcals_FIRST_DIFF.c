// Lcals_FIRST_DIFF: x[i] = y[i+1] - y[i]; y has n+1 elements.
KERNEL void first_diff(GLOBAL REAL* x, GLOBAL const REAL* y, const uint n)
{
    FOR_EACH(i, n) {
        x[i] = y[i + 1] - y[i];
    }
}

// Basic_DAXPY: y[i] += a * x[i]
KERNEL void daxpy(GLOBAL const REAL* x, GLOBAL REAL* y, const REAL a, const uint n)
{
    FOR_EACH(i, n) {
        y[i] += a * x[i];
    }
}

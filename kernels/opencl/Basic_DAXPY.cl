// Basic_DAXPY: y[i] += a * x[i]
__kernel void daxpy(__global const REAL* x, __global REAL* y, const REAL a, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        y[i] += a * x[i];
    }
}

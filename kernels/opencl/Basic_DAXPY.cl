// Basic_DAXPY: y[i] += a * x[i]
__kernel void daxpy(__global const REAL* x, __global REAL* y, const REAL a, const uint n)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
        y[i] += a * x[i];
    }
}

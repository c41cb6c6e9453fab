// Stream_ADD: c[i] = a[i] + b[i]
__kernel void add(__global const REAL* a, __global const REAL* b, __global REAL* c, const uint n)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
        c[i] = a[i] + b[i];
    }
}

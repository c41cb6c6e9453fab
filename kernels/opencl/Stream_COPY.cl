// Stream_COPY: c[i] = a[i]
__kernel void copy(__global const REAL* a, __global REAL* c, const uint n)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
        c[i] = a[i];
    }
}

// Stream_COPY: c[i] = a[i]
__kernel void copy(__global const REAL* a, __global REAL* c, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        c[i] = a[i];
    }
}

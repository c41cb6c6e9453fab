// Stream_TRIAD: a[i] = b[i] + alpha * c[i]
__kernel void triad(__global REAL* a, __global const REAL* b, __global const REAL* c,
                    const REAL alpha, const uint n)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
        a[i] = b[i] + alpha * c[i];
    }
}

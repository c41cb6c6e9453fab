// Stream_MUL: b[i] = alpha * c[i]
__kernel void mul(__global REAL* b, __global const REAL* c, const REAL alpha, const uint n)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
        b[i] = alpha * c[i];
    }
}

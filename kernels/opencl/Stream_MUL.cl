// Stream_MUL: b[i] = alpha * c[i]
__kernel void mul(__global REAL* b, __global const REAL* c, const REAL alpha, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        b[i] = alpha * c[i];
    }
}

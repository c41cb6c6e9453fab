// Stream_DOT: dot += sum(a[i] * b[i]) in two launches.
// dot_partial: work-group g sums the contiguous chunk [g*chunk, (g+1)*chunk),
// each work-item striding by the group size, then a tree in local memory.
// dot_final: one work-group adds the partial sums into dot[0].
#define GROUP 256

__kernel void dot_partial(__global const REAL* a, __global const REAL* b, __global REAL* partial,
                          const uint n, const uint chunk)
{
    __local REAL sums[GROUP];
    const uint lid = get_local_id(0);
    const uint g = get_group_id(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    REAL sum = 0;
    for (ulong i = begin + lid; i < end; i += GROUP) {
        sum += a[i] * b[i];
    }
    sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        partial[g] = sums[0];
    }
}

__kernel void dot_final(__global const REAL* partial, __global REAL* dot, const uint count)
{
    __local REAL sums[GROUP];
    const uint lid = get_local_id(0);
    REAL sum = 0;
    for (uint i = lid; i < count; i += GROUP) {
        sum += partial[i];
    }
    sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        dot[0] += sums[0];
    }
}

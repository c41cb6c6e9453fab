// Algorithm_REDUCE_SUM: sum = x[0] + ... + x[n-1] in two launches.
// reduce_sum_partial: work-group g sums its contiguous chunk [g*chunk, (g+1)*chunk),
// each work-item striding by the group size, then a tree in local memory.
// reduce_sum_final: one work-group adds the count partials and writes sum[0].
#include "chunk.clh"

// Sum of one value per work-item across the work-group, valid in work-item 0.
REAL group_sum(__local REAL* tree, const uint lid, const REAL v)
{
    tree[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            tree[lid] += tree[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return tree[0];
}

__kernel void reduce_sum_partial(__global const REAL* x, __global REAL* partial, const uint n,
                                 const uint chunk)
{
    __local REAL tree[GROUP];
    const uint lid = get_local_id(0);
    const uint g = get_group_id(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    REAL sum = 0;
    FOR_CHUNK(i, begin, end) {
        sum += x[i];
    }
    sum = group_sum(tree, lid, sum);
    if (lid == 0) {
        partial[g] = sum;
    }
}

__kernel void reduce_sum_final(__global const REAL* partial, __global REAL* sum, const uint count)
{
    __local REAL tree[GROUP];
    const uint lid = get_local_id(0);
    REAL s = 0;
    for (uint i = lid; i < count; i += GROUP) {
        s += partial[i];
    }
    s = group_sum(tree, lid, s);
    if (lid == 0) {
        sum[0] = s;
    }
}

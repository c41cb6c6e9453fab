// Algorithm_REDUCE_SUM: sum = x[0] + ... + x[n-1] in two launches.
// reduce_sum_partial: work-group g sums its contiguous chunk [g*chunk, (g+1)*chunk),
// each work-item striding by the group size, then a tree in local memory.
// reduce_sum_final: one work-group adds the count partials and writes sum[0].
#include "chunk.h"
#include "group_sum.h"

KERNEL void reduce_sum_partial(GLOBAL const REAL* x, GLOBAL REAL* partial, const uint n,
                               const uint chunk)
{
    SHARED REAL tree[GROUP];
    const uint lid = LOCAL_ID(0);
    const uint g = GROUP_ID(0);
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

KERNEL void reduce_sum_final(GLOBAL const REAL* partial, GLOBAL REAL* sum, const uint count)
{
    SHARED REAL tree[GROUP];
    const uint lid = LOCAL_ID(0);
    REAL s = 0;
    for (uint i = lid; i < count; i += GROUP) {
        s += partial[i];
    }
    s = group_sum(tree, lid, s);
    if (lid == 0) {
        sum[0] = s;
    }
}

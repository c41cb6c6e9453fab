// Basic_REDUCE3_INT: int vsum, vmin and vmax of vec in one pass, in two launches.
// reduce3_partial: work-group g reduces its contiguous chunk [g*chunk, (g+1)*chunk)
// into partial[g] (sum), partial[G + g] (min) and partial[2G + g] (max), G groups.
// reduce3_final: one work-group folds the count partials of each kind.
#include "chunk.clh"

// Sum, min and max of one triple per work-item across the work-group, valid in work-item 0.
void group_reduce3(__local int* sums, __local int* mins, __local int* maxs, const uint lid)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
            mins[lid] = min(mins[lid], mins[lid + s]);
            maxs[lid] = max(maxs[lid], maxs[lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel void reduce3_partial(__global const int* vec, __global int* partial, const uint n,
                              const uint chunk)
{
    __local int sums[GROUP], mins[GROUP], maxs[GROUP];
    const uint lid = get_local_id(0);
    const uint g = get_group_id(0);
    const uint groups = get_num_groups(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    int vsum = 0, vmin = INT_MAX, vmax = INT_MIN;
    FOR_CHUNK(i, begin, end) {
        const int v = vec[i];
        vsum += v;
        vmin = min(vmin, v);
        vmax = max(vmax, v);
    }
    sums[lid] = vsum;
    mins[lid] = vmin;
    maxs[lid] = vmax;
    group_reduce3(sums, mins, maxs, lid);
    if (lid == 0) {
        partial[g] = sums[0];
        partial[groups + g] = mins[0];
        partial[2 * groups + g] = maxs[0];
    }
}

__kernel void reduce3_final(__global const int* partial, __global int* vsum, __global int* vmin,
                            __global int* vmax, const uint count)
{
    __local int sums[GROUP], mins[GROUP], maxs[GROUP];
    const uint lid = get_local_id(0);
    int s = 0, lo = INT_MAX, hi = INT_MIN;
    for (uint i = lid; i < count; i += GROUP) {
        s += partial[i];
        lo = min(lo, partial[count + i]);
        hi = max(hi, partial[2 * count + i]);
    }
    sums[lid] = s;
    mins[lid] = lo;
    maxs[lid] = hi;
    group_reduce3(sums, mins, maxs, lid);
    if (lid == 0) {
        vsum[0] = sums[0];
        vmin[0] = mins[0];
        vmax[0] = maxs[0];
    }
}

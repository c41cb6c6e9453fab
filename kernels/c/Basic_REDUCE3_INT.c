// Basic_REDUCE3_INT: int vsum, vmin and vmax of vec in one pass, in two launches.
// reduce3_partial: work-group g reduces its contiguous chunk [g*chunk, (g+1)*chunk)
// into partial[g] (sum), partial[G + g] (min) and partial[2G + g] (max), G groups.
// reduce3_final: one work-group folds the count partials of each kind.
// Minima and maxima are plain comparisons, which PoCL vectorises; its integer
// min and max builtins made the partial launch eleven times slower.
#include "chunk.h"

// Sum, min and max of one triple per work-item across the work-group, valid in work-item 0.
DEVICE void group_reduce3(LOCAL int* sums, LOCAL int* mins, LOCAL int* maxs, const uint lid)
{
    BARRIER();
    for (uint s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
            mins[lid] = mins[lid + s] < mins[lid] ? mins[lid + s] : mins[lid];
            maxs[lid] = maxs[lid + s] > maxs[lid] ? maxs[lid + s] : maxs[lid];
        }
        BARRIER();
    }
}

KERNEL void reduce3_partial(GLOBAL const int* vec, GLOBAL int* partial, const uint n,
                            const uint chunk)
{
    SHARED int sums[GROUP], mins[GROUP], maxs[GROUP];
    const uint lid = LOCAL_ID(0);
    const uint g = GROUP_ID(0);
    const uint groups = NUM_GROUPS(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    int vsum = 0, vmin = INT_MAX, vmax = INT_MIN;
    FOR_CHUNK(i, begin, end) {
        const int v = vec[i];
        vsum += v;
        vmin = v < vmin ? v : vmin;
        vmax = v > vmax ? v : vmax;
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

KERNEL void reduce3_final(GLOBAL const int* partial, GLOBAL int* vsum, GLOBAL int* vmin,
                          GLOBAL int* vmax, const uint count)
{
    SHARED int sums[GROUP], mins[GROUP], maxs[GROUP];
    const uint lid = LOCAL_ID(0);
    int s = 0, lo = INT_MAX, hi = INT_MIN;
    for (uint i = lid; i < count; i += GROUP) {
        s += partial[i];
        const int low = partial[count + i], high = partial[2 * count + i];
        lo = low < lo ? low : lo;
        hi = high > hi ? high : hi;
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

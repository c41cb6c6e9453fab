// Lcals_FIRST_MIN: the location of x's minimum, the first one among equals.
// first_min_partial: work-group g scans the chunk [g*chunk, (g+1)*chunk), each
// work-item striding by the group size, then a tree in local memory.
// first_min_final: one work-group combines the per-group results.
// Every candidate starts at (xmin_init, initloc) as RAJAPerf's reduction does;
// a pair wins with a smaller value, or an equal value at a smaller index, so
// the result is Base_Seq's whatever order the work is combined in.
#include "chunk.h"

DEVICE bool better(REAL val, int loc, REAL than_val, int than_loc)
{
    return val < than_val || (val == than_val && loc < than_loc);
}

DEVICE void reduce_group(LOCAL REAL* vals, LOCAL int* locs, uint lid)
{
    for (uint s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s && better(vals[lid + s], locs[lid + s], vals[lid], locs[lid])) {
            vals[lid] = vals[lid + s];
            locs[lid] = locs[lid + s];
        }
        BARRIER();
    }
}

KERNEL void first_min_partial(GLOBAL const REAL* x, GLOBAL REAL* block_val, GLOBAL int* block_loc,
                              const REAL xmin_init, const int initloc, const uint n,
                              const uint chunk)
{
    SHARED REAL vals[GROUP];
    SHARED int locs[GROUP];
    const uint lid = LOCAL_ID(0);
    const uint g = GROUP_ID(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    REAL val = xmin_init;
    int loc = initloc;
    FOR_CHUNK(i, begin, end) {
        if (better(x[i], (int)i, val, loc)) {
            val = x[i];
            loc = (int)i;
        }
    }
    vals[lid] = val;
    locs[lid] = loc;
    BARRIER();
    reduce_group(vals, locs, lid);
    if (lid == 0) {
        block_val[g] = vals[0];
        block_loc[g] = locs[0];
    }
}

KERNEL void first_min_final(GLOBAL const REAL* block_val, GLOBAL const int* block_loc,
                            GLOBAL int* minloc, const REAL xmin_init, const int initloc,
                            const uint count)
{
    SHARED REAL vals[GROUP];
    SHARED int locs[GROUP];
    const uint lid = LOCAL_ID(0);
    REAL val = xmin_init;
    int loc = initloc;
    for (uint i = lid; i < count; i += GROUP) {
        if (better(block_val[i], block_loc[i], val, loc)) {
            val = block_val[i];
            loc = block_loc[i];
        }
    }
    vals[lid] = val;
    locs[lid] = loc;
    BARRIER();
    reduce_group(vals, locs, lid);
    if (lid == 0) {
        minloc[0] = locs[0];
    }
}

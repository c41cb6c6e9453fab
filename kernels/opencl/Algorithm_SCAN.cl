// Algorithm_SCAN: y[i] = x[0] + ... + x[i-1] (exclusive), reduce-then-scan in three launches.
// scan_reduce: work-group g sums its contiguous chunk [g*chunk, (g+1)*chunk) into sums[g].
// scan_sums: one work-group turns the count chunk sums into their exclusive scan.
// scan_apply: work-group g scans its chunk tile by tile from offset sums[g].
#define GROUP 256
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

// Exclusive scan of one value per work-item across the work-group; *total gets their sum.
REAL group_scan(__local REAL* tile, const uint lid, const REAL v, REAL* total)
{
    tile[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < GROUP; off <<= 1) {
        const REAL t = lid >= off ? tile[lid - off] : (REAL)0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tile[lid] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const REAL before = lid > 0 ? tile[lid - 1] : (REAL)0;
    *total = tile[GROUP - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return before;
}

__kernel void scan_reduce(__global const REAL* x, __global REAL* sums, const uint n,
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
        sums[g] = sum;
    }
}

__kernel void scan_sums(__global REAL* sums, const uint count)
{
    __local REAL tile[GROUP];
    const uint lid = get_local_id(0);
    const uint per = (count + GROUP - 1) / GROUP;
    const uint begin = min(lid * per, count);
    const uint end = min(begin + per, count);
    REAL own = 0;
    for (uint i = begin; i < end; ++i) {
        own += sums[i];
    }
    REAL total;
    REAL offset = group_scan(tile, lid, own, &total);
    for (uint i = begin; i < end; ++i) {
        const REAL v = sums[i];
        sums[i] = offset;
        offset += v;
    }
}

__kernel void scan_apply(__global const REAL* x, __global REAL* y, __global const REAL* sums,
                         const uint n, const uint chunk)
{
    __local REAL tile[GROUP];
    const uint lid = get_local_id(0);
    const uint g = get_group_id(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    REAL carry = begin < end ? sums[g] : (REAL)0;
    for (ulong base = begin; base < end; base += GROUP) {
        const ulong i = base + lid;
        const REAL v = i < end ? x[i] : (REAL)0;
        REAL total;
        const REAL before = group_scan(tile, lid, v, &total);
        if (i < end) {
            y[i] = carry + before;
        }
        carry += total;
    }
}

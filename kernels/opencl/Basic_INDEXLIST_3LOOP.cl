// Basic_INDEXLIST_3LOOP: the indices i with x[i] < 0, listed in order, and their number.
// indexlist_count: counts[i] = 1 where x[i] < 0, else 0.
// scan_reduce, scan_sums, scan_apply: the shared three-launch exclusive scan of
// counts over n + 1 entries, in place (Algorithm_SCAN's plan on int counts).
// indexlist_scatter: list[counts[i]] = i where counts[i] != counts[i+1]; len[0] = counts[n].
#define GROUP 256
#include "chunk.clh"

__kernel void indexlist_count(__global const REAL* x, __global int* counts, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n) {
        counts[i] = x[i] < 0 ? 1 : 0;
    }
}

// Sum of one value per work-item across the work-group, valid in work-item 0.
int group_sum(__local int* tree, const uint lid, const int v)
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
int group_scan(__local int* tile, const uint lid, const int v, int* total)
{
    tile[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < GROUP; off <<= 1) {
        const int t = lid >= off ? tile[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tile[lid] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const int before = lid > 0 ? tile[lid - 1] : 0;
    *total = tile[GROUP - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return before;
}

__kernel void scan_reduce(__global const int* counts, __global int* sums, const uint n,
                          const uint chunk)
{
    __local int tree[GROUP];
    const uint lid = get_local_id(0);
    const uint g = get_group_id(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    int sum = 0;
    FOR_CHUNK(i, begin, end) {
        sum += counts[i];
    }
    sum = group_sum(tree, lid, sum);
    if (lid == 0) {
        sums[g] = sum;
    }
}

__kernel void scan_sums(__global int* sums, const uint count)
{
    __local int tile[GROUP];
    const uint lid = get_local_id(0);
    const uint per = (count + GROUP - 1) / GROUP;
    const uint begin = min(lid * per, count);
    const uint end = min(begin + per, count);
    int own = 0;
    for (uint i = begin; i < end; ++i) {
        own += sums[i];
    }
    int total;
    int offset = group_scan(tile, lid, own, &total);
    for (uint i = begin; i < end; ++i) {
        const int v = sums[i];
        sums[i] = offset;
        offset += v;
    }
}

__kernel void scan_apply(__global int* counts, __global const int* sums, const uint n,
                         const uint chunk)
{
    __local int tile[GROUP];
    const uint lid = get_local_id(0);
    const uint g = get_group_id(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    int carry = begin < end ? sums[g] : 0;
    for (ulong base = begin; base < end; base += GROUP) {
        const ulong i = base + lid;
        const int v = i < end ? counts[i] : 0;
        int total;
        const int before = group_scan(tile, lid, v, &total);
        if (i < end) {
            counts[i] = carry + before;
        }
        carry += total;
    }
}

__kernel void indexlist_scatter(__global const int* counts, __global int* list, __global int* len,
                                const uint n)
{
    const uint i = get_global_id(0);
    if (i == 0) {
        len[0] = counts[n];
    }
    if (i < n && counts[i] != counts[i + 1]) {
        list[counts[i]] = (int)i;
    }
}

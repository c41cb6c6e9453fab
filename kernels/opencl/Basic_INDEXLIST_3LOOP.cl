// Basic_INDEXLIST_3LOOP: the indices i with x[i] < 0, listed in order, and their number.
// indexlist_count: counts[i] = 1 where x[i] < 0, else 0.
// scan_reduce, scan_sums, scan_apply: the shared three-launch exclusive scan of
// counts over n + 1 entries, in place (scan.clh on int counts).
// indexlist_scatter: list[counts[i]] = i where counts[i] != counts[i+1]; len[0] = counts[n].
#include "scan.clh"

__kernel void indexlist_count(__global const REAL* x, __global int* counts, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n) {
        counts[i] = x[i] < 0 ? 1 : 0;
    }
}

__kernel void scan_apply(__global SCAN_T* counts, __global const SCAN_T* sums, const uint n,
                         const uint chunk)
{
    __local SCAN_T tile[GROUP];
    scan_chunk(counts, counts, sums, tile, n, chunk);
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

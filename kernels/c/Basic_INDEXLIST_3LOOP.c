// Basic_INDEXLIST_3LOOP: the indices i with x[i] < 0, listed in order, and their number.
// indexlist_count: counts[i] = 1 where x[i] < 0, else 0.
// scan_reduce, scan_sums, scan_apply: the shared three-launch exclusive scan of
// counts over n + 1 entries, in place (scan.h on int counts).
// indexlist_scatter: list[counts[i]] = i where counts[i] != counts[i+1]; len[0] = counts[n].
#include "scan.h"

KERNEL void indexlist_count(GLOBAL const REAL* x, GLOBAL int* counts, const uint n)
{
    FOR_EACH(i, n) {
        counts[i] = x[i] < 0 ? 1 : 0;
    }
}

KERNEL void scan_apply(GLOBAL SCAN_T* counts, GLOBAL const SCAN_T* sums, const uint n,
                       const uint chunk)
{
    SHARED SCAN_T tile[GROUP];
    scan_chunk(counts, counts, sums, tile, n, chunk);
}

KERNEL void indexlist_scatter(GLOBAL const int* counts, GLOBAL int* list, GLOBAL int* len,
                              const uint n)
{
    const uint i = GLOBAL_ID(0);
    if (i == 0) {
        len[0] = counts[n];
    }
    if (i < n && counts[i] != counts[i + 1]) {
        list[counts[i]] = (int)i;
    }
}

// Basic_INDEXLIST: the indices i with x[i] < 0, listed in order, and their number.
// indexlist_count: work-group g counts the negatives of its contiguous chunk
// [g*chunk, (g+1)*chunk) into counts[g].
// indexlist_scan: work-group g adds counts[0..g) for where its chunk's entries
// start, lists them in order, and the last group writes len[0], where its list ends.
// Both launches read x; no flags array is written (see the description's plan).
#include "chunk.h"
#define SUM_T SCAN_T
#include "group_sum.h"
#include "group_scan.h"

KERNEL void indexlist_count(GLOBAL const REAL* x, GLOBAL int* counts, const uint n,
                            const uint chunk)
{
    SHARED int tree[GROUP];
    const uint lid = LOCAL_ID(0);
    const uint g = GROUP_ID(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    int count = 0;
    FOR_CHUNK(i, begin, end) {
        count += x[i] < 0 ? 1 : 0;
    }
    count = group_sum(tree, lid, count);
    if (lid == 0) {
        counts[g] = count;
    }
}

KERNEL void indexlist_scan(GLOBAL const REAL* x, GLOBAL const int* counts, GLOBAL int* list,
                           GLOBAL int* len, const uint n, const uint chunk)
{
    SHARED int tile[GROUP];
    SHARED int start;
    const uint lid = LOCAL_ID(0);
    const uint g = GROUP_ID(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    // At most MAX_GROUPS counts: one work-item adds them.
    if (lid == 0) {
        int before = 0;
        for (uint k = 0; k < g; k++) {
            before += counts[k];
        }
        start = before;
    }
    BARRIER();
    const int offset = start;
#ifdef HARNESS_CPU_DEVICE
    // Each work-item lists its own contiguous slice, from where the slices
    // before it end: one work-group scan per chunk, and x streamed in order.
    const ulong slice = (end - begin + GROUP - 1) / GROUP;
    const ulong first = min(begin + lid * slice, end);
    const ulong last = min(first + slice, end);
    int mine = 0;
    for (ulong i = first; i < last; i++) {
        mine += x[i] < 0 ? 1 : 0;
    }
    int at = offset + group_scan(tile, lid, mine);
    const int listed = offset + tile[GROUP - 1];
    const int stop = at + mine;
    for (ulong i = first; at < stop; i++) {
        if (x[i] < 0) {
            list[at++] = (int)i;
        }
    }
#else
    // Tile by tile, neighbouring work-items taking neighbouring items.
    int carry = offset;
    for (ulong base = begin; base < end; base += GROUP) {
        const ulong i = base + lid;
        const int hit = i < end && x[i] < 0 ? 1 : 0;
        const int at = carry + group_scan(tile, lid, hit);
        const int total = tile[GROUP - 1];
        BARRIER();
        if (hit) {
            list[at] = (int)i;
        }
        carry += total;
    }
    const int listed = carry;
#endif
    if (lid == 0 && g == NUM_GROUPS(0) - 1) {
        len[0] = listed;
    }
}

// The reduce-then-scan shared by Algorithm_SCAN.c and Basic_INDEXLIST_3LOOP.c,
// planned by harness/suite/scan.py; SCAN_T is the element type.
// scan_reduce: work-group g sums its contiguous chunk [g*chunk, (g+1)*chunk) into sums[g].
// scan_sums: one work-group turns the count chunk sums into their exclusive scan.
// scan_chunk: what scan_apply does: a chunk scanned from offset sums[g].
// CPU devices walk each work-item's contiguous slice of a chunk here, GPUs the
// chunk strided by FOR_CHUNK.
#ifndef HARNESS_CPU_DEVICE
#include "chunk.h"
#endif

#define SUM_T SCAN_T
#include "group_sum.h"

#include "group_scan.h"

#ifdef HARNESS_CPU_DEVICE
// The sum of x[first, last) in four running sums: on a CPU device a work-item's
// one chain of dependent adds is what bounds a scan's passes (PoCL: the reduce
// launch 0.13 ms against 0.46 ms at 10^6 doubles).
DEVICE SCAN_T slice_sum(GLOBAL const SCAN_T* x, const ulong first, const ulong last)
{
    SCAN_T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    ulong i = first;
    for (; i + 4 <= last; i += 4) {
        s0 += x[i];
        s1 += x[i + 1];
        s2 += x[i + 2];
        s3 += x[i + 3];
    }
    for (; i < last; ++i) {
        s0 += x[i];
    }
    return (s0 + s1) + (s2 + s3);
}
#endif

KERNEL void scan_reduce(GLOBAL const SCAN_T* x, GLOBAL SCAN_T* sums, const uint n, const uint chunk)
{
    SHARED SCAN_T tree[GROUP];
    const uint lid = LOCAL_ID(0);
    const uint g = GROUP_ID(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
#ifdef HARNESS_CPU_DEVICE
    const ulong slice = (end - begin + GROUP - 1) / GROUP;
    const ulong first = min(begin + lid * slice, end);
    SCAN_T sum = slice_sum(x, first, min(first + slice, end));
#else
    SCAN_T sum = 0;
    FOR_CHUNK(i, begin, end) {
        sum += x[i];
    }
#endif
    sum = group_sum(tree, lid, sum);
    if (lid == 0) {
        sums[g] = sum;
    }
}

KERNEL void scan_sums(GLOBAL SCAN_T* sums, const uint count)
{
    SHARED SCAN_T tile[GROUP];
    const uint lid = LOCAL_ID(0);
    const uint per = (count + GROUP - 1) / GROUP;
    const uint begin = min(lid * per, count);
    const uint end = min(begin + per, count);
    SCAN_T own = 0;
    for (uint i = begin; i < end; ++i) {
        own += sums[i];
    }
    SCAN_T offset = group_scan(tile, lid, own);
    for (uint i = begin; i < end; ++i) {
        const SCAN_T v = sums[i];
        sums[i] = offset;
        offset += v;
    }
}

// Scans work-group g's chunk of src into dst (they may be one array) from the
// offset sums[g]; `tile` is the kernel's local array. On GPUs tile by tile, each
// tile a work-group scan; on CPU devices, where every barrier of a work-group
// scan is a loop over its work-items, each work-item scans its own contiguous
// slice, placed by one work-group scan of the slices' sums (five times faster
// on PoCL).
DEVICE void scan_chunk(GLOBAL const SCAN_T* src, GLOBAL SCAN_T* dst, GLOBAL const SCAN_T* sums,
                       LOCAL SCAN_T* tile, const uint n, const uint chunk)
{
    const uint lid = LOCAL_ID(0);
    const uint g = GROUP_ID(0);
    const ulong begin = (ulong)g * chunk;
    const ulong limit = min(begin + chunk, (ulong)n);
    SCAN_T carry = begin < limit ? sums[g] : (SCAN_T)0;
#ifdef HARNESS_CPU_DEVICE
    const ulong slice = (limit - begin + GROUP - 1) / GROUP;
    const ulong first = min(begin + lid * slice, limit);
    const ulong last = min(first + slice, limit);
    SCAN_T run = carry + group_scan(tile, lid, slice_sum(src, first, last));
    for (ulong i = first; i < last; i++) {
        const SCAN_T v = src[i];
        dst[i] = run;
        run += v;
    }
#else
    for (ulong base = begin; base < limit; base += GROUP) {
        const ulong i = base + lid;
        const SCAN_T v = i < limit ? src[i] : (SCAN_T)0;
        const SCAN_T before = group_scan(tile, lid, v);
        const SCAN_T total = tile[GROUP - 1];
        BARRIER();
        if (i < limit) {
            dst[i] = carry + before;
        }
        carry += total;
    }
#endif
}

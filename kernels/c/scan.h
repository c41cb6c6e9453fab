// The reduce-then-scan shared by Algorithm_SCAN.c and Basic_INDEXLIST_3LOOP.c,
// planned by harness/suite/scan.py; SCAN_T is the element type.
// scan_reduce: work-group g sums its contiguous chunk [g*chunk, (g+1)*chunk) into sums[g].
// scan_sums: one work-group turns the count chunk sums into their exclusive scan.
// scan_chunk: what scan_apply does: a chunk scanned from offset sums[g].
// On GPUs a work-group's work-items share its chunk, strided by FOR_CHUNK. On
// CPU devices the first work-item of a group takes the whole chunk and the
// others idle: there every stretch between barriers is a loop over the
// work-items, and the chain of dependent adds is what bounds a scan.
#ifndef HARNESS_CPU_DEVICE
#include "chunk.h"
#define SUM_T SCAN_T
#include "group_sum.h"
#endif

#include "group_scan.h"

#ifdef HARNESS_CPU_DEVICE
// The sum of x[first, last) in four running sums, so that no one chain of
// dependent adds bounds it (PoCL: the reduce launch 0.13 ms against 0.46 ms at
// 10^6 doubles).
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

// The exclusive scan of src[begin, limit) into dst (they may be one array) from
// carry, as four interleaved chains, each quarter starting from the sums of
// those before it (PoCL: SCAN 0.32 ms against 0.40 ms for work-items scanning
// slices placed by a work-group scan, at 10^6 doubles).
DEVICE void serial_scan(GLOBAL const SCAN_T* src, GLOBAL SCAN_T* dst, const ulong begin,
                        const ulong limit, const SCAN_T carry)
{
    const ulong q = (limit - begin) / 4;
    const ulong b1 = begin + q, b2 = b1 + q, b3 = b2 + q;
    SCAN_T r0 = carry;
    SCAN_T r1 = r0 + slice_sum(src, begin, b1);
    SCAN_T r2 = r1 + slice_sum(src, b1, b2);
    SCAN_T r3 = r2 + slice_sum(src, b2, b3);
    for (ulong k = 0; k < q; k++) {
        const SCAN_T v0 = src[begin + k], v1 = src[b1 + k], v2 = src[b2 + k], v3 = src[b3 + k];
        dst[begin + k] = r0;
        dst[b1 + k] = r1;
        dst[b2 + k] = r2;
        dst[b3 + k] = r3;
        r0 += v0;
        r1 += v1;
        r2 += v2;
        r3 += v3;
    }
    for (ulong i = b3 + q; i < limit; i++) {
        const SCAN_T v = src[i];
        dst[i] = r3;
        r3 += v;
    }
}
#endif

KERNEL void scan_reduce(GLOBAL const SCAN_T* x, GLOBAL SCAN_T* sums, const uint n, const uint chunk)
{
    const uint g = GROUP_ID(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
#ifdef HARNESS_CPU_DEVICE
    if (LOCAL_ID(0) == 0) {
        sums[g] = slice_sum(x, begin, end);
    }
#else
    SHARED SCAN_T tree[GROUP];
    const uint lid = LOCAL_ID(0);
    SCAN_T sum = 0;
    FOR_CHUNK(i, begin, end) {
        sum += x[i];
    }
    sum = group_sum(tree, lid, sum);
    if (lid == 0) {
        sums[g] = sum;
    }
#endif
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
// tile a work-group scan; on CPU devices the first work-item alone.
DEVICE void scan_chunk(GLOBAL const SCAN_T* src, GLOBAL SCAN_T* dst, GLOBAL const SCAN_T* sums,
                       LOCAL SCAN_T* tile, const uint n, const uint chunk)
{
    const uint g = GROUP_ID(0);
    const ulong begin = (ulong)g * chunk;
    const ulong limit = min(begin + chunk, (ulong)n);
    SCAN_T carry = begin < limit ? sums[g] : (SCAN_T)0;
#ifdef HARNESS_CPU_DEVICE
    if (LOCAL_ID(0) == 0 && begin < limit) {
        serial_scan(src, dst, begin, limit, carry);
    }
#else
    const uint lid = LOCAL_ID(0);
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

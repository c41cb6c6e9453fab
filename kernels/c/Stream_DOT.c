// Stream_DOT: dot += sum(a[i] * b[i]) in two launches.
// dot_partial: work-group g sums the contiguous chunk [g*chunk, (g+1)*chunk)
// into partial[g]; dot_final: one work-group adds the partial sums to dot[0].
// On GPUs neighbouring work-items read neighbouring elements (coalesced); on
// CPU devices each work-item sums its own contiguous slice with four
// accumulators, which a CPU streams and a strided walk would not.

#include "group_sum.h"

KERNEL void dot_partial(GLOBAL const REAL* a, GLOBAL const REAL* b, GLOBAL REAL* partial,
                        const uint n, const uint chunk)
{
    SHARED REAL sums[GROUP];
    const uint lid = LOCAL_ID(0);
    const ulong first = (ulong)GROUP_ID(0) * chunk;
    const ulong last = min(first + chunk, (ulong)n);
#ifdef HARNESS_CPU_DEVICE
    const ulong per = (chunk + GROUP - 1) / GROUP;
    const ulong begin = min(first + lid * per, last);
    const ulong end = min(begin + per, last);
    REAL s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    ulong i = begin;
    for (; i + 4 <= end; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < end; i++) {
        s0 += a[i] * b[i];
    }
    const REAL sum = (s0 + s1) + (s2 + s3);
#else
    REAL sum = 0;
    for (ulong i = first + lid; i < last; i += GROUP) {
        sum += a[i] * b[i];
    }
#endif
    const REAL total = group_sum(sums, lid, sum);
    if (lid == 0) {
        partial[GROUP_ID(0)] = total;
    }
}

KERNEL void dot_final(GLOBAL const REAL* partial, GLOBAL REAL* dot, const uint count)
{
    SHARED REAL sums[GROUP];
    const uint lid = LOCAL_ID(0);
    REAL sum = 0;
    for (uint i = lid; i < count; i += GROUP) {
        sum += partial[i];
    }
    const REAL total = group_sum(sums, lid, sum);
    if (lid == 0) {
        dot[0] += total;
    }
}

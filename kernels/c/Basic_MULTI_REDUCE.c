// Basic_MULTI_REDUCE: values[bins[i]] += data[i] over num_bins bins.
// multi_reduce_clear: zeroes the values, as RAJAPerf resets them every repetition.
// multi_reduce: work-group g walks its chunk [g*chunk, (g+1)*chunk); each work-item
// sums its items while their bin stays the same and adds the sum to values[bin]
// atomically when the bin changes and at its end. RAJAPerf's bins are long runs,
// so a work-item makes one or two atomic adds; random bins make one per item.
// atomic_add_real is the dialect's: native on CUDA, a compare-and-swap loop on OpenCL.
// A GPU without the native add would have each of its many work-items retry
// that loop on one of a few addresses (as PI_ATOMIC did on an H100): there the
// items of the bin the chunk starts in, most of a chunk of such runs, are
// summed across the work-group and added once; other bins' runs as above.
#include "chunk.h"
#if !defined(HARNESS_CPU_DEVICE) && !defined(NATIVE_ATOMIC_ADD_REAL)
#define SUM_FIRST_BIN
#include "group_sum.h"
#endif

KERNEL void multi_reduce_clear(GLOBAL REAL* values, const uint num_bins)
{
    FOR_EACH(b, num_bins) {
        values[b] = 0;
    }
}

KERNEL void multi_reduce(GLOBAL const REAL* data, GLOBAL const int* bins, GLOBAL REAL* values,
                         const uint n, const uint chunk)
{
    const ulong begin = (ulong)GROUP_ID(0) * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
#ifdef SUM_FIRST_BIN
    SHARED REAL tree[GROUP];
    const int first = begin < end ? bins[begin] : -1;
    REAL in_first = 0;
#endif
    int bin = -1;
    REAL sum = 0;
    FOR_CHUNK(i, begin, end) {
        const int b = bins[i];
#ifdef SUM_FIRST_BIN
        if (b == first) {
            in_first += data[i];
            continue;
        }
#endif
        if (b != bin) {
            if (bin >= 0) {
                atomic_add_real(&values[bin], sum);
            }
            bin = b;
            sum = 0;
        }
        sum += data[i];
    }
    if (bin >= 0) {
        atomic_add_real(&values[bin], sum);
    }
#ifdef SUM_FIRST_BIN
    in_first = group_sum(tree, LOCAL_ID(0), in_first);
    if (LOCAL_ID(0) == 0 && first >= 0) {
        atomic_add_real(&values[first], in_first);
    }
#endif
}

// Basic_MULTI_REDUCE: values[bins[i]] += data[i] over num_bins bins.
// multi_reduce_clear: zeroes the values, as RAJAPerf resets them every repetition.
// multi_reduce: work-group g walks its chunk [g*chunk, (g+1)*chunk); each work-item
// sums its items while their bin stays the same and adds the sum to values[bin]
// atomically when the bin changes and at its end. RAJAPerf's bins are long runs,
// so a work-item makes one or two atomic adds; random bins make one per item.
// atomic_add_real is the dialect's: native on CUDA, a compare-and-swap loop on OpenCL.
#include "chunk.h"

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
    int bin = -1;
    REAL sum = 0;
    FOR_CHUNK(i, begin, end) {
        const int b = bins[i];
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
}

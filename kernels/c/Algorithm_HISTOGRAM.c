// Algorithm_HISTOGRAM: counts[bins[i]] += 1 for num_bins (at most GROUP) bins.
// RAJAPerf counts in 64-bit integers; these are 32-bit on every backend (core WGSL has
// no 64-bit atomics), exact because n is a 32-bit count.
// histogram_clear: zeroes the counts, as RAJAPerf resets them every repetition.
// histogram: work-group g counts its chunk [g*chunk, (g+1)*chunk) with local atomics,
// then adds its non-zero counts to the global ones with global atomics.
#include "chunk.h"

KERNEL void histogram_clear(GLOBAL uint* counts, const uint num_bins)
{
    FOR_EACH(b, num_bins) {
        counts[b] = 0;
    }
}

KERNEL void histogram(GLOBAL const int* bins, GLOBAL uint* counts, const uint n, const uint chunk,
                      const uint num_bins)
{
    SHARED uint local_counts[GROUP];
    const uint lid = LOCAL_ID(0);
    const ulong begin = (ulong)GROUP_ID(0) * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    if (lid < num_bins) {
        local_counts[lid] = 0;
    }
    BARRIER();
    FOR_CHUNK(i, begin, end) {
        ATOMIC_INC(&local_counts[bins[i]]);
    }
    BARRIER();
    if (lid < num_bins && local_counts[lid] != 0) {
        ATOMIC_ADD(&counts[lid], local_counts[lid]);
    }
}

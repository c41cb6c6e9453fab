// Algorithm_HISTOGRAM: counts[bins[i]] += 1 for num_bins (at most GROUP) bins.
// RAJAPerf counts in 64-bit integers; these are 32-bit on every backend (core WGSL has
// no 64-bit atomics), exact because n is a 32-bit count.
// histogram_clear: zeroes the counts, as RAJAPerf resets them every repetition.
// histogram: work-group g counts its chunk [g*chunk, (g+1)*chunk) with local atomics,
// then adds its non-zero counts to the global ones with global atomics.
#include "chunk.clh"

__kernel void histogram_clear(__global uint* counts, const uint num_bins)
{
    const size_t b = get_global_id(0);
    if (b < num_bins) {
        counts[b] = 0;
    }
}

__kernel void histogram(__global const int* bins, __global uint* counts, const uint n,
                        const uint chunk, const uint num_bins)
{
    __local uint local_counts[GROUP];
    const uint lid = get_local_id(0);
    const ulong begin = (ulong)get_group_id(0) * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    if (lid < num_bins) {
        local_counts[lid] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    FOR_CHUNK(i, begin, end) {
        atomic_inc(&local_counts[bins[i]]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < num_bins && local_counts[lid] != 0) {
        atomic_add(&counts[lid], local_counts[lid]);
    }
}

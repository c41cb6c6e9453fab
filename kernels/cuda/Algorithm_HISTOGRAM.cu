// Algorithm_HISTOGRAM: counts[bins[i]] += 1 for num_bins (at most GROUP) bins.
// RAJAPerf counts in 64-bit integers; these are 32-bit on every backend (core WGSL has
// no 64-bit atomics), exact because n is a 32-bit count.
// histogram_clear: zeroes the counts, as RAJAPerf resets them every repetition.
// histogram: block g counts its chunk [g*chunk, (g+1)*chunk) with shared-memory
// atomics, then adds its non-zero counts to the global ones with global atomics.

extern "C" __global__ void histogram_clear(unsigned int* counts, const unsigned int num_bins)
{
    const unsigned int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < num_bins) {
        counts[b] = 0;
    }
}

extern "C" __global__ void histogram(const int* bins, unsigned int* counts, const unsigned int n,
                                     const unsigned int chunk, const unsigned int num_bins)
{
    __shared__ unsigned int local_counts[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned long long begin = (unsigned long long)blockIdx.x * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    if (lid < num_bins) {
        local_counts[lid] = 0;
    }
    __syncthreads();
    for (unsigned long long i = begin + lid; i < end; i += GROUP) {
        atomicAdd(&local_counts[bins[i]], 1u);
    }
    __syncthreads();
    if (lid < num_bins && local_counts[lid] != 0) {
        atomicAdd(&counts[lid], local_counts[lid]);
    }
}

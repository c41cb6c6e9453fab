// Basic_INDEXLIST_3LOOP: the indices i with x[i] < 0, listed in order, and their number.
// indexlist_count: counts[i] = 1 where x[i] < 0, else 0.
// scan_reduce, scan_sums, scan_apply: the shared three-launch exclusive scan of
// counts over n + 1 entries, in place (scan.cuh on int counts).
// indexlist_scatter: list[counts[i]] = i where counts[i] != counts[i+1]; len[0] = counts[n].
#include "scan.cuh"

extern "C" __global__ void indexlist_count(const REAL* x, int* counts, const unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        counts[i] = x[i] < 0 ? 1 : 0;
    }
}

extern "C" __global__ void scan_apply(SCAN_T* counts, const SCAN_T* sums, const unsigned int n,
                                      const unsigned int chunk)
{
    scan_chunk(counts, counts, sums, n, chunk);
}

extern "C" __global__ void indexlist_scatter(const int* counts, int* list, int* len,
                                             const unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        len[0] = counts[n];
    }
    if (i < n && counts[i] != counts[i + 1]) {
        list[counts[i]] = (int)i;
    }
}

// Algorithm_SCAN: y[i] = x[0] + ... + x[i-1] (exclusive), reduce-then-scan in three
// launches: scan_reduce, scan_sums (from scan.cuh) and scan_apply.
#include "scan.cuh"

extern "C" __global__ void scan_apply(const SCAN_T* x, SCAN_T* y, const SCAN_T* sums,
                                      const unsigned int n, const unsigned int chunk)
{
    scan_chunk(x, y, sums, n, chunk);
}

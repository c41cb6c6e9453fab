// Algorithm_SCAN: y[i] = x[0] + ... + x[i-1] (exclusive), reduce-then-scan in three
// launches: scan_reduce, scan_sums (from scan.clh) and scan_apply.
#include "scan.clh"

__kernel void scan_apply(__global const SCAN_T* x, __global SCAN_T* y, __global const SCAN_T* sums,
                         const uint n, const uint chunk)
{
    __local SCAN_T tile[GROUP];
    scan_chunk(x, y, sums, tile, n, chunk);
}

// Algorithm_SCAN: y[i] = x[0] + ... + x[i-1] (exclusive), reduce-then-scan in three
// launches: scan_reduce, scan_sums (from scan.h) and scan_apply.
#include "scan.h"

KERNEL void scan_apply(GLOBAL const SCAN_T* x, GLOBAL SCAN_T* y, GLOBAL const SCAN_T* sums,
                       const uint n, const uint chunk)
{
    SHARED SCAN_T tile[GROUP];
    scan_chunk(x, y, sums, tile, n, chunk);
}

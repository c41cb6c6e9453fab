// Polybench_ATAX: tmp = A.x, then y = A^T.tmp, A n x n. The first launch
// gives a work-item a row of A, the second a column, walked down so that
// neighbouring work-items read neighbouring addresses. y starts from 0 (in
// RAJAPerf the first loop zeroes it and the second adds to it). On CPU devices
// a work-item sums CPU_DOTS neighbouring rows (columns) side by side instead
// (dots.h).
#include "matvec_dots.h"

KERNEL void atax_tmp(GLOBAL const REAL* A, GLOBAL const REAL* x, GLOBAL REAL* tmp, const uint n)
{
#ifdef HARNESS_CPU_DEVICE
    FOR_EACH_DOT_BLOCK(i0, n) {
        matvec_dots(tmp, A, x, i0, n, 1, n);
    }
#else
    FOR_EACH(i, n) {
        REAL dot = 0;
        for (size_t j = 0; j < n; ++j) {
            dot += A[j + i * n] * x[j];
        }
        tmp[i] = dot;
    }
#endif
}

KERNEL void atax_y(GLOBAL const REAL* A, GLOBAL const REAL* tmp, GLOBAL REAL* y, const uint n)
{
#ifdef HARNESS_CPU_DEVICE
    FOR_EACH_DOT_BLOCK(j0, n) {
        matvec_dots(y, A, tmp, j0, n, n, 1);
    }
#else
    FOR_EACH(j, n) {
        REAL dot = 0;
        for (size_t i = 0; i < n; ++i) {
            dot += A[j + i * n] * tmp[i];
        }
        y[j] = dot;
    }
#endif
}

// Polybench_MVT: x1 = A.y1, and x2[i] = sum_j A[j][i] * y2[i] (RAJAPerf's body:
// y2 at the column's own index), A n x n. The first launch gives a work-item a
// row of A, the second a column, walked down so that neighbouring work-items
// read neighbouring addresses. On CPU devices a work-item sums CPU_DOTS
// neighbouring rows (columns) side by side instead (dots.h).
#include "matvec_dots.h"

KERNEL void mvt_x1(GLOBAL const REAL* A, GLOBAL const REAL* y1, GLOBAL REAL* x1, const uint n)
{
#ifdef HARNESS_CPU_DEVICE
    FOR_EACH_DOT_BLOCK(i0, n) {
        matvec_dots(x1, A, y1, i0, n, 1, n);
    }
#else
    FOR_EACH(i, n) {
        REAL dot = 0;
        for (size_t j = 0; j < n; ++j) {
            dot += A[j + i * n] * y1[j];
        }
        x1[i] = dot;
    }
#endif
}

KERNEL void mvt_x2(GLOBAL const REAL* A, GLOBAL const REAL* y2, GLOBAL REAL* x2, const uint n)
{
#ifdef HARNESS_CPU_DEVICE
    FOR_EACH_DOT_BLOCK(i0, n) {
        REAL y[CPU_DOTS];
        REAL dot[CPU_DOTS];
        EACH_DOT(c) {
            y[c] = y2[dot_index(i0, c, n)];
            dot[c] = 0;
        }
        for (size_t j = 0; j < n; ++j) {
            EACH_DOT(c) {
                dot[c] += A[dot_index(i0, c, n) + j * n] * y[c];
            }
        }
        store_dots(x2, dot, i0, n);
    }
#else
    FOR_EACH(i, n) {
        const REAL y = y2[i];
        REAL dot = 0;
        for (size_t j = 0; j < n; ++j) {
            dot += A[i + j * n] * y;
        }
        x2[i] = dot;
    }
#endif
}

// Polybench_2MM: tmp = alpha * A.B (ni x nj), then D = beta + tmp.C (ni x nl).
// Each launch is 2-D, a work-item per output element, as RAJAPerf's GPU
// variant: axis 0 is the column (along a row), axis 1 the row; every
// work-item sums its terms in order. On CPU devices work-item (col, r) computes
// rows r * CPU_ROWS onwards of its column instead, and the others have none.
#include "product_rows.h"

KERNEL void mm2_tmp(GLOBAL REAL* tmp, GLOBAL const REAL* A, GLOBAL const REAL* B, const REAL alpha,
                    const uint ni, const uint nj, const uint nk)
{
#ifdef HARNESS_CPU_DEVICE
    product_rows(tmp, A, B, alpha, 0, ni, nj, nk, GLOBAL_ID(0), GLOBAL_ID(1) * CPU_ROWS);
#else
    const size_t j = GLOBAL_ID(0);
    const size_t i = GLOBAL_ID(1);
    if (i >= ni || j >= nj) {
        return;
    }
    REAL dot = 0;
    for (size_t k = 0; k < nk; ++k) {
        dot += alpha * A[k + i * nk] * B[j + k * nj];
    }
    tmp[j + i * nj] = dot;
#endif
}

KERNEL void mm2_d(GLOBAL REAL* D, GLOBAL const REAL* tmp, GLOBAL const REAL* C, const REAL beta,
                  const uint ni, const uint nj, const uint nl)
{
#ifdef HARNESS_CPU_DEVICE
    product_rows(D, tmp, C, 1, beta, ni, nl, nj, GLOBAL_ID(0), GLOBAL_ID(1) * CPU_ROWS);
#else
    const size_t l = GLOBAL_ID(0);
    const size_t i = GLOBAL_ID(1);
    if (i >= ni || l >= nl) {
        return;
    }
    REAL dot = beta;
    for (size_t j = 0; j < nj; ++j) {
        dot += tmp[j + i * nj] * C[l + j * nl];
    }
    D[l + i * nl] = dot;
#endif
}

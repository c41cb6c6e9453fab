// Polybench_3MM: E = A.B (ni x nj), F = C.D (nj x nl), then G = E.F (ni x nl).
// Each launch is 2-D, a work-item per output element, as RAJAPerf's GPU
// variant: axis 0 is the column (along a row), axis 1 the row; every
// work-item sums its terms in order. On CPU devices work-item (col, r) computes
// rows r * CPU_ROWS onwards of its column instead, and the others have none.
#include "product_rows.h"

KERNEL void mm3_e(GLOBAL REAL* E, GLOBAL const REAL* A, GLOBAL const REAL* B, const uint ni,
                  const uint nj, const uint nk)
{
#ifdef HARNESS_CPU_DEVICE
    product_rows(E, A, B, 1, 0, ni, nj, nk, GLOBAL_ID(0), GLOBAL_ID(1) * CPU_ROWS);
#else
    const size_t j = GLOBAL_ID(0);
    const size_t i = GLOBAL_ID(1);
    if (i >= ni || j >= nj) {
        return;
    }
    REAL dot = 0;
    for (size_t k = 0; k < nk; ++k) {
        dot += A[k + i * nk] * B[j + k * nj];
    }
    E[j + i * nj] = dot;
#endif
}

KERNEL void mm3_f(GLOBAL REAL* F, GLOBAL const REAL* C, GLOBAL const REAL* D, const uint nj,
                  const uint nl, const uint nm)
{
#ifdef HARNESS_CPU_DEVICE
    product_rows(F, C, D, 1, 0, nj, nl, nm, GLOBAL_ID(0), GLOBAL_ID(1) * CPU_ROWS);
#else
    const size_t l = GLOBAL_ID(0);
    const size_t j = GLOBAL_ID(1);
    if (j >= nj || l >= nl) {
        return;
    }
    REAL dot = 0;
    for (size_t m = 0; m < nm; ++m) {
        dot += C[m + j * nm] * D[l + m * nl];
    }
    F[l + j * nl] = dot;
#endif
}

KERNEL void mm3_g(GLOBAL REAL* G, GLOBAL const REAL* E, GLOBAL const REAL* F, const uint ni,
                  const uint nj, const uint nl)
{
#ifdef HARNESS_CPU_DEVICE
    product_rows(G, E, F, 1, 0, ni, nl, nj, GLOBAL_ID(0), GLOBAL_ID(1) * CPU_ROWS);
#else
    const size_t l = GLOBAL_ID(0);
    const size_t i = GLOBAL_ID(1);
    if (i >= ni || l >= nl) {
        return;
    }
    REAL dot = 0;
    for (size_t j = 0; j < nj; ++j) {
        dot += E[j + i * nj] * F[l + j * nl];
    }
    G[l + i * nl] = dot;
#endif
}

// Polybench_GEMM: C[i][j] = sum_k alpha * A[i][k] * B[k][j]. As in RAJAPerf,
// C is first scaled by beta and then overwritten, so beta has no effect.
// Each work-group computes one TILE x TILE block of C; every work-item sums its
// k terms in order 0..nk-1.

#include "product_rows.h"

#ifdef HARNESS_CPU_DEVICE
// CPU devices pay for every barrier, so local tiles only cost: a work-group's
// first TILE * TILE / CPU_ROWS work-items each compute CPU_ROWS rows of one
// column of its tile. C is only written: scaling it by beta first would change
// nothing.
KERNEL void gemm(GLOBAL REAL* C, GLOBAL const REAL* A, GLOBAL const REAL* B, const REAL alpha,
                 const REAL beta, const uint ni, const uint nj, const uint nk)
{
    const uint lid = LOCAL_ID(0);
    const uint tiles_j = (nj + TILE - 1) / TILE;
    const size_t g = GROUP_ID(0);
    const uint block = lid / TILE;
    if (block < TILE / CPU_ROWS) {
        const size_t j = (g % tiles_j) * TILE + lid % TILE;
        const size_t i0 = (g / tiles_j) * TILE + block * CPU_ROWS;
        product_rows(C, A, B, alpha, 0, ni, nj, nk, j, i0);
    }
}
#else
KERNEL void gemm(GLOBAL REAL* C, GLOBAL const REAL* A, GLOBAL const REAL* B, const REAL alpha,
                 const REAL beta, const uint ni, const uint nj, const uint nk)
{
    SHARED REAL a_tile[TILE][TILE];
    SHARED REAL b_tile[TILE][TILE];
    const uint lid = LOCAL_ID(0);
    const uint li = lid / TILE;
    const uint lj = lid % TILE;
    const uint tiles_j = (nj + TILE - 1) / TILE;
    const size_t g = GROUP_ID(0);
    const size_t i = (g / tiles_j) * TILE + li;
    const size_t j = (g % tiles_j) * TILE + lj;
    const bool inside = i < ni && j < nj;
    if (inside) {
        C[j + i * nj] *= beta;
    }
    REAL dot = 0;
    for (uint k0 = 0; k0 < nk; k0 += TILE) {
        a_tile[li][lj] = (i < ni && k0 + lj < nk) ? A[k0 + lj + i * nk] : (REAL)0;
        b_tile[li][lj] = (k0 + li < nk && j < nj) ? B[j + (k0 + li) * (size_t)nj] : (REAL)0;
        BARRIER();
        for (uint k = 0; k < TILE; ++k) {
            dot += alpha * a_tile[li][k] * b_tile[k][lj];
        }
        BARRIER();
    }
    if (inside) {
        C[j + i * nj] = dot;
    }
}
#endif

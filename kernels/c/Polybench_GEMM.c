// Polybench_GEMM: C[i][j] = sum_k alpha * A[i][k] * B[k][j]. As in RAJAPerf,
// C is first scaled by beta and then overwritten, so beta has no effect.
// Each work-group computes one TILE x TILE block of C, staging tiles of A and
// B in local memory; every work-item sums its k terms in order 0..nk-1.

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

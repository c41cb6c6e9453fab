// Polybench_GEMM: C[i][j] = sum_k alpha * A[i][k] * B[k][j]. As in RAJAPerf,
// C is first scaled by beta and then overwritten, so beta has no effect.
// Each work-group computes one TILE x TILE block of C; every work-item sums its
// k terms in order 0..nk-1.

#ifdef HARNESS_CPU_DEVICE
// CPU devices vectorise across neighbouring work-items and pay for every
// barrier, so local tiles only cost: TILE * TILE / CPU_ROWS work-items each
// compute CPU_ROWS rows of one column, reusing each B[k][j] from a register
// (PoCL: 0.22 s against the tiles' 0.69 s at the default size). C is only
// written: scaling it by beta first would change nothing.
KERNEL void gemm(GLOBAL REAL* C, GLOBAL const REAL* A, GLOBAL const REAL* B, const REAL alpha,
                 const REAL beta, const uint ni, const uint nj, const uint nk)
{
    const uint lid = LOCAL_ID(0);
    const uint tiles_j = (nj + TILE - 1) / TILE;
    const size_t g = GROUP_ID(0);
    const uint block = lid / TILE;
    const size_t j = (g % tiles_j) * TILE + lid % TILE;
    const size_t i0 = (g / tiles_j) * TILE + block * CPU_ROWS;
    if (block >= TILE / CPU_ROWS || j >= nj || i0 >= ni) {
        return;
    }
    // Rows past the end repeat the last one, whose sums are not stored.
    const size_t last = ni - 1;
    REAL dot[CPU_ROWS] = {0};
    for (uint k = 0; k < nk; ++k) {
        const REAL b = B[j + k * (size_t)nj];
        UNROLL
        for (int r = 0; r < CPU_ROWS; ++r) {
            dot[r] += alpha * A[k + min(i0 + r, last) * nk] * b;
        }
    }
    UNROLL
    for (int r = 0; r < CPU_ROWS; ++r) {
        if (i0 + r < ni) {
            C[j + (i0 + r) * nj] = dot[r];
        }
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

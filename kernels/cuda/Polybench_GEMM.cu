// Polybench_GEMM: C[i][j] = sum_k alpha * A[i][k] * B[k][j]. As in RAJAPerf,
// C is first scaled by beta and then overwritten, so beta has no effect.
// Each block of 256 threads computes one TILE x TILE block of C, staging tiles
// of A and B in shared memory; every thread sums its k terms in order 0..nk-1.
#define TILE 16

extern "C" __global__ void gemm(REAL* C, const REAL* A, const REAL* B, const REAL alpha,
                                const REAL beta, const unsigned int ni, const unsigned int nj,
                                const unsigned int nk)
{
    __shared__ REAL a_tile[TILE][TILE];
    __shared__ REAL b_tile[TILE][TILE];
    const unsigned int lid = threadIdx.x;
    const unsigned int li = lid / TILE;
    const unsigned int lj = lid % TILE;
    const unsigned int tiles_j = (nj + TILE - 1) / TILE;
    const size_t g = blockIdx.x;
    const size_t i = (g / tiles_j) * TILE + li;
    const size_t j = (g % tiles_j) * TILE + lj;
    const bool inside = i < ni && j < nj;
    if (inside) {
        C[j + i * nj] *= beta;
    }
    REAL dot = 0;
    for (unsigned int k0 = 0; k0 < nk; k0 += TILE) {
        a_tile[li][lj] = (i < ni && k0 + lj < nk) ? A[k0 + lj + i * nk] : (REAL)0;
        b_tile[li][lj] = (k0 + li < nk && j < nj) ? B[j + (k0 + li) * (size_t)nj] : (REAL)0;
        __syncthreads();
        for (unsigned int k = 0; k < TILE; ++k) {
            dot += alpha * a_tile[li][k] * b_tile[k][lj];
        }
        __syncthreads();
    }
    if (inside) {
        C[j + i * nj] = dot;
    }
}

// Basic_MAT_MAT_SHARED: C = A.B for N x N matrices, through TL_SZ x TL_SZ tiles of A
// and B staged in local memory, zero past the edges; every element sums its terms in
// k order, as RAJAPerf's tiles do. A work-group computes GROUP / TL_SZ of RAJAPerf's
// C tiles side by side (a TL_SZ x GROUP strip), work-item tx one column of it, its
// TL_SZ rows in registers: the loop over ty runs inside the work-item, as in
// RAJAPerf's sequential variants, so the products vectorise across work-items.
KERNEL void mat_mat_shared(GLOBAL const REAL* A, GLOBAL const REAL* B, GLOBAL REAL* C, const uint N)
{
    SHARED REAL Bs[TL_SZ][GROUP];
    SHARED REAL As[TL_SZ][TL_SZ];
    const uint tx = LOCAL_ID(0);
    const uint strips = (N + GROUP - 1) / GROUP;
    const size_t by = GROUP_ID(0) / strips;
    const size_t Col = (GROUP_ID(0) % strips) * GROUP + tx;
    // Where this work-item loads its element of the A tile.
    const uint ay = tx / TL_SZ;
    const uint ax = tx % TL_SZ;
    const size_t Row = by * TL_SZ + ay;
    REAL Cs[TL_SZ] = {0};
    for (uint k = 0; k < (N + TL_SZ - 1) / TL_SZ; ++k) {
        As[ay][ax] = (k * TL_SZ + ax < N && Row < N) ? A[Row * N + k * TL_SZ + ax] : (REAL)0;
        for (uint ty = 0; ty < TL_SZ; ++ty) {
            Bs[ty][tx] = (k * TL_SZ + ty < N && Col < N) ? B[(k * TL_SZ + ty) * N + Col] : (REAL)0;
        }
        BARRIER();
        for (uint n = 0; n < TL_SZ; ++n) {
            const REAL b = Bs[n][tx];
            for (uint ty = 0; ty < TL_SZ; ++ty) {
                Cs[ty] += As[ty][n] * b;
            }
        }
        BARRIER();
    }
    for (uint ty = 0; ty < TL_SZ; ++ty) {
        if (by * TL_SZ + ty < N && Col < N) {
            C[Col + N * (by * TL_SZ + ty)] = Cs[ty];
        }
    }
}

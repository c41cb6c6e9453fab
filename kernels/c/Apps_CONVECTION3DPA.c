// Apps_CONVECTION3DPA: Y += Bt^3 (D . grad(B^3 X)), MFEM's 3-D convection operator on each
// element by sum factorisation. A Q1D^3 work-group per element (e from the 2-D grid of
// groups) runs RAJAPerf's eight stages, a contraction along one axis each, through the
// shared arrays sm0..sm5 as RAJAPerf reuses them, a barrier between stages. They are
// MDQ^3 arrays indexed [z][y][x]; a stage's work-item (tx, ty, tz) computes the entry its
// local ids index, those past D1D idle. Stage 7 writes sm1, which stage 4 filled, rather
// than sm5, whose padding is never written, so that every cell past D1D holds a value.
// B(q, d) = Basis[q + Q1D*d], G likewise from dBasis, Bt(d, q) = tBasis[d + D1D*q].
#include "mfem.h"

KERNEL void convection3dpa(GLOBAL const REAL* Basis, GLOBAL const REAL* tBasis,
                           GLOBAL const REAL* dBasis, GLOBAL const REAL* D, GLOBAL const REAL* X,
                           GLOBAL REAL* Y, const uint NE)
{
    SHARED REAL sm0[MDQ][MDQ][MDQ];
    SHARED REAL sm1[MDQ][MDQ][MDQ];
    SHARED REAL sm2[MDQ][MDQ][MDQ];
    SHARED REAL sm3[MDQ][MDQ][MDQ];
    SHARED REAL sm4[MDQ][MDQ][MDQ];
    SHARED REAL sm5[MDQ][MDQ][MDQ];
    const size_t g = mfem_group();
    const size_t e = g % NE;
    const uint tx = LOCAL_ID(0);
    const uint ty = LOCAL_ID(1);
    const uint tz = LOCAL_ID(2);

    // 1. u[dz][dy][dx] = X of the element (sm0), work-item t loading dof t.
    const uint t = tx + Q1D * (ty + Q1D * tz);
    if (t < D1D * D1D * D1D) {
        sm0[t / (D1D * D1D)][t / D1D % D1D][t % D1D] = X[D1D * D1D * D1D * e + t];
    }
    BARRIER();
    // 2. Bu, Gu[dz][dy][qx] (sm1, sm2): contract dx with B and G.
    if (tz < D1D && ty < D1D) {
        REAL Bu = 0;
        REAL Gu = 0;
        for (uint dx = 0; dx < D1D; ++dx) {
            const REAL x = sm0[tz][ty][dx];
            Bu += Basis[tx + Q1D * dx] * x;
            Gu += dBasis[tx + Q1D * dx] * x;
        }
        sm1[tz][ty][tx] = Bu;
        sm2[tz][ty][tx] = Gu;
    }
    BARRIER();
    // 3. BBu, GBu, BGu[dz][qy][qx] (sm3, sm4, sm5): contract dy.
    if (tz < D1D) {
        REAL BBu = 0;
        REAL GBu = 0;
        REAL BGu = 0;
        for (uint dy = 0; dy < D1D; ++dy) {
            const REAL b = Basis[ty + Q1D * dy];
            const REAL g = dBasis[ty + Q1D * dy];
            BBu += b * sm1[tz][dy][tx];
            GBu += g * sm1[tz][dy][tx];
            BGu += b * sm2[tz][dy][tx];
        }
        sm3[tz][ty][tx] = BBu;
        sm4[tz][ty][tx] = GBu;
        sm5[tz][ty][tx] = BGu;
    }
    BARRIER();
    // 4. GBBu, BGBu, BBGu[qz][qy][qx] (sm0, sm1, sm2): contract dz.
    {
        REAL GBBu = 0;
        REAL BGBu = 0;
        REAL BBGu = 0;
        for (uint dz = 0; dz < D1D; ++dz) {
            const REAL b = Basis[tz + Q1D * dz];
            const REAL g = dBasis[tz + Q1D * dz];
            GBBu += g * sm3[dz][ty][tx];
            BGBu += b * sm4[dz][ty][tx];
            BBGu += b * sm5[dz][ty][tx];
        }
        sm0[tz][ty][tx] = GBBu;
        sm1[tz][ty][tx] = BGBu;
        sm2[tz][ty][tx] = BBGu;
    }
    BARRIER();
    // 5. DGu[qz][qy][qx] (sm3): the velocity D at the point dotted with the gradient.
    {
        const size_t op = tx + Q1D * (ty + Q1D * (tz + Q1D * VDIM * e));
        sm3[tz][ty][tx] = D[op] * sm2[tz][ty][tx] + D[op + Q1D * Q1D * Q1D] * sm1[tz][ty][tx] +
                          D[op + 2 * Q1D * Q1D * Q1D] * sm0[tz][ty][tx];
    }
    BARRIER();
    // 6. BDGu[dz][qy][qx] (sm4): contract qz with Bt.
    if (tz < D1D) {
        REAL BDGu = 0;
        for (uint qz = 0; qz < Q1D; ++qz) {
            BDGu += tBasis[tz + D1D * qz] * sm3[qz][ty][tx];
        }
        sm4[tz][ty][tx] = BDGu;
    }
    BARRIER();
    // 7. BBDGu[dz][dy][qx] (sm1, where RAJAPerf uses sm5): contract qy with Bt.
    if (tz < D1D && ty < D1D) {
        REAL BBDGu = 0;
        for (uint qy = 0; qy < Q1D; ++qy) {
            BBDGu += tBasis[ty + D1D * qy] * sm4[tz][qy][tx];
        }
        sm1[tz][ty][tx] = BBDGu;
    }
    BARRIER();
    // 8. Y[dz][dy][dx] += the contraction of qx with Bt.
    if (g < NE && tz < D1D && ty < D1D && tx < D1D) {
        REAL BBBDGu = 0;
        for (uint qx = 0; qx < Q1D; ++qx) {
            BBBDGu += tBasis[tx + D1D * qx] * sm1[tz][ty][qx];
        }
        Y[tx + D1D * (ty + D1D * (tz + D1D * e))] += BBBDGu;
    }
}

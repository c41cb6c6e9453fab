// Apps_DIFFUSION3DPA: Y += G^T D G X, MFEM's 3-D diffusion operator on each element by sum
// factorisation, D a symmetric 3 x 3 per quadrature point (O11, O12, O13, O22, O23, O33).
// A Q1D^3 work-group per element (e from the 2-D grid of groups) runs RAJAPerf's stages, a
// contraction along one axis each, through the shared arrays sm00..sm12 (RAJAPerf's
// sm0[0..2] and sm1[0..2]) as RAJAPerf reuses them, a barrier between stages. They are
// MDQ^3 arrays indexed [z][y][x]; a stage's work-item (tx, ty, tz) computes the entries its
// local ids index, those past D1D idle. RAJAPerf's B, G, Bt and Gt share one shared array
// that holds dBasis after each load (G's store follows B's to the same place): all four are
// read here from dBasis, B(q, d) = G(q, d) = Bt(d, q) = Gt(d, q) = dBasis[q + Q1D*d];
// Basis, whose values are never used, is not passed.
#include "mfem.h"

KERNEL void diffusion3dpa(GLOBAL const REAL* dBasis, GLOBAL const REAL* D, GLOBAL const REAL* X,
                          GLOBAL REAL* Y, const uint NE)
{
    SHARED REAL sm00[MDQ][MDQ][MDQ];
    SHARED REAL sm01[MDQ][MDQ][MDQ];
    SHARED REAL sm02[MDQ][MDQ][MDQ];
    SHARED REAL sm10[MDQ][MDQ][MDQ];
    SHARED REAL sm11[MDQ][MDQ][MDQ];
    SHARED REAL sm12[MDQ][MDQ][MDQ];
    const size_t g = mfem_group();
    const size_t e = g % NE;
    const uint tx = LOCAL_ID(0);
    const uint ty = LOCAL_ID(1);
    const uint tz = LOCAL_ID(2);

    // 1. s_X[dz][dy][dx] = X of the element (sm02), work-item t loading dof t.
    const uint t = tx + Q1D * (ty + Q1D * tz);
    if (t < D1D * D1D * D1D) {
        sm02[t / (D1D * D1D)][t / D1D % D1D][t % D1D] = X[D1D * D1D * D1D * e + t];
    }
    BARRIER();
    // 3. DDQ0, DDQ1[dz][dy][qx] (sm00, sm01): contract dx with B and G.
    if (tz < D1D && ty < D1D) {
        REAL u = 0;
        REAL v = 0;
        for (uint dx = 0; dx < D1D; ++dx) {
            const REAL coords = sm02[tz][ty][dx];
            u += coords * dBasis[tx + Q1D * dx];
            v += coords * dBasis[tx + Q1D * dx];
        }
        sm00[tz][ty][tx] = u;
        sm01[tz][ty][tx] = v;
    }
    BARRIER();
    // 4. DQQ0, DQQ1, DQQ2[dz][qy][qx] (sm10, sm11, sm12): contract dy.
    if (tz < D1D) {
        REAL u = 0;
        REAL v = 0;
        REAL w = 0;
        for (uint dy = 0; dy < D1D; ++dy) {
            const REAL b = dBasis[ty + Q1D * dy];
            u += sm01[tz][dy][tx] * b;
            v += sm00[tz][dy][tx] * b;
            w += sm00[tz][dy][tx] * b;
        }
        sm10[tz][ty][tx] = u;
        sm11[tz][ty][tx] = v;
        sm12[tz][ty][tx] = w;
    }
    BARRIER();
    // 5. QQQ0, QQQ1, QQQ2[qz][qy][qx] (sm00, sm01, sm02): contract dz; D times the gradient.
    {
        REAL u = 0;
        REAL v = 0;
        REAL w = 0;
        for (uint dz = 0; dz < D1D; ++dz) {
            const REAL b = dBasis[tz + Q1D * dz];
            u += sm10[dz][ty][tx] * b;
            v += sm11[dz][ty][tx] * b;
            w += sm12[dz][ty][tx] * b;
        }
        const uint points = Q1D * Q1D * Q1D;
        const size_t d = tx + Q1D * (ty + Q1D * tz) + points * DPA_SYM * e;
        const REAL O11 = D[d];
        const REAL O12 = D[d + points];
        const REAL O13 = D[d + 2 * points];
        const REAL O22 = D[d + 3 * points];
        const REAL O23 = D[d + 4 * points];
        const REAL O33 = D[d + 5 * points];
        sm00[tz][ty][tx] = (O11 * u) + (O12 * v) + (O13 * w);
        sm01[tz][ty][tx] = (O12 * u) + (O22 * v) + (O23 * w);
        sm02[tz][ty][tx] = (O13 * u) + (O23 * v) + (O33 * w);
    }
    BARRIER();
    // 7. QQD0, QQD1, QQD2[qz][qy][dx] (sm10, sm11, sm12): contract qx with Gt and Bt.
    if (tx < D1D) {
        REAL u = 0;
        REAL v = 0;
        REAL w = 0;
        for (uint qx = 0; qx < Q1D; ++qx) {
            const REAL bt = dBasis[qx + Q1D * tx];
            u += sm00[tz][ty][qx] * bt;
            v += sm01[tz][ty][qx] * bt;
            w += sm02[tz][ty][qx] * bt;
        }
        sm10[tz][ty][tx] = u;
        sm11[tz][ty][tx] = v;
        sm12[tz][ty][tx] = w;
    }
    BARRIER();
    // 8. QDD0, QDD1, QDD2[qz][dy][dx] (sm00, sm01, sm02): contract qy.
    if (ty < D1D && tx < D1D) {
        REAL u = 0;
        REAL v = 0;
        REAL w = 0;
        for (uint qy = 0; qy < Q1D; ++qy) {
            const REAL bt = dBasis[qy + Q1D * ty];
            u += sm10[tz][qy][tx] * bt;
            v += sm11[tz][qy][tx] * bt;
            w += sm12[tz][qy][tx] * bt;
        }
        sm00[tz][ty][tx] = u;
        sm01[tz][ty][tx] = v;
        sm02[tz][ty][tx] = w;
    }
    BARRIER();
    // 9. Y[dz][dy][dx] += the contraction of qz, the three parts summed.
    if (g < NE && tz < D1D && ty < D1D && tx < D1D) {
        REAL u = 0;
        REAL v = 0;
        REAL w = 0;
        for (uint qz = 0; qz < Q1D; ++qz) {
            const REAL bt = dBasis[qz + Q1D * tz];
            u += sm00[qz][ty][tx] * bt;
            v += sm01[qz][ty][tx] * bt;
            w += sm02[qz][ty][tx] * bt;
        }
        Y[tx + D1D * (ty + D1D * (tz + D1D * e))] += (u + v + w);
    }
}

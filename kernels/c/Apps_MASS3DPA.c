// Apps_MASS3DPA: Y += Bt D B X, MFEM's 3-D mass operator on each element by sum factorisation.
// A Q1D x Q1D work-group per element (e from the 2-D grid of groups) runs RAJAPerf's stages, a
// contraction along one axis each: work-item (tx, ty) computes the entries its two indices
// select, looping over the third axis, those past D1D idle. Bt is read as RAJAPerf reads it,
// Bt(q, d) = Bt[q + D1D*d]. B and Bt are staged together, and stages 5 and 9 read only what
// the same work-item wrote in stages 4 and 8, so of RAJAPerf's eight barriers five remain.
#include "mfem.h"

// The shared arrays, in an order where an index run past an array's end (a bug) reads or
// spoils data still in use, so that the check sees it: QDD is followed by DDQ, DDQ by Bs, QQD
// by Bts and Bts by Xs.
typedef struct {
    REAL QDD[Q1D][D1D][D1D];
    REAL DDQ[D1D][D1D][Q1D];
    REAL Bs[Q1D][D1D];
    REAL DQQ[D1D][Q1D][Q1D];
    REAL QQQ[Q1D][Q1D][Q1D];
    REAL QQD[Q1D][Q1D][D1D];
    REAL Bts[D1D][Q1D];
    REAL Xs[D1D][D1D][D1D];
} Mass3dpaShared;

KERNEL void mass3dpa(GLOBAL const REAL* B, GLOBAL const REAL* Bt, GLOBAL const REAL* D,
                     GLOBAL const REAL* X, GLOBAL REAL* Y, const uint NE)
{
    SHARED Mass3dpaShared sm;
    const uint g = mfem_group();
    const uint e = g % NE;
    const uint tx = LOCAL_ID(0);
    const uint ty = LOCAL_ID(1);

    // 1, 2, 6. The element's X, and both bases.
    if (ty < D1D) {
        if (tx < D1D) {
            for (uint dz = 0; dz < D1D; ++dz) {
                sm.Xs[dz][ty][tx] = X[tx + D1D * (ty + D1D * (dz + D1D * e))];
            }
        }
        sm.Bs[tx][ty] = B[tx + Q1D * ty];
        sm.Bts[ty][tx] = Bt[tx + D1D * ty];
    }
    BARRIER();
    // 3. DDQ[dz][dy][qx]: contract dx.
    if (ty < D1D) {
        for (uint dz = 0; dz < D1D; ++dz) {
            REAL u = 0;
            for (uint dx = 0; dx < D1D; ++dx) {
                u += sm.Xs[dz][ty][dx] * sm.Bs[tx][dx];
            }
            sm.DDQ[dz][ty][tx] = u;
        }
    }
    BARRIER();
    // 4. DQQ[dz][qy][qx]: contract dy.
    for (uint dz = 0; dz < D1D; ++dz) {
        REAL u = 0;
        for (uint dy = 0; dy < D1D; ++dy) {
            u += sm.DDQ[dz][dy][tx] * sm.Bs[ty][dy];
        }
        sm.DQQ[dz][ty][tx] = u;
    }
    // 5. QQQ[qz][qy][qx]: contract dz, times D at the point.
    for (uint qz = 0; qz < Q1D; ++qz) {
        REAL u = 0;
        for (uint dz = 0; dz < D1D; ++dz) {
            u += sm.DQQ[dz][ty][tx] * sm.Bs[qz][dz];
        }
        sm.QQQ[qz][ty][tx] = u * D[tx + Q1D * (ty + Q1D * (qz + Q1D * e))];
    }
    BARRIER();
    // 7. QQD[qz][qy][dx]: contract qx with Bt.
    if (tx < D1D) {
        for (uint qz = 0; qz < Q1D; ++qz) {
            REAL u = 0;
            for (uint qx = 0; qx < Q1D; ++qx) {
                u += sm.QQQ[qz][ty][qx] * sm.Bts[tx][qx];
            }
            sm.QQD[qz][ty][tx] = u;
        }
    }
    BARRIER();
    if (g < NE && ty < D1D && tx < D1D) {
        // 8. QDD[qz][dy][dx]: contract qy.
        for (uint qz = 0; qz < Q1D; ++qz) {
            REAL u = 0;
            for (uint qy = 0; qy < Q1D; ++qy) {
                u += sm.QQD[qz][qy][tx] * sm.Bts[ty][qy];
            }
            sm.QDD[qz][ty][tx] = u;
        }
        // 9. Y[dz][dy][dx] += the contraction of qz.
        for (uint dz = 0; dz < D1D; ++dz) {
            REAL u = 0;
            for (uint qz = 0; qz < Q1D; ++qz) {
                u += sm.QDD[qz][ty][tx] * sm.Bts[dz][qz];
            }
            Y[tx + D1D * (ty + D1D * (dz + D1D * e))] += u;
        }
    }
}

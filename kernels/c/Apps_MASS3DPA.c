// Apps_MASS3DPA: Y += Bt D B X, MFEM's 3-D mass operator on each element by sum factorisation.
// A Q1D x Q1D work-group per element (e from the 2-D grid of groups) runs RAJAPerf's stages, a
// contraction along one axis each: work-item (tx, ty) computes the entries its two indices
// select along the third axis, side by side in registers as RAJAPerf's u[] arrays, those past
// D1D idle. Bt is read as RAJAPerf reads it, Bt(q, d) = Bt[q + D1D*d]. B and Bt are staged
// together, and stages 5 and 9 take what the same work-item computed in stages 4 and 8 from
// its registers, so of RAJAPerf's eight barriers four remain.
#include "mfem.h"

// The shared arrays, in an order where an index run past an array's end (a bug) reads or
// spoils data still in use, so that the check sees it: DDQ is followed by Bs, Bs by QQQ, QQQ
// by QQD, QQD by Bts and Bts by Xs.
typedef struct {
    REAL DDQ[D1D][D1D][Q1D];
    REAL Bs[Q1D][D1D];
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
    if (ty < D1D && tx < D1D) {
        EACH_D(dz) {
            sm.Xs[dz][ty][tx] = X[tx + D1D * (ty + D1D * (dz + D1D * e))];
        }
    }
    if (ty < D1D) {
        sm.Bs[tx][ty] = B[tx + Q1D * ty];
        sm.Bts[ty][tx] = Bt[tx + D1D * ty];
    }
    BARRIER();
    // Each stage keeps RAJAPerf's registers: the entries along the third axis side by side,
    // the contracted index outermost, so that no sum waits on another.
    // 3. DDQ[dz][dy][qx]: contract dx.
    if (ty < D1D) {
        REAL u[D1D];
        EACH_D(dz) {
            u[dz] = 0;
        }
        EACH_D(dx) {
            const REAL b = sm.Bs[tx][dx];
            EACH_D(dz) {
                u[dz] += sm.Xs[dz][ty][dx] * b;
            }
        }
        EACH_D(dz) {
            sm.DDQ[dz][ty][tx] = u[dz];
        }
    }
    BARRIER();
    {
        // 4. DQQ[dz][qy][qx]: contract dy.
        REAL u[D1D];
        EACH_D(dz) {
            u[dz] = 0;
        }
        EACH_D(dy) {
            const REAL b = sm.Bs[ty][dy];
            EACH_D(dz) {
                u[dz] += sm.DDQ[dz][dy][tx] * b;
            }
        }
        // 5. QQQ[qz][qy][qx]: contract dz (the entries of stage 4), times D at the point.
        REAL v[Q1D];
        EACH_Q(qz) {
            v[qz] = 0;
        }
        EACH_D(dz) {
            EACH_Q(qz) {
                v[qz] += u[dz] * sm.Bs[qz][dz];
            }
        }
        EACH_Q(qz) {
            sm.QQQ[qz][ty][tx] = v[qz] * D[tx + Q1D * (ty + Q1D * (qz + Q1D * e))];
        }
    }
    BARRIER();
    // 7. QQD[qz][qy][dx]: contract qx with Bt.
    if (tx < D1D) {
        REAL u[Q1D];
        EACH_Q(qz) {
            u[qz] = 0;
        }
        EACH_Q(qx) {
            const REAL b = sm.Bts[tx][qx];
            EACH_Q(qz) {
                u[qz] += sm.QQQ[qz][ty][qx] * b;
            }
        }
        EACH_Q(qz) {
            sm.QQD[qz][ty][tx] = u[qz];
        }
    }
    BARRIER();
    if (g < NE && ty < D1D && tx < D1D) {
        // 8. QDD[qz][dy][dx]: contract qy.
        REAL u[Q1D];
        EACH_Q(qz) {
            u[qz] = 0;
        }
        EACH_Q(qy) {
            const REAL b = sm.Bts[ty][qy];
            EACH_Q(qz) {
                u[qz] += sm.QQD[qz][qy][tx] * b;
            }
        }
        // 9. Y[dz][dy][dx] += the contraction of qz (the entries of stage 8).
        REAL y[D1D];
        EACH_D(dz) {
            y[dz] = 0;
        }
        EACH_Q(qz) {
            EACH_D(dz) {
                y[dz] += u[qz] * sm.Bts[dz][qz];
            }
        }
        EACH_D(dz) {
            Y[tx + D1D * (ty + D1D * (dz + D1D * e))] += y[dz];
        }
    }
}

// The mass operator's stages on one element, for a Q1D^3 work-group (MASS3DPA_ATOMIC and
// MASSVEC3DPA): RAJAPerf's contractions along x, y, z from dofs to points, the product with D
// at each point, and three back, one entry per work-item and a barrier before each stage.
#include "mfem.h"

// The shared arrays, in an order where an index run past an array's end (a bug) reads or
// spoils data still in use, so that the check sees it: DDQ is followed by Bs, DQQ by Bts.
typedef struct {
    REAL Xs[D1D][D1D][D1D];
    REAL QDD[Q1D][D1D][D1D];
    REAL DDQ[D1D][D1D][Q1D];
    REAL Bs[Q1D][D1D];
    REAL DQQ[D1D][Q1D][Q1D];
    REAL Bts[D1D][Q1D];
    REAL QQQ[Q1D][Q1D][Q1D];
    REAL QQD[Q1D][Q1D][D1D];
} MassShared;

// Stages 1 and 2 of the bases: Bs[q][d] = B[q + Q1D*d] and Bts its transpose.
DEVICE void mass_stage_bases(LOCAL MassShared* sm, GLOBAL const REAL* B, uint tx, uint ty, uint tz)
{
    if (tz == 0 && ty < D1D) {
        const REAL b = B[tx + Q1D * ty];
        sm->Bs[tx][ty] = b;
        sm->Bts[ty][tx] = b;
    }
}

// Once Xs and the bases are staged, stages 3 to 7 (every work-item must call it: it holds
// barriers); then mass_dof gives a dof's entry.
DEVICE void mass_apply(LOCAL MassShared* sm, GLOBAL const REAL* D, uint e, uint tx, uint ty,
                       uint tz)
{
    BARRIER();
    // 3. DDQ[dz][dy][qx]: contract dx.
    if (tz < D1D && ty < D1D) {
        REAL u = 0;
        for (uint dx = 0; dx < D1D; ++dx) {
            u += sm->Xs[tz][ty][dx] * sm->Bs[tx][dx];
        }
        sm->DDQ[tz][ty][tx] = u;
    }
    BARRIER();
    // 4. DQQ[dz][qy][qx]: contract dy.
    if (tz < D1D) {
        REAL u = 0;
        for (uint dy = 0; dy < D1D; ++dy) {
            u += sm->DDQ[tz][dy][tx] * sm->Bs[ty][dy];
        }
        sm->DQQ[tz][ty][tx] = u;
    }
    BARRIER();
    // 5. QQQ[qz][qy][qx]: contract dz, times D at the point.
    {
        REAL u = 0;
        for (uint dz = 0; dz < D1D; ++dz) {
            u += sm->DQQ[dz][ty][tx] * sm->Bs[tz][dz];
        }
        sm->QQQ[tz][ty][tx] = u * D[tx + Q1D * (ty + Q1D * (tz + Q1D * e))];
    }
    BARRIER();
    // 6. QQD[qz][qy][dx]: contract qx with Bt.
    if (tx < D1D) {
        REAL u = 0;
        for (uint qx = 0; qx < Q1D; ++qx) {
            u += sm->QQQ[tz][ty][qx] * sm->Bts[tx][qx];
        }
        sm->QQD[tz][ty][tx] = u;
    }
    BARRIER();
    // 7. QDD[qz][dy][dx]: contract qy.
    if (ty < D1D && tx < D1D) {
        REAL u = 0;
        for (uint qy = 0; qy < Q1D; ++qy) {
            u += sm->QQD[tz][qy][tx] * sm->Bts[ty][qy];
        }
        sm->QDD[tz][ty][tx] = u;
    }
    BARRIER();
}

// 8. Entry (dz, dy, dx) of Bt D B Xs, for a work-item whose ids are all below D1D: contract qz.
DEVICE REAL mass_dof(LOCAL const MassShared* sm, uint dx, uint dy, uint dz)
{
    REAL u = 0;
    for (uint qz = 0; qz < Q1D; ++qz) {
        u += sm->QDD[qz][dy][dx] * sm->Bts[dz][qz];
    }
    return u;
}

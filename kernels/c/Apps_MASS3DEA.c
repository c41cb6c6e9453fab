// Apps_MASS3DEA: M_e = Bt D B, MFEM's 3-D mass matrix of each element assembled entry by entry:
// M[e][j3][j2][j1][i3][i2][i1] = sum over the points (k1, k2, k3) of B(k1, i1) B(k1, j1)
// B(k2, i2) B(k2, j2) B(k3, i3) B(k3, j3) D[e][k3][k2][k1]. A D1D^3 work-group per element (e
// from the 2-D grid of groups) stages B and the element's D, then work-item (i1, i2, i3)
// computes its row's D1D^3 entries. The products are RAJAPerf's, in its order, each partial
// product computed once per k1 and per (k1, k2).
#include "mfem.h"

typedef struct {
    REAL s_B[Q1D][D1D];
    REAL s_D[Q1D][Q1D][Q1D];
} Mass3deaShared;

KERNEL void mass3dea(GLOBAL const REAL* B, GLOBAL const REAL* D, GLOBAL REAL* M, const uint NE)
{
    SHARED Mass3deaShared sm;
    const uint g = mfem_group();
    const uint e = g % NE;
    const uint i1 = LOCAL_ID(0);
    const uint i2 = LOCAL_ID(1);
    const uint i3 = LOCAL_ID(2);

    if (i3 == 0) {
        for (uint q = i2; q < Q1D; q += D1D) {
            sm.s_B[q][i1] = B[q + Q1D * i1];
        }
    }
    for (uint k1 = i1; k1 < Q1D; k1 += D1D) {
        for (uint k2 = i2; k2 < Q1D; k2 += D1D) {
            for (uint k3 = i3; k3 < Q1D; k3 += D1D) {
                sm.s_D[k1][k2][k3] = D[k1 + Q1D * (k2 + Q1D * (k3 + Q1D * e))];
            }
        }
    }
    BARRIER();
    // The work-item's own column of B along each axis, read once.
    REAL b1[Q1D];
    REAL b2[Q1D];
    REAL b3[Q1D];
    EACH_Q(k) {
        b1[k] = sm.s_B[k][i1];
        b2[k] = sm.s_B[k][i2];
        b3[k] = sm.s_B[k][i3];
    }
    if (g < NE) {
        for (uint j1 = 0; j1 < D1D; ++j1) {
            // The row's D1D^2 entries for this j1 side by side, each summed in RAJAPerf's
            // order: independent sums, where one at a time waits on each add.
            REAL val[D1D][D1D];
            EACH_D(j2) {
                EACH_D(j3) {
                    val[j2][j3] = 0;
                }
            }
            for (uint k1 = 0; k1 < Q1D; ++k1) {
                const REAL p1 = b1[k1] * sm.s_B[k1][j1];
                for (uint k2 = 0; k2 < Q1D; ++k2) {
                    REAL p12[D1D];
                    EACH_D(j2) {
                        p12[j2] = p1 * b2[k2] * sm.s_B[k2][j2];
                    }
                    for (uint k3 = 0; k3 < Q1D; ++k3) {
                        const REAL d = sm.s_D[k1][k2][k3];
                        EACH_D(j2) {
                            const REAL p123 = p12[j2] * b3[k3];
                            EACH_D(j3) {
                                val[j2][j3] += p123 * sm.s_B[k3][j3] * d;
                            }
                        }
                    }
                }
            }
            EACH_D(j2) {
                EACH_D(j3) {
                    M[i1 +
                      D1D * (i2 + D1D * (i3 + D1D * (j1 + D1D * (j2 + D1D * (j3 + D1D * e)))))] =
                        val[j2][j3];
                }
            }
        }
    }
}

// Apps_MASS3DPA_ATOMIC: Y += Bt D B X over a mesh whose elements share dofs, MFEM's 3-D mass
// operator by sum factorisation, each element gathering its dofs from X through ElemToDoF
// and adding its result to theirs in Y atomically. A Q1D^3 work-group per element (e from the
// 2-D grid of groups) runs RAJAPerf's stages (mfem_mass.h), work-item (tx, ty, tz) computing
// one entry of each; the work-item that gathers a dof keeps its index for the scatter.
// atomic_add_real is the dialect's: native on CUDA, a compare-and-swap loop on OpenCL.
#include "mfem_mass.h"

KERNEL void mass3dpa_atomic(GLOBAL const REAL* B, GLOBAL const REAL* D, GLOBAL const REAL* X,
                            GLOBAL const int* ElemToDoF, GLOBAL REAL* Y, const uint NE)
{
    SHARED MassShared sm;
    const uint g = mfem_group();
    const uint e = g % NE;
    const uint tx = LOCAL_ID(0);
    const uint ty = LOCAL_ID(1);
    const uint tz = LOCAL_ID(2);
    const bool dof_item = g < NE && tz < D1D && ty < D1D && tx < D1D;

    int dof = 0;
    if (dof_item) {
        dof = ElemToDoF[tx + D1D * (ty + D1D * (tz + D1D * e))];
        sm.Xs[tz][ty][tx] = X[dof];
    }
    mass_stage_bases(&sm, B, tx, ty, tz);
    mass_apply(&sm, D, e, tx, ty, tz);
    if (dof_item) {
        atomic_add_real(Y + dof, mass_dof(&sm, tx, ty, tz));
    }
}

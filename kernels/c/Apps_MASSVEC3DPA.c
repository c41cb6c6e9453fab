// Apps_MASSVEC3DPA: Y = Bt D B X for each of a vector field's DIM components, MFEM's 3-D
// vector mass operator on each element by sum factorisation. A Q1D^3 work-group per element
// (e from the 2-D grid of groups) stages the basis once, then for each component its X and
// RAJAPerf's stages (mfem_mass.h), work-item (tx, ty, tz) computing one entry of each.
#include "mfem_mass.h"

KERNEL void massvec3dpa(GLOBAL const REAL* B, GLOBAL const REAL* D, GLOBAL const REAL* X,
                        GLOBAL REAL* Y, const uint NE)
{
    SHARED MassShared sm;
    const uint g = mfem_group();
    const uint e = g % NE;
    const uint tx = LOCAL_ID(0);
    const uint ty = LOCAL_ID(1);
    const uint tz = LOCAL_ID(2);
    const bool dof_item = g < NE && tz < D1D && ty < D1D && tx < D1D;
    const uint dof = tx + D1D * (ty + D1D * tz);

    mass_stage_bases(&sm, B, tx, ty, tz);
    for (uint c = 0; c < DIM; ++c) {
        const uint at = dof + D1D * D1D * D1D * (c + DIM * e);
        // Xs is last read before the previous component's second barrier.
        if (dof_item) {
            sm.Xs[tz][ty][tx] = X[at];
        }
        mass_apply(&sm, D, e, tx, ty, tz);
        if (dof_item) {
            Y[at] = mass_dof(&sm, tx, ty, tz);
        }
    }
}

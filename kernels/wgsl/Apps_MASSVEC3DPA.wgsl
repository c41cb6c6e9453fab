// Apps_MASSVEC3DPA: Y = Bt D B X for each of a vector field's DIM components, MFEM's 3-D
// vector mass operator on each element by sum factorisation. A Q1D^3 work-group per element
// (e from the 2-D grid of groups) stages the basis once, then for each component its X and
// RAJAPerf's stages (mfem_mass.wgslh), work-item (tx, ty, tz) computing one entry of each.
#include "mfem_mass.wgslh"

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn massvec3dpa(@builtin(local_invocation_id) lid: vec3<u32>,
               @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = mfem_group(wid, nwg);
    let e = g % s.NE;
    let tx = lid.x;
    let ty = lid.y;
    let tz = lid.z;
    let dof_item = g < s.NE && tz < D1D && ty < D1D && tx < D1D;
    let dof = tx + D1D * (ty + D1D * tz);

    mass_stage_bases(tx, ty, tz);
    for (var c = 0u; c < DIM; c++) {
        let at = dof + D1D * D1D * D1D * (c + DIM * e);
        // Xs is last read before the previous component's second barrier.
        if (dof_item) {
            Xs[tz][ty][tx] = X[at];
        }
        mass_apply(e, tx, ty, tz);
        if (dof_item) {
            Y[at] = mass_dof(tx, ty, tz);
        }
    }
}

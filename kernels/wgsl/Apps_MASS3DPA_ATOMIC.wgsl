// Apps_MASS3DPA_ATOMIC: Y += Bt D B X over a mesh whose elements share dofs, MFEM's 3-D mass
// operator by sum factorisation, each element gathering its dofs from X through ElemToDoF
// and adding its result to theirs in Y atomically. A Q1D^3 work-group per element (e from the
// 2-D grid of groups) runs RAJAPerf's stages (mfem_mass.wgslh), work-item (tx, ty, tz)
// computing one entry of each; the work-item that gathers a dof keeps its index for the
// scatter. WGSL has no floating-point atomic add: a compare-and-swap loop on the value's bits
// does it, with REAL_BITS the unsigned integer of REAL's width (u64 for f64 needs the
// adapter's shader-int64-atomic-all-ops).
#include "mfem_mass.wgslh"

struct Scalars {
    NE: u32,
}

@group(0) @binding(0) var<storage, read> B: array<REAL>;
@group(0) @binding(1) var<storage, read> D: array<REAL>;
@group(0) @binding(2) var<storage, read> X: array<REAL>;
@group(0) @binding(3) var<storage, read> ElemToDoF: array<i32>;
@group(0) @binding(4) var<storage, read_write> Y: array<atomic<REAL_BITS>>;
@group(0) @binding(5) var<uniform> s: Scalars;

fn atomic_add_real(i: i32, v: REAL) {
    var seen = atomicLoad(&Y[i]);
    loop {
        let swap = atomicCompareExchangeWeak(&Y[i], seen, bitcast<REAL_BITS>(bitcast<REAL>(seen) + v));
        if (swap.exchanged) {
            break;
        }
        seen = swap.old_value;
    }
}

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn mass3dpa_atomic(@builtin(local_invocation_id) lid: vec3<u32>,
                   @builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = mfem_group(wid, nwg);
    let e = g % s.NE;
    let tx = lid.x;
    let ty = lid.y;
    let tz = lid.z;
    let dof_item = g < s.NE && tz < D1D && ty < D1D && tx < D1D;

    var dof = 0;
    if (dof_item) {
        dof = ElemToDoF[tx + D1D * (ty + D1D * (tz + D1D * e))];
        Xs[tz][ty][tx] = X[dof];
    }
    mass_stage_bases(tx, ty, tz);
    mass_apply(e, tx, ty, tz);
    if (dof_item) {
        atomic_add_real(dof, mass_dof(tx, ty, tz));
    }
}

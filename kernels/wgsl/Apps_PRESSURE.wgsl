// Apps_PRESSURE: bvc from compression, then p_new from bvc and e_old with cut-offs.
// The two entry points bind different arrays at the same binding numbers;
// WGSL allows that because no entry point uses both.

struct Scalars1 {
    cls: REAL,
    n: u32,
}

@group(0) @binding(0) var<storage, read> compression: array<REAL>;
@group(0) @binding(1) var<storage, read_write> bvc_out: array<REAL>;
@group(0) @binding(2) var<uniform> s1: Scalars1;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn pressure1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i < s1.n) {
        bvc_out[i] = s1.cls * (compression[i] + REAL(1.0));
    }
}

struct Scalars2 {
    p_cut: REAL,
    pmin: REAL,
    eosvmax: REAL,
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> bvc: array<REAL>;
@group(0) @binding(1) var<storage, read_write> p_new: array<REAL>;
@group(0) @binding(2) var<storage, read> e_old: array<REAL>;
@group(0) @binding(3) var<storage, read> vnewc: array<REAL>;
@group(0) @binding(4) var<uniform> s2: Scalars2;

@compute @workgroup_size(GROUP)
fn pressure2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i >= s2.n) {
        return;
    }
    var p = bvc[i] * e_old[i];
    if (abs(p) < s2.p_cut) {
        p = REAL(0.0);
    }
    if (vnewc[i] >= s2.eosvmax) {
        p = REAL(0.0);
    }
    if (p < s2.pmin) {
        p = s2.pmin;
    }
    p_new[i] = p;
}

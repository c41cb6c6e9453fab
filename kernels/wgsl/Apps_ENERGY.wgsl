// Apps_ENERGY: the six loops of a hydro energy update, one entry point each.
// The entry points bind different arrays at the same binding numbers; WGSL
// allows that because no entry point uses another's. Arrays the description
// writes (e_new, q_new) are read_write wherever they are bound. energy5 binds 12
// storage buffers, past WebGPU's baseline of 8 per stage, so it needs a device
// created with the adapter's higher limit (native adapters have one).

// sqrt(ssc), or a small constant where ssc is at or below RAJAPerf's floor.
fn sound_speed(ssc: REAL) -> REAL {
    if (ssc <= SSC_FLOOR) {
        return SSC_MIN;
    }
    return sqrt(ssc);
}

// Zero values below e_cut in magnitude, then raise values below emin to emin.
fn cut(e: REAL, e_cut: REAL, emin: REAL) -> REAL {
    var v = e;
    if (abs(v) < e_cut) {
        v = REAL(0.0);
    }
    if (v < emin) {
        v = emin;
    }
    return v;
}

// --- energy1: e_new = e_old - 0.5 delvc (p_old + q_old) + 0.5 work
struct Scalars1 {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> e1_e_new: array<REAL>;
@group(0) @binding(1) var<storage, read> e1_e_old: array<REAL>;
@group(0) @binding(2) var<storage, read> e1_delvc: array<REAL>;
@group(0) @binding(3) var<storage, read> e1_p_old: array<REAL>;
@group(0) @binding(4) var<storage, read> e1_q_old: array<REAL>;
@group(0) @binding(5) var<storage, read> e1_work: array<REAL>;
@group(0) @binding(6) var<uniform> s1: Scalars1;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn energy1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i < s1.n) {
        e1_e_new[i] = e1_e_old[i] - REAL(0.5) * e1_delvc[i] * (e1_p_old[i] + e1_q_old[i])
                      + REAL(0.5) * e1_work[i];
    }
}

// --- energy2: q_new from the half-step sound speed where delvc <= 0
struct Scalars2 {
    rho0: REAL,
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> e2_e_new: array<REAL>;
@group(0) @binding(1) var<storage, read> e2_delvc: array<REAL>;
@group(0) @binding(2) var<storage, read_write> e2_q_new: array<REAL>;
@group(0) @binding(3) var<storage, read> e2_compHalfStep: array<REAL>;
@group(0) @binding(4) var<storage, read> e2_pHalfStep: array<REAL>;
@group(0) @binding(5) var<storage, read> e2_bvc: array<REAL>;
@group(0) @binding(6) var<storage, read> e2_pbvc: array<REAL>;
@group(0) @binding(7) var<storage, read> e2_ql_old: array<REAL>;
@group(0) @binding(8) var<storage, read> e2_qq_old: array<REAL>;
@group(0) @binding(9) var<uniform> s2: Scalars2;

@compute @workgroup_size(GROUP)
fn energy2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i >= s2.n) {
        return;
    }
    if (e2_delvc[i] > REAL(0.0)) {
        e2_q_new[i] = REAL(0.0);
    } else {
        let vhalf = REAL(1.0) / (REAL(1.0) + e2_compHalfStep[i]);
        let ssc = sound_speed((e2_pbvc[i] * e2_e_new[i]
                               + vhalf * vhalf * e2_bvc[i] * e2_pHalfStep[i]) / s2.rho0);
        e2_q_new[i] = ssc * e2_ql_old[i] + e2_qq_old[i];
    }
}

// --- energy3: e_new += 0.5 delvc (3 (p_old + q_old) - 4 (pHalfStep + q_new))
struct Scalars3 {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> e3_e_new: array<REAL>;
@group(0) @binding(1) var<storage, read> e3_delvc: array<REAL>;
@group(0) @binding(2) var<storage, read> e3_p_old: array<REAL>;
@group(0) @binding(3) var<storage, read_write> e3_q_new: array<REAL>;
@group(0) @binding(4) var<storage, read> e3_q_old: array<REAL>;
@group(0) @binding(5) var<storage, read> e3_pHalfStep: array<REAL>;
@group(0) @binding(6) var<uniform> s3: Scalars3;

@compute @workgroup_size(GROUP)
fn energy3(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i < s3.n) {
        e3_e_new[i] = e3_e_new[i] + REAL(0.5) * e3_delvc[i]
                      * (REAL(3.0) * (e3_p_old[i] + e3_q_old[i])
                         - REAL(4.0) * (e3_pHalfStep[i] + e3_q_new[i]));
    }
}

// --- energy4: e_new += 0.5 work, then the cut-offs
struct Scalars4 {
    e_cut: REAL,
    emin: REAL,
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> e4_e_new: array<REAL>;
@group(0) @binding(1) var<storage, read> e4_work: array<REAL>;
@group(0) @binding(2) var<uniform> s4: Scalars4;

@compute @workgroup_size(GROUP)
fn energy4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i < s4.n) {
        e4_e_new[i] = cut(e4_e_new[i] + REAL(0.5) * e4_work[i], s4.e_cut, s4.emin);
    }
}

// --- energy5: the full-step correction with q_tilde, then the cut-offs
struct Scalars5 {
    rho0: REAL,
    e_cut: REAL,
    emin: REAL,
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> e5_e_new: array<REAL>;
@group(0) @binding(1) var<storage, read> e5_delvc: array<REAL>;
@group(0) @binding(2) var<storage, read> e5_p_new: array<REAL>;
@group(0) @binding(3) var<storage, read> e5_p_old: array<REAL>;
@group(0) @binding(4) var<storage, read_write> e5_q_new: array<REAL>;
@group(0) @binding(5) var<storage, read> e5_q_old: array<REAL>;
@group(0) @binding(6) var<storage, read> e5_pHalfStep: array<REAL>;
@group(0) @binding(7) var<storage, read> e5_bvc: array<REAL>;
@group(0) @binding(8) var<storage, read> e5_pbvc: array<REAL>;
@group(0) @binding(9) var<storage, read> e5_ql_old: array<REAL>;
@group(0) @binding(10) var<storage, read> e5_qq_old: array<REAL>;
@group(0) @binding(11) var<storage, read> e5_vnewc: array<REAL>;
@group(0) @binding(12) var<uniform> s5: Scalars5;

@compute @workgroup_size(GROUP)
fn energy5(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i >= s5.n) {
        return;
    }
    var q_tilde = REAL(0.0);
    if (!(e5_delvc[i] > REAL(0.0))) {
        let ssc = sound_speed((e5_pbvc[i] * e5_e_new[i]
                               + e5_vnewc[i] * e5_vnewc[i] * e5_bvc[i] * e5_p_new[i]) / s5.rho0);
        q_tilde = ssc * e5_ql_old[i] + e5_qq_old[i];
    }
    let e = e5_e_new[i]
            - (REAL(7.0) * (e5_p_old[i] + e5_q_old[i])
               - REAL(8.0) * (e5_pHalfStep[i] + e5_q_new[i])
               + (e5_p_new[i] + q_tilde)) * e5_delvc[i] / REAL(6.0);
    e5_e_new[i] = cut(e, s5.e_cut, s5.emin);
}

// --- energy6: q_new from the full-step sound speed where delvc <= 0, then the cut-off
struct Scalars6 {
    rho0: REAL,
    q_cut: REAL,
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> e6_e_new: array<REAL>;
@group(0) @binding(1) var<storage, read> e6_delvc: array<REAL>;
@group(0) @binding(2) var<storage, read> e6_p_new: array<REAL>;
@group(0) @binding(3) var<storage, read_write> e6_q_new: array<REAL>;
@group(0) @binding(4) var<storage, read> e6_bvc: array<REAL>;
@group(0) @binding(5) var<storage, read> e6_pbvc: array<REAL>;
@group(0) @binding(6) var<storage, read> e6_ql_old: array<REAL>;
@group(0) @binding(7) var<storage, read> e6_qq_old: array<REAL>;
@group(0) @binding(8) var<storage, read> e6_vnewc: array<REAL>;
@group(0) @binding(9) var<uniform> s6: Scalars6;

@compute @workgroup_size(GROUP)
fn energy6(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i >= s6.n || !(e6_delvc[i] <= REAL(0.0))) {
        return;
    }
    let ssc = sound_speed((e6_pbvc[i] * e6_e_new[i]
                           + e6_vnewc[i] * e6_vnewc[i] * e6_bvc[i] * e6_p_new[i]) / s6.rho0);
    var q = ssc * e6_ql_old[i] + e6_qq_old[i];
    if (abs(q) < s6.q_cut) {
        q = REAL(0.0);
    }
    e6_q_new[i] = q;
}

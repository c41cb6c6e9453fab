// Apps_ENERGY: the six loops of a hydro energy update, one entry point each.
// energy5 binds 12 storage buffers, past WebGPU's baseline of 8 per stage, so
// it needs a device created with the adapter's higher limit (native adapters
// have one).

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

@compute @workgroup_size(GROUP)
fn energy1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        e_new[i] = e_old[i] - REAL(0.5) * delvc[i] * (p_old[i] + q_old[i])
                      + REAL(0.5) * work[i];
    }
}

// --- energy2: q_new from the half-step sound speed where delvc <= 0

@compute @workgroup_size(GROUP)
fn energy2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    if (delvc[i] > REAL(0.0)) {
        q_new[i] = REAL(0.0);
    } else {
        let vhalf = REAL(1.0) / (REAL(1.0) + compHalfStep[i]);
        let ssc = sound_speed((pbvc[i] * e_new[i]
                               + vhalf * vhalf * bvc[i] * pHalfStep[i]) / s.rho0);
        q_new[i] = ssc * ql_old[i] + qq_old[i];
    }
}

// --- energy3: e_new += 0.5 delvc (3 (p_old + q_old) - 4 (pHalfStep + q_new))

@compute @workgroup_size(GROUP)
fn energy3(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        e_new[i] = e_new[i] + REAL(0.5) * delvc[i]
                      * (REAL(3.0) * (p_old[i] + q_old[i])
                         - REAL(4.0) * (pHalfStep[i] + q_new[i]));
    }
}

// --- energy4: e_new += 0.5 work, then the cut-offs

@compute @workgroup_size(GROUP)
fn energy4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        e_new[i] = cut(e_new[i] + REAL(0.5) * work[i], s.e_cut, s.emin);
    }
}

// --- energy5: the full-step correction with q_tilde, then the cut-offs

@compute @workgroup_size(GROUP)
fn energy5(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    var q_tilde = REAL(0.0);
    if (!(delvc[i] > REAL(0.0))) {
        let ssc = sound_speed((pbvc[i] * e_new[i]
                               + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / s.rho0);
        q_tilde = ssc * ql_old[i] + qq_old[i];
    }
    let e = e_new[i]
            - (REAL(7.0) * (p_old[i] + q_old[i])
               - REAL(8.0) * (pHalfStep[i] + q_new[i])
               + (p_new[i] + q_tilde)) * delvc[i] / REAL(6.0);
    e_new[i] = cut(e, s.e_cut, s.emin);
}

// --- energy6: q_new from the full-step sound speed where delvc <= 0, then the cut-off

@compute @workgroup_size(GROUP)
fn energy6(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n || !(delvc[i] <= REAL(0.0))) {
        return;
    }
    let ssc = sound_speed((pbvc[i] * e_new[i]
                           + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / s.rho0);
    var q = ssc * ql_old[i] + qq_old[i];
    if (abs(q) < s.q_cut) {
        q = REAL(0.0);
    }
    q_new[i] = q;
}

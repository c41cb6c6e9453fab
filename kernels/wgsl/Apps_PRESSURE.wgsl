// Apps_PRESSURE: bvc from compression, then p_new from bvc and e_old with cut-offs.

@compute @workgroup_size(GROUP)
fn pressure1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        bvc[i] = s.cls * (compression[i] + REAL(1.0));
    }
}

@compute @workgroup_size(GROUP)
fn pressure2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    var p = bvc[i] * e_old[i];
    if (abs(p) < s.p_cut) {
        p = REAL(0.0);
    }
    if (vnewc[i] >= s.eosvmax) {
        p = REAL(0.0);
    }
    if (p < s.pmin) {
        p = s.pmin;
    }
    p_new[i] = p;
}

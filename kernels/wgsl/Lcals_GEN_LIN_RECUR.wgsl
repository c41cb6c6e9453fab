// Lcals_GEN_LIN_RECUR: b5[k] = sa[k] + stb5[k]*sb[k]; stb5[k] = b5[k] - stb5[k],
// once over k = 0 .. n-1 (gen_lin_recur_1), then again over i = 1 .. n with
// k = n - i (gen_lin_recur_2; work-item w has i = w + 1). RAJAPerf's b5 offset
// kb5i is 0.

@compute @workgroup_size(GROUP)
fn gen_lin_recur_1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let k = global_index(wid, nwg, lid);
    if (k < s.n) {
        b5[k] = sa[k] + stb5[k] * sb[k];
        stb5[k] = b5[k] - stb5[k];
    }
}

@compute @workgroup_size(GROUP)
fn gen_lin_recur_2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid) + 1u;
    if (i <= s.n) {
        let k = s.n - i;
        b5[k] = sa[k] + stb5[k] * sb[k];
        stb5[k] = b5[k] - stb5[k];
    }
}

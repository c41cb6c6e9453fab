// Lcals_HYDRO_1D: x[i] = q + y[i] * (r * z[i+10] + t * z[i+11]).
// RAJAPerf shifts its z pointer by -10 first, so the elements read are z[i]
// and z[i+1] of the stored array, which has n+1 elements.

@compute @workgroup_size(GROUP)
fn hydro_1d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        x[i] = s.q + y[i] * (s.r * z[i] + s.t * z[i + 1u]);
    }
}

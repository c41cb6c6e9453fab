// Apps_FIR: out[i] = sum over j < COEFFLEN of coeff[j] * in[i + j]; in has
// n + COEFFLEN - 1 elements. COEFFLEN, the tap count, comes from the description.

@compute @workgroup_size(GROUP)
fn fir(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        var sum = REAL(0.0);
        for (var j = 0u; j < COEFFLEN; j++) {
            sum += coeff[j] * in[i + j];
        }
        out[i] = sum;
    }
}

// Apps_FIR: out[i] = sum over j < COEFFLEN of coeff[j] * in[i + j]; in has
// n + COEFFLEN - 1 elements. COEFFLEN, the tap count, comes from the description.

const_assert COEFFLEN == 16;

@compute @workgroup_size(GROUP)
fn fir(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        // The taps written out, in order: no loop counter, and coeff read at constants.
        var sum = REAL(0.0);
#unroll j 16
        sum += coeff[j] * in[i + j];
#endunroll
        out[i] = sum;
    }
}

// Lcals_TRIDIAG_ELIM: xout[i] = z[i] * (y[i] - xin[i-1]) for i = 1 .. n-1;
// xout[0] is left alone. Work-item w handles i = w + 1.

@compute @workgroup_size(GROUP)
fn tridiag_elim(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let w = global_index(wid, nwg, lid);
    if (w < s.n - 1u) {
        let i = w + 1u;
        xout[i] = z[i] * (y[i] - xin[i - 1u]);
    }
}

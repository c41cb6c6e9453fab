// Basic_IF_QUAD: roots x1, x2 of a*x^2 + b*x + c where the discriminant is >= 0, else 0.
// d is RAJAPerf's s, the discriminant (here s names the scalars).

@compute @workgroup_size(GROUP)
fn if_quad(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        var d = b[i] * b[i] - REAL(4.0) * a[i] * c[i];
        if (d >= REAL(0.0)) {
            d = sqrt(d);
            x2[i] = (-b[i] + d) / (REAL(2.0) * a[i]);
            x1[i] = (-b[i] - d) / (REAL(2.0) * a[i]);
        } else {
            x2[i] = REAL(0.0);
            x1[i] = REAL(0.0);
        }
    }
}

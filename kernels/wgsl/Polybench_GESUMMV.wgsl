// Polybench_GESUMMV: y = alpha A.x + beta B.x, A and B n x n, a work-item
// per row summing both dot products in order.

@compute @workgroup_size(GROUP)
fn gesummv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    var tmpdot = REAL(0);
    var ydot = REAL(0);
    for (var j = 0u; j < s.n; j++) {
        tmpdot += A[j + i * s.n] * x[j];
        ydot += B[j + i * s.n] * x[j];
    }
    y[i] = s.alpha * tmpdot + s.beta * ydot;
}

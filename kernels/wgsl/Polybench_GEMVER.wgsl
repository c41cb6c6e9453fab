// Polybench_GEMVER: A += u1 v1^T + u2 v2^T, x = beta A^T.y + z, w += alpha A.x,
// A n x n. The first launch gives a work-item a column of A, walked down so
// that neighbouring work-items touch neighbouring addresses: it updates the
// column and sums x from it, RAJAPerf's first three loops in one pass over A.
// The second gives a work-item a row of A for w.

@compute @workgroup_size(GROUP)
fn gemver_columns(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    let v1i = v1[i];
    let v2i = v2[i];
    var dot = REAL(0);
    for (var j = 0u; j < s.n; j++) {
        let a = A[i + j * s.n] + (u1[j] * v1i + u2[j] * v2i);
        A[i + j * s.n] = a;
        dot += s.beta * a * y[j];
    }
    x[i] = dot + z[i];
}

@compute @workgroup_size(GROUP)
fn gemver_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    var dot = w[i];
    for (var j = 0u; j < s.n; j++) {
        dot += s.alpha * A[j + i * s.n] * x[j];
    }
    w[i] = dot;
}

// Polybench_ATAX: tmp = A.x, then y = A^T.tmp, A n x n. The first launch
// gives a work-item a row of A, the second a column, walked down so that
// neighbouring work-items read neighbouring addresses. y starts from 0 (in
// RAJAPerf the first loop zeroes it and the second adds to it).

@compute @workgroup_size(GROUP)
fn atax_tmp(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    var dot = REAL(0);
    for (var j = 0u; j < s.n; j++) {
        dot += A[j + i * s.n] * x[j];
    }
    tmp[i] = dot;
}

@compute @workgroup_size(GROUP)
fn atax_y(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let j = global_index(wid, nwg, lid);
    if (j >= s.n) {
        return;
    }
    var dot = REAL(0);
    for (var i = 0u; i < s.n; i++) {
        dot += A[j + i * s.n] * tmp[i];
    }
    y[j] = dot;
}

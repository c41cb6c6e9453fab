// Polybench_MVT: x1 = A.y1, and x2[i] = sum_j A[j][i] * y2[i] (RAJAPerf's body:
// y2 at the column's own index), A n x n. The first launch gives a work-item a
// row of A, the second a column, walked down so that neighbouring work-items
// read neighbouring addresses.

@compute @workgroup_size(GROUP)
fn mvt_x1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    var dot = REAL(0);
    // Eight terms a turn, written out: naga's loop counter comes once per eight, not per
    // term. The turns take the first n - n % 8 terms, the loop after them the rest, one at a
    // time: the same terms in the same order.
    let end8 = s.n - s.n % 8u;
    var j = 0u;
    for (; j < end8; j += 8u) {
#unroll u 8
        dot += A[j + u + i * s.n] * y1[j + u];
#endunroll
    }
    for (; j < s.n; j++) {
        dot += A[j + i * s.n] * y1[j];
    }
    x1[i] = dot;
}

@compute @workgroup_size(GROUP)
fn mvt_x2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    let y = y2[i];
    var dot = REAL(0);
    for (var j = 0u; j < s.n; j++) {
        dot += A[i + j * s.n] * y;
    }
    x2[i] = dot;
}

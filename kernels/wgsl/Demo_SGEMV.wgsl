// Demo_SGEMV: y = A x in single precision, A of rows x cols stored by rows: work-item
// i takes row i, summing its products in order.

@compute @workgroup_size(GROUP)
fn sgemv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.rows) {
        let first = i * s.cols;
        var sum = 0.0f;
        for (var j = 0u; j < s.cols; j++) {
            sum += A[first + j] * x[j];
        }
        y[i] = sum;
    }
}

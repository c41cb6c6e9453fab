// Basic_ARRAY_OF_PTRS: y[i] = x[0][i] + x[1][i] + ... + x[ARRAY_SIZE-1][i].
// RAJAPerf passes ARRAY_SIZE pointers x[a] = x_data + a*n; here x is x_data,
// and x[a][i] is read at x[a*n + i], added in the same order.

@compute @workgroup_size(GROUP)
fn array_of_ptrs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        var yi = REAL(0.0);
        for (var a = 0u; a < ARRAY_SIZE; a++) {
            yi += x[a * s.n + i];
        }
        y[i] = yi;
    }
}

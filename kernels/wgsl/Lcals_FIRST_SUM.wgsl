// Lcals_FIRST_SUM: x[i] = y[i-1] + y[i] for i = 1 .. n-1; x[0] is left alone.
// Work-item w handles i = w + 1.

@compute @workgroup_size(GROUP)
fn first_sum(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let w = global_index(wid, nwg, lid);
    if (w < s.n - 1u) {
        x[w + 1u] = y[w] + y[w + 1u];
    }
}

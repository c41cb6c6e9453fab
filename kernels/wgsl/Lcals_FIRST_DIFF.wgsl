// Lcals_FIRST_DIFF: x[i] = y[i+1] - y[i]; y has n+1 elements.

@compute @workgroup_size(GROUP)
fn first_diff(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        x[i] = y[i + 1u] - y[i];
    }
}

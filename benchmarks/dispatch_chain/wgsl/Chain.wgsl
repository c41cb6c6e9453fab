// Chain: y = y + 1, one element per invocation; a chain's launches each do this
// to the array the one before wrote.

@compute @workgroup_size(GROUP)
fn bump(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        y[i] = y[i] + REAL(1);
    }
}

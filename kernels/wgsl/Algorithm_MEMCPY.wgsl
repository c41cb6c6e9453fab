// Algorithm_MEMCPY: y[i] = x[i]

@compute @workgroup_size(GROUP)
fn memcpy_loop(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        y[i] = x[i];
    }
}

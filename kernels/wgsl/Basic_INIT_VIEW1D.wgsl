// Basic_INIT_VIEW1D: a[i] = (i+1) * v

@compute @workgroup_size(GROUP)
fn init_view1d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        a[i] = REAL(i + 1u) * s.v;
    }
}

// Basic_EMPTY: a launch over n items whose body does nothing: what a launch costs.

@compute @workgroup_size(GROUP)
fn empty(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
    }
}

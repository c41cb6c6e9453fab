// My_SAXPY: y = a x + y, one element per work-item. The harness declares the
// bindings (x, y, then the scalars as s.a and s.n) from the description.

@compute @workgroup_size(GROUP)
fn saxpy(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        y[i] = s.a * x[i] + y[i];
    }
}

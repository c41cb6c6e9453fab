// Basic_COPY8: y0[i] = x0[i], ..., y7[i] = x7[i]

@compute @workgroup_size(GROUP)
fn copy8(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        y0[i] = x0[i];
        y1[i] = x1[i];
        y2[i] = x2[i];
        y3[i] = x3[i];
        y4[i] = x4[i];
        y5[i] = x5[i];
        y6[i] = x6[i];
        y7[i] = x7[i];
    }
}

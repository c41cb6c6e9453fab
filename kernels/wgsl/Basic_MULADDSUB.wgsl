// Basic_MULADDSUB: out1[i] = in1[i] * in2[i], out2[i] = in1[i] + in2[i], out3[i] = in1[i] - in2[i]

@compute @workgroup_size(GROUP)
fn muladdsub(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        out1[i] = in1[i] * in2[i];
        out2[i] = in1[i] + in2[i];
        out3[i] = in1[i] - in2[i];
    }
}

// CacheFlush: sink[w] = XOR of scratch[w + k * width], k < PASSES: reads every
// line of a buffer larger than the device's last-level cache, between
// cold-cache repetitions, and writes only a 1/PASSES part, so that few dirty
// lines are left for the timed repetition to write back.

@compute @workgroup_size(GROUP)
fn cache_flush(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let w = global_index(wid, nwg, lid);
    if (w < s.width) {
        var acc = 0u;
        for (var k = 0u; k < PASSES; k++) {
            let i = w + k * s.width;
            if (i < s.n) {
                acc ^= scratch[i];
            }
        }
        sink[w] = acc;
    }
}

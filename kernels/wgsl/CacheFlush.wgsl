// CacheFlush: scratch[i] = scratch[i] * 3 + 1, a read and a write of every line
// of a buffer larger than the device's last-level cache, run between cold-cache
// repetitions.

@compute @workgroup_size(GROUP)
fn cache_flush(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        scratch[i] = scratch[i] * 3u + 1u;
    }
}

// Basic_INIT_VIEW1D_OFFSET: a[i - ibegin] = i * v for i from ibegin to n + ibegin - 1
// (RAJAPerf's ibegin is 1, its view's offset).

@compute @workgroup_size(GROUP)
fn init_view1d_offset(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                      @builtin(local_invocation_index) lid: u32) {
    let j = global_index(wid, nwg, lid);
    if (j < s.n) {
        let i = s.ibegin + j;
        a[i - s.ibegin] = REAL(i) * s.v;
    }
}

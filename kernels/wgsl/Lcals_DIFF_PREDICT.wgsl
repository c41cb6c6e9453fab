// Lcals_DIFF_PREDICT: running differences of cx through px's planes 4 to 13.
// RAJAPerf shifts px and cx by -4 planes (a plane is n elements), so its planes
// 4 to 13 are planes 0 to 9 of the stored px, and cx[i + 4n] is cx[i].

@compute @workgroup_size(GROUP)
fn diff_predict(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    let n = s.n;
    if (i < n) {
        var ar: REAL;
        var br: REAL;
        var cr: REAL;
        ar = cx[i];
        br = ar - px[i];
        px[i] = ar;
        cr = br - px[i + n];
        px[i + n] = br;
        ar = cr - px[i + 2u * n];
        px[i + 2u * n] = cr;
        br = ar - px[i + 3u * n];
        px[i + 3u * n] = ar;
        cr = br - px[i + 4u * n];
        px[i + 4u * n] = br;
        ar = cr - px[i + 5u * n];
        px[i + 5u * n] = cr;
        br = ar - px[i + 6u * n];
        px[i + 6u * n] = ar;
        cr = br - px[i + 7u * n];
        px[i + 7u * n] = br;
        px[i + 9u * n] = cr - px[i + 8u * n];
        px[i + 8u * n] = cr;
    }
}

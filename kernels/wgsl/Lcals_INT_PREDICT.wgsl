// Lcals_INT_PREDICT: px[i] = dm28*px[i+12n] + dm27*px[i+11n] + dm26*px[i+10n]
//   + dm25*px[i+9n] + dm24*px[i+8n] + dm23*px[i+7n] + dm22*px[i+6n]
//   + c0*(px[i+4n] + px[i+5n]) + px[i+2n]; px holds 13 planes of n elements.

@compute @workgroup_size(GROUP)
fn int_predict(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    let n = s.n;
    if (i < n) {
        px[i] = s.dm28 * px[i + 12u * n] + s.dm27 * px[i + 11u * n] + s.dm26 * px[i + 10u * n]
                + s.dm25 * px[i + 9u * n] + s.dm24 * px[i + 8u * n] + s.dm23 * px[i + 7u * n]
                + s.dm22 * px[i + 6u * n] + s.c0 * (px[i + 4u * n] + px[i + 5u * n])
                + px[i + 2u * n];
    }
}

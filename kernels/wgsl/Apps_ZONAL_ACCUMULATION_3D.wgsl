// Apps_ZONAL_ACCUMULATION_3D: each real zone's vol is the average of its 8 nodes' x.
// Zone i has nodes i + {0, 1, jp, 1+jp} + {0, kp}, summed in NDPTRSET's order.

@compute @workgroup_size(GROUP)
fn zonal_accumulation_3d(@builtin(workgroup_id) wid: vec3<u32>,
                         @builtin(num_workgroups) nwg: vec3<u32>,
                         @builtin(local_invocation_index) lid: u32) {
    let ii = global_index(wid, nwg, lid);
    if (ii >= s.n) {
        return;
    }
    let i = real_zones[ii];
    let jp = s.jp;
    let kp = s.kp;
    vol[i] = REAL(0.125) * (x[i] + x[i + 1] + x[i + jp] + x[i + 1 + jp] + x[i + kp]
                            + x[i + 1 + kp] + x[i + jp + kp] + x[i + 1 + jp + kp]);
}

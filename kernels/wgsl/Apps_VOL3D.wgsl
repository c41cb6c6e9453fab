// Apps_VOL3D: volume of every zone from first (RAJAPerf's fpz) on, ghosts included.
// Zone i has nodes i + {0, 1, jp, 1+jp} + {0, kp}, numbered 0..7 as NDPTRSET.

@compute @workgroup_size(GROUP)
fn vol3d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let t = global_index(wid, nwg, lid);
    if (t >= s.n) {
        return;
    }
    let i0 = s.first + i32(t);
    let i1 = i0 + 1;
    let i2 = i0 + s.jp;
    let i3 = i1 + s.jp;
    let i4 = i0 + s.kp;
    let i5 = i1 + s.kp;
    let i6 = i2 + s.kp;
    let i7 = i3 + s.kp;

    let x71 = x[i7] - x[i1];
    let x72 = x[i7] - x[i2];
    let x74 = x[i7] - x[i4];
    let x30 = x[i3] - x[i0];
    let x50 = x[i5] - x[i0];
    let x60 = x[i6] - x[i0];

    let y71 = y[i7] - y[i1];
    let y72 = y[i7] - y[i2];
    let y74 = y[i7] - y[i4];
    let y30 = y[i3] - y[i0];
    let y50 = y[i5] - y[i0];
    let y60 = y[i6] - y[i0];

    let z71 = z[i7] - z[i1];
    let z72 = z[i7] - z[i2];
    let z74 = z[i7] - z[i4];
    let z30 = z[i3] - z[i0];
    let z50 = z[i5] - z[i0];
    let z60 = z[i6] - z[i0];

    var xps = x71 + x60;
    var yps = y71 + y60;
    var zps = z71 + z60;
    var cyz = y72 * z30 - z72 * y30;
    var czx = z72 * x30 - x72 * z30;
    var cxy = x72 * y30 - y72 * x30;
    var v = xps * cyz + yps * czx + zps * cxy;

    xps = x72 + x50;
    yps = y72 + y50;
    zps = z72 + z50;
    cyz = y74 * z60 - z74 * y60;
    czx = z74 * x60 - x74 * z60;
    cxy = x74 * y60 - y74 * x60;
    v += xps * cyz + yps * czx + zps * cxy;

    xps = x74 + x30;
    yps = y74 + y30;
    zps = z74 + z30;
    cyz = y71 * z50 - z71 * y50;
    czx = z71 * x50 - x71 * z50;
    cxy = x71 * y50 - y71 * x50;
    v += xps * cyz + yps * czx + zps * cxy;

    vol[i0] = v * s.vnormq;
}

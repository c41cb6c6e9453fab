// Apps_DEL_DOT_VEC_2D: divergence of (xdot, ydot) on each real zone of a 2-D mesh.
// Zone i has nodes i (4), i+1 (1), i+1+jp (2), i+jp (3), as RAJAPerf's NDSET2D.

@compute @workgroup_size(GROUP)
fn del_dot_vec_2d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let ii = global_index(wid, nwg, lid);
    if (ii >= s.n) {
        return;
    }
    let h = s.half;
    let i4 = real_zones[ii];
    let i1 = i4 + 1;
    let i2 = i1 + s.jp;
    let i3 = i4 + s.jp;

    let xi = h * (x[i1] + x[i2] - x[i3] - x[i4]);
    let xj = h * (x[i2] + x[i3] - x[i4] - x[i1]);
    let yi = h * (y[i1] + y[i2] - y[i3] - y[i4]);
    let yj = h * (y[i2] + y[i3] - y[i4] - y[i1]);
    let fxi = h * (xdot[i1] + xdot[i2] - xdot[i3] - xdot[i4]);
    let fxj = h * (xdot[i2] + xdot[i3] - xdot[i4] - xdot[i1]);
    let fyi = h * (ydot[i1] + ydot[i2] - ydot[i3] - ydot[i4]);
    let fyj = h * (ydot[i2] + ydot[i3] - ydot[i4] - ydot[i1]);

    let rarea = REAL(1.0) / (xi * yj - xj * yi + s.ptiny);
    let dfxdx = rarea * (fxi * yj - fxj * yi);
    let dfydy = rarea * (fyj * xi - fyi * xj);
    let affine = (ydot[i1] + ydot[i2] + ydot[i3] + ydot[i4]) / (y[i1] + y[i2] + y[i3] + y[i4]);
    div[i4] = dfxdx + dfydy + affine;
}

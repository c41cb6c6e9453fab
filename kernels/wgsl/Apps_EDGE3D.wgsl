// Apps_EDGE3D: per zone, the sum of its 12 x 12 edge-element mass plus curl-curl matrix.
// Zone i has nodes i + {0, 1, jp, 1+jp} + {0, kp}, numbered 0..7 as NDPTRSET; the matrix is
// integrated at the 2 x 2 x 2 Gauss-Legendre points QPT0, QPT1 (weight QWGT each). The matrix
// is symmetric: its upper triangle is accumulated, each off-diagonal entry counting twice.

// Jacobian entries: w0 (v[a0] - v[b0]) + ... + w3 (v[a3] - v[b3]) for the corners a, b of
// one axis. The corners are constants: naga copies an array value to memory for every access
// at an index only known at run time.
fn jac_x(v: array<REAL, 8>, w: array<REAL, 4>) -> REAL {
    return (v[1] - v[0]) * w[0] + (v[2] - v[3]) * w[1] + (v[5] - v[4]) * w[2] +
        (v[6] - v[7]) * w[3];
}

fn jac_y(v: array<REAL, 8>, w: array<REAL, 4>) -> REAL {
    return (v[3] - v[0]) * w[0] + (v[2] - v[1]) * w[1] + (v[7] - v[4]) * w[2] +
        (v[6] - v[5]) * w[3];
}

fn jac_z(v: array<REAL, 8>, w: array<REAL, 4>) -> REAL {
    return (v[4] - v[0]) * w[0] + (v[5] - v[1]) * w[1] + (v[6] - v[2]) * w[2] +
        (v[7] - v[3]) * w[3];
}

@compute @workgroup_size(GROUP)
fn edge3d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let t = global_index(wid, nwg, lid);
    if (t >= s.n) {
        return;
    }
    let i0 = s.first + i32(t);
    let n1 = i0 + s.jp;
    let n4 = i0 + s.kp;
    let n6 = n1 + s.kp;
    let X = array<REAL, 8>(x[i0], x[i0 + 1], x[n1], x[n1 + 1], x[n4], x[n4 + 1], x[n6], x[n6 + 1]);
    let Y = array<REAL, 8>(y[i0], y[i0 + 1], y[n1], y[n1 + 1], y[n4], y[n4 + 1], y[n6], y[n6 + 1]);
    let Z = array<REAL, 8>(z[i0], z[i0 + 1], z[n1], z[n1 + 1], z[n4], z[n4 + 1], z[n6], z[n6 + 1]);
    var qpts = array<REAL, 2>(QPT0, QPT1);
    var mat: array<REAL, EB * EB>;
    for (var qi = 0; qi < 2; qi++) {
        let xloc = qpts[qi];
        let tmpx = 1.0 - xloc;
        var dbx = array<REAL, EB>(0.0, 0.0, 0.0, 0.0, tmpx, xloc, -tmpx, -xloc, -tmpx, -xloc,
                                  tmpx, xloc);
        for (var qj = 0; qj < 2; qj++) {
            let yloc = qpts[qj];
            let tmpy = 1.0 - yloc;
            let wxy = array<REAL, 4>(tmpx * tmpy, xloc * tmpy, xloc * yloc, tmpx * yloc);
            let jzx = jac_z(X, wxy);
            let jzy = jac_z(Y, wxy);
            let jzz = jac_z(Z, wxy);
            var dby = array<REAL, EB>(-tmpy, -yloc, tmpy, yloc, 0.0, 0.0, 0.0, 0.0, tmpy, -tmpy,
                                      yloc, -yloc);
            for (var qk = 0; qk < 2; qk++) {
                let zloc = qpts[qk];
                let tmpz = 1.0 - zloc;
                let wyz = array<REAL, 4>(tmpy * tmpz, yloc * tmpz, tmpy * zloc, yloc * zloc);
                let wxz = array<REAL, 4>(tmpx * tmpz, xloc * tmpz, tmpx * zloc, xloc * zloc);
                let jxx = jac_x(X, wyz);
                let jxy = jac_x(Y, wyz);
                let jxz = jac_x(Z, wyz);
                let jyx = jac_y(X, wxz);
                let jyy = jac_y(Y, wxz);
                let jyz = jac_y(Z, wxz);
                let detj = jxy * jyz * jzx - jxz * jyy * jzx + jxz * jyx * jzy -
                    jxx * jyz * jzy - jxy * jyx * jzz + jxx * jyy * jzz;
                let abs_detj = abs(detj);
                let inv_detj = 1.0 / (detj + PTINY);
                let jinv = array<REAL, 9>(
                    (jyy * jzz - jyz * jzy) * inv_detj, (jxz * jzy - jxy * jzz) * inv_detj,
                    (jxy * jyz - jxz * jyy) * inv_detj, (jyz * jzx - jyx * jzz) * inv_detj,
                    (jxx * jzz - jxz * jzx) * inv_detj, (jxz * jyx - jxx * jyz) * inv_detj,
                    (jyx * jzy - jyy * jzx) * inv_detj, (jxy * jzx - jxx * jzy) * inv_detj,
                    (jxx * jyy - jxy * jyx) * inv_detj);
                // The curl transform (1/|J|) J^T: rows (jxx, jyx, jzx), ... of jm.
                let jm = array<REAL, 9>(jxx, jxy, jxz, jyx, jyy, jyz, jzx, jzy, jzz);
                let ia = 1.0 / (abs_detj + PTINY);
                var dbz = array<REAL, EB>(tmpz, -tmpz, zloc, -zloc, -tmpz, tmpz, -zloc, zloc,
                                          0.0, 0.0, 0.0, 0.0);
                var ebx = array<REAL, EB>(wyz[0], wyz[1], wyz[2], wyz[3], 0.0, 0.0, 0.0, 0.0,
                                          0.0, 0.0, 0.0, 0.0);
                var eby = array<REAL, EB>(0.0, 0.0, 0.0, 0.0, wxz[0], wxz[1], wxz[2], wxz[3],
                                          0.0, 0.0, 0.0, 0.0);
                var ebz = array<REAL, EB>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, wxy[0], wxy[1],
                                          wxy[3], wxy[2]);
                var te: array<array<REAL, EB>, 3>;
                var td: array<array<REAL, EB>, 3>;
                // The rows r written out, so that jinv and jm are read at constants.
                for (var m = 0; m < EB; m++) {
                    te[0][m] = jinv[0] * ebx[m] + jinv[1] * eby[m] + jinv[2] * ebz[m];
                    td[0][m] = (jm[0] * dbx[m] + jm[3] * dby[m] + jm[6] * dbz[m]) * ia;
                    te[1][m] = jinv[3] * ebx[m] + jinv[4] * eby[m] + jinv[5] * ebz[m];
                    td[1][m] = (jm[1] * dbx[m] + jm[4] * dby[m] + jm[7] * dbz[m]) * ia;
                    te[2][m] = jinv[6] * ebx[m] + jinv[7] * eby[m] + jinv[8] * ebz[m];
                    td[2][m] = (jm[2] * dbx[m] + jm[5] * dby[m] + jm[8] * dbz[m]) * ia;
                }
                let w = QWGT * QWGT * QWGT * abs_detj;
                for (var p = 0; p < EB; p++) {
                    for (var m = p; m < EB; m++) {
                        mat[p * EB + m] += w * (te[0][p] * te[0][m] + te[1][p] * te[1][m] +
                            te[2][p] * te[2][m]);
                        mat[p * EB + m] += w * (td[0][p] * td[0][m] + td[1][p] * td[1][m] +
                            td[2][p] * td[2][m]);
                    }
                }
            }
        }
    }
    var total = REAL(0);
    for (var p = 0; p < EB; p++) {
        var row = mat[p * EB + p];
        for (var m = p + 1; m < EB; m++) {
            row += 2.0 * mat[p * EB + m];
        }
        total += row;
    }
    sum[i0] = total;
}

// Apps_EDGE3D: per zone, the sum of its 12 x 12 edge-element mass plus curl-curl matrix.
// Zone i has nodes i + {0, 1, jp, 1+jp} + {0, kp}, numbered 0..7 as NDPTRSET; the matrix is
// integrated at the 2 x 2 x 2 Gauss-Legendre points QPT0, QPT1 (weight QWGT each). The matrix
// is symmetric: its upper triangle is accumulated, each off-diagonal entry counting twice.

// Jacobian entry: w0 (v[a0] - v[b0]) + ... + w3 (v[a3] - v[b3]) for the corners of one axis.
#define JAC(v, a0, b0, a1, b1, a2, b2, a3, b3, w)                                                  \
    ((v[a0] - v[b0]) * w[0] + (v[a1] - v[b1]) * w[1] + (v[a2] - v[b2]) * w[2] +                    \
     (v[a3] - v[b3]) * w[3])

KERNEL void edge3d(GLOBAL const REAL* x, GLOBAL const REAL* y, GLOBAL const REAL* z,
                   GLOBAL REAL* sum, const int jp, const int kp, const int first, const uint n)
{
    FOR_EACH(t, n) {
        const int i0 = first + (int)t;
        const int n1 = i0 + jp;
        const int n4 = i0 + kp;
        const int n6 = n1 + kp;
        const REAL X[] = {x[i0], x[i0 + 1], x[n1], x[n1 + 1], x[n4], x[n4 + 1], x[n6], x[n6 + 1]};
        const REAL Y[] = {y[i0], y[i0 + 1], y[n1], y[n1 + 1], y[n4], y[n4 + 1], y[n6], y[n6 + 1]};
        const REAL Z[] = {z[i0], z[i0 + 1], z[n1], z[n1 + 1], z[n4], z[n4 + 1], z[n6], z[n6 + 1]};
        const REAL qpts[] = {QPT0, QPT1};
        REAL mat[EB * EB] = {0};
        for (int qi = 0; qi < 2; qi++) {
            const REAL xloc = qpts[qi];
            const REAL tmpx = (REAL)1 - xloc;
            const REAL dbx[EB] = {0, 0, 0, 0, tmpx, xloc, -tmpx, -xloc, -tmpx, -xloc, tmpx, xloc};
            for (int qj = 0; qj < 2; qj++) {
                const REAL yloc = qpts[qj];
                const REAL tmpy = (REAL)1 - yloc;
                const REAL wxy[] = {tmpx * tmpy, xloc * tmpy, xloc * yloc, tmpx * yloc};
                const REAL jzx = JAC(X, 4, 0, 5, 1, 6, 2, 7, 3, wxy);
                const REAL jzy = JAC(Y, 4, 0, 5, 1, 6, 2, 7, 3, wxy);
                const REAL jzz = JAC(Z, 4, 0, 5, 1, 6, 2, 7, 3, wxy);
                const REAL dby[EB] = {-tmpy, -yloc, tmpy, yloc,  0,    0,
                                      0,     0,     tmpy, -tmpy, yloc, -yloc};
                for (int qk = 0; qk < 2; qk++) {
                    const REAL zloc = qpts[qk];
                    const REAL tmpz = (REAL)1 - zloc;
                    const REAL wyz[] = {tmpy * tmpz, yloc * tmpz, tmpy * zloc, yloc * zloc};
                    const REAL wxz[] = {tmpx * tmpz, xloc * tmpz, tmpx * zloc, xloc * zloc};
                    const REAL jxx = JAC(X, 1, 0, 2, 3, 5, 4, 6, 7, wyz);
                    const REAL jxy = JAC(Y, 1, 0, 2, 3, 5, 4, 6, 7, wyz);
                    const REAL jxz = JAC(Z, 1, 0, 2, 3, 5, 4, 6, 7, wyz);
                    const REAL jyx = JAC(X, 3, 0, 2, 1, 7, 4, 6, 5, wxz);
                    const REAL jyy = JAC(Y, 3, 0, 2, 1, 7, 4, 6, 5, wxz);
                    const REAL jyz = JAC(Z, 3, 0, 2, 1, 7, 4, 6, 5, wxz);
                    const REAL detj = jxy * jyz * jzx - jxz * jyy * jzx + jxz * jyx * jzy -
                                      jxx * jyz * jzy - jxy * jyx * jzz + jxx * jyy * jzz;
                    const REAL abs_detj = fabs(detj);
                    const REAL inv_detj = (REAL)1 / (detj + PTINY);
                    const REAL jinv[] = {
                        (jyy * jzz - jyz * jzy) * inv_detj, (jxz * jzy - jxy * jzz) * inv_detj,
                        (jxy * jyz - jxz * jyy) * inv_detj, (jyz * jzx - jyx * jzz) * inv_detj,
                        (jxx * jzz - jxz * jzx) * inv_detj, (jxz * jyx - jxx * jyz) * inv_detj,
                        (jyx * jzy - jyy * jzx) * inv_detj, (jxy * jzx - jxx * jzy) * inv_detj,
                        (jxx * jyy - jxy * jyx) * inv_detj};
                    // The curl transform (1/|J|) J^T: rows (jxx, jyx, jzx), ... of jm.
                    const REAL jm[] = {jxx, jxy, jxz, jyx, jyy, jyz, jzx, jzy, jzz};
                    const REAL ia = (REAL)1 / (abs_detj + PTINY);
                    const REAL dbz[EB] = {tmpz,  -tmpz, zloc, -zloc, -tmpz, tmpz,
                                          -zloc, zloc,  0,    0,     0,     0};
                    const REAL ebx[EB] = {wyz[0], wyz[1], wyz[2], wyz[3], 0, 0, 0, 0, 0, 0, 0, 0};
                    const REAL eby[EB] = {0, 0, 0, 0, wxz[0], wxz[1], wxz[2], wxz[3], 0, 0, 0, 0};
                    const REAL ebz[EB] = {0, 0, 0, 0, 0, 0, 0, 0, wxy[0], wxy[1], wxy[3], wxy[2]};
                    REAL te[3][EB], td[3][EB];
                    for (int m = 0; m < EB; m++) {
                        for (int r = 0; r < 3; r++) {
                            te[r][m] = jinv[3 * r] * ebx[m] + jinv[3 * r + 1] * eby[m] +
                                       jinv[3 * r + 2] * ebz[m];
                            td[r][m] =
                                (jm[r] * dbx[m] + jm[r + 3] * dby[m] + jm[r + 6] * dbz[m]) * ia;
                        }
                    }
                    const REAL w = QWGT * QWGT * QWGT * abs_detj;
                    for (int p = 0; p < EB; p++) {
                        for (int m = p; m < EB; m++) {
                            mat[p * EB + m] += w * (te[0][p] * te[0][m] + te[1][p] * te[1][m] +
                                                    te[2][p] * te[2][m]);
                            mat[p * EB + m] += w * (td[0][p] * td[0][m] + td[1][p] * td[1][m] +
                                                    td[2][p] * td[2][m]);
                        }
                    }
                }
            }
        }
        REAL s = (REAL)0;
        for (int p = 0; p < EB; p++) {
            REAL row = mat[p * EB + p];
            for (int m = p + 1; m < EB; m++) {
                row += (REAL)2 * mat[p * EB + m];
            }
            s += row;
        }
        sum[i0] = s;
    }
}

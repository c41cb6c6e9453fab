// Apps_DEL_DOT_VEC_2D: divergence of (xdot, ydot) on each real zone of a 2-D mesh.
// Zone i has nodes i (4), i+1 (1), i+1+jp (2), i+jp (3), as RAJAPerf's NDSET2D.
KERNEL void del_dot_vec_2d(GLOBAL const REAL* x, GLOBAL const REAL* y, GLOBAL const REAL* xdot,
                           GLOBAL const REAL* ydot, GLOBAL REAL* div, GLOBAL const int* real_zones,
                           const REAL one_half, const REAL ptiny, const int jp, const uint n)
{
    FOR_EACH(ii, n) {
        const int i4 = real_zones[ii];
        const int i1 = i4 + 1;
        const int i2 = i1 + jp;
        const int i3 = i4 + jp;

        const REAL xi = one_half * (x[i1] + x[i2] - x[i3] - x[i4]);
        const REAL xj = one_half * (x[i2] + x[i3] - x[i4] - x[i1]);
        const REAL yi = one_half * (y[i1] + y[i2] - y[i3] - y[i4]);
        const REAL yj = one_half * (y[i2] + y[i3] - y[i4] - y[i1]);
        const REAL fxi = one_half * (xdot[i1] + xdot[i2] - xdot[i3] - xdot[i4]);
        const REAL fxj = one_half * (xdot[i2] + xdot[i3] - xdot[i4] - xdot[i1]);
        const REAL fyi = one_half * (ydot[i1] + ydot[i2] - ydot[i3] - ydot[i4]);
        const REAL fyj = one_half * (ydot[i2] + ydot[i3] - ydot[i4] - ydot[i1]);

        const REAL rarea = (REAL)1.0 / (xi * yj - xj * yi + ptiny);
        const REAL dfxdx = rarea * (fxi * yj - fxj * yi);
        const REAL dfydy = rarea * (fyj * xi - fyi * xj);
        const REAL affine =
            (ydot[i1] + ydot[i2] + ydot[i3] + ydot[i4]) / (y[i1] + y[i2] + y[i3] + y[i4]);
        div[i4] = dfxdx + dfydy + affine;
    }
}

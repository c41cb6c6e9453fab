// Apps_MATVEC_3D_STENCIL: b = A x on each real zone, A a symmetric 27-point stencil.
// Only 14 coefficient arrays are stored (the lower, "d", plane, the back row of the
// centre plane and the centre's left and own coefficient); the other 13 are read
// from the mirrored array at the neighbour, as RAJAPerf's aliased pointers do.
KERNEL void matvec_3d_stencil(
    GLOBAL REAL* b, GLOBAL const REAL* x, GLOBAL const REAL* dbl, GLOBAL const REAL* dbc,
    GLOBAL const REAL* dbr, GLOBAL const REAL* dcl, GLOBAL const REAL* dcc, GLOBAL const REAL* dcr,
    GLOBAL const REAL* dfl, GLOBAL const REAL* dfc, GLOBAL const REAL* dfr, GLOBAL const REAL* cbl,
    GLOBAL const REAL* cbc, GLOBAL const REAL* cbr, GLOBAL const REAL* ccl, GLOBAL const REAL* ccc,
    GLOBAL const int* real_zones, const int jp, const int kp, const uint n)
{
    FOR_EACH(ii, n) {
        const int i = real_zones[ii];
        const int d = i - kp; // the plane below
        const int u = i + kp; // the plane above
        b[i] = dbl[i] * x[d - jp - 1] + dbc[i] * x[d - jp] + dbr[i] * x[d - jp + 1] +
               dcl[i] * x[d - 1] + dcc[i] * x[d] + dcr[i] * x[d + 1] + dfl[i] * x[d + jp - 1] +
               dfc[i] * x[d + jp] + dfr[i] * x[d + jp + 1]

               + cbl[i] * x[i - jp - 1] + cbc[i] * x[i - jp] + cbr[i] * x[i - jp + 1] +
               ccl[i] * x[i - 1] + ccc[i] * x[i] + ccl[i + 1] * x[i + 1] +
               cbr[i + jp - 1] * x[i + jp - 1] + cbc[i + jp] * x[i + jp] +
               cbl[i + jp + 1] * x[i + jp + 1]

               + dfr[u - jp - 1] * x[u - jp - 1] + dfc[u - jp] * x[u - jp] +
               dfl[u - jp + 1] * x[u - jp + 1] + dcr[u - 1] * x[u - 1] + dcc[u] * x[u] +
               dcl[u + 1] * x[u + 1] + dbr[u + jp - 1] * x[u + jp - 1] + dbc[u + jp] * x[u + jp] +
               dbl[u + jp + 1] * x[u + jp + 1];
    }
}

// Apps_MATVEC_3D_STENCIL: b = A x on each real zone, A a symmetric 27-point stencil.
// Only 14 coefficient arrays are stored (the lower, "d", plane, the back row of the
// centre plane and the centre's left and own coefficient); the other 13 are read
// from the mirrored array at the neighbour, as RAJAPerf's aliased pointers do.
extern "C" __global__ void matvec_3d_stencil(REAL* b, const REAL* x, const REAL* dbl,
                                             const REAL* dbc, const REAL* dbr, const REAL* dcl,
                                             const REAL* dcc, const REAL* dcr, const REAL* dfl,
                                             const REAL* dfc, const REAL* dfr, const REAL* cbl,
                                             const REAL* cbc, const REAL* cbr, const REAL* ccl,
                                             const REAL* ccc, const int* real_zones, const int jp,
                                             const int kp, const unsigned int n)
{
    const size_t ii = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (ii >= n) {
        return;
    }
    const int i = real_zones[ii];
    const int d = i - kp; // the plane below
    const int u = i + kp; // the plane above
    b[i] = dbl[i] * x[d - jp - 1] + dbc[i] * x[d - jp] + dbr[i] * x[d - jp + 1]
           + dcl[i] * x[d - 1] + dcc[i] * x[d] + dcr[i] * x[d + 1]
           + dfl[i] * x[d + jp - 1] + dfc[i] * x[d + jp] + dfr[i] * x[d + jp + 1]

           + cbl[i] * x[i - jp - 1] + cbc[i] * x[i - jp] + cbr[i] * x[i - jp + 1]
           + ccl[i] * x[i - 1] + ccc[i] * x[i] + ccl[i + 1] * x[i + 1]
           + cbr[i + jp - 1] * x[i + jp - 1] + cbc[i + jp] * x[i + jp]
           + cbl[i + jp + 1] * x[i + jp + 1]

           + dfr[u - jp - 1] * x[u - jp - 1] + dfc[u - jp] * x[u - jp]
           + dfl[u - jp + 1] * x[u - jp + 1]
           + dcr[u - 1] * x[u - 1] + dcc[u] * x[u] + dcl[u + 1] * x[u + 1]
           + dbr[u + jp - 1] * x[u + jp - 1] + dbc[u + jp] * x[u + jp]
           + dbl[u + jp + 1] * x[u + jp + 1];
}

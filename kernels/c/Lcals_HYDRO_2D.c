// Lcals_HYDRO_2D: one step of 2-D explicit hydrodynamics on an n x n grid,
// a[k][j] = a[j + k*n], over the interior k, j = 1 .. n-2 in three launches:
// hydro_2d_body1 the fluxes za, zb; hydro_2d_body2 adds their updates to zu, zv;
// hydro_2d_body3 writes zrout, zzout. 2-D launches over the interior, as
// RAJAPerf's GPU variants: axis 0 is j - 1 (along a row), axis 1 is k - 1.
KERNEL void hydro_2d_body1(GLOBAL REAL* za, GLOBAL REAL* zb, GLOBAL const REAL* zm,
                           GLOBAL const REAL* zp, GLOBAL const REAL* zq, GLOBAL const REAL* zr,
                           const uint n)
{
    const size_t m = max(n, 2u) - 2u;
    FOR_EACH_2D(jj, kk, m, m) {
        const size_t k = 1 + kk;
        const size_t j = 1 + jj;
        za[j + k * n] = (zp[j - 1 + (k + 1) * n] + zq[j - 1 + (k + 1) * n] - zp[j - 1 + k * n] -
                         zq[j - 1 + k * n]) *
                        (zr[j + k * n] + zr[j - 1 + k * n]) /
                        (zm[j - 1 + k * n] + zm[j - 1 + (k + 1) * n]);
        zb[j + k * n] = (zp[j - 1 + k * n] + zq[j - 1 + k * n] - zp[j + k * n] - zq[j + k * n]) *
                        (zr[j + k * n] + zr[j + (k - 1) * n]) / (zm[j + k * n] + zm[j - 1 + k * n]);
    }
}

KERNEL void hydro_2d_body2(GLOBAL REAL* zu, GLOBAL REAL* zv, GLOBAL const REAL* za,
                           GLOBAL const REAL* zb, GLOBAL const REAL* zr, GLOBAL const REAL* zz,
                           const REAL s, const uint n)
{
    const size_t m = max(n, 2u) - 2u;
    FOR_EACH_2D(jj, kk, m, m) {
        const size_t k = 1 + kk;
        const size_t j = 1 + jj;
        const size_t c = j + k * n;
        zu[c] += s * (za[c] * (zz[c] - zz[c + 1]) - za[c - 1] * (zz[c] - zz[c - 1]) -
                      zb[c] * (zz[c] - zz[c - n]) + zb[c + n] * (zz[c] - zz[c + n]));
        zv[c] += s * (za[c] * (zr[c] - zr[c + 1]) - za[c - 1] * (zr[c] - zr[c - 1]) -
                      zb[c] * (zr[c] - zr[c - n]) + zb[c + n] * (zr[c] - zr[c + n]));
    }
}

KERNEL void hydro_2d_body3(GLOBAL REAL* zrout, GLOBAL REAL* zzout, GLOBAL const REAL* zr,
                           GLOBAL const REAL* zu, GLOBAL const REAL* zv, GLOBAL const REAL* zz,
                           const REAL t, const uint n)
{
    const size_t m = max(n, 2u) - 2u;
    FOR_EACH_2D(jj, kk, m, m) {
        const size_t k = 1 + kk;
        const size_t j = 1 + jj;
        const size_t c = j + k * n;
        zrout[c] = zr[c] + t * zu[c];
        zzout[c] = zz[c] + t * zv[c];
    }
}

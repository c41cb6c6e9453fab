// Lcals_HYDRO_1D: x[i] = q + y[i] * (r * z[i+10] + t * z[i+11]).
// RAJAPerf shifts its z pointer by -10 first, so the elements read are z[i]
// and z[i+1] of the stored array, which has n+1 elements.
KERNEL void hydro_1d(GLOBAL REAL* x, GLOBAL const REAL* y, GLOBAL const REAL* z, const REAL q,
                     const REAL r, const REAL t, const uint n)
{
    FOR_EACH(i, n) {
        x[i] = q + y[i] * (r * z[i] + t * z[i + 1]);
    }
}

// Lcals_HYDRO_1D: x[i] = q + y[i] * (r * z[i+10] + t * z[i+11]).
// RAJAPerf shifts its z pointer by -10 first, so the elements read are z[i]
// and z[i+1] of the stored array, which has n+1 elements.
extern "C" __global__ void hydro_1d(REAL* x, const REAL* y, const REAL* z, const REAL q,
                                    const REAL r, const REAL t, const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = q + y[i] * (r * z[i] + t * z[i + 1]);
    }
}

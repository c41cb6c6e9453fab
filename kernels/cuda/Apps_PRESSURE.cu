// Apps_PRESSURE: bvc from compression, then p_new from bvc and e_old with cut-offs.
extern "C" __global__ void pressure1(const REAL* compression, REAL* bvc, const REAL cls,
                                     const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        bvc[i] = cls * (compression[i] + (REAL)1.0);
    }
}

extern "C" __global__ void pressure2(const REAL* bvc, REAL* p_new, const REAL* e_old,
                                     const REAL* vnewc, const REAL p_cut, const REAL pmin,
                                     const REAL eosvmax, const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    REAL p = bvc[i] * e_old[i];
    if (fabs(p) < p_cut) {
        p = (REAL)0.0;
    }
    if (vnewc[i] >= eosvmax) {
        p = (REAL)0.0;
    }
    if (p < pmin) {
        p = pmin;
    }
    p_new[i] = p;
}

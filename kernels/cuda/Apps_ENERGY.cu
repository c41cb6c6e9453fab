// Apps_ENERGY: the six loops of a hydro energy update, one entry point each.
#define SSC_FLOOR ((REAL)0.1111111e-36)
#define SSC_MIN ((REAL)0.3333333e-18)

// sqrt(ssc), or a small constant where ssc is at or below the floor.
__device__ REAL sound_speed(const REAL ssc)
{
    return ssc <= SSC_FLOOR ? SSC_MIN : sqrt(ssc);
}

extern "C" __global__ void energy1(REAL* e_new, const REAL* e_old, const REAL* delvc,
                                   const REAL* p_old, const REAL* q_old, const REAL* work,
                                   const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        e_new[i] = e_old[i] - (REAL)0.5 * delvc[i] * (p_old[i] + q_old[i]) + (REAL)0.5 * work[i];
    }
}

extern "C" __global__ void energy2(const REAL* e_new, const REAL* delvc, REAL* q_new,
                                   const REAL* compHalfStep, const REAL* pHalfStep,
                                   const REAL* bvc, const REAL* pbvc, const REAL* ql_old,
                                   const REAL* qq_old, const REAL rho0, const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    if (delvc[i] > (REAL)0.0) {
        q_new[i] = (REAL)0.0;
    } else {
        const REAL vhalf = (REAL)1.0 / ((REAL)1.0 + compHalfStep[i]);
        const REAL ssc =
            sound_speed((pbvc[i] * e_new[i] + vhalf * vhalf * bvc[i] * pHalfStep[i]) / rho0);
        q_new[i] = ssc * ql_old[i] + qq_old[i];
    }
}

extern "C" __global__ void energy3(REAL* e_new, const REAL* delvc, const REAL* p_old,
                                   const REAL* q_new, const REAL* q_old, const REAL* pHalfStep,
                                   const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        e_new[i] = e_new[i] + (REAL)0.5 * delvc[i]
                   * ((REAL)3.0 * (p_old[i] + q_old[i]) - (REAL)4.0 * (pHalfStep[i] + q_new[i]));
    }
}

extern "C" __global__ void energy4(REAL* e_new, const REAL* work, const REAL e_cut,
                                   const REAL emin, const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    REAL e = e_new[i] + (REAL)0.5 * work[i];
    if (fabs(e) < e_cut) {
        e = (REAL)0.0;
    }
    if (e < emin) {
        e = emin;
    }
    e_new[i] = e;
}

extern "C" __global__ void energy5(REAL* e_new, const REAL* delvc, const REAL* p_new,
                                   const REAL* p_old, const REAL* q_new, const REAL* q_old,
                                   const REAL* pHalfStep, const REAL* bvc, const REAL* pbvc,
                                   const REAL* ql_old, const REAL* qq_old, const REAL* vnewc,
                                   const REAL rho0, const REAL e_cut, const REAL emin,
                                   const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    REAL q_tilde;
    if (delvc[i] > (REAL)0.0) {
        q_tilde = (REAL)0.0;
    } else {
        const REAL ssc =
            sound_speed((pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0);
        q_tilde = ssc * ql_old[i] + qq_old[i];
    }
    REAL e = e_new[i]
             - ((REAL)7.0 * (p_old[i] + q_old[i]) - (REAL)8.0 * (pHalfStep[i] + q_new[i])
                + (p_new[i] + q_tilde))
                   * delvc[i] / (REAL)6.0;
    if (fabs(e) < e_cut) {
        e = (REAL)0.0;
    }
    if (e < emin) {
        e = emin;
    }
    e_new[i] = e;
}

extern "C" __global__ void energy6(const REAL* e_new, const REAL* delvc, const REAL* p_new,
                                   REAL* q_new, const REAL* bvc, const REAL* pbvc,
                                   const REAL* ql_old, const REAL* qq_old, const REAL* vnewc,
                                   const REAL rho0, const REAL q_cut, const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || !(delvc[i] <= (REAL)0.0)) {
        return;
    }
    const REAL ssc =
        sound_speed((pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0);
    REAL q = ssc * ql_old[i] + qq_old[i];
    if (fabs(q) < q_cut) {
        q = (REAL)0.0;
    }
    q_new[i] = q;
}

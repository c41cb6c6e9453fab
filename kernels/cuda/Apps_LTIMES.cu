// Apps_LTIMES: phi(z, g, m) += ell(m, d) * psi(z, g, d), one work-item per (z, g, m).
// Layouts: phi[m + M*(g + G*z)], ell[d + D*m], psi[d + D*(g + G*z)].
extern "C" __global__ void ltimes(REAL* phi, const REAL* ell, const REAL* psi,
                                  const unsigned int num_d, const unsigned int num_g,
                                  const unsigned int num_m, const unsigned int n)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    const size_t m = t % num_m;
    const size_t zg = t / num_m;
    const REAL* psi_zg = psi + zg * num_d;
    const REAL* ell_m = ell + m * num_d;
    REAL acc = phi[t];
    for (unsigned int d = 0; d < num_d; ++d) {
        acc += ell_m[d] * psi_zg[d];
    }
    phi[t] = acc;
}

// Apps_LTIMES: phi(z, g, m) += ell(m, d) * psi(z, g, d), one work-item per (z, g, m).
// Layouts: phi[m + M*(g + G*z)], ell[d + D*m], psi[d + D*(g + G*z)].
KERNEL void ltimes(GLOBAL REAL* phi, GLOBAL const REAL* ell, GLOBAL const REAL* psi,
                   const uint num_d, const uint num_g, const uint num_m, const uint n)
{
    FOR_EACH(t, n) {
        const size_t m = t % num_m;
        const size_t zg = t / num_m;
        GLOBAL const REAL* psi_zg = psi + zg * num_d;
        GLOBAL const REAL* ell_m = ell + m * num_d;
        REAL acc = phi[t];
        for (uint d = 0; d < num_d; ++d) {
            acc += ell_m[d] * psi_zg[d];
        }
        phi[t] = acc;
    }
}

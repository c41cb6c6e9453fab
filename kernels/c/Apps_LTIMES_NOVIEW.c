// Apps_LTIMES_NOVIEW: phi(z, g, m) += ell(m, d) * psi(z, g, d), one work-item per (m, g, z).
// Layouts: phi[m + M*(g + G*z)], ell[d + D*m], psi[d + D*(g + G*z)]; axes x, y, z are m, g, z.
KERNEL void ltimes_noview(GLOBAL REAL* phi, GLOBAL const REAL* ell, GLOBAL const REAL* psi,
                          const uint num_d, const uint num_g, const uint num_m, const uint num_z)
{
    const size_t m = GLOBAL_ID(0);
    const size_t g = GLOBAL_ID(1);
    const size_t z = GLOBAL_ID(2);
    if (m >= num_m || g >= num_g || z >= num_z) {
        return;
    }
    const size_t zg = g + z * num_g;
    GLOBAL const REAL* psi_zg = psi + zg * num_d;
    GLOBAL const REAL* ell_m = ell + m * num_d;
    const size_t t = m + zg * num_m;
    REAL acc = phi[t];
    for (uint d = 0; d < num_d; ++d) {
        acc += ell_m[d] * psi_zg[d];
    }
    phi[t] = acc;
}

// Apps_LTIMES_NOVIEW: phi(z, g, m) += ell(m, d) * psi(z, g, d), one invocation per (m, g, z).
// Layouts: phi[m + M*(g + G*z)], ell[d + D*m], psi[d + D*(g + G*z)]; axes x, y, z are m, g, z.

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn ltimes_noview(@builtin(global_invocation_id) gid: vec3<u32>) {
    let m = gid.x;
    let g = gid.y;
    let z = gid.z;
    if (m >= s.num_m || g >= s.num_g || z >= s.num_z) {
        return;
    }
    let zg = g + z * s.num_g;
    let t = m + zg * s.num_m;
    var acc = phi[t];
    for (var d = 0u; d < s.num_d; d++) {
        acc += ell[d + s.num_d * m] * psi[d + s.num_d * zg];
    }
    phi[t] = acc;
}

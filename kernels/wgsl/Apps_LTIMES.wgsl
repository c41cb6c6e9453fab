// Apps_LTIMES: phi(z, g, m) += ell(m, d) * psi(z, g, d), one invocation per (z, g, m).
// Layouts: phi[m + M*(g + G*z)], ell[d + D*m], psi[d + D*(g + G*z)].

@compute @workgroup_size(GROUP)
fn ltimes(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let t = global_index(wid, nwg, lid);
    if (t >= s.n) {
        return;
    }
    let m = t % s.num_m;
    let zg = t / s.num_m;
    var acc = phi[t];
    for (var d = 0u; d < s.num_d; d++) {
        acc += ell[d + s.num_d * m] * psi[d + s.num_d * zg];
    }
    phi[t] = acc;
}

// Lcals_HYDRO_2D: one step of 2-D explicit hydrodynamics on an n x n grid,
// a[k][j] = a[j + k*n], over the interior k, j = 1 .. n-2 in three launches:
// hydro_2d_body1 the fluxes za, zb; hydro_2d_body2 adds their updates to zu, zv;
// hydro_2d_body3 writes zrout, zzout. Work-item w handles interior point
// (k, j) = (1 + w / (n-2), 1 + w % (n-2)).

@compute @workgroup_size(GROUP)
fn hydro_2d_body1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let w = global_index(wid, nwg, lid);
    let n = s.n;
    let m = max(n, 2u) - 2u;
    if (w >= m * m) {
        return;
    }
    let k = 1u + w / m;
    let j = 1u + w % m;
    za[j + k * n] = (zp[j - 1u + (k + 1u) * n] + zq[j - 1u + (k + 1u) * n] - zp[j - 1u + k * n]
                     - zq[j - 1u + k * n])
                    * (zr[j + k * n] + zr[j - 1u + k * n])
                    / (zm[j - 1u + k * n] + zm[j - 1u + (k + 1u) * n]);
    zb[j + k * n] = (zp[j - 1u + k * n] + zq[j - 1u + k * n] - zp[j + k * n] - zq[j + k * n])
                    * (zr[j + k * n] + zr[j + (k - 1u) * n])
                    / (zm[j + k * n] + zm[j - 1u + k * n]);
}

@compute @workgroup_size(GROUP)
fn hydro_2d_body2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let w = global_index(wid, nwg, lid);
    let n = s.n;
    let m = max(n, 2u) - 2u;
    if (w >= m * m) {
        return;
    }
    let c = 1u + w % m + (1u + w / m) * n;
    zu[c] += s.s * (za[c] * (zz[c] - zz[c + 1u]) - za[c - 1u] * (zz[c] - zz[c - 1u])
                    - zb[c] * (zz[c] - zz[c - n]) + zb[c + n] * (zz[c] - zz[c + n]));
    zv[c] += s.s * (za[c] * (zr[c] - zr[c + 1u]) - za[c - 1u] * (zr[c] - zr[c - 1u])
                    - zb[c] * (zr[c] - zr[c - n]) + zb[c + n] * (zr[c] - zr[c + n]));
}

@compute @workgroup_size(GROUP)
fn hydro_2d_body3(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let w = global_index(wid, nwg, lid);
    let n = s.n;
    let m = max(n, 2u) - 2u;
    if (w >= m * m) {
        return;
    }
    let c = 1u + w % m + (1u + w / m) * n;
    zrout[c] = zr[c] + s.t * zu[c];
    zzout[c] = zz[c] + s.t * zv[c];
}

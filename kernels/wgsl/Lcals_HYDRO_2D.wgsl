// Lcals_HYDRO_2D: one step of 2-D explicit hydrodynamics on an n x n grid,
// a[k][j] = a[j + k*n], over the interior k, j = 1 .. n-2 in three launches:
// hydro_2d_body1 the fluxes za, zb; hydro_2d_body2 adds their updates to zu, zv;
// hydro_2d_body3 writes zrout, zzout. 2-D launches over the interior, as
// RAJAPerf's GPU variants: x is j - 1 (along a row), y is k - 1.

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn hydro_2d_body1(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = s.n;
    let m = max(n, 2u) - 2u;
    if (gid.y >= m || gid.x >= m) {
        return;
    }
    let k = 1u + gid.y;
    let j = 1u + gid.x;
    za[j + k * n] = (zp[j - 1u + (k + 1u) * n] + zq[j - 1u + (k + 1u) * n] - zp[j - 1u + k * n]
                     - zq[j - 1u + k * n])
                    * (zr[j + k * n] + zr[j - 1u + k * n])
                    / (zm[j - 1u + k * n] + zm[j - 1u + (k + 1u) * n]);
    zb[j + k * n] = (zp[j - 1u + k * n] + zq[j - 1u + k * n] - zp[j + k * n] - zq[j + k * n])
                    * (zr[j + k * n] + zr[j + (k - 1u) * n])
                    / (zm[j + k * n] + zm[j - 1u + k * n]);
}

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn hydro_2d_body2(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = s.n;
    let m = max(n, 2u) - 2u;
    if (gid.x >= m || gid.y >= m) {
        return;
    }
    let c = 1u + gid.x + (1u + gid.y) * n;
    zu[c] += s.s * (za[c] * (zz[c] - zz[c + 1u]) - za[c - 1u] * (zz[c] - zz[c - 1u])
                    - zb[c] * (zz[c] - zz[c - n]) + zb[c + n] * (zz[c] - zz[c + n]));
    zv[c] += s.s * (za[c] * (zr[c] - zr[c + 1u]) - za[c - 1u] * (zr[c] - zr[c - 1u])
                    - zb[c] * (zr[c] - zr[c - n]) + zb[c + n] * (zr[c] - zr[c + n]));
}

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn hydro_2d_body3(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = s.n;
    let m = max(n, 2u) - 2u;
    if (gid.x >= m || gid.y >= m) {
        return;
    }
    let c = 1u + gid.x + (1u + gid.y) * n;
    zrout[c] = zr[c] + s.t * zu[c];
    zzout[c] = zz[c] + s.t * zv[c];
}

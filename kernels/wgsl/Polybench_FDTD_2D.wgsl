// Polybench_FDTD_2D: one FDTD step on n x n fields, RAJAPerf's four loops in
// three launches: fdtd_2d_ey updates ey from hz (row 0 takes the source
// fict[t]), fdtd_2d_ex updates ex from hz but its column 0, which keeps its
// value, and fdtd_2d_h then updates hz but its last row and column from ex and
// ey. 2-D launches: x is j (along a row), y is i.

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn fdtd_2d_ey(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = s.n;
    let j = gid.x;
    let i = gid.y;
    if (i >= n || j >= n) {
        return;
    }
    let c = j + i * n;
    if (i == 0u) {
        ey[c] = fict[s.t];
    } else {
        ey[c] = ey[c] - E_COEF * (hz[c] - hz[c - n]);
    }
}

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn fdtd_2d_ex(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = s.n;
    let j = gid.x + 1u;
    let i = gid.y;
    if (i >= n || j >= n) {
        return;
    }
    let c = j + i * n;
    ex[c] = ex[c] - E_COEF * (hz[c] - hz[c - 1u]);
}

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn fdtd_2d_h(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = s.n;
    let j = gid.x;
    let i = gid.y;
    if (i + 1u >= n || j + 1u >= n) {
        return;
    }
    let c = j + i * n;
    hz[c] = hz[c] - H_COEF * (ex[c + 1u] - ex[c] + ey[c + n] - ey[c]);
}

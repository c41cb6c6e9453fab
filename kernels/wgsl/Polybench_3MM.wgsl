// Polybench_3MM: E = A.B (ni x nj), F = C.D (nj x nl), then G = E.F (ni x nl).
// Each launch is 2-D, a work-item per output element, as RAJAPerf's GPU
// variant: x is the column (along a row), y the row; every work-item sums its
// terms in order.

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn mm3_e(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let i = gid.y;
    if (i >= s.ni || j >= s.nj) {
        return;
    }
    var dot = REAL(0);
    for (var k = 0u; k < s.nk; k++) {
        dot += A[k + i * s.nk] * B[j + k * s.nj];
    }
    E[j + i * s.nj] = dot;
}

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn mm3_f(@builtin(global_invocation_id) gid: vec3<u32>) {
    let l = gid.x;
    let j = gid.y;
    if (j >= s.nj || l >= s.nl) {
        return;
    }
    var dot = REAL(0);
    for (var m = 0u; m < s.nm; m++) {
        dot += C[m + j * s.nm] * D[l + m * s.nl];
    }
    F[l + j * s.nl] = dot;
}

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn mm3_g(@builtin(global_invocation_id) gid: vec3<u32>) {
    let l = gid.x;
    let i = gid.y;
    if (i >= s.ni || l >= s.nl) {
        return;
    }
    var dot = REAL(0);
    for (var j = 0u; j < s.nj; j++) {
        dot += E[j + i * s.nj] * F[l + j * s.nl];
    }
    G[l + i * s.nl] = dot;
}

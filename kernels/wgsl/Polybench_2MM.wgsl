// Polybench_2MM: tmp = alpha * A.B (ni x nj), then D = beta + tmp.C (ni x nl).
// Each launch is 2-D, a work-item per output element, as RAJAPerf's GPU
// variant: x is the column (along a row), y the row; every work-item sums its
// terms in order.

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn mm2_tmp(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let i = gid.y;
    if (i >= s.ni || j >= s.nj) {
        return;
    }
    var dot = REAL(0);
    for (var k = 0u; k < s.nk; k++) {
        dot += s.alpha * A[k + i * s.nk] * B[j + k * s.nj];
    }
    tmp[j + i * s.nj] = dot;
}

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn mm2_d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let l = gid.x;
    let i = gid.y;
    if (i >= s.ni || l >= s.nl) {
        return;
    }
    var dot = s.beta;
    for (var j = 0u; j < s.nj; j++) {
        dot += tmp[j + i * s.nj] * C[l + j * s.nl];
    }
    D[l + i * s.nl] = dot;
}

// Polybench_3MM: E = A.B (ni x nj), F = C.D (nj x nl), then G = E.F (ni x nl).
// Each launch is 2-D, a work-item per output element, as RAJAPerf's GPU
// variant: x is the column (along a row), y the row; every work-item sums its
// terms in order.
// A sum takes four terms a loop turn, written out (#unroll), and the rest in a second loop:
// naga puts a counter in every loop, which keeps a driver from unrolling it and so from
// having more than a term's loads in flight. One sum, its terms in the same order.

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn mm3_e(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let i = gid.y;
    if (i >= s.ni || j >= s.nj) {
        return;
    }
    var dot = REAL(0);
    var k = 0u;
    for (; k + 4u <= s.nk; k += 4u) {
#unroll t 4
        dot += A[k + t + i * s.nk] * B[j + (k + t) * s.nj];
#endunroll
    }
    for (; k < s.nk; k++) {
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
    var m = 0u;
    for (; m + 4u <= s.nm; m += 4u) {
#unroll t 4
        dot += C[m + t + j * s.nm] * D[l + (m + t) * s.nl];
#endunroll
    }
    for (; m < s.nm; m++) {
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
    var j = 0u;
    for (; j + 4u <= s.nj; j += 4u) {
#unroll t 4
        dot += E[j + t + i * s.nj] * F[l + (j + t) * s.nl];
#endunroll
    }
    for (; j < s.nj; j++) {
        dot += E[j + i * s.nj] * F[l + j * s.nl];
    }
    G[l + i * s.nl] = dot;
}

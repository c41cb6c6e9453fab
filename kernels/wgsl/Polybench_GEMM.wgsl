// Polybench_GEMM: C[i][j] = sum_k alpha * A[i][k] * B[k][j]. As in RAJAPerf,
// C is first scaled by beta and then overwritten, so beta has no effect.
// Each work-group computes one TILE x TILE block of C, staging tiles of A and
// B in workgroup memory; every work-item sums its k terms in order 0..nk-1.

var<workgroup> a_tile: array<array<REAL, TILE>, TILE>;
var<workgroup> b_tile: array<array<REAL, TILE>, TILE>;

@compute @workgroup_size(GROUP)
fn gemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let li = lid / TILE;
    let lj = lid % TILE;
    let tiles_j = (s.nj + TILE - 1u) / TILE;
    let i = (g / tiles_j) * TILE + li;
    let j = (g % tiles_j) * TILE + lj;
    let inside = i < s.ni && j < s.nj;
    if (inside) {
        C[j + i * s.nj] *= s.beta;
    }
    var dot = REAL(0);
    for (var k0 = 0u; k0 < s.nk; k0 += TILE) {
        var a = REAL(0);
        if (i < s.ni && k0 + lj < s.nk) {
            a = A[k0 + lj + i * s.nk];
        }
        var b = REAL(0);
        if (k0 + li < s.nk && j < s.nj) {
            b = B[j + (k0 + li) * s.nj];
        }
        a_tile[li][lj] = a;
        b_tile[li][lj] = b;
        workgroupBarrier();
        for (var k = 0u; k < TILE; k++) {
            dot += s.alpha * a_tile[li][k] * b_tile[k][lj];
        }
        workgroupBarrier();
    }
    if (inside) {
        C[j + i * s.nj] = dot;
    }
}

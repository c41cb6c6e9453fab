// Polybench_GEMM: C[i][j] = sum_k alpha * A[i][k] * B[k][j]. As in RAJAPerf,
// C is first scaled by beta and then overwritten, so beta has no effect.
// Each work-group computes one TILE x TILE block of C, staging tiles of A and
// B in workgroup memory; every work-item sums its k terms in order 0..nk-1.
// A tile's TILE terms are written out (#unroll): naga puts a counter in every loop, which
// keeps a driver from unrolling it, and clamps every run-time index into a work-group array.
// Written out, a work-item reads its row of the A tile through a pointer taken once, at
// constant indices, and the B tile at one run-time index, its column, the same in every term.

const_assert TILE == 16u;

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
    // One index for the scaling and the result: a bug in it shows in the result.
    let at = j + i * s.nj;
    if (inside) {
        C[at] *= s.beta;
    }
    let arow = &a_tile[li];
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
        (*arow)[lj] = a;
        b_tile[li][lj] = b;
        workgroupBarrier();
#unroll k 16
        dot += s.alpha * (*arow)[k] * b_tile[k][lj];
#endunroll
        workgroupBarrier();
    }
    if (inside) {
        C[at] = dot;
    }
}

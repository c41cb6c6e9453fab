// Basic_MAT_MAT_SHARED: C = A.B for N x N matrices, through TL_SZ x TL_SZ tiles of A
// and B staged in workgroup memory, zero past the edges; every element sums its terms
// in k order, as RAJAPerf's tiles do. A work-group computes GROUP / TL_SZ of RAJAPerf's
// C tiles side by side (a TL_SZ x GROUP strip), work-item tx one column of it, its
// TL_SZ rows in registers: the loop over ty runs inside the work-item, as in
// RAJAPerf's sequential variants.

var<workgroup> Bs: array<array<REAL, GROUP>, TL_SZ>;
var<workgroup> As: array<array<REAL, TL_SZ>, TL_SZ>;

@compute @workgroup_size(GROUP)
fn mat_mat_shared(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) tx: u32) {
    let N = s.N;
    let g = wid.x + wid.y * nwg.x;
    let strips = (N + GROUP - 1u) / GROUP;
    let by = g / strips;
    let Col = (g % strips) * GROUP + tx;
    // Where this work-item loads its element of the A tile.
    let ay = tx / TL_SZ;
    let ax = tx % TL_SZ;
    let Row = by * TL_SZ + ay;
    var Cs: array<REAL, TL_SZ>;
    for (var k = 0u; k < (N + TL_SZ - 1u) / TL_SZ; k++) {
        var a = REAL(0);
        if (k * TL_SZ + ax < N && Row < N) {
            a = A[Row * N + k * TL_SZ + ax];
        }
        As[ay][ax] = a;
        for (var ty = 0u; ty < TL_SZ; ty++) {
            var b = REAL(0);
            if (k * TL_SZ + ty < N && Col < N) {
                b = B[(k * TL_SZ + ty) * N + Col];
            }
            Bs[ty][tx] = b;
        }
        workgroupBarrier();
        for (var n = 0u; n < TL_SZ; n++) {
            let b = Bs[n][tx];
            for (var ty = 0u; ty < TL_SZ; ty++) {
                Cs[ty] += As[ty][n] * b;
            }
        }
        workgroupBarrier();
    }
    for (var ty = 0u; ty < TL_SZ; ty++) {
        if (by * TL_SZ + ty < N && Col < N) {
            C[Col + N * (by * TL_SZ + ty)] = Cs[ty];
        }
    }
}

// Basic_MAT_MAT_SHARED: C = A.B for N x N matrices, through TL_SZ x TL_SZ tiles of A
// and B staged in workgroup memory, zero past the edges; every element sums its terms
// in k order, as RAJAPerf's tiles do. A work-group computes GROUP / TL_SZ of RAJAPerf's
// C tiles side by side (a TL_SZ x GROUP strip), work-item tx one column of it, its
// TL_SZ rows in registers: the loop over ty runs inside the work-item, as in
// RAJAPerf's sequential variants. The TL_SZ sums of a work-item are four vectors read and
// written at constant indices: naga keeps loops rolled (it bounds each one), and an
// array the rolled loop indexed would live in memory rather than registers. The B tile is
// stored transposed, a row per column of the strip, so that a work-item takes the run-time
// index, its column, once (a pointer to its row) and reads and writes the row at constant
// indices: naga clamps every run-time index into a work-group array. A row is TL_SZ + 1
// long, so that the work-items' rows start in different memory banks.

const_assert TL_SZ == 16u;

var<workgroup> Bs: array<array<REAL, TL_SZ + 1u>, GROUP>;
var<workgroup> As: array<array<REAL, TL_SZ>, TL_SZ>;

// Rows row .. row + 3 of column Col of C, those inside the matrix.
fn store_rows(row: u32, Col: u32, N: u32, sums: vec4<REAL>) {
    for (var r = 0u; r < 4u; r++) {
        if (row + r < N) {
            C[Col + N * (row + r)] = sums[r];
        }
    }
}

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
    let bcol = &Bs[tx];
    var c0 = vec4<REAL>();
    var c1 = vec4<REAL>();
    var c2 = vec4<REAL>();
    var c3 = vec4<REAL>();
    for (var k = 0u; k < (N + TL_SZ - 1u) / TL_SZ; k++) {
        var a = REAL(0);
        if (k * TL_SZ + ax < N && Row < N) {
            a = A[Row * N + k * TL_SZ + ax];
        }
        As[ay][ax] = a;
#unroll ty 16
        var b = REAL(0);
        if (k * TL_SZ + ty < N && Col < N) {
            b = B[(k * TL_SZ + ty) * N + Col];
        }
        (*bcol)[ty] = b;
#endunroll
        workgroupBarrier();
        // Written out: no loop counter, and the tiles read at constant indices.
#unroll n 16
        let b = (*bcol)[n];
        c0 += vec4<REAL>(As[0][n], As[1][n], As[2][n], As[3][n]) * b;
        c1 += vec4<REAL>(As[4][n], As[5][n], As[6][n], As[7][n]) * b;
        c2 += vec4<REAL>(As[8][n], As[9][n], As[10][n], As[11][n]) * b;
        c3 += vec4<REAL>(As[12][n], As[13][n], As[14][n], As[15][n]) * b;
#endunroll
        workgroupBarrier();
    }
    if (Col < N) {
        store_rows(by * TL_SZ, Col, N, c0);
        store_rows(by * TL_SZ + 4u, Col, N, c1);
        store_rows(by * TL_SZ + 8u, Col, N, c2);
        store_rows(by * TL_SZ + 12u, Col, N, c3);
    }
}

// Apps_MASS3DEA: M_e = Bt D B, MFEM's 3-D mass matrix of each element assembled entry by entry:
// M[e][j3][j2][j1][i3][i2][i1] = sum over the points (k1, k2, k3) of B(k1, i1) B(k1, j1)
// B(k2, i2) B(k2, j2) B(k3, i3) B(k3, j3) D[e][k3][k2][k1]. A D1D^3 work-group per element (e
// from the 2-D grid of groups) stages B and the element's D, then work-item (i1, i2, i3)
// computes its row's D1D^3 entries. The products are RAJAPerf's, in its order, each partial
// product computed once per k1 and per (k1, k2).
#include "mfem.wgslh"

var<workgroup> s_B: array<array<REAL, D1D>, Q1D>;
var<workgroup> s_D: array<array<array<REAL, Q1D>, Q1D>, Q1D>;

const_assert D1D == 4u;
const_assert Q1D == 5u;

// Row q of B at the D1D basis functions, as one vector.
fn b_row(q: u32) -> vec4<REAL> {
    return vec4<REAL>(s_B[q][0], s_B[q][1], s_B[q][2], s_B[q][3]);
}

// The entries (row, j2, j3 = 0..3) of element e's matrix, row = i1 + D1D (i2 + D1D (i3 + D1D j1)).
fn store_entries(row: u32, j2: u32, e: u32, sums: vec4<REAL>) {
    for (var j3 = 0u; j3 < D1D; j3++) {
        M[row + D1D * D1D * D1D * D1D * (j2 + D1D * (j3 + D1D * e))] = sums[j3];
    }
}

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn mass3dea(@builtin(local_invocation_id) lid: vec3<u32>,
            @builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = mfem_group(wid, nwg);
    let e = g % s.NE;
    let i1 = lid.x;
    let i2 = lid.y;
    let i3 = lid.z;

    if (i3 == 0u) {
        for (var q = i2; q < Q1D; q += D1D) {
            s_B[q][i1] = B[q + Q1D * i1];
        }
    }
    for (var k1 = i1; k1 < Q1D; k1 += D1D) {
        for (var k2 = i2; k2 < Q1D; k2 += D1D) {
            for (var k3 = i3; k3 < Q1D; k3 += D1D) {
                s_D[k1][k2][k3] = D[k1 + Q1D * (k2 + Q1D * (k3 + Q1D * e))];
            }
        }
    }
    workgroupBarrier();
    // The work-item's own column of B along each axis, read once.
    var b1: array<REAL, Q1D>;
    var b2: array<REAL, Q1D>;
    var b3: array<REAL, Q1D>;
    for (var k = 0u; k < Q1D; k++) {
        b1[k] = s_B[k][i1];
        b2[k] = s_B[k][i2];
        b3[k] = s_B[k][i3];
    }
    if (g < s.NE) {
        for (var j1 = 0u; j1 < D1D; j1++) {
            // The row's D1D^2 entries for this j1 side by side, each summed in RAJAPerf's
            // order: independent sums, where one at a time waits on each add. They are four
            // vectors (j2 = 0..3, each over j3) and the B rows they take are vectors, all
            // read at constant indices: naga keeps loops rolled (it bounds each one), and an
            // array a rolled loop indexed would live in memory rather than registers.
            var v0 = vec4<REAL>();
            var v1 = vec4<REAL>();
            var v2 = vec4<REAL>();
            var v3 = vec4<REAL>();
            // The loops over k2 and k3 written out: their indices constants, no loop
            // counters for naga to add.
            for (var k1 = 0u; k1 < Q1D; k1++) {
                let p1 = b1[k1] * s_B[k1][j1];
#unroll k2 5
                let p12 = p1 * b2[k2] * b_row(k2);
#unroll k3 5
                let d = s_D[k1][k2][k3];
                let p123 = p12 * b3[k3];
                let b = b_row(k3);
                v0 += p123.x * b * d;
                v1 += p123.y * b * d;
                v2 += p123.z * b * d;
                v3 += p123.w * b * d;
#endunroll
#endunroll
            }
            let row = i1 + D1D * (i2 + D1D * (i3 + D1D * j1));
            store_entries(row, 0u, e, v0);
            store_entries(row, 1u, e, v1);
            store_entries(row, 2u, e, v2);
            store_entries(row, 3u, e, v3);
        }
    }
}

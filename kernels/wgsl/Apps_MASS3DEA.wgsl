// Apps_MASS3DEA: M_e = Bt D B, MFEM's 3-D mass matrix of each element assembled entry by entry:
// M[e][j3][j2][j1][i3][i2][i1] = sum over the points (k1, k2, k3) of B(k1, i1) B(k1, j1)
// B(k2, i2) B(k2, j2) B(k3, i3) B(k3, j3) D[e][k3][k2][k1]. A D1D^3 work-group per element (e
// from the 2-D grid of groups) stages B and the element's D, then work-item (i1, i2, i3)
// computes its row's D1D^3 entries. The products are RAJAPerf's, in its order, each partial
// product computed once per k1 and per (k1, k2).
#include "mfem.wgslh"

var<workgroup> s_B: array<array<REAL, D1D>, Q1D>;
var<workgroup> s_D: array<array<array<REAL, Q1D>, Q1D>, Q1D>;

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
            // order: independent sums, where one at a time waits on each add.
            // Zeroed here: through naga a declaration in a loop is zeroed once, not each time round.
            var val: array<array<REAL, D1D>, D1D>;
            for (var j2 = 0u; j2 < D1D; j2++) {
                for (var j3 = 0u; j3 < D1D; j3++) {
                    val[j2][j3] = REAL(0);
                }
            }
            for (var k1 = 0u; k1 < Q1D; k1++) {
                let p1 = b1[k1] * s_B[k1][j1];
                for (var k2 = 0u; k2 < Q1D; k2++) {
                    var p12: array<REAL, D1D>;
                    for (var j2 = 0u; j2 < D1D; j2++) {
                        p12[j2] = p1 * b2[k2] * s_B[k2][j2];
                    }
                    for (var k3 = 0u; k3 < Q1D; k3++) {
                        let d = s_D[k1][k2][k3];
                        for (var j2 = 0u; j2 < D1D; j2++) {
                            let p123 = p12[j2] * b3[k3];
                            for (var j3 = 0u; j3 < D1D; j3++) {
                                val[j2][j3] += p123 * s_B[k3][j3] * d;
                            }
                        }
                    }
                }
            }
            for (var j2 = 0u; j2 < D1D; j2++) {
                for (var j3 = 0u; j3 < D1D; j3++) {
                    M[i1 + D1D * (i2 + D1D * (i3 + D1D * (j1 + D1D * (j2 + D1D * (j3 + D1D * e)))))] =
                        val[j2][j3];
                }
            }
        }
    }
}

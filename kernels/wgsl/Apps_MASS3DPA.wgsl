// Apps_MASS3DPA: Y += Bt D B X, MFEM's 3-D mass operator on each element by sum factorisation.
// A Q1D x Q1D work-group per element (e from the 2-D grid of groups) runs RAJAPerf's stages, a
// contraction along one axis each: work-item (tx, ty) computes the entries its two indices
// select, looping over the third axis, those past D1D idle. Bt is read as RAJAPerf reads it,
// Bt(q, d) = Bt[q + D1D*d]. B and Bt are staged together, and stages 5 and 9 read only what
// the same work-item wrote in stages 4 and 8, so of RAJAPerf's eight barriers five remain.
// Each contraction's sum is written out (#unroll): naga's loop counter kept a driver from
// unrolling it, and its clamps of run-time indices into the work-group arrays cost more.
#include "mfem.wgslh"

const_assert D1D == 4u;
const_assert Q1D == 5u;

var<workgroup> Bs: array<array<REAL, D1D>, Q1D>;
var<workgroup> Bts: array<array<REAL, Q1D>, D1D>;
var<workgroup> Xs: array<array<array<REAL, D1D>, D1D>, D1D>;
var<workgroup> DDQ: array<array<array<REAL, Q1D>, D1D>, D1D>;
var<workgroup> DQQ: array<array<array<REAL, Q1D>, Q1D>, D1D>;
var<workgroup> QQQ: array<array<array<REAL, Q1D>, Q1D>, Q1D>;
var<workgroup> QQD: array<array<array<REAL, D1D>, Q1D>, Q1D>;
var<workgroup> QDD: array<array<array<REAL, D1D>, D1D>, Q1D>;

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn mass3dpa(@builtin(local_invocation_id) lid: vec3<u32>,
            @builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = mfem_group(wid, nwg);
    let e = g % s.NE;
    let tx = lid.x;
    let ty = lid.y;

    // 1, 2, 6. The element's X, and both bases.
    if (ty < D1D) {
        if (tx < D1D) {
            for (var dz = 0u; dz < D1D; dz++) {
                Xs[dz][ty][tx] = X[tx + D1D * (ty + D1D * (dz + D1D * e))];
            }
        }
        Bs[tx][ty] = B[tx + Q1D * ty];
        Bts[ty][tx] = Bt[tx + D1D * ty];
    }
    workgroupBarrier();
    // 3. DDQ[dz][dy][qx]: contract dx.
    if (ty < D1D) {
        for (var dz = 0u; dz < D1D; dz++) {
            var u = REAL(0);
#unroll dx 4
            u += Xs[dz][ty][dx] * Bs[tx][dx];
#endunroll
            DDQ[dz][ty][tx] = u;
        }
    }
    workgroupBarrier();
    // 4. DQQ[dz][qy][qx]: contract dy.
    for (var dz = 0u; dz < D1D; dz++) {
        var u = REAL(0);
#unroll dy 4
        u += DDQ[dz][dy][tx] * Bs[ty][dy];
#endunroll
        DQQ[dz][ty][tx] = u;
    }
    // 5. QQQ[qz][qy][qx]: contract dz, times D at the point.
    for (var qz = 0u; qz < Q1D; qz++) {
        var u = REAL(0);
#unroll dz 4
        u += DQQ[dz][ty][tx] * Bs[qz][dz];
#endunroll
        QQQ[qz][ty][tx] = u * D[tx + Q1D * (ty + Q1D * (qz + Q1D * e))];
    }
    workgroupBarrier();
    // 7. QQD[qz][qy][dx]: contract qx with Bt.
    if (tx < D1D) {
        for (var qz = 0u; qz < Q1D; qz++) {
            var u = REAL(0);
#unroll qx 5
            u += QQQ[qz][ty][qx] * Bts[tx][qx];
#endunroll
            QQD[qz][ty][tx] = u;
        }
    }
    workgroupBarrier();
    if (g < s.NE && ty < D1D && tx < D1D) {
        // 8. QDD[qz][dy][dx]: contract qy.
        for (var qz = 0u; qz < Q1D; qz++) {
            var u = REAL(0);
#unroll qy 5
            u += QQD[qz][qy][tx] * Bts[ty][qy];
#endunroll
            QDD[qz][ty][tx] = u;
        }
        // 9. Y[dz][dy][dx] += the contraction of qz.
        for (var dz = 0u; dz < D1D; dz++) {
            var u = REAL(0);
#unroll qz 5
            u += QDD[qz][ty][tx] * Bts[dz][qz];
#endunroll
            Y[tx + D1D * (ty + D1D * (dz + D1D * e))] += u;
        }
    }
}

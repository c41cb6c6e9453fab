// Apps_MASS3DPA: Y += Bt D B X, MFEM's 3-D mass operator on each element by sum factorisation.
// A Q1D x Q1D work-group per element (e from the 2-D grid of groups) runs RAJAPerf's stages, a
// contraction along one axis each: work-item (tx, ty) computes the entries its two indices
// select, looping over the third axis, those past D1D idle. Bt is read as RAJAPerf reads it,
// Bt(q, d) = Bt[q + D1D*d]. B and Bt are staged together, and stages 5 and 9 read only what
// the same work-item wrote in stages 4 and 8, so of RAJAPerf's eight barriers five remain.
// Each contraction's sum is written out (#unroll), and so is the loop over the axis a
// work-item walks: naga's loop counter kept a driver from unrolling a loop, and it clamps
// every run-time index into a work-group array. So the arrays stages 3, 4 and 7 read are
// stored with the axis they sum over innermost (DDQ transposed): a work-item takes the row
// its run-time indices select once, a pointer, and reads it at constant indices. (QQD keeps
// dx innermost: stored with dx outside, a work-item past D1D that stage 7 let through would
// write past the rows the check reads, where lavapipe cannot show it.) What stages 4 and 8
// write, stages 5 and 9 read in the same work-item: those values stay in its own arrays, at
// constant indices (registers).
#include "mfem.wgslh"

const_assert D1D == 4u;
const_assert Q1D == 5u;

var<workgroup> Bs: array<array<REAL, D1D>, Q1D>;
var<workgroup> Bts: array<array<REAL, Q1D>, D1D>;
var<workgroup> Xs: array<array<array<REAL, D1D>, D1D>, D1D>;
// DDQ[dz][qx][dy]
var<workgroup> DDQ: array<array<array<REAL, D1D>, Q1D>, D1D>;
var<workgroup> QQQ: array<array<array<REAL, Q1D>, Q1D>, Q1D>;
var<workgroup> QQD: array<array<array<REAL, D1D>, Q1D>, Q1D>;

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
#unroll dz 4
            Xs[dz][ty][tx] = X[tx + D1D * (ty + D1D * (dz + D1D * e))];
#endunroll
        }
        Bs[tx][ty] = B[tx + Q1D * ty];
        Bts[ty][tx] = Bt[tx + D1D * ty];
    }
    workgroupBarrier();
    // 3. DDQ[dz][dy][qx]: contract dx.
    if (ty < D1D) {
        let bx = &Bs[tx];
#unroll dz 4
        let xs = &Xs[dz][ty];
        var u = REAL(0);
#unroll dx 4
        u += (*xs)[dx] * (*bx)[dx];
#endunroll
        DDQ[dz][tx][ty] = u;
#endunroll
    }
    workgroupBarrier();
    // 4. DQQ[dz][qy][qx]: contract dy.
    let by = &Bs[ty];
    var dqq: array<REAL, D1D>;
#unroll dz 4
    let ddq = &DDQ[dz][tx];
    var u = REAL(0);
#unroll dy 4
    u += (*ddq)[dy] * (*by)[dy];
#endunroll
    dqq[dz] = u;
#endunroll
    // 5. QQQ[qz][qy][qx]: contract dz, times D at the point.
#unroll qz 5
    var u = REAL(0);
#unroll dz 4
    u += dqq[dz] * Bs[qz][dz];
#endunroll
    QQQ[qz][ty][tx] = u * D[tx + Q1D * (ty + Q1D * (qz + Q1D * e))];
#endunroll
    workgroupBarrier();
    // 7. QQD[qz][qy][dx]: contract qx with Bt.
    if (tx < D1D) {
        let btx = &Bts[tx];
#unroll qz 5
        let qqq = &QQQ[qz][ty];
        var u = REAL(0);
#unroll qx 5
        u += (*qqq)[qx] * (*btx)[qx];
#endunroll
        QQD[qz][ty][tx] = u;
#endunroll
    }
    workgroupBarrier();
    if (g < s.NE && ty < D1D && tx < D1D) {
        // 8. QDD[qz][dy][dx]: contract qy.
        let bty = &Bts[ty];
        var qdd: array<REAL, Q1D>;
#unroll qz 5
        var u = REAL(0);
#unroll qy 5
        u += QQD[qz][qy][tx] * (*bty)[qy];
#endunroll
        qdd[qz] = u;
#endunroll
        // 9. Y[dz][dy][dx] += the contraction of qz.
#unroll dz 4
        var u = REAL(0);
#unroll qz 5
        u += qdd[qz] * Bts[dz][qz];
#endunroll
        Y[tx + D1D * (ty + D1D * (dz + D1D * e))] += u;
#endunroll
    }
}

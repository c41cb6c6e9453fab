// Apps_CONVECTION3DPA: Y += Bt^3 (D . grad(B^3 X)), MFEM's 3-D convection operator on each
// element by sum factorisation. A Q1D^3 work-group per element (e from the 2-D grid of
// groups) runs RAJAPerf's eight stages, a contraction along one axis each, through the
// workgroup arrays sm0..sm5 as RAJAPerf reuses them, a barrier between stages. They are
// MDQ^3 arrays indexed [z][y][x]; a stage's work-item (tx, ty, tz) computes the entry its
// local ids index, those past D1D idle. Stage 7 writes sm1, which stage 4 filled, rather
// than sm5, whose padding is never written, so that every cell past D1D holds a value.
// B(q, d) = Basis[q + Q1D*d], G likewise from dBasis, Bt(d, q) = tBasis[d + D1D*q].
#include "mfem.wgslh"

// Each contraction's sum is written out (#unroll): naga's loop counter keeps a driver from
// unrolling a loop, and its clamps of run-time indices into the work-group arrays cost more.
const_assert D1D == 3u;
const_assert Q1D == 4u;

var<workgroup> sm0: array<array<array<REAL, MDQ>, MDQ>, MDQ>;
var<workgroup> sm1: array<array<array<REAL, MDQ>, MDQ>, MDQ>;
var<workgroup> sm2: array<array<array<REAL, MDQ>, MDQ>, MDQ>;
var<workgroup> sm3: array<array<array<REAL, MDQ>, MDQ>, MDQ>;
var<workgroup> sm4: array<array<array<REAL, MDQ>, MDQ>, MDQ>;
var<workgroup> sm5: array<array<array<REAL, MDQ>, MDQ>, MDQ>;

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn convection3dpa(@builtin(local_invocation_id) lid: vec3<u32>,
                  @builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = mfem_group(wid, nwg);
    let e = g % s.NE;
    let tx = lid.x;
    let ty = lid.y;
    let tz = lid.z;

    // 1. u[dz][dy][dx] = X of the element (sm0), work-item t loading dof t.
    let t = tx + Q1D * (ty + Q1D * tz);
    if (t < D1D * D1D * D1D) {
        sm0[t / (D1D * D1D)][t / D1D % D1D][t % D1D] = X[D1D * D1D * D1D * e + t];
    }
    workgroupBarrier();
    // 2. Bu, Gu[dz][dy][qx] (sm1, sm2): contract dx with B and G.
    if (tz < D1D && ty < D1D) {
        var Bu = REAL(0);
        var Gu = REAL(0);
#unroll dx 3
        let x = sm0[tz][ty][dx];
        Bu += Basis[tx + Q1D * dx] * x;
        Gu += dBasis[tx + Q1D * dx] * x;
#endunroll
        sm1[tz][ty][tx] = Bu;
        sm2[tz][ty][tx] = Gu;
    }
    workgroupBarrier();
    // 3. BBu, GBu, BGu[dz][qy][qx] (sm3, sm4, sm5): contract dy.
    if (tz < D1D) {
        var BBu = REAL(0);
        var GBu = REAL(0);
        var BGu = REAL(0);
#unroll dy 3
        let b = Basis[ty + Q1D * dy];
        let g = dBasis[ty + Q1D * dy];
        BBu += b * sm1[tz][dy][tx];
        GBu += g * sm1[tz][dy][tx];
        BGu += b * sm2[tz][dy][tx];
#endunroll
        sm3[tz][ty][tx] = BBu;
        sm4[tz][ty][tx] = GBu;
        sm5[tz][ty][tx] = BGu;
    }
    workgroupBarrier();
    // 4. GBBu, BGBu, BBGu[qz][qy][qx] (sm0, sm1, sm2): contract dz.
    {
        var GBBu = REAL(0);
        var BGBu = REAL(0);
        var BBGu = REAL(0);
#unroll dz 3
        let b = Basis[tz + Q1D * dz];
        let g = dBasis[tz + Q1D * dz];
        GBBu += g * sm3[dz][ty][tx];
        BGBu += b * sm4[dz][ty][tx];
        BBGu += b * sm5[dz][ty][tx];
#endunroll
        sm0[tz][ty][tx] = GBBu;
        sm1[tz][ty][tx] = BGBu;
        sm2[tz][ty][tx] = BBGu;
    }
    workgroupBarrier();
    // 5. DGu[qz][qy][qx] (sm3): the velocity D at the point dotted with the gradient.
    {
        let op = tx + Q1D * (ty + Q1D * (tz + Q1D * VDIM * e));
        sm3[tz][ty][tx] = D[op] * sm2[tz][ty][tx] + D[op + Q1D * Q1D * Q1D] * sm1[tz][ty][tx]
                          + D[op + 2u * Q1D * Q1D * Q1D] * sm0[tz][ty][tx];
    }
    workgroupBarrier();
    // 6. BDGu[dz][qy][qx] (sm4): contract qz with Bt.
    if (tz < D1D) {
        var BDGu = REAL(0);
#unroll qz 4
        BDGu += tBasis[tz + D1D * qz] * sm3[qz][ty][tx];
#endunroll
        sm4[tz][ty][tx] = BDGu;
    }
    workgroupBarrier();
    // 7. BBDGu[dz][dy][qx] (sm1, where RAJAPerf uses sm5): contract qy with Bt.
    if (tz < D1D && ty < D1D) {
        var BBDGu = REAL(0);
#unroll qy 4
        BBDGu += tBasis[ty + D1D * qy] * sm4[tz][qy][tx];
#endunroll
        sm1[tz][ty][tx] = BBDGu;
    }
    workgroupBarrier();
    // 8. Y[dz][dy][dx] += the contraction of qx with Bt.
    if (g < s.NE && tz < D1D && ty < D1D && tx < D1D) {
        var BBBDGu = REAL(0);
#unroll qx 4
        BBBDGu += tBasis[tx + D1D * qx] * sm1[tz][ty][qx];
#endunroll
        Y[tx + D1D * (ty + D1D * (tz + D1D * e))] += BBBDGu;
    }
}

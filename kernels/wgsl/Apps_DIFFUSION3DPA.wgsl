// Apps_DIFFUSION3DPA: Y += G^T D G X, MFEM's 3-D diffusion operator on each element by sum
// factorisation, D a symmetric 3 x 3 per quadrature point (O11, O12, O13, O22, O23, O33).
// A Q1D^3 work-group per element (e from the 2-D grid of groups) runs RAJAPerf's stages, a
// contraction along one axis each, through the workgroup arrays sm00..sm12 (RAJAPerf's
// sm0[0..2] and sm1[0..2]) as RAJAPerf reuses them, a barrier between stages. They are
// MDQ^3 arrays indexed [z][y][x]; a stage's work-item (tx, ty, tz) computes the entries its
// local ids index, those past D1D idle. RAJAPerf's B, G, Bt and Gt share one shared array
// that holds dBasis after each load (G's store follows B's to the same place): all four are
// read here from dBasis, B(q, d) = G(q, d) = Bt(d, q) = Gt(d, q) = dBasis[q + Q1D*d];
// Basis, whose values are never used, is not passed.
#include "mfem.wgslh"

// Each contraction's sum is written out (#unroll): naga's loop counter keeps a driver from
// unrolling a loop, and its clamps of run-time indices into the work-group arrays cost more.
const_assert D1D == 3u;
const_assert Q1D == 4u;

var<workgroup> sm00: array<array<array<REAL, MDQ>, MDQ>, MDQ>;
var<workgroup> sm01: array<array<array<REAL, MDQ>, MDQ>, MDQ>;
var<workgroup> sm02: array<array<array<REAL, MDQ>, MDQ>, MDQ>;
var<workgroup> sm10: array<array<array<REAL, MDQ>, MDQ>, MDQ>;
var<workgroup> sm11: array<array<array<REAL, MDQ>, MDQ>, MDQ>;
var<workgroup> sm12: array<array<array<REAL, MDQ>, MDQ>, MDQ>;

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn diffusion3dpa(@builtin(local_invocation_id) lid: vec3<u32>,
                 @builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = mfem_group(wid, nwg);
    let e = g % s.NE;
    let tx = lid.x;
    let ty = lid.y;
    let tz = lid.z;

    // 1. s_X[dz][dy][dx] = X of the element (sm02), work-item t loading dof t.
    let t = tx + Q1D * (ty + Q1D * tz);
    if (t < D1D * D1D * D1D) {
        sm02[t / (D1D * D1D)][t / D1D % D1D][t % D1D] = X[D1D * D1D * D1D * e + t];
    }
    workgroupBarrier();
    // 3. DDQ0, DDQ1[dz][dy][qx] (sm00, sm01): contract dx with B and G.
    if (tz < D1D && ty < D1D) {
        var u = REAL(0);
        var v = REAL(0);
#unroll dx 3
        let coords = sm02[tz][ty][dx];
        u += coords * dBasis[tx + Q1D * dx];
        v += coords * dBasis[tx + Q1D * dx];
#endunroll
        sm00[tz][ty][tx] = u;
        sm01[tz][ty][tx] = v;
    }
    workgroupBarrier();
    // 4. DQQ0, DQQ1, DQQ2[dz][qy][qx] (sm10, sm11, sm12): contract dy.
    if (tz < D1D) {
        var u = REAL(0);
        var v = REAL(0);
        var w = REAL(0);
#unroll dy 3
        let b = dBasis[ty + Q1D * dy];
        u += sm01[tz][dy][tx] * b;
        v += sm00[tz][dy][tx] * b;
        w += sm00[tz][dy][tx] * b;
#endunroll
        sm10[tz][ty][tx] = u;
        sm11[tz][ty][tx] = v;
        sm12[tz][ty][tx] = w;
    }
    workgroupBarrier();
    // 5. QQQ0, QQQ1, QQQ2[qz][qy][qx] (sm00, sm01, sm02): contract dz; D times the gradient.
    {
        var u = REAL(0);
        var v = REAL(0);
        var w = REAL(0);
#unroll dz 3
        let b = dBasis[tz + Q1D * dz];
        u += sm10[dz][ty][tx] * b;
        v += sm11[dz][ty][tx] * b;
        w += sm12[dz][ty][tx] * b;
#endunroll
        let points: u32 = Q1D * Q1D * Q1D;
        let d = tx + Q1D * (ty + Q1D * tz) + points * DPA_SYM * e;
        let O11 = D[d];
        let O12 = D[d + points];
        let O13 = D[d + 2u * points];
        let O22 = D[d + 3u * points];
        let O23 = D[d + 4u * points];
        let O33 = D[d + 5u * points];
        sm00[tz][ty][tx] = (O11 * u) + (O12 * v) + (O13 * w);
        sm01[tz][ty][tx] = (O12 * u) + (O22 * v) + (O23 * w);
        sm02[tz][ty][tx] = (O13 * u) + (O23 * v) + (O33 * w);
    }
    workgroupBarrier();
    // 7. QQD0, QQD1, QQD2[qz][qy][dx] (sm10, sm11, sm12): contract qx with Gt and Bt.
    if (tx < D1D) {
        var u = REAL(0);
        var v = REAL(0);
        var w = REAL(0);
#unroll qx 4
        let bt = dBasis[qx + Q1D * tx];
        u += sm00[tz][ty][qx] * bt;
        v += sm01[tz][ty][qx] * bt;
        w += sm02[tz][ty][qx] * bt;
#endunroll
        sm10[tz][ty][tx] = u;
        sm11[tz][ty][tx] = v;
        sm12[tz][ty][tx] = w;
    }
    workgroupBarrier();
    // 8. QDD0, QDD1, QDD2[qz][dy][dx] (sm00, sm01, sm02): contract qy.
    if (ty < D1D && tx < D1D) {
        var u = REAL(0);
        var v = REAL(0);
        var w = REAL(0);
#unroll qy 4
        let bt = dBasis[qy + Q1D * ty];
        u += sm10[tz][qy][tx] * bt;
        v += sm11[tz][qy][tx] * bt;
        w += sm12[tz][qy][tx] * bt;
#endunroll
        sm00[tz][ty][tx] = u;
        sm01[tz][ty][tx] = v;
        sm02[tz][ty][tx] = w;
    }
    workgroupBarrier();
    // 9. Y[dz][dy][dx] += the contraction of qz, the three parts summed.
    if (g < s.NE && tz < D1D && ty < D1D && tx < D1D) {
        var u = REAL(0);
        var v = REAL(0);
        var w = REAL(0);
#unroll qz 4
        let bt = dBasis[qz + Q1D * tz];
        u += sm00[qz][ty][tx] * bt;
        v += sm01[qz][ty][tx] * bt;
        w += sm02[qz][ty][tx] * bt;
#endunroll
        Y[tx + D1D * (ty + D1D * (tz + D1D * e))] += (u + v + w);
    }
}

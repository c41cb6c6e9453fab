// Apps_MATVEC_3D_STENCIL: b = A x on each real zone, A a symmetric 27-point stencil.
// Only 14 coefficient arrays are stored (the lower, "d", plane, the back row of the
// centre plane and the centre's left and own coefficient); the other 13 are read
// from the mirrored array at the neighbour, as RAJAPerf's aliased pointers do.
// It binds 17 storage buffers, past WebGPU's baseline of 8 per stage, so it needs
// a device created with the adapter's higher limit (native adapters have one).

@compute @workgroup_size(GROUP)
fn matvec_3d_stencil(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32) {
    let ii = global_index(wid, nwg, lid);
    if (ii >= s.n) {
        return;
    }
    let jp = s.jp;
    let i = real_zones[ii];
    let d = i - s.kp; // the plane below
    let u = i + s.kp; // the plane above
    b[i] = dbl[i] * x[d - jp - 1] + dbc[i] * x[d - jp] + dbr[i] * x[d - jp + 1]
           + dcl[i] * x[d - 1] + dcc[i] * x[d] + dcr[i] * x[d + 1]
           + dfl[i] * x[d + jp - 1] + dfc[i] * x[d + jp] + dfr[i] * x[d + jp + 1]

           + cbl[i] * x[i - jp - 1] + cbc[i] * x[i - jp] + cbr[i] * x[i - jp + 1]
           + ccl[i] * x[i - 1] + ccc[i] * x[i] + ccl[i + 1] * x[i + 1]
           + cbr[i + jp - 1] * x[i + jp - 1] + cbc[i + jp] * x[i + jp]
           + cbl[i + jp + 1] * x[i + jp + 1]

           + dfr[u - jp - 1] * x[u - jp - 1] + dfc[u - jp] * x[u - jp]
           + dfl[u - jp + 1] * x[u - jp + 1]
           + dcr[u - 1] * x[u - 1] + dcc[u] * x[u] + dcl[u + 1] * x[u + 1]
           + dbr[u + jp - 1] * x[u + jp - 1] + dbc[u + jp] * x[u + jp]
           + dbl[u + jp + 1] * x[u + jp + 1];
}

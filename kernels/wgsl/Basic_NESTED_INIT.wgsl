// Basic_NESTED_INIT: array[i + ni*(j + nj*k)] = 1e-8 * i * j * k over ni x nj x nk.
// One work-item per (j, k) row walks i, as RAJAPerf's loop nest does. WGSL reserves
// the name `array`, so the bindings are declared here, the description's `array` as
// `values`.

struct Scalars {
    ni: u32,
    nj: u32,
    nk: u32,
}

@group(0) @binding(0) var<storage, read_write> values: array<REAL>;
@group(0) @binding(1) var<uniform> s: Scalars;

@compute @workgroup_size(GROUP)
fn nested_init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let jk = global_index(wid, nwg, lid);
    if (jk < s.nj * s.nk) {
        let j = jk % s.nj;
        let k = jk / s.nj;
        for (var i = 0u; i < s.ni; i++) {
            values[i + s.ni * (j + s.nj * k)] = NESTED_INIT_SCALE * REAL(i) * REAL(j) * REAL(k);
        }
    }
}

// Demo_VADD: c[i] = a[i] + b[i]

struct Scalars {
    n: u32,
}

@group(0) @binding(0) var<storage, read> a: array<REAL>;
@group(0) @binding(1) var<storage, read> b: array<REAL>;
@group(0) @binding(2) var<storage, read_write> c: array<REAL>;
@group(0) @binding(3) var<uniform> s: Scalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn vadd(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i < s.n) {
        c[i] = a[i] + b[i];
    }
}

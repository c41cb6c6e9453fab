// Polybench_HEAT_3D: dst = 7-point heat update of src over the interior of an
// n^3 grid indexed [k + n*(j + n*i)]. A step launches it twice: B from A, then
// A from B. Work-item w handles interior point (i, j, k), k fastest.

struct Scalars {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> src: array<REAL>;
@group(0) @binding(1) var<storage, read_write> dst: array<REAL>;
@group(0) @binding(2) var<uniform> s: Scalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn heat_3d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let w = (wid.x + wid.y * nwg.x) * GROUP + lid;
    let n = s.n;
    if (n < 3u || w >= (n - 2u) * (n - 2u) * (n - 2u)) {
        return;
    }
    let m = n - 2u;
    let i = 1u + w / (m * m);
    let j = 1u + (w / m) % m;
    let k = 1u + w % m;
    let c = k + n * (j + n * i);
    let di = n * n;
    dst[c] = REAL(0.125) * (src[c + di] - REAL(2.0) * src[c] + src[c - di])
             + REAL(0.125) * (src[c + n] - REAL(2.0) * src[c] + src[c - n])
             + REAL(0.125) * (src[c + 1u] - REAL(2.0) * src[c] + src[c - 1u])
             + src[c];
}

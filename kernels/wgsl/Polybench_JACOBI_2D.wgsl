// Polybench_JACOBI_2D: dst = 5-point average of src over the interior of an
// n x n grid. A step launches it twice: B from A, then A from B.
// Work-item w handles interior point (i, j) = (1 + w / (n-2), 1 + w % (n-2)).

struct Scalars {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> src: array<REAL>;
@group(0) @binding(1) var<storage, read_write> dst: array<REAL>;
@group(0) @binding(2) var<uniform> s: Scalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn jacobi_2d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let w = (wid.x + wid.y * nwg.x) * GROUP + lid;
    let n = s.n;
    if (n < 3u || w >= (n - 2u) * (n - 2u)) {
        return;
    }
    let m = n - 2u;
    let i = 1u + w / m;
    let j = 1u + w % m;
    dst[j + i * n] = REAL(0.2) * (src[j + i * n] + src[j - 1u + i * n] + src[j + 1u + i * n]
                                  + src[j + (i + 1u) * n] + src[j + (i - 1u) * n]);
}

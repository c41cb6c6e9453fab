// Polybench_JACOBI_2D: dst = 5-point average of src over the interior of an
// n x n grid. A step launches it twice: B from A, then A from B.
// A 2-D launch over the interior: x is j (along a row), y is i.

struct Scalars {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> src: array<REAL>;
@group(0) @binding(1) var<storage, read_write> dst: array<REAL>;
@group(0) @binding(2) var<uniform> s: Scalars;

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn jacobi_2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = s.n;
    let j = 1u + gid.x;
    let i = 1u + gid.y;
    if (i + 1u >= n || j + 1u >= n) {
        return;
    }
    dst[j + i * n] = REAL(0.2) * (src[j + i * n] + src[j - 1u + i * n] + src[j + 1u + i * n]
                                  + src[j + (i + 1u) * n] + src[j + (i - 1u) * n]);
}

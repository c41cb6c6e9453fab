// Polybench_HEAT_3D: dst = 7-point heat update of src over the interior of an
// n^3 grid indexed [k + n*(j + n*i)]. A step launches it twice: B from A, then
// A from B. A 3-D launch over the interior: x is k, y is j, z is i; z's groups
// are of one work-item, so i never passes the interior.

struct Scalars {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> src: array<REAL>;
@group(0) @binding(1) var<storage, read_write> dst: array<REAL>;
@group(0) @binding(2) var<uniform> s: Scalars;

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn heat_3d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = s.n;
    let k = 1u + gid.x;
    let j = 1u + gid.y;
    let i = 1u + gid.z;
    if (j + 1u >= n || k + 1u >= n) {
        return;
    }
    let c = k + n * (j + n * i);
    let di = n * n;
    dst[c] = REAL(0.125) * (src[c + di] - REAL(2.0) * src[c] + src[c - di])
             + REAL(0.125) * (src[c + n] - REAL(2.0) * src[c] + src[c - n])
             + REAL(0.125) * (src[c + 1u] - REAL(2.0) * src[c] + src[c - 1u])
             + src[c];
}

// My_STENCIL2D: dst = 0.5 centre + 0.125 of each neighbour over the interior of an
// n x n grid; a 2-D launch, x along a row (j), y across rows (i).

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn stencil2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = s.n;
    let j = 1u + gid.x;
    let i = 1u + gid.y;
    if (i + 1u >= n || j + 1u >= n) {
        return;
    }
    let c = j + i * n;
    dst[c] = REAL(0.5) * src[c] + REAL(0.125) * (src[c - n] + src[c + n] + src[c - 1u] + src[c + 1u]);
}

// Polybench_FLOYD_WARSHALL: one k of Floyd-Warshall, read from pin (which no
// launch updates): pout[i][j] = min(pin[i][j], pin[i][k] + pin[k][j]) on an
// n x n matrix. A 2-D launch: x is j (along a row), y is i.

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn floyd_warshall(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = s.n;
    let k = s.k;
    let j = gid.x;
    let i = gid.y;
    if (i >= n || j >= n) {
        return;
    }
    let direct = pin[j + i * n];
    let through = pin[k + i * n] + pin[j + k * n];
    pout[j + i * n] = select(through, direct, direct < through);
}

// Polybench_ADI: one ADI step, a tridiagonal solve along every line of the
// interior: adi_1 along each column of U into V, adi_2 along each row of V
// into U, P and Q holding a line's forward elimination. One work-item solves
// line i = 1 + its index; the previous P, Q and solution stay in registers,
// so P and Q's column 0 (0 and 1) is stored by adi_2 alone.

@compute @workgroup_size(GROUP)
fn adi_1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let n = s.n;
    let i = 1u + global_index(wid, nwg, lid);
    if (i + 1u >= n) {
        return;
    }
    let row = i * n;
    var p = REAL(0.0);
    var q = REAL(1.0);
    V[i] = q;
    for (var j = 1u; j + 1u < n; j++) {
        let den = s.a * p + s.b;
        let u = j * n + i;
        p = -s.c / den;
        q = (-s.d * U[u - 1u] + (REAL(1.0) + REAL(2.0) * s.d) * U[u] - s.f * U[u + 1u]
             - s.a * q) / den;
        P[row + j] = p;
        Q[row + j] = q;
    }
    var v = REAL(1.0);
    V[(n - 1u) * n + i] = v;
    for (var k = n - 2u; k >= 1u; k--) {
        v = P[row + k] * v + Q[row + k];
        V[k * n + i] = v;
    }
}

@compute @workgroup_size(GROUP)
fn adi_2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let n = s.n;
    let i = 1u + global_index(wid, nwg, lid);
    if (i + 1u >= n) {
        return;
    }
    let row = i * n;
    var p = REAL(0.0);
    var q = REAL(1.0);
    U[row] = q;
    P[row] = p;
    Q[row] = q;
    for (var j = 1u; j + 1u < n; j++) {
        let den = s.d * p + s.e;
        p = -s.f / den;
        q = (-s.a * V[row - n + j] + (REAL(1.0) + REAL(2.0) * s.a) * V[row + j]
             - s.c * V[row + n + j] - s.d * q) / den;
        P[row + j] = p;
        Q[row + j] = q;
    }
    var u = REAL(1.0);
    U[row + n - 1u] = u;
    for (var k = n - 2u; k >= 1u; k--) {
        u = P[row + k] * u + Q[row + k];
        U[row + k] = u;
    }
}

// Lcals_PLANCKIAN: y[i] = u[i] / v[i]; w[i] = x[i] / (exp(y[i]) - 1).
// SPIR-V's exp takes 32-bit floats only, so exp is computed here in REAL:
// y = k ln2 + r with |r| <= ln2/2 (ln2 split in two, Cody and Waite), exp(r)
// as its Taylor sum to r^EXP_TERMS / EXP_TERMS!, then scaled by 2^k.

fn exp_real(y: REAL) -> REAL {
    let k = round(y * LOG2E);
    let r = (y - k * LN2_HI) - k * LN2_LO;
    var term = REAL(1.0);
    var sum = REAL(1.0);
    for (var left = EXP_TERMS; bool(left); left--) {
        term *= r / REAL(EXP_TERMS + 1 - left);
        sum += term;
    }
    return ldexp(sum, i32(k));
}

@compute @workgroup_size(GROUP)
fn planckian(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        y[i] = u[i] / v[i];
        w[i] = x[i] / (exp_real(y[i]) - REAL(1.0));
    }
}

// Lcals_EOS: x[i] = u[i] + r*(z[i] + r*y[i])
//                  + t*(u[i+3] + r*(u[i+2] + r*u[i+1]) + t*(u[i+6] + q*(u[i+5] + q*u[i+4]))).
// u has n+6 elements.

@compute @workgroup_size(GROUP)
fn eos(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        let q = s.q;
        let r = s.r;
        let t = s.t;
        x[i] = u[i] + r * (z[i] + r * y[i])
               + t * (u[i + 3u] + r * (u[i + 2u] + r * u[i + 1u])
                      + t * (u[i + 6u] + q * (u[i + 5u] + q * u[i + 4u])));
    }
}

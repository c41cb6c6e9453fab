// Apps_FIR: out[i] = sum over j < COEFFLEN of coeff[j] * in[i + j]; in has
// n + COEFFLEN - 1 elements. COEFFLEN, the tap count, comes from the description.

struct Scalars {
    n: u32,
}

@group(0) @binding(0) var<storage, read> input: array<REAL>;
@group(0) @binding(1) var<storage, read_write> output: array<REAL>;
@group(0) @binding(2) var<storage, read> coeff: array<REAL>;
@group(0) @binding(3) var<uniform> s: Scalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn fir(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i < s.n) {
        var sum = REAL(0.0);
        for (var j = 0u; j < COEFFLEN; j++) {
            sum += coeff[j] * input[i + j];
        }
        output[i] = sum;
    }
}

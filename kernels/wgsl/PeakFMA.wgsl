// PeakFMA: y[i] = the sum of CHAINS chains, each STEPS dependent fused
// multiply-adds x = x * FMA_SCALE + FMA_SHIFT from x[i] + its number: the
// device's arithmetic throughput, with the chains independent of each other so
// that their latencies overlap. The eight chains are two vectors and the steps
// go four to a loop turn: no array indexed at run time, which naga's checks
// would clamp, and a loop whose counter naga's loop bounding checks once per
// 32 multiply-adds rather than once per 8.

const_assert CHAINS == 8u;
const_assert STEPS % 4u == 0u;

@compute @workgroup_size(GROUP)
fn peak_fma(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        var low = vec4<REAL>(x[i]) + vec4<REAL>(0.0, 1.0, 2.0, 3.0);
        var high = vec4<REAL>(x[i]) + vec4<REAL>(4.0, 5.0, 6.0, 7.0);
        let scale = vec4<REAL>(FMA_SCALE);
        let shift = vec4<REAL>(FMA_SHIFT);
        for (var k = 0u; k < STEPS; k += 4u) {
            low = fma(low, scale, shift);
            high = fma(high, scale, shift);
            low = fma(low, scale, shift);
            high = fma(high, scale, shift);
            low = fma(low, scale, shift);
            high = fma(high, scale, shift);
            low = fma(low, scale, shift);
            high = fma(high, scale, shift);
        }
        y[i] = low.x + low.y + low.z + low.w + high.x + high.y + high.z + high.w;
    }
}

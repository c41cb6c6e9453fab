// PeakFMA: y[i] = the sum of CHAINS chains, each STEPS dependent fused
// multiply-adds x = x * FMA_SCALE + FMA_SHIFT from x[i] + its number: the
// device's arithmetic throughput, with the chains independent of each other so
// that their latencies overlap.

@compute @workgroup_size(GROUP)
fn peak_fma(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        var v: array<REAL, CHAINS>;
        for (var c = 0u; c < CHAINS; c++) {
            v[c] = x[i] + REAL(c);
        }
        for (var k = 0u; k < STEPS; k++) {
            for (var c = 0u; c < CHAINS; c++) {
                v[c] = fma(v[c], FMA_SCALE, FMA_SHIFT);
            }
        }
        var sum = v[0];
        for (var c = 1u; c < CHAINS; c++) {
            sum += v[c];
        }
        y[i] = sum;
    }
}

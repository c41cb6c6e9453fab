// PeakFMA: y[i] = the sum of CHAINS chains, each STEPS dependent fused
// multiply-adds x = x * FMA_SCALE + FMA_SHIFT from x[i] + its number: the
// device's arithmetic throughput, with the chains independent of each other so
// that their latencies overlap. The eight chains are two vectors, and a loop
// turn is 64 steps written out through functions that call one another (no
// loop inside them): naga's loop bounding puts a counter and a second exit in
// every loop, which keeps the driver from unrolling it, so the counter is
// checked once per 512 multiply-adds of a chain pair rather than once per 32,
// and no array is indexed at run time for naga's checks to clamp.

// The steps of one loop turn, step64's.
const TURN = 64u;
const_assert CHAINS == 8u;
const_assert STEPS % TURN == 0u;

struct Chains {
    low: vec4<REAL>,
    high: vec4<REAL>,
}

fn step1(c: Chains) -> Chains {
    let scale = vec4<REAL>(FMA_SCALE);
    let shift = vec4<REAL>(FMA_SHIFT);
    return Chains(fma(c.low, scale, shift), fma(c.high, scale, shift));
}

fn step4(c: Chains) -> Chains {
    return step1(step1(step1(step1(c))));
}

fn step16(c: Chains) -> Chains {
    return step4(step4(step4(step4(c))));
}

fn step64(c: Chains) -> Chains {
    return step16(step16(step16(step16(c))));
}

@compute @workgroup_size(GROUP)
fn peak_fma(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        var c = Chains(vec4<REAL>(x[i]) + vec4<REAL>(0.0, 1.0, 2.0, 3.0),
                       vec4<REAL>(x[i]) + vec4<REAL>(4.0, 5.0, 6.0, 7.0));
        for (var k = 0u; k < STEPS / TURN; k++) {
            c = step64(c);
        }
        y[i] = c.low.x + c.low.y + c.low.z + c.low.w + c.high.x + c.high.y + c.high.z + c.high.w;
    }
}

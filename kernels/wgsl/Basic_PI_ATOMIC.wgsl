// Basic_PI_ATOMIC: every work-item adds dx / (1 + x*x), x = (i + 0.5) * dx, to pi[0]
// atomically; pi_final then writes 4 * pi[0] and zeroes pi[0] for the next repetition.
// WGSL has no floating-point atomics: the add is a compare-and-swap loop on the
// value's bits in an atomic<REAL_BITS> (u32 for f32, u64 for f64). f64 thus needs
// 64-bit atomics: the description asks for atomics64 at f64, so adapters without
// them skip f64 runs. On a GPU each work-group adds its terms' work-group sum,
// one atomic per group, as the C body does there: a compare-and-swap per item
// makes every work-item in flight retry on the one address until it wins.
// The two entry points view pi differently (bits, value) at the same binding.

#ifndef HARNESS_CPU_DEVICE
#include "group_sum.wgslh"
#endif

struct Scalars {
    dx: REAL,
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> pi_bits: array<atomic<REAL_BITS>>;
@group(0) @binding(1) var<uniform> s: Scalars;

fn atomic_add_pi(v: REAL) {
    var old = atomicLoad(&pi_bits[0]);
    loop {
        let sum = bitcast<REAL_BITS>(bitcast<REAL>(old) + v);
        let swapped = atomicCompareExchangeWeak(&pi_bits[0], old, sum);
        if (swapped.exchanged) {
            break;
        }
        old = swapped.old_value;
    }
}

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn pi_atomic(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
#ifdef HARNESS_CPU_DEVICE
    if (i < s.n) {
        let x = (REAL(i) + REAL(0.5)) * s.dx;
        atomic_add_pi(s.dx / (REAL(1) + x * x));
    }
#else
    let x = (REAL(i) + REAL(0.5)) * s.dx;
    let sum = group_sum(lid, select(REAL(0), s.dx / (REAL(1) + x * x), i < s.n));
    if (lid == 0u) {
        atomic_add_pi(sum);
    }
#endif
}

@group(0) @binding(0) var<storage, read_write> pi: array<REAL>;
@group(0) @binding(1) var<storage, read_write> pi_out: array<REAL>;

@compute @workgroup_size(GROUP)
fn pi_final(@builtin(local_invocation_index) lid: u32) {
    if (lid == 0u) {
        pi_out[0] = REAL(4) * pi[0];
        pi[0] = REAL(0);
    }
}

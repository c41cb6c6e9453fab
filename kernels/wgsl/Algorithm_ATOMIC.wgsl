// Algorithm_ATOMIC: atomic[i % REPLICATION] += ATOMIC_VALUE for every i < n; the
// result is the sum of atomic, which accumulates over repetitions as RAJAPerf's does.
// WGSL has no floating-point atomics: the add is a compare-and-swap loop on the
// value's bits in an atomic<REAL_BITS> (u32 for f32, u64 for f64), so f64 needs
// 64-bit atomics (the description's atomics64; adapters without them skip f64).

struct Scalars {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> atomic_bits: array<atomic<REAL_BITS>>;
@group(0) @binding(1) var<uniform> s: Scalars;

fn atomic_add_at(r: u32, v: REAL) {
    loop {
        let old = atomicLoad(&atomic_bits[r]);
        let sum = bitcast<REAL_BITS>(bitcast<REAL>(old) + v);
        if (atomicCompareExchangeWeak(&atomic_bits[r], old, sum).exchanged) {
            break;
        }
    }
}

@compute @workgroup_size(GROUP)
fn atomic_replicate(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        atomic_add_at(i % REPLICATION, ATOMIC_VALUE);
    }
}

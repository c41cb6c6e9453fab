// Apps_NODAL_ACCUMULATION_3D: each real zone adds vol/8 to each of its 8 nodes.
// WGSL has no floating-point atomic add: a compare-and-swap loop on the value's
// bits does it, with REAL_BITS the unsigned integer of REAL's width (u64 for f64
// needs the adapter's shader-int64-atomic-all-ops).

struct Scalars {
    jp: i32,
    kp: i32,
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> x: array<atomic<REAL_BITS>>;
@group(0) @binding(1) var<storage, read> vol: array<REAL>;
@group(0) @binding(2) var<storage, read> real_zones: array<i32>;
@group(0) @binding(3) var<uniform> s: Scalars;

fn atomic_add_real(i: i32, v: REAL) {
    var seen = atomicLoad(&x[i]);
    loop {
        let swap = atomicCompareExchangeWeak(&x[i], seen, bitcast<REAL_BITS>(bitcast<REAL>(seen) + v));
        if (swap.exchanged) {
            break;
        }
        seen = swap.old_value;
    }
}

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn nodal_accumulation_3d(@builtin(workgroup_id) wid: vec3<u32>,
                         @builtin(num_workgroups) nwg: vec3<u32>,
                         @builtin(local_invocation_index) lid: u32) {
    let ii = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (ii >= s.n) {
        return;
    }
    let i = real_zones[ii];
    let val = REAL(0.125) * vol[i];
    atomic_add_real(i, val);
    atomic_add_real(i + 1, val);
    atomic_add_real(i + s.jp, val);
    atomic_add_real(i + 1 + s.jp, val);
    atomic_add_real(i + s.kp, val);
    atomic_add_real(i + 1 + s.kp, val);
    atomic_add_real(i + s.jp + s.kp, val);
    atomic_add_real(i + 1 + s.jp + s.kp, val);
}

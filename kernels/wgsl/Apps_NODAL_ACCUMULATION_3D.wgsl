// Apps_NODAL_ACCUMULATION_3D: each real zone adds vol/8 to each of its 8 nodes.
// WGSL has no floating-point atomics: the add is a compare-and-swap loop on the
// value's bits in an atomic<u32>, so this source is f32 only. WGSL has no
// portable 64-bit atomics, so the description needs atomics64 for f64 (the run
// is skipped where a device lacks it); REAL_IS_F32 makes an f64 compile fail
// with a clear message rather than add doubles as two halves.
const GROUP: u32 = 256u;
const REAL_IS_F32: f32 = REAL(0.0);

struct Scalars {
    jp: i32,
    kp: i32,
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> x: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> vol: array<REAL>;
@group(0) @binding(2) var<storage, read> real_zones: array<i32>;
@group(0) @binding(3) var<uniform> s: Scalars;

fn atomic_add(node: i32, v: f32) {
    var seen = atomicLoad(&x[node]);
    loop {
        let swap = atomicCompareExchangeWeak(&x[node], seen, bitcast<u32>(bitcast<f32>(seen) + v));
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
    atomic_add(i, val);
    atomic_add(i + 1, val);
    atomic_add(i + s.jp, val);
    atomic_add(i + 1 + s.jp, val);
    atomic_add(i + s.kp, val);
    atomic_add(i + 1 + s.kp, val);
    atomic_add(i + s.jp + s.kp, val);
    atomic_add(i + 1 + s.jp + s.kp, val);
}

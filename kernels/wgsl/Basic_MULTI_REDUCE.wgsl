// Basic_MULTI_REDUCE: values[bins[i]] += data[i] over num_bins bins.
// multi_reduce_clear: zeroes the values, as RAJAPerf resets them every repetition.
// multi_reduce: work-group g walks its chunk [g*chunk, (g+1)*chunk); each work-item
// sums its items while their bin stays the same and adds the sum to values[bin]
// atomically when the bin changes and at its end. RAJAPerf's bins are long runs,
// so a work-item makes one or two atomic adds; random bins make one per item.
// WGSL has no floating-point atomics: the add is a compare-and-swap loop on the
// value's bits in an atomic<REAL_BITS> (u32 for f32, u64 for f64), so f64 needs
// 64-bit atomics (the description's atomics64; adapters without them skip f64).
// On a GPU the items of the bin the chunk starts in are summed across the
// work-group and added once, as the C body does there: a compare-and-swap per
// work-item on a few addresses makes them retry until each wins.
// The two entry points view values differently (values, bits) at the same binding.

#ifndef HARNESS_CPU_DEVICE
#include "group_sum.wgslh"
#endif

struct ClearScalars {
    num_bins: u32,
}

@group(0) @binding(0) var<storage, read_write> clear_values: array<REAL>;
@group(0) @binding(1) var<uniform> cs: ClearScalars;

@compute @workgroup_size(GROUP)
fn multi_reduce_clear(@builtin(workgroup_id) wid: vec3<u32>,
                      @builtin(num_workgroups) nwg: vec3<u32>,
                      @builtin(local_invocation_index) lid: u32) {
    let b = global_index(wid, nwg, lid);
    if (b < cs.num_bins) {
        clear_values[b] = REAL(0);
    }
}

struct Scalars {
    n: u32,
    chunk: u32,
}

@group(0) @binding(0) var<storage, read> data: array<REAL>;
@group(0) @binding(1) var<storage, read> bins: array<i32>;
@group(0) @binding(2) var<storage, read_write> values: array<atomic<REAL_BITS>>;
@group(0) @binding(3) var<uniform> s: Scalars;

fn atomic_add_value(b: i32, v: REAL) {
    loop {
        let old = atomicLoad(&values[b]);
        let sum = bitcast<REAL_BITS>(bitcast<REAL>(old) + v);
        if (atomicCompareExchangeWeak(&values[b], old, sum).exchanged) {
            break;
        }
    }
}

@compute @workgroup_size(GROUP)
fn multi_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let begin = (wid.x + wid.y * nwg.x) * s.chunk;
    let end = min(begin + s.chunk, s.n);
#ifndef HARNESS_CPU_DEVICE
    var first = -1;
    if (begin < end) {
        first = bins[begin];
    }
    var in_first = REAL(0);
#endif
    var bin = -1;
    var sum = REAL(0);
    for (var i = begin + lid; i < end; i += GROUP) {
        let b = bins[i];
#ifndef HARNESS_CPU_DEVICE
        if (b == first) {
            in_first += data[i];
            continue;
        }
#endif
        if (b != bin) {
            if (bin >= 0) {
                atomic_add_value(bin, sum);
            }
            bin = b;
            sum = REAL(0);
        }
        sum += data[i];
    }
    if (bin >= 0) {
        atomic_add_value(bin, sum);
    }
#ifndef HARNESS_CPU_DEVICE
    in_first = group_sum(lid, in_first);
    if (lid == 0u && first >= 0) {
        atomic_add_value(first, in_first);
    }
#endif
}

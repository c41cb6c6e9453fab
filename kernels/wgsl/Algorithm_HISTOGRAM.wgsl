// Algorithm_HISTOGRAM: counts[bins[i]] += 1 for num_bins (at most GROUP) bins.
// RAJAPerf counts in 64-bit integers; these are 32-bit on every backend (core WGSL has
// no 64-bit atomics), exact because n is a 32-bit count.
// histogram_clear: zeroes the counts, as RAJAPerf resets them every repetition.
// histogram: work-group g counts its chunk [g*chunk, (g+1)*chunk) with workgroup
// atomics, then adds its non-zero counts to the global ones with global atomics.
// The two entry points bind different arrays at the same binding numbers.

struct ClearScalars {
    num_bins: u32,
}

@group(0) @binding(0) var<storage, read_write> clear_counts: array<u32>;
@group(0) @binding(1) var<uniform> cs: ClearScalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn histogram_clear(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let b = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (b < cs.num_bins) {
        clear_counts[b] = 0u;
    }
}

struct Scalars {
    n: u32,
    chunk: u32,
    num_bins: u32,
}

@group(0) @binding(0) var<storage, read> bins: array<i32>;
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> s: Scalars;

var<workgroup> local_counts: array<atomic<u32>, GROUP>;

@compute @workgroup_size(GROUP)
fn histogram(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let begin = (wid.x + wid.y * nwg.x) * s.chunk;
    let end = min(begin + s.chunk, s.n);
    if (lid < s.num_bins) {
        atomicStore(&local_counts[lid], 0u);
    }
    workgroupBarrier();
    for (var i = begin + lid; i < end; i += GROUP) {
        atomicAdd(&local_counts[bins[i]], 1u);
    }
    workgroupBarrier();
    if (lid < s.num_bins) {
        let c = atomicLoad(&local_counts[lid]);
        if (c != 0u) {
            atomicAdd(&counts[lid], c);
        }
    }
}

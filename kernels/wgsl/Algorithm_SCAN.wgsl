// Algorithm_SCAN: y[i] = x[0] + ... + x[i-1] (exclusive), reduce-then-scan in three
// launches: scan_reduce, scan_sums (from scan.wgslh) and scan_apply.
// The entry points bind different arrays at the same binding numbers.
#include "scan.wgslh"

@group(0) @binding(0) var<storage, read> x: array<SCAN_T>;
@group(0) @binding(1) var<storage, read_write> reduce_sums: array<SCAN_T>;
@group(0) @binding(2) var<uniform> rs: ChunkScalars;

fn scan_load(i: u32) -> SCAN_T {
    return x[i];
}

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn scan_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let sum = chunk_sum(lid, g, rs.n, rs.chunk);
    if (lid == 0u && g * rs.chunk < rs.n) {
        reduce_sums[g] = sum;
    }
}

@group(0) @binding(1) var<storage, read_write> y: array<SCAN_T>;
@group(0) @binding(2) var<storage, read_write> apply_sums: array<SCAN_T>;
@group(0) @binding(3) var<uniform> as_: ChunkScalars;

fn scan_store(i: u32, v: SCAN_T) {
    y[i] = v;
}

@compute @workgroup_size(GROUP)
fn scan_apply(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    var carry = SCAN_T(0);
    if (g * as_.chunk < as_.n) {
        carry = apply_sums[g];
    }
    chunk_scan(lid, g, as_.n, as_.chunk, carry);
}

// Basic_INDEXLIST_3LOOP: the indices i with x[i] < 0, listed in order, and their number.
// indexlist_count: counts[i] = 1 where x[i] < 0, else 0.
// scan_reduce, scan_sums, scan_apply: the shared three-launch exclusive scan of
// counts over n + 1 entries, in place (scan.wgslh on i32 counts).
// indexlist_scatter: list[counts[i]] = i where counts[i] != counts[i+1]; len[0] = counts[n].
// The entry points bind different arrays at the same binding numbers;
// WGSL allows that because no entry point uses both.
#include "scan.wgslh"

struct CountScalars {
    n: u32,
}

@group(0) @binding(0) var<storage, read> x: array<REAL>;
@group(0) @binding(1) var<storage, read_write> flags: array<i32>;
@group(0) @binding(2) var<uniform> cs: CountScalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn indexlist_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i < cs.n) {
        flags[i] = select(0, 1, x[i] < REAL(0));
    }
}

@group(0) @binding(0) var<storage, read_write> counts: array<i32>;
@group(0) @binding(1) var<storage, read_write> sums: array<i32>;
@group(0) @binding(2) var<uniform> ks: ChunkScalars;

fn scan_load(i: u32) -> i32 {
    return counts[i];
}

fn scan_store(i: u32, v: i32) {
    counts[i] = v;
}

@compute @workgroup_size(GROUP)
fn scan_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let sum = chunk_sum(lid, g, ks.n, ks.chunk);
    if (lid == 0u && g * ks.chunk < ks.n) {
        sums[g] = sum;
    }
}

@compute @workgroup_size(GROUP)
fn scan_apply(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    var carry = 0;
    if (g * ks.chunk < ks.n) {
        carry = sums[g];
    }
    chunk_scan(lid, g, ks.n, ks.chunk, carry);
}

@group(0) @binding(1) var<storage, read_write> list: array<i32>;
@group(0) @binding(2) var<storage, read_write> len: array<i32>;
@group(0) @binding(3) var<uniform> ls: CountScalars;

@compute @workgroup_size(GROUP)
fn indexlist_scatter(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i == 0u) {
        len[0] = counts[ls.n];
    }
    if (i < ls.n && counts[i] != counts[i + 1u]) {
        list[counts[i]] = i32(i);
    }
}

// Basic_REDUCE3_INT: int vsum, vmin and vmax of vec in one pass, in two launches.
// reduce3_partial: work-group g reduces its contiguous chunk [g*chunk, (g+1)*chunk)
// into partial[g] (sum), partial[G + g] (min) and partial[2G + g] (max), G groups.
// reduce3_final: one work-group folds the count partials of each kind.
// The two entry points bind different arrays at the same binding numbers;
// WGSL allows that because no entry point uses both.
const INT_MIN: i32 = -2147483647 - 1;
const INT_MAX: i32 = 2147483647;

var<workgroup> sums: array<i32, GROUP>;
var<workgroup> mins: array<i32, GROUP>;
var<workgroup> maxs: array<i32, GROUP>;

// Folds every work-item's triple into sums[0], mins[0], maxs[0]; every work-item must call it.
fn group_reduce3(lid: u32, vsum: i32, vmin: i32, vmax: i32) {
    sums[lid] = vsum;
    mins[lid] = vmin;
    maxs[lid] = vmax;
    workgroupBarrier();
    for (var s = GROUP / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
            mins[lid] = min(mins[lid], mins[lid + s]);
            maxs[lid] = max(maxs[lid], maxs[lid + s]);
        }
        workgroupBarrier();
    }
}

struct PartialScalars {
    n: u32,
    chunk: u32,
}

@group(0) @binding(0) var<storage, read> vec: array<i32>;
@group(0) @binding(1) var<storage, read_write> partial: array<i32>;
@group(0) @binding(2) var<uniform> ps: PartialScalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn reduce3_partial(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    // Folded grids hold exactly the launch's groups.
    let groups = nwg.x * nwg.y;
    let begin = g * ps.chunk;
    let end = min(begin + ps.chunk, ps.n);
    var vsum = 0;
    var vmin = INT_MAX;
    var vmax = INT_MIN;
    for (var i = begin + lid; i < end; i += GROUP) {
        let v = vec[i];
        vsum += v;
        vmin = min(vmin, v);
        vmax = max(vmax, v);
    }
    group_reduce3(lid, vsum, vmin, vmax);
    if (lid == 0u && g < groups) {
        partial[g] = sums[0];
        partial[groups + g] = mins[0];
        partial[2u * groups + g] = maxs[0];
    }
}

struct FinalScalars {
    count: u32,
}

@group(0) @binding(0) var<storage, read_write> partial_in: array<i32>;
@group(0) @binding(1) var<storage, read_write> vsum_out: array<i32>;
@group(0) @binding(2) var<storage, read_write> vmin_out: array<i32>;
@group(0) @binding(3) var<storage, read_write> vmax_out: array<i32>;
@group(0) @binding(4) var<uniform> fs: FinalScalars;

@compute @workgroup_size(GROUP)
fn reduce3_final(@builtin(local_invocation_index) lid: u32) {
    var vsum = 0;
    var vmin = INT_MAX;
    var vmax = INT_MIN;
    for (var i = lid; i < fs.count; i += GROUP) {
        vsum += partial_in[i];
        vmin = min(vmin, partial_in[fs.count + i]);
        vmax = max(vmax, partial_in[2u * fs.count + i]);
    }
    group_reduce3(lid, vsum, vmin, vmax);
    if (lid == 0u) {
        vsum_out[0] = sums[0];
        vmin_out[0] = mins[0];
        vmax_out[0] = maxs[0];
    }
}

// Lcals_FIRST_MIN: the location of x's minimum, the first one among equals.
// first_min_partial: work-group g scans the chunk [g*chunk, (g+1)*chunk), each
// work-item striding by the group size, then a tree in workgroup memory.
// first_min_final: one work-group combines the per-group results.
// Every candidate starts at (xmin_init, initloc) as RAJAPerf's reduction does;
// a pair wins with a smaller value, or an equal value at a smaller index, so
// the result is Base_Seq's whatever order the work is combined in.
// The two entry points bind different arrays at the same binding numbers.

var<workgroup> vals: array<REAL, GROUP>;
var<workgroup> locs: array<i32, GROUP>;

fn better(val: REAL, loc: i32, than_val: REAL, than_loc: i32) -> bool {
    return val < than_val || (val == than_val && loc < than_loc);
}

// Combines every work-item's pair into vals[0], locs[0]; all work-items call it.
fn reduce_group(lid: u32) {
    workgroupBarrier();
    for (var stride = GROUP / 2u; stride > 0u; stride >>= 1u) {
        if (lid < stride && better(vals[lid + stride], locs[lid + stride], vals[lid], locs[lid])) {
            vals[lid] = vals[lid + stride];
            locs[lid] = locs[lid + stride];
        }
        workgroupBarrier();
    }
}

struct PartialScalars {
    xmin_init: REAL,
    initloc: i32,
    n: u32,
    chunk: u32,
}

@group(0) @binding(0) var<storage, read> x: array<REAL>;
@group(0) @binding(1) var<storage, read_write> block_val: array<REAL>;
@group(0) @binding(2) var<storage, read_write> block_loc: array<i32>;
@group(0) @binding(3) var<uniform> ps: PartialScalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn first_min_partial(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * ps.chunk;
    let end = min(begin + ps.chunk, ps.n);
    var val = ps.xmin_init;
    var loc = ps.initloc;
    for (var i = begin + lid; i < end; i += GROUP) {
        if (better(x[i], i32(i), val, loc)) {
            val = x[i];
            loc = i32(i);
        }
    }
    vals[lid] = val;
    locs[lid] = loc;
    reduce_group(lid);
    if (lid == 0u && g < arrayLength(&block_val)) {
        block_val[g] = vals[0];
        block_loc[g] = locs[0];
    }
}

struct FinalScalars {
    xmin_init: REAL,
    initloc: i32,
    count: u32,
}

@group(0) @binding(0) var<storage, read_write> final_val: array<REAL>;
@group(0) @binding(1) var<storage, read_write> final_loc: array<i32>;
@group(0) @binding(2) var<storage, read_write> minloc: array<i32>;
@group(0) @binding(3) var<uniform> fs: FinalScalars;

@compute @workgroup_size(GROUP)
fn first_min_final(@builtin(local_invocation_index) lid: u32) {
    var val = fs.xmin_init;
    var loc = fs.initloc;
    for (var i = lid; i < fs.count; i += GROUP) {
        if (better(final_val[i], final_loc[i], val, loc)) {
            val = final_val[i];
            loc = final_loc[i];
        }
    }
    vals[lid] = val;
    locs[lid] = loc;
    reduce_group(lid);
    if (lid == 0u) {
        minloc[0] = locs[0];
    }
}

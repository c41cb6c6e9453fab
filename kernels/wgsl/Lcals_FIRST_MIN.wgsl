// Lcals_FIRST_MIN: the location of x's minimum, the first one among equals.
// first_min_partial: work-group g scans the chunk [g*chunk, (g+1)*chunk), each
// work-item striding by the group size, then a tree in workgroup memory.
// first_min_final: one work-group combines the per-group results.
// Every candidate starts at (xmin_init, initloc) as RAJAPerf's reduction does;
// a pair wins with a smaller value, or an equal value at a smaller index, so
// the result is Base_Seq's whatever order the work is combined in.

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

@compute @workgroup_size(GROUP)
fn first_min_partial(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * s.chunk;
    let end = min(begin + s.chunk, s.n);
    var val = s.xmin_init;
    var loc = s.initloc;
    // Four items a turn, written out: naga's loop counter keeps a driver from unrolling
    // the loop, and a work-item with one load in flight leaves the memory idle.
    var i = begin + lid;
    for (; i + 3u * GROUP < end; i += 4u * GROUP) {
#unroll u 4
        let j = i + u * GROUP;
        if (better(x[j], i32(j), val, loc)) {
            val = x[j];
            loc = i32(j);
        }
#endunroll
    }
    for (; i < end; i += GROUP) {
        if (better(x[i], i32(i), val, loc)) {
            val = x[i];
            loc = i32(i);
        }
    }
    vals[lid] = val;
    locs[lid] = loc;
    reduce_group(lid);
    if (lid == 0u && begin < s.n) {
        block_val[g] = vals[0];
        block_loc[g] = locs[0];
    }
}

@compute @workgroup_size(GROUP)
fn first_min_final(@builtin(local_invocation_index) lid: u32) {
    var val = s.xmin_init;
    var loc = s.initloc;
    for (var i = lid; i < s.count; i += GROUP) {
        if (better(block_val[i], block_loc[i], val, loc)) {
            val = block_val[i];
            loc = block_loc[i];
        }
    }
    vals[lid] = val;
    locs[lid] = loc;
    reduce_group(lid);
    if (lid == 0u) {
        minloc[0] = locs[0];
    }
}

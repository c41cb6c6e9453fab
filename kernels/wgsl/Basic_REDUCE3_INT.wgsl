// Basic_REDUCE3_INT: int vsum, vmin and vmax of vec in one pass, in two launches.
// reduce3_partial: work-group g reduces its contiguous chunk [g*chunk, (g+1)*chunk)
// into partial[g] (sum), partial[G + g] (min) and partial[2G + g] (max), G groups.
// reduce3_final: one work-group folds the count partials of each kind.
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

@compute @workgroup_size(GROUP)
fn reduce3_partial(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    // The launch's groups, each with a chunk: a folded grid may hold more.
    let groups = (s.n + s.chunk - 1u) / s.chunk;
    let begin = g * s.chunk;
    let end = min(begin + s.chunk, s.n);
    var vsum = 0;
    var vmin = INT_MAX;
    var vmax = INT_MIN;
    // Four items a turn, written out: naga's loop counter keeps a driver from unrolling
    // the loop, and a work-item with one load in flight leaves the memory idle.
    var i = begin + lid;
    for (; i + 3u * GROUP < end; i += 4u * GROUP) {
#unroll u 4
        let v = vec[i + u * GROUP];
        vsum += v;
        vmin = min(vmin, v);
        vmax = max(vmax, v);
#endunroll
    }
    for (; i < end; i += GROUP) {
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

@compute @workgroup_size(GROUP)
fn reduce3_final(@builtin(local_invocation_index) lid: u32) {
    var total = 0;
    var lo = INT_MAX;
    var hi = INT_MIN;
    for (var i = lid; i < s.count; i += GROUP) {
        total += partial[i];
        lo = min(lo, partial[s.count + i]);
        hi = max(hi, partial[2u * s.count + i]);
    }
    group_reduce3(lid, total, lo, hi);
    if (lid == 0u) {
        vsum[0] = sums[0];
        vmin[0] = mins[0];
        vmax[0] = maxs[0];
    }
}

// Algorithm_REDUCE_SUM: sum = x[0] + ... + x[n-1] in two launches.
// reduce_sum_partial: work-group g sums its contiguous chunk [g*chunk, (g+1)*chunk),
// each work-item striding by the group size, then a tree in workgroup memory.
// reduce_sum_final: one work-group adds the count partials and writes sum[0].

#include "group_sum.wgslh"

@compute @workgroup_size(GROUP)
fn reduce_sum_partial(@builtin(workgroup_id) wid: vec3<u32>,
                      @builtin(num_workgroups) nwg: vec3<u32>,
                      @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * s.chunk;
    let end = min(begin + s.chunk, s.n);
    var sum = REAL(0);
    // Four items a turn, written out: naga's loop counter keeps a driver from unrolling
    // the loop, and a work-item with one load in flight leaves the memory idle.
    var i = begin + lid;
    for (; i + 3u * GROUP < end; i += 4u * GROUP) {
#unroll u 4
        sum += x[i + u * GROUP];
#endunroll
    }
    for (; i < end; i += GROUP) {
        sum += x[i];
    }
    sum = group_sum(lid, sum);
    if (lid == 0u && begin < s.n) {
        partial[g] = sum;
    }
}

@compute @workgroup_size(GROUP)
fn reduce_sum_final(@builtin(local_invocation_index) lid: u32) {
    var total = REAL(0);
    for (var i = lid; i < s.count; i += GROUP) {
        total += partial[i];
    }
    total = group_sum(lid, total);
    if (lid == 0u) {
        sum[0] = total;
    }
}

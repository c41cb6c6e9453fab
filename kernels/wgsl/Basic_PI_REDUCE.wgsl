// Basic_PI_REDUCE: pi = 4 * sum(dx / (1 + x*x)), x = (i + 0.5) * dx, in two launches.
// pi_reduce_partial: work-group g sums the terms of its contiguous chunk
// [g*chunk, (g+1)*chunk), each work-item striding by the group size, into partial[g];
// pi_reduce_final: one work-item adds the count partials and writes 4 times their sum.

#include "group_sum.wgslh"

@compute @workgroup_size(GROUP)
fn pi_reduce_partial(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * s.chunk;
    let end = min(begin + s.chunk, s.n);
    var pi = REAL(0);
    for (var i = begin + lid; i < end; i += GROUP) {
        let x = (REAL(i) + REAL(0.5)) * s.dx;
        pi += s.dx / (REAL(1) + x * x);
    }
    pi = group_sum(lid, pi);
    if (lid == 0u && begin < s.n) {
        partial[g] = pi;
    }
}

// A chunked launch leaves at most a thousand partials: one work-item adds them.
@compute @workgroup_size(GROUP)
fn pi_reduce_final(@builtin(local_invocation_id) local: vec3<u32>) {
    if (local.x == 0u) {
        var total = REAL(0);
        for (var i = 0u; i < s.count; i++) {
            total += partial[i];
        }
        pi[0] = REAL(4) * total;
    }
}

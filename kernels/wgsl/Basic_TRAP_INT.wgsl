// Basic_TRAP_INT: sumx += h * sum(1 / sqrt((x - xp)^2 + (y - yp)^2)), x = x0 + i*h,
// in two launches. trap_int_partial: work-group g sums the integrand over its
// contiguous chunk [g*chunk, (g+1)*chunk), each work-item striding by the group
// size, into partial[g]; trap_int_final: one work-item adds the count partials,
// times h, to sumx[0].

#include "group_sum.wgslh"

// RAJAPerf's trap_int_func.
fn trap_int_func(x: REAL, y: REAL, xp: REAL, yp: REAL) -> REAL {
    let denom = (x - xp) * (x - xp) + (y - yp) * (y - yp);
    return REAL(1) / sqrt(denom);
}

@compute @workgroup_size(GROUP)
fn trap_int_partial(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * s.chunk;
    let end = min(begin + s.chunk, s.n);
    var sumx = REAL(0);
    for (var i = begin + lid; i < end; i += GROUP) {
        let x = s.x0 + REAL(i) * s.h;
        sumx += trap_int_func(x, s.y, s.xp, s.yp);
    }
    sumx = group_sum(lid, sumx);
    if (lid == 0u && begin < s.n) {
        partial[g] = sumx;
    }
}

// A chunked launch leaves at most a thousand partials: one work-item adds them.
@compute @workgroup_size(GROUP)
fn trap_int_final(@builtin(local_invocation_id) local: vec3<u32>) {
    if (local.x == 0u) {
        var total = REAL(0);
        for (var i = 0u; i < s.count; i++) {
            total += partial[i];
        }
        sumx[0] += total * s.h;
    }
}

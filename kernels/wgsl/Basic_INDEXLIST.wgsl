// Basic_INDEXLIST: the indices i with x[i] < 0, listed in order, and their number.
// indexlist_count: work-group g counts the negatives of its contiguous chunk
// [g*chunk, (g+1)*chunk) into counts[g].
// indexlist_scan: work-group g adds counts[0..g) for where its chunk's entries
// start, lists them in order tile by tile, and the last group writes len[0],
// where its list ends.
// Both launches read x; no flags array is written (see the description's plan).

#include "group_scan.wgslh"

var<workgroup> start: i32;

@compute @workgroup_size(GROUP)
fn indexlist_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * s.chunk;
    let end = min(begin + s.chunk, s.n);
    var count = 0;
    for (var i = begin + lid; i < end; i += GROUP) {
        count += select(0, 1, x[i] < REAL(0));
    }
    count = group_sum(lid, count);
    if (lid == 0u && begin < s.n) {
        counts[g] = count;
    }
}

@compute @workgroup_size(GROUP)
fn indexlist_scan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * s.chunk;
    let end = min(begin + s.chunk, s.n);
    // A chunked launch has at most a thousand groups: one work-item adds their counts.
    if (lid == 0u) {
        var before = 0;
        for (var k = 0u; k < g; k++) {
            before += counts[k];
        }
        start = before;
    }
    var carry = workgroupUniformLoad(&start);
    for (var base = begin; base < end; base += GROUP) {
        let i = base + lid;
        var hit = 0;
        if (i < end) {
            hit = select(0, 1, x[i] < REAL(0));
        }
        let scan = group_scan(lid, hit);
        if (hit != 0) {
            list[carry + scan.before] = i32(i);
        }
        carry += scan.total;
    }
    if (lid == 0u && begin < s.n && end == s.n) {
        len[0] = carry;
    }
}

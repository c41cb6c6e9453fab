// Stream_DOT: dot += sum(a[i] * b[i]) in two launches.
// dot_partial: work-group g sums the contiguous chunk [g*chunk, (g+1)*chunk),
// each work-item striding by the group size, then a tree in workgroup memory.
// dot_final: one work-group adds the partial sums into dot[0].

var<workgroup> sums: array<REAL, GROUP>;

// Sums the group's values in `sums` into sums[0]; every work-item must call it.
fn reduce_group(lid: u32) {
    workgroupBarrier();
    for (var stride = GROUP / 2u; stride > 0u; stride >>= 1u) {
        if (lid < stride) {
            sums[lid] += sums[lid + stride];
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(GROUP)
fn dot_partial(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
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
        sum += a[i + u * GROUP] * b[i + u * GROUP];
#endunroll
    }
    for (; i < end; i += GROUP) {
        sum += a[i] * b[i];
    }
    sums[lid] = sum;
    reduce_group(lid);
    if (lid == 0u && begin < s.n) {
        partial[g] = sums[0];
    }
}

@compute @workgroup_size(GROUP)
fn dot_final(@builtin(local_invocation_index) lid: u32) {
    var sum = REAL(0);
    for (var i = lid; i < s.count; i += GROUP) {
        sum += partial[i];
    }
    sums[lid] = sum;
    reduce_group(lid);
    if (lid == 0u) {
        dot[0] += sums[0];
    }
}

// Stream_DOT: dot += sum(a[i] * b[i]) in two launches.
// dot_partial: work-group g sums the contiguous chunk [g*chunk, (g+1)*chunk),
// each work-item striding by the group size, then a tree in workgroup memory.
// dot_final: one work-group adds the partial sums into dot[0].
// The two entry points bind different arrays at the same binding numbers;
// WGSL allows that because no entry point uses both.

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

struct PartialScalars {
    n: u32,
    chunk: u32,
}

@group(0) @binding(0) var<storage, read> a: array<REAL>;
@group(0) @binding(1) var<storage, read> b: array<REAL>;
@group(0) @binding(2) var<storage, read_write> partial: array<REAL>;
@group(0) @binding(3) var<uniform> ps: PartialScalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn dot_partial(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * ps.chunk;
    let end = min(begin + ps.chunk, ps.n);
    var sum = REAL(0);
    for (var i = begin + lid; i < end; i += GROUP) {
        sum += a[i] * b[i];
    }
    sums[lid] = sum;
    reduce_group(lid);
    if (lid == 0u && g < arrayLength(&partial)) {
        partial[g] = sums[0];
    }
}

struct FinalScalars {
    count: u32,
}

@group(0) @binding(0) var<storage, read_write> partial_in: array<REAL>;
@group(0) @binding(1) var<storage, read_write> dot: array<REAL>;
@group(0) @binding(2) var<uniform> fs: FinalScalars;

@compute @workgroup_size(GROUP)
fn dot_final(@builtin(local_invocation_index) lid: u32) {
    var sum = REAL(0);
    for (var i = lid; i < fs.count; i += GROUP) {
        sum += partial_in[i];
    }
    sums[lid] = sum;
    reduce_group(lid);
    if (lid == 0u) {
        dot[0] += sums[0];
    }
}

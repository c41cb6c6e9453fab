// Algorithm_SCAN: y[i] = x[0] + ... + x[i-1] (exclusive), reduce-then-scan in three launches.
// scan_reduce: work-group g sums its contiguous chunk [g*chunk, (g+1)*chunk) into sums[g].
// scan_sums: one work-group turns the count chunk sums into their exclusive scan.
// scan_apply: work-group g scans its chunk tile by tile from offset sums[g].
// The entry points bind different arrays at the same binding numbers.
const GROUP: u32 = 256u;

var<workgroup> tile: array<REAL, GROUP>;

// Sum of one value per work-item across the work-group, valid in work-item 0.
fn group_sum(lid: u32, v: REAL) -> REAL {
    tile[lid] = v;
    workgroupBarrier();
    for (var stride = GROUP / 2u; stride > 0u; stride >>= 1u) {
        if (lid < stride) {
            tile[lid] += tile[lid + stride];
        }
        workgroupBarrier();
    }
    let sum = tile[0];
    workgroupBarrier();
    return sum;
}

struct Scan {
    before: REAL,
    total: REAL,
}

// Exclusive scan of one value per work-item across the work-group, and their sum.
fn group_scan(lid: u32, v: REAL) -> Scan {
    tile[lid] = v;
    workgroupBarrier();
    for (var off = 1u; off < GROUP; off <<= 1u) {
        var t = REAL(0);
        if (lid >= off) {
            t = tile[lid - off];
        }
        workgroupBarrier();
        tile[lid] += t;
        workgroupBarrier();
    }
    var before = REAL(0);
    if (lid > 0u) {
        before = tile[lid - 1u];
    }
    let total = tile[GROUP - 1u];
    workgroupBarrier();
    return Scan(before, total);
}

struct ChunkScalars {
    n: u32,
    chunk: u32,
}

@group(0) @binding(0) var<storage, read> x: array<REAL>;
@group(0) @binding(1) var<storage, read_write> reduce_sums: array<REAL>;
@group(0) @binding(2) var<uniform> rs: ChunkScalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn scan_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * rs.chunk;
    let end = min(begin + rs.chunk, rs.n);
    var sum = REAL(0);
    for (var i = begin + lid; i < end; i += GROUP) {
        sum += x[i];
    }
    sum = group_sum(lid, sum);
    if (lid == 0u && g < arrayLength(&reduce_sums)) {
        reduce_sums[g] = sum;
    }
}

struct SumsScalars {
    count: u32,
}

@group(0) @binding(0) var<storage, read_write> sums: array<REAL>;
@group(0) @binding(1) var<uniform> ss: SumsScalars;

@compute @workgroup_size(GROUP)
fn scan_sums(@builtin(local_invocation_index) lid: u32) {
    let count = ss.count;
    let per = (count + GROUP - 1u) / GROUP;
    let begin = min(lid * per, count);
    let end = min(begin + per, count);
    var own = REAL(0);
    for (var i = begin; i < end; i++) {
        own += sums[i];
    }
    var offset = group_scan(lid, own).before;
    for (var i = begin; i < end; i++) {
        let v = sums[i];
        sums[i] = offset;
        offset += v;
    }
}

@group(0) @binding(1) var<storage, read_write> y: array<REAL>;
@group(0) @binding(2) var<storage, read_write> apply_sums: array<REAL>;
@group(0) @binding(3) var<uniform> as_: ChunkScalars;

@compute @workgroup_size(GROUP)
fn scan_apply(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * as_.chunk;
    let end = min(begin + as_.chunk, as_.n);
    var carry = REAL(0);
    if (begin < end) {
        carry = apply_sums[g];
    }
    for (var base = begin; base < end; base += GROUP) {
        let i = base + lid;
        var v = REAL(0);
        if (i < end) {
            v = x[i];
        }
        let scan = group_scan(lid, v);
        if (i < end) {
            y[i] = carry + scan.before;
        }
        carry += scan.total;
    }
}

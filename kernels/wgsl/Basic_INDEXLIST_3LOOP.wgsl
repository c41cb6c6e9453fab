// Basic_INDEXLIST_3LOOP: the indices i with x[i] < 0, listed in order, and their number.
// indexlist_count: counts[i] = 1 where x[i] < 0, else 0.
// scan_reduce, scan_sums, scan_apply: the shared three-launch exclusive scan of
// counts over n + 1 entries, in place (Algorithm_SCAN's plan on i32 counts).
// indexlist_scatter: list[counts[i]] = i where counts[i] != counts[i+1]; len[0] = counts[n].
// The entry points bind different arrays at the same binding numbers;
// WGSL allows that because no entry point uses both.
const GROUP: u32 = 256u;

var<workgroup> tile: array<i32, GROUP>;

// Tree sum of one value per work-item into tile[0]; every work-item must call it.
fn group_sum(lid: u32, v: i32) {
    tile[lid] = v;
    workgroupBarrier();
    for (var s = GROUP / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            tile[lid] += tile[lid + s];
        }
        workgroupBarrier();
    }
}

struct Scanned {
    before: i32,
    total: i32,
}

// Exclusive scan of one value per work-item and the group's total; every work-item must call it.
fn group_scan(lid: u32, v: i32) -> Scanned {
    tile[lid] = v;
    workgroupBarrier();
    for (var off = 1u; off < GROUP; off <<= 1u) {
        var t = 0;
        if (lid >= off) {
            t = tile[lid - off];
        }
        workgroupBarrier();
        tile[lid] += t;
        workgroupBarrier();
    }
    var before = 0;
    if (lid > 0u) {
        before = tile[lid - 1u];
    }
    let total = tile[GROUP - 1u];
    workgroupBarrier();
    return Scanned(before, total);
}

struct CountScalars {
    n: u32,
}

@group(0) @binding(0) var<storage, read> x: array<REAL>;
@group(0) @binding(1) var<storage, read_write> flags: array<i32>;
@group(0) @binding(2) var<uniform> cs: CountScalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn indexlist_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i < cs.n) {
        flags[i] = select(0, 1, x[i] < REAL(0));
    }
}

struct ChunkScalars {
    n: u32,
    chunk: u32,
}

@group(0) @binding(0) var<storage, read_write> counts: array<i32>;
@group(0) @binding(1) var<storage, read_write> sums: array<i32>;
@group(0) @binding(2) var<uniform> ks: ChunkScalars;

@compute @workgroup_size(GROUP)
fn scan_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * ks.chunk;
    let end = min(begin + ks.chunk, ks.n);
    var sum = 0;
    for (var i = begin + lid; i < end; i += GROUP) {
        sum += counts[i];
    }
    group_sum(lid, sum);
    if (lid == 0u && g < arrayLength(&sums)) {
        sums[g] = tile[0];
    }
}

struct SumsScalars {
    count: u32,
}

@group(0) @binding(0) var<storage, read_write> sums_all: array<i32>;
@group(0) @binding(1) var<uniform> ss: SumsScalars;

@compute @workgroup_size(GROUP)
fn scan_sums(@builtin(local_invocation_index) lid: u32) {
    let per = (ss.count + GROUP - 1u) / GROUP;
    let begin = min(lid * per, ss.count);
    let end = min(begin + per, ss.count);
    var own = 0;
    for (var i = begin; i < end; i++) {
        own += sums_all[i];
    }
    var offset = group_scan(lid, own).before;
    for (var i = begin; i < end; i++) {
        let v = sums_all[i];
        sums_all[i] = offset;
        offset += v;
    }
}

@compute @workgroup_size(GROUP)
fn scan_apply(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let begin = g * ks.chunk;
    let end = min(begin + ks.chunk, ks.n);
    var carry = 0;
    if (begin < end) {
        carry = sums[g];
    }
    for (var base = begin; base < end; base += GROUP) {
        let i = base + lid;
        var v = 0;
        if (i < end) {
            v = counts[i];
        }
        let scanned = group_scan(lid, v);
        if (i < end) {
            counts[i] = carry + scanned.before;
        }
        carry += scanned.total;
    }
}

@group(0) @binding(1) var<storage, read_write> list: array<i32>;
@group(0) @binding(2) var<storage, read_write> len: array<i32>;
@group(0) @binding(3) var<uniform> ls: CountScalars;

@compute @workgroup_size(GROUP)
fn indexlist_scatter(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i == 0u) {
        len[0] = counts[ls.n];
    }
    if (i < ls.n && counts[i] != counts[i + 1u]) {
        list[counts[i]] = i32(i);
    }
}

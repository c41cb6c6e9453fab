// Basic_REDUCE_STRUCT: the center (sums over n), min and max of x and of y, in two launches.
// Partials and points hold six rows in the order of RAJAPerf's PointsType:
// x sum, y sum, x min, x max, y min, y max; partial has G entries a row, G work-groups.
// reduce_struct_partial: work-group g reduces its contiguous chunk [g*chunk, (g+1)*chunk)
// into partial[r*G + g]; reduce_struct_final: one work-item folds the count
// partials of each row into points, the sums divided by n.

var<workgroup> xsum: array<REAL, GROUP>;
var<workgroup> ysum: array<REAL, GROUP>;
var<workgroup> xmin: array<REAL, GROUP>;
var<workgroup> xmax: array<REAL, GROUP>;
var<workgroup> ymin: array<REAL, GROUP>;
var<workgroup> ymax: array<REAL, GROUP>;

struct Reduced {
    xsum: REAL,
    ysum: REAL,
    xmin: REAL,
    xmax: REAL,
    ymin: REAL,
    ymax: REAL,
}

// r with the point (xi, yi) taken in.
fn take(r: Reduced, xi: REAL, yi: REAL) -> Reduced {
    return Reduced(r.xsum + xi, r.ysum + yi, min(r.xmin, xi), max(r.xmax, xi), min(r.ymin, yi),
                   max(r.ymax, yi));
}

// Folds every work-item's six values across the work-group, returned to every work-item.
fn group_reduce_struct(lid: u32, v: Reduced) -> Reduced {
    xsum[lid] = v.xsum;
    ysum[lid] = v.ysum;
    xmin[lid] = v.xmin;
    xmax[lid] = v.xmax;
    ymin[lid] = v.ymin;
    ymax[lid] = v.ymax;
    workgroupBarrier();
    for (var stride = GROUP / 2u; stride > 0u; stride >>= 1u) {
        if (lid < stride) {
            xsum[lid] += xsum[lid + stride];
            ysum[lid] += ysum[lid + stride];
            xmin[lid] = min(xmin[lid], xmin[lid + stride]);
            xmax[lid] = max(xmax[lid], xmax[lid + stride]);
            ymin[lid] = min(ymin[lid], ymin[lid + stride]);
            ymax[lid] = max(ymax[lid], ymax[lid + stride]);
        }
        workgroupBarrier();
    }
    return Reduced(xsum[0], ysum[0], xmin[0], xmax[0], ymin[0], ymax[0]);
}

@compute @workgroup_size(GROUP)
fn reduce_struct_partial(@builtin(workgroup_id) wid: vec3<u32>,
                         @builtin(num_workgroups) nwg: vec3<u32>,
                         @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    // The launch's groups, each with a chunk: a folded grid may hold more.
    let groups = (s.n + s.chunk - 1u) / s.chunk;
    let begin = g * s.chunk;
    let end = min(begin + s.chunk, s.n);
    var r = Reduced(REAL(0), REAL(0), s.init_min, s.init_max, s.init_min, s.init_max);
    // Four items a turn, written out: naga's loop counter keeps a driver from unrolling
    // the loop, and a work-item with one load in flight leaves the memory idle.
    var i = begin + lid;
    for (; i + 3u * GROUP < end; i += 4u * GROUP) {
#unroll u 4
        r = take(r, x[i + u * GROUP], y[i + u * GROUP]);
#endunroll
    }
    for (; i < end; i += GROUP) {
        r = take(r, x[i], y[i]);
    }
    r = group_reduce_struct(lid, r);
    if (lid == 0u && g < groups) {
        partial[g] = r.xsum;
        partial[groups + g] = r.ysum;
        partial[2u * groups + g] = r.xmin;
        partial[3u * groups + g] = r.xmax;
        partial[4u * groups + g] = r.ymin;
        partial[5u * groups + g] = r.ymax;
    }
}

// A chunked launch leaves at most a thousand partials: one work-item folds them.
@compute @workgroup_size(GROUP)
fn reduce_struct_final(@builtin(local_invocation_id) local: vec3<u32>) {
    if (local.x == 0u) {
        let count = s.count;
        var r = Reduced(REAL(0), REAL(0), s.init_min, s.init_max, s.init_min, s.init_max);
        for (var i = 0u; i < count; i++) {
            r.xsum += partial[i];
            r.ysum += partial[count + i];
            r.xmin = min(r.xmin, partial[2u * count + i]);
            r.xmax = max(r.xmax, partial[3u * count + i]);
            r.ymin = min(r.ymin, partial[4u * count + i]);
            r.ymax = max(r.ymax, partial[5u * count + i]);
        }
        points[0] = r.xsum / REAL(s.n);
        points[1] = r.ysum / REAL(s.n);
        points[2] = r.xmin;
        points[3] = r.xmax;
        points[4] = r.ymin;
        points[5] = r.ymax;
    }
}

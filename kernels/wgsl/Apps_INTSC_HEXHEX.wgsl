// Apps_INTSC_HEXHEX: volume and x, y, z moments of the overlap of a donor and a target
// hexahedron, per pair. A work-item clips one donor facet (of 12) to one target tet (of 6) in
// the tet's unit frame with linked-list polygons, as RAJAPerf's cuda_intsc_tri_tet; a work-group
// sums its work-items into eight partials (the pair running into it, the pair starting in it),
// and the fixup launch adds each pair's two partials.

// A polygon's slots: rows x, y, z, h (1 - x - y - z) and h2 (1 - x - y, the first cut); every
// clip interpolates the first four.
alias Poly = array<array<REAL, SLOTS>, 5>;
alias Links = array<i32, SLOTS>;

// Donor facets: corner 0 or 7 with two neighbours in the cycle around it; target tets: corners
// 0 and 7 with two neighbours in the cycle around the diagonal.
const CYC = array<i32, 7>(1, 5, 4, 6, 2, 3, 1);
const VERT_CYC = array<i32, 6>(1, 3, 2, 6, 4, 5);

var<workgroup> part: array<REAL, PARTIALS * GROUP>;

// clip_polygon_ge_0: keep the part of the polygon (first, linked by next) where row c >= 0;
// crossings take slots from the avail list, removed vertices go back to it.
fn clip_ge_0(p: ptr<function, Poly>, c: i32, first: ptr<function, i32>,
             avail: ptr<function, i32>, next: ptr<function, Links>) {
    let first0 = *first;
    var j = first0;
    var j1 = -1;
    // j2, jj1 and jj2 are set with j1: a polygon that leaves the half-space enters it too.
    var j2: i32;
    var jj1: i32;
    var jj2: i32;
    var c0 = REAL(0);
    if (j >= 0) {
        c0 = (*p)[c][j];
    }
    let c00 = c0;
    var clast = c0;
    while (j >= 0) {
        let jp = (*next)[j];
        let jj = select(jp, first0, jp < 0);
        let c1 = (*p)[c][jj];
        if (c0 >= 0 && c1 < 0) {
            j1 = j;
            jj1 = jj;
        }
        if (c0 < 0 && c1 >= 0) {
            j2 = j;
            jj2 = jj;
        }
        j = jp;
        clast = c0;
        c0 = c1;
    }
    var jr1: i32;
    var jr2: i32;
    if (j1 >= 0) {
        jr1 = *avail;
        jr2 = (*next)[jr1];
        *avail = (*next)[jr2];
        let eta1 = (0 - (*p)[c][jj1]) / ((*p)[c][j1] - (*p)[c][jj1]);
        let eta2 = (0 - (*p)[c][j2]) / ((*p)[c][jj2] - (*p)[c][j2]);
        for (var a = 0; a < 4; a++) {
            (*p)[a][jr1] = (*p)[a][j1] * eta1 + (*p)[a][jj1] * (1 - eta1);
            (*p)[a][jr2] = (*p)[a][jj2] * eta2 + (*p)[a][j2] * (1 - eta2);
        }
    }
    *first = -1;
    j = first0;
    while (j >= 0) {
        let jp = (*next)[j];
        if ((*p)[c][j] < 0) {
            (*next)[j] = *avail;
            *avail = j;
        } else if (*first == -1) {
            *first = j;
        }
        j = jp;
    }
    if (j1 >= 0) {
        (*next)[j1] = jr1;
        (*next)[jr1] = jr2;
        (*next)[jr2] = select(jj2, -1, clast < 0 || c00 < 0);
    }
}

// cuda_hex_volpolyh_1poly: the volume and moments between the polygon and z = 0 (a fan of
// triangles from its first vertex), unscaled.
fn volume(p: ptr<function, Poly>, first: i32, next: ptr<function, Links>) -> vec4<REAL> {
    var v = vec4<REAL>(0);
    if (first < 0) {
        return v;
    }
    let x0 = (*p)[0][first];
    let y0 = (*p)[1][first];
    let z0 = (*p)[2][first];
    let j1 = (*next)[first];
    var x1 = (*p)[0][j1];
    var y1 = (*p)[1][j1];
    var z1 = (*p)[2][j1];
    var dx1 = x1 - x0;
    var dy1 = y1 - y0;
    var j = (*next)[j1];
    while (j >= 0) {
        let x2 = (*p)[0][j];
        let y2 = (*p)[1][j];
        let z2 = (*p)[2][j];
        let dx2 = x2 - x0;
        let dy2 = y2 - y0;
        let area2 = dx1 * dy2 - dx2 * dy1;
        let v0 = (z0 + z1 + z2) * area2;
        v.x += v0;
        v.y += v0 * (x0 + x1 + x2) + area2 * (x0 * z0 + x1 * z1 + x2 * z2);
        v.z += v0 * (y0 + y1 + y2) + area2 * (y0 * z0 + y1 * z1 + y2 * z2);
        v.w += (z0 * z0 + z1 * z1 + z2 * z2 + z0 * z1 + z0 * z2 + z1 * z2) * area2;
        x1 = x2;
        y1 = y2;
        z1 = z2;
        dx1 = dx2;
        dy1 = dy2;
        j = (*next)[j];
    }
    return v;
}

// cuda_intsc_tri_tet: the volume and moments of the part of the prism under the donor facet
// (corners at + dv of xds, yds, zds) that lies in tet t (x, y, z rows of four corners), in the
// physical frame.
fn tri_tet(at: i32, dv: array<i32, 3>, tin: array<array<REAL, 4>, 3>) -> vec4<REAL> {
    var t = tin;
    for (var a = 0; a < 3; a++) {
        for (var k = 1; k < 4; k++) {
            t[a][k] -= t[a][0];
        }
    }
    let x = t[0];
    let y = t[1];
    let z = t[2];
    let det = x[1] * y[2] * z[3] - x[1] * y[3] * z[2] + x[2] * y[3] * z[1] -
              x[2] * y[1] * z[3] + x[3] * y[1] * z[2] - x[3] * y[2] * z[1];
    let deti = det / (det * det + DET_TINY);
    var p: Poly;
    for (var r = 0; r < 3; r++) {
        // The frame's row r: the cofactors of tet edges a and b.
        let a = (r + 1) % 3 + 1;
        let b = (r + 2) % 3 + 1;
        let cyz = y[a] * z[b] - z[a] * y[b];
        let czx = z[a] * x[b] - x[a] * z[b];
        let cxy = x[a] * y[b] - y[a] * x[b];
        for (var v = 0; v < 3; v++) {
            p[r][v] = ((xds[at + dv[v]] - x[0]) * cyz + (yds[at + dv[v]] - y[0]) * czx +
                       (zds[at + dv[v]] - z[0]) * cxy) * deti;
        }
    }
    for (var k = 0; k < 3; k++) {
        p[3][k] = 1 - p[0][k] - p[1][k] - p[2][k];
        p[4][k] = 1 - p[0][k] - p[1][k];
    }
    var next: Links;
    // The triangle in slots 0 to 2, the free slots after it: a clip takes two, and a polygon has
    // at most seven vertices before one, so the free list never runs out and needs no end.
    for (var k = 0; k < SLOTS; k++) {
        next[k] = select(k + 1, -1, k == 2);
    }
    var first = 0;
    var avail = 3;
    clip_ge_0(&p, 4, &first, &avail, &next);
    for (var c = 0; c < 3; c++) {
        clip_ge_0(&p, c, &first, &avail, &next);
    }
    var first1 = first;
    var avail1 = avail;
    var next1 = next;
    clip_ge_0(&p, 3, &first, &avail, &next);
    var v = volume(&p, first, &next);
    // The part above h = 0, projected onto the tet's slanted face.
    for (var j = first1; j >= 0; j = next1[j]) {
        p[3][j] = -p[3][j] - H_TINY;
    }
    clip_ge_0(&p, 3, &first1, &avail1, &next1);
    for (var j = first1; j >= 0; j = next1[j]) {
        p[2][j] = 1 - p[0][j] - p[1][j];
    }
    v += volume(&p, first1, &next1);
    let vv = v.x * ONE6;
    let vm = vec3<REAL>(v.y * ONE24, v.z * ONE24, v.w * ONE24);
    var out: vec4<REAL>;
    out.x = det * vv;
    // Moment m of the physical frame (x, y, z).
    for (var m = 0; m < 3; m++) {
        out[m + 1] = det * (t[m][0] * vv + t[m][1] * vm.x + t[m][2] * vm.y + t[m][3] * vm.z);
    }
    return out;
}

// One work-item per facet-tet combination (72 per pair, eight pairs per intersection: whole
// work-groups); work-items past the last pair, as RAJAPerf guards them (and a folded
// dispatch's extra work-groups), add nothing.
@compute @workgroup_size(GROUP)
fn intsc_hexhex(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let grp = i32(wid.x + wid.y * nwg.x);
    let ith = grp * i32(GROUP) + i32(lid);
    let ipair = ith / TRI_PER_PAIR;
    let dfacet = (ith / N_TETS) % N_FACETS;
    let ttet = ith % N_TETS;
    let low = dfacet < N_FACETS / 2;
    let dv = array<i32, 3>(select(7, 0, low), select(CYC[N_FACETS - dfacet], CYC[dfacet], low),
                           select(CYC[N_FACETS - dfacet - 1], CYC[dfacet + 1], low));
    let tv = array<i32, 4>(0, VERT_CYC[ttet], VERT_CYC[(ttet + 1) % N_TETS], 7);
    var sums: vec4<REAL>;
    if (ipair < s.npairs) {
        let at = 8 * ipair;
        var t: array<array<REAL, 4>, 3>;
        for (var k = 0; k < 4; k++) {
            t[0][k] = xts[at + tv[k]];
            t[1][k] = yts[at + tv[k]];
            t[2][k] = zts[at + tv[k]];
        }
        sums = tri_tet(at, dv, t);
    }
    // Values of a pair starting inside this work-group go to the upper four partials.
    let hi = select(0u, 4u, ipair * TRI_PER_PAIR > grp * i32(GROUP));
    for (var v = 0u; v < 4u; v++) {
        part[(v + hi) * GROUP + lid] = sums[v];
        part[(v + 4u - hi) * GROUP + lid] = 0;
    }
    workgroupBarrier();
    if (lid < u32(PARTIALS) && ipair < s.npairs) {
        var sum = REAL(0);
        for (var k = 0u; k < GROUP; k++) {
            sum += part[lid * GROUP + k];
        }
        vv_int[PARTIALS * grp + i32(lid)] = sum;
    }
}

// Each intersection's eight pairs span its nine work-groups: pair k adds the upper partials of
// group k (the lower ones for pair 0, which starts its first group) and the lower of group k + 1.
@compute @workgroup_size(GROUP)
fn intsc_hexhex_fixup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                      @builtin(local_invocation_index) lid: u32) {
    let g = i32(global_index(wid, nwg, lid));
    if (g >= s.ngroups) {
        return;
    }
    let p = PARTIALS * (PAIRS_PER_GROUP + 1) * g;
    let out = 4 * PAIRS_PER_GROUP * g;
    for (var k = 0; k < PAIRS_PER_GROUP; k++) {
        let own = select(PARTIALS * k + 4, 0, k == 0);
        for (var v = 0; v < 4; v++) {
            vv_out[out + 4 * k + v] = vv_int[p + own + v] + vv_int[p + PARTIALS * (k + 1) + v];
        }
    }
}

// Apps_INTSC_HEXRECT: volume and x, y, z moments of the overlap of a hexahedral donor zone
// (24 triangular facets around its face centres) with a box of a Cartesian target mesh, per
// record. Facets are mapped to the box's unit frame, clipped to 0 <= x, y < 1 and below the
// top, and the prisms under the pieces are summed, as RAJAPerf's intsc24_hex, in each
// invocation's own polygon workspace (x, y, z rows of MAX_POLY), as in RAJAPerf's Seq;
// functions take the index of a row's first entry in it. RAJAPerf's filter also sends facets
// wholly inside the box's x and y range to shortcuts that equal the clip up to rounding (and
// that its inputs never take): those facets are clipped here.

const ROW = u32(MAX_POLY);

var<private> work: array<REAL, SLOT>;

// clip_polygon_ge / clip_polygon_lt: keep the part of the polygon with a >= cut (ge) or
// a < cut; the polygon is read from one end of the rows and written from the other (etob:
// from the end to the beginning). Returns the vertex count after clipping.
fn clip_polygon(a: u32, b: u32, c: u32, ge: bool, etob: bool, cut: REAL, nv: i32) -> i32 {
    var j: i32;
    var jbeg: i32;
    var jend: i32;
    var jr: i32;
    var inc: i32;
    if (etob) {
        jbeg = MAX_POLY - nv;
        jend = MAX_POLY;
        j = MAX_POLY - 1;
        inc = 1;
        jr = 0;
    } else {
        jbeg = nv - 1;
        jend = -1;
        j = 0;
        inc = -1;
        jr = MAX_POLY - 1;
    }
    for (var jj = jbeg; jj != jend; jj += inc) {
        let in_j = select(work[a + u32(j)] < cut, work[a + u32(j)] >= cut, ge);
        if (in_j) {
            work[a + u32(jr)] = work[a + u32(j)];
            work[b + u32(jr)] = work[b + u32(j)];
            work[c + u32(jr)] = work[c + u32(j)];
            jr += inc;
        }
        let in_jj = select(work[a + u32(jj)] < cut, work[a + u32(jj)] >= cut, ge);
        if (in_j != in_jj) {
            // Interpolate from the end below the cut, as RAJAPerf's four cases do.
            let below = work[a + u32(j)] < cut;
            let lo = u32(select(jj, j, below));
            let hi = u32(select(j, jj, below));
            let eta = (cut - work[a + lo]) / (work[a + hi] - work[a + lo]);
            work[b + u32(jr)] = work[b + lo] + (work[b + hi] - work[b + lo]) * eta;
            work[c + u32(jr)] = work[c + lo] + (work[c + hi] - work[c + lo]) * eta;
            work[a + u32(jr)] = cut;
            jr += inc;
        }
        j = jj;
    }
    return select(MAX_POLY - 1 - jr, jr, etob);
}

// intsc24_shxf1: the volume and moments of the prisms under the polygon at q (rows x, y, z;
// shn vertices, triangulated as a fan from vertex 0), in the box's frame, times its area. The
// polygon's heights are zscale * z + zadd: 1 and 0 as it is, 0 and the top projected onto it.
// Edge-midpoint quadrature; z runs from 0 to the polygon: another factor 0.5 in the z moment.
fn prisms(q: u32, shn: i32, zscale: REAL, zadd: REAL, dtx: REAL, dty: REAL, t0: vec3<REAL>)
    -> vec4<REAL> {
    let qy = q + ROW;
    let qz = qy + ROW;
    let c0 = vec3<REAL>(work[q], work[qy], zscale * work[qz] + zadd);
    var s = vec4<REAL>(0.0);
    for (var t = 0; t < shn - 2; t++) {
        let k1 = u32(t + 1);
        let k2 = u32(t + 2);
        let c1 = vec3<REAL>(work[q + k1], work[qy + k1], zscale * work[qz + k1] + zadd);
        let c2 = vec3<REAL>(work[q + k2], work[qy + k2], zscale * work[qz + k2] + zadd);
        let tri = edge_term(c0 + c1, dtx, dty, t0) + edge_term(c1 + c2, dtx, dty, t0) +
            edge_term(c2 + c0, dtx, dty, t0);
        let area = 0.5 * ((c0.x - c1.x) * (c0.y + c1.y) + (c1.x - c2.x) * (c1.y + c2.y) +
            (c2.x - c0.x) * (c2.y + c0.y));
        s += ONE3 * area * tri;
    }
    return s * (dtx * dty);
}

// One edge's term, from the sum of its ends' coordinates.
fn edge_term(e: vec3<REAL>, dtx: REAL, dty: REAL, t0: vec3<REAL>) -> vec4<REAL> {
    let met = 0.5 * e.z;
    return met * vec4(1.0, t0.x + 0.5 * dtx * e.x, t0.y + 0.5 * dty * e.y, t0.z + 0.5 * met);
}

const FACES = array<vec4<u32>, 6>(vec4(0u, 2u, 6u, 4u), vec4(1u, 5u, 7u, 3u),
                                  vec4(0u, 4u, 5u, 1u), vec4(2u, 3u, 7u, 6u),
                                  vec4(0u, 1u, 3u, 2u), vec4(4u, 6u, 7u, 5u));

// intsc24_hex_get_tri: facet k0 of face f (corner, centre, corner) in the box's unit frame,
// into the first three vertices at q.
fn get_tri(xd: array<REAL, HEX_NODES>, yd: array<REAL, HEX_NODES>, zd: array<REAL, HEX_NODES>, t0: vec3<REAL>,
           a11: REAL, a22: REAL, f: u32, k0: u32, q: u32) {
    let v = FACES[f];
    let qy = q + ROW;
    let qz = qy + ROW;
    work[q + 1u] = (0.25 * (xd[v.x] + xd[v.y] + xd[v.z] + xd[v.w]) - t0.x) * a11;
    work[qy + 1u] = (0.25 * (yd[v.x] + yd[v.y] + yd[v.z] + yd[v.w]) - t0.y) * a22;
    work[qz + 1u] = 0.25 * (zd[v.x] + zd[v.y] + zd[v.z] + zd[v.w]) - t0.z;
    let vv0 = v[k0];
    let vv2 = v[(k0 + 1u) & 3u];
    work[q] = a11 * (xd[vv0] - t0.x);
    work[q + 2u] = a11 * (xd[vv2] - t0.x);
    work[qy] = a22 * (yd[vv0] - t0.y);
    work[qy + 2u] = a22 * (yd[vv2] - t0.y);
    work[qz] = zd[vv0] - t0.z;
    work[qz + 2u] = zd[vv2] - t0.z;
}

@compute @workgroup_size(GROUP)
fn intsc_hexrect(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let irec = global_index(wid, nwg, lid);
    if (irec >= s.nrecords) {
        return;
    }
    let rx = 0u;
    let ry = ROW;
    let rz = ry + ROW;
    var xd: array<REAL, HEX_NODES>;
    var yd: array<REAL, HEX_NODES>;
    var zd: array<REAL, HEX_NODES>;
    let dzone = intsc_d[irec];
    for (var j = 0; j < HEX_NODES; j++) {
        let node = znlist[HEX_NODES * dzone + j];
        xd[j] = xdnode[node];
        yd[j] = ydnode[node];
        zd[j] = zdnode[node];
    }
    let tz = intsc_t[irec];
    let jz = tz / (s.nxzones * s.nyzones);
    let jy = (tz / s.nxzones) % s.nyzones;
    let jx = tz % s.nxzones;
    let xt0 = xplane[jx];
    let xt1 = xplane[jx + 1];
    let yt0 = yplane[jy];
    let yt1 = yplane[jy + 1];
    let zt0 = zplane[jz];
    let zt1 = zplane[jz + 1];
    let t0 = vec3<REAL>(xt0, yt0, zt0);

    let dzt = max(zt1 - zt0, 0.0);
    let dtx = xt1 - xt0;
    let dty = yt1 - yt0;
    let det = dtx * dty;
    let deti = det / fma(det, det, DET_TINY);
    let a11 = dty * deti;
    let a22 = dtx * deti;

    var sum = vec4<REAL>(0.0);
    for (var facet = 0u; facet < HEX_FACETS; facet++) {
        get_tri(xd, yd, zd, t0, a11, a22, facet >> 2u, facet & 3u, rx);
        // intsc24_hex_filter's test: skip facets wholly outside a plane of the box.
        let v0 = vec3<REAL>(work[rx], work[ry], work[rz]);
        let v1 = vec3<REAL>(work[rx + 1u], work[ry + 1u], work[rz + 1u]);
        let v2 = vec3<REAL>(work[rx + 2u], work[ry + 2u], work[rz + 2u]);
        let lo = min(min(v0, v1), v2);
        let hi = max(max(v0, v1), v2);
        if (min(min(hi.x, hi.y), hi.z) < 0.0 || max(lo.x, lo.y) >= 1.0) {
            continue;
        }
        // Clip to y < 1, y >= 0, x < 1 and x >= 0.
        let shn1 = clip_polygon(ry, rx, rz, false, false, 1.0, 3);
        let shn2 = clip_polygon(ry, rx, rz, true, true, 0.0, shn1);
        let shn3 = clip_polygon(rx, ry, rz, false, false, 1.0, shn2);
        let shn4 = clip_polygon(rx, ry, rz, true, true, 0.0, shn3);
        var saved: array<vec3<REAL>, MAX_POLY>;
        for (var jj = 0u; jj < u32(shn4); jj++) {
            saved[jj] = vec3(work[rx + jj], work[ry + jj], work[rz + jj]);
        }
        // The part above the top, projected onto it.
        var shn = clip_polygon(rz, rx, ry, true, false, dzt, shn4);
        sum += prisms(rx + u32(MAX_POLY - shn), shn, 0.0, dzt, dtx, dty, t0);
        for (var jj = 0u; jj < u32(shn4); jj++) {
            work[rx + jj] = saved[jj].x;
            work[ry + jj] = saved[jj].y;
            work[rz + jj] = saved[jj].z;
        }
        // The part between the bottom and the top.
        shn = clip_polygon(rz, rx, ry, false, false, dzt, shn4);
        shn = clip_polygon(rz, rx, ry, true, true, 0.0, shn);
        sum += prisms(rx, shn, 1.0, 0.0, dtx, dty, t0);
    }
    records[4u * irec] = sum.x;
    records[4u * irec + 1u] = sum.y;
    records[4u * irec + 2u] = sum.z;
    records[4u * irec + 3u] = sum.w;
}

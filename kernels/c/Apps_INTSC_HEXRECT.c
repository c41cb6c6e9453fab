// Apps_INTSC_HEXRECT: volume and x, y, z moments of the overlap of a hexahedral donor zone
// (24 triangular facets around its face centres) with a box of a Cartesian target mesh, per
// record. Facets are mapped to the box's unit frame, clipped to 0 <= x, y < 1 and below the
// top, and the prisms under the pieces are summed, as RAJAPerf's intsc24_hex, in each
// work-item's own polygon workspace (x, y, z rows of MAX_POLY), as in RAJAPerf's Seq.
// RAJAPerf's filter also sends facets wholly inside the box's x and y range to shortcuts that
// equal the clip up to rounding (and that its inputs never take): those facets are clipped here.

// clip_polygon_ge / clip_polygon_lt: keep the part of the polygon with a >= cut (ge) or
// a < cut; the polygon is read from one end of the rows and written from the other (etob:
// from the end to the beginning). Returns the vertex count after clipping.
DEVICE int clip_polygon(REAL* a, REAL* b, REAL* c, const bool ge, const bool etob, const REAL cut,
                        const int nv)
{
    int j, jbeg, jend, jr, inc;
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
    for (int jj = jbeg; jj != jend; jj += inc) {
        const int in_j = ge ? a[j] >= cut : a[j] < cut;
        if (in_j) {
            a[jr] = a[j];
            b[jr] = b[j];
            c[jr] = c[j];
            jr += inc;
        }
        const int in_jj = ge ? a[jj] >= cut : a[jj] < cut;
        if (in_j != in_jj) {
            // Interpolate from the end below the cut, as RAJAPerf's four cases do.
            const int lo = a[j] < cut ? j : jj;
            const int hi = a[j] < cut ? jj : j;
            const REAL eta = (cut - a[lo]) / (a[hi] - a[lo]);
            b[jr] = b[lo] + (b[hi] - b[lo]) * eta;
            c[jr] = c[lo] + (c[hi] - c[lo]) * eta;
            a[jr] = cut;
            jr += inc;
        }
        j = jj;
    }
    return etob ? jr : MAX_POLY - 1 - jr;
}

// One edge's term of the edge-midpoint quadrature, from the sums of its ends' coordinates;
// z runs from 0 to the polygon: another factor 0.5 in the z moment.
DEVICE void edge_term(const REAL xs, const REAL ys, const REAL zs, const REAL dtx, const REAL dty,
                      const REAL x0, const REAL y0, const REAL z0, REAL* tri)
{
    const REAL met = (REAL)0.5 * zs;
    tri[0] += met;
    tri[1] += met * (x0 + (REAL)0.5 * dtx * xs);
    tri[2] += met * (y0 + (REAL)0.5 * dty * ys);
    tri[3] += met * (z0 + (REAL)0.5 * met);
}

// intsc24_shxf1: add the volume and moments of the prisms under the polygon q (rows x, y, z;
// shn vertices, triangulated as a fan from vertex 0), in the box's frame, times its area. The
// polygon's heights are zscale * z + zadd: 1 and 0 as it is, 0 and the top projected onto it.
DEVICE void prisms(const REAL* q, const int shn, const REAL zscale, const REAL zadd, const REAL dtx,
                   const REAL dty, const REAL x0, const REAL y0, const REAL z0, REAL* sum)
{
    const REAL* qy = q + MAX_POLY;
    const REAL* qz = qy + MAX_POLY;
    const REAL xc0 = q[0], yc0 = qy[0], zc0 = zscale * qz[0] + zadd;
    REAL s[] = {0, 0, 0, 0};
    for (int t = 0; t < shn - 2; t++) {
        const REAL xc1 = q[t + 1], yc1 = qy[t + 1], zc1 = zscale * qz[t + 1] + zadd;
        const REAL xc2 = q[t + 2], yc2 = qy[t + 2], zc2 = zscale * qz[t + 2] + zadd;
        REAL tri[] = {0, 0, 0, 0};
        edge_term(xc0 + xc1, yc0 + yc1, zc0 + zc1, dtx, dty, x0, y0, z0, tri);
        edge_term(xc1 + xc2, yc1 + yc2, zc1 + zc2, dtx, dty, x0, y0, z0, tri);
        edge_term(xc2 + xc0, yc2 + yc0, zc2 + zc0, dtx, dty, x0, y0, z0, tri);
        const REAL area = (REAL)0.5 * ((xc0 - xc1) * (yc0 + yc1) + (xc1 - xc2) * (yc1 + yc2) +
                                       (xc2 - xc0) * (yc2 + yc0));
        s[0] += ONE3 * area * tri[0];
        s[1] += ONE3 * area * tri[1];
        s[2] += ONE3 * area * tri[2];
        s[3] += ONE3 * area * tri[3];
    }
    const REAL det = dtx * dty;
    sum[0] += s[0] * det;
    sum[1] += s[1] * det;
    sum[2] += s[2] * det;
    sum[3] += s[3] * det;
}

// intsc24_hex_get_tri: facet k0 of face f (corner, centre, corner) in the box's unit frame,
// into q's first three vertices.
DEVICE void get_tri(const REAL* xd, const REAL* yd, const REAL* zd, const REAL xt0, const REAL yt0,
                    const REAL zt0, const REAL a11, const REAL a22, const int f, const int k0,
                    REAL* q)
{
    const int faces[] = {0, 2, 6, 4, 1, 5, 7, 3, 0, 4, 5, 1, 2, 3, 7, 6, 0, 1, 3, 2, 4, 6, 7, 5};
    const int v0 = faces[4 * f], v1 = faces[4 * f + 1], v2 = faces[4 * f + 2],
              v3 = faces[4 * f + 3];
    REAL* qy = q + MAX_POLY;
    REAL* qz = qy + MAX_POLY;
    q[1] = ((REAL)0.25 * (xd[v0] + xd[v1] + xd[v2] + xd[v3]) - xt0) * a11;
    qy[1] = ((REAL)0.25 * (yd[v0] + yd[v1] + yd[v2] + yd[v3]) - yt0) * a22;
    qz[1] = (REAL)0.25 * (zd[v0] + zd[v1] + zd[v2] + zd[v3]) - zt0;
    const int vv0 = faces[4 * f + k0];
    const int vv2 = faces[4 * f + ((k0 + 1) & 3)];
    q[0] = a11 * (xd[vv0] - xt0);
    q[2] = a11 * (xd[vv2] - xt0);
    qy[0] = a22 * (yd[vv0] - yt0);
    qy[2] = a22 * (yd[vv2] - yt0);
    qz[0] = zd[vv0] - zt0;
    qz[2] = zd[vv2] - zt0;
}

KERNEL void intsc_hexrect(GLOBAL const REAL* xdnode, GLOBAL const REAL* ydnode,
                          GLOBAL const REAL* zdnode, GLOBAL const int* znlist,
                          GLOBAL const REAL* xplane, GLOBAL const REAL* yplane,
                          GLOBAL const REAL* zplane, GLOBAL const int* intsc_d,
                          GLOBAL const int* intsc_t, GLOBAL REAL* records, const int nxzones,
                          const int nyzones, const uint nrecords)
{
    REAL rx[SLOT];
    REAL* ry = rx + MAX_POLY;
    REAL* rz = ry + MAX_POLY;
    FOR_EACH(irec, nrecords) {
        REAL xd[HEX_WORK];
        REAL* yd = xd + HEX_NODES;
        REAL* zd = yd + HEX_NODES;
        const int dzone = intsc_d[irec];
        for (int j = 0; j < HEX_NODES; j++) {
            const int node = znlist[HEX_NODES * dzone + j];
            xd[j] = xdnode[node];
            yd[j] = ydnode[node];
            zd[j] = zdnode[node];
        }
        const int tz = intsc_t[irec];
        const int jz = tz / (nxzones * nyzones);
        const int jy = (tz / nxzones) % nyzones;
        const int jx = tz % nxzones;
        const REAL xt0 = xplane[jx], xt1 = xplane[jx + 1];
        const REAL yt0 = yplane[jy], yt1 = yplane[jy + 1];
        const REAL zt0 = zplane[jz], zt1 = zplane[jz + 1];

        const REAL dzt = fmax(zt1 - zt0, (REAL)0);
        const REAL dtx = xt1 - xt0, dty = yt1 - yt0;
        const REAL det = dtx * dty;
        const REAL deti = det / fma(det, det, DET_TINY);
        const REAL a11 = dty * deti;
        const REAL a22 = dtx * deti;

        REAL sum[] = {0, 0, 0, 0};
        for (int facet = 0; facet < HEX_FACETS; facet++) {
            get_tri(xd, yd, zd, xt0, yt0, zt0, a11, a22, facet >> 2, facet & 3, rx);
            // intsc24_hex_filter's test: skip facets wholly outside a plane of the box.
            const REAL xmin = fmin(fmin(rx[0], rx[1]), rx[2]),
                       xmax = fmax(fmax(rx[0], rx[1]), rx[2]);
            const REAL ymin = fmin(fmin(ry[0], ry[1]), ry[2]),
                       ymax = fmax(fmax(ry[0], ry[1]), ry[2]);
            const REAL zmax = fmax(fmax(rz[0], rz[1]), rz[2]);
            if (fmin(fmin(xmax, ymax), zmax) < 0 || fmax(xmin, ymin) >= 1) {
                continue;
            }
            // Clip to y < 1, y >= 0, x < 1 and x >= 0.
            const int shn1 = clip_polygon(ry, rx, rz, false, false, (REAL)1, 3);
            const int shn2 = clip_polygon(ry, rx, rz, true, true, (REAL)0, shn1);
            const int shn3 = clip_polygon(rx, ry, rz, false, false, (REAL)1, shn2);
            const int shn4 = clip_polygon(rx, ry, rz, true, true, (REAL)0, shn3);
            REAL sx[MAX_POLY], sy[MAX_POLY], sz[MAX_POLY];
            for (int jj = 0; jj < shn4; jj++) {
                sx[jj] = rx[jj];
                sy[jj] = ry[jj];
                sz[jj] = rz[jj];
            }
            // The part above the top, projected onto it.
            int shn = clip_polygon(rz, rx, ry, true, false, dzt, shn4);
            prisms(rx + MAX_POLY - shn, shn, (REAL)0, dzt, dtx, dty, xt0, yt0, zt0, sum);
            for (int jj = 0; jj < shn4; jj++) {
                rx[jj] = sx[jj];
                ry[jj] = sy[jj];
                rz[jj] = sz[jj];
            }
            // The part between the bottom and the top.
            shn = clip_polygon(rz, rx, ry, false, false, dzt, shn4);
            shn = clip_polygon(rz, rx, ry, true, true, (REAL)0, shn);
            prisms(rx, shn, (REAL)1, (REAL)0, dtx, dty, xt0, yt0, zt0, sum);
        }
        records[4 * irec] = sum[0];
        records[4 * irec + 1] = sum[1];
        records[4 * irec + 2] = sum[2];
        records[4 * irec + 3] = sum[3];
    }
}

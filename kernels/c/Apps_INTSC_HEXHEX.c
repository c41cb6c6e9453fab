// Apps_INTSC_HEXHEX: volume and x, y, z moments of the overlap of a donor and a target
// hexahedron, per pair. A work-item clips one donor facet (of 12) to one target tet (of 6) in
// the tet's unit frame with linked-list polygons, as RAJAPerf's cuda_intsc_tri_tet; a work-group
// sums its work-items into eight partials (the pair running into it, the pair starting in it),
// and the fixup launch adds each pair's two partials.

// A polygon's slots are p[5][SLOTS]: rows x, y, z, h (1 - x - y - z) and h2 (1 - x - y, the
// first cut); every clip interpolates the first four.

// clip_polygon_ge_0: keep the part of the polygon (first, linked by next) where row c >= 0;
// crossings take slots from the avail list, removed vertices go back to it.
DEVICE void clip_ge_0(REAL (*p)[SLOTS], const int c, int* first, int* avail, int* next)
{
    const REAL* cin = p[c];
    const int first0 = *first;
    // j2, jj1 and jj2 are set with j1: a polygon that leaves the half-space enters it too.
    int j = first0, j1 = -1, j2, jj1, jj2;
    REAL c0 = j >= 0 ? cin[j] : (REAL)0;
    const REAL c00 = c0;
    REAL clast = c0;
    while (j >= 0) {
        const int jp = next[j];
        const int jj = jp < 0 ? first0 : jp;
        const REAL c1 = cin[jj];
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
    int jr1, jr2;
    if (j1 >= 0) {
        jr1 = *avail;
        jr2 = next[jr1];
        *avail = next[jr2];
        const REAL eta1 = (0 - cin[jj1]) / (cin[j1] - cin[jj1]);
        const REAL eta2 = (0 - cin[j2]) / (cin[jj2] - cin[j2]);
        for (int a = 0; a < 4; a++) {
            p[a][jr1] = p[a][j1] * eta1 + p[a][jj1] * (1 - eta1);
            p[a][jr2] = p[a][jj2] * eta2 + p[a][j2] * (1 - eta2);
        }
    }
    *first = -1;
    j = first0;
    while (j >= 0) {
        const int jp = next[j];
        if (cin[j] < 0) {
            next[j] = *avail;
            *avail = j;
        } else if (*first == -1) {
            *first = j;
        }
        j = jp;
    }
    if (j1 >= 0) {
        next[j1] = jr1;
        next[jr1] = jr2;
        next[jr2] = (clast < 0 || c00 < 0) ? -1 : jj2;
    }
}

// cuda_hex_volpolyh_1poly: add the volume and moments between the polygon and z = 0 (a fan of
// triangles from its first vertex) to v, unscaled.
DEVICE void volume(REAL (*p)[SLOTS], const int first, const int* next, REAL* v)
{
    if (first < 0) {
        return;
    }
    const REAL* x = p[0];
    const REAL* y = p[1];
    const REAL* z = p[2];
    const REAL x0 = x[first], y0 = y[first], z0 = z[first];
    const int j1 = next[first];
    REAL x1 = x[j1], y1 = y[j1], z1 = z[j1];
    REAL dx1 = x1 - x0, dy1 = y1 - y0;
    int j = next[j1];
    while (j >= 0) {
        const REAL x2 = x[j], y2 = y[j], z2 = z[j];
        const REAL dx2 = x2 - x0, dy2 = y2 - y0;
        const REAL area2 = dx1 * dy2 - dx2 * dy1;
        const REAL v0 = (z0 + z1 + z2) * area2;
        v[0] += v0;
        v[1] += v0 * (x0 + x1 + x2) + area2 * (x0 * z0 + x1 * z1 + x2 * z2);
        v[2] += v0 * (y0 + y1 + y2) + area2 * (y0 * z0 + y1 * z1 + y2 * z2);
        v[3] += (z0 * z0 + z1 * z1 + z2 * z2 + z0 * z1 + z0 * z2 + z1 * z2) * area2;
        x1 = x2;
        y1 = y2;
        z1 = z2;
        dx1 = dx2;
        dy1 = dy2;
        j = next[j];
    }
}

// cuda_intsc_tri_tet: the volume and moments of the part of the prism under the donor facet
// (corners dv of the hexahedron at xds, yds, zds) that lies in tet t (x, y, z rows of four
// corners), in the physical frame.
DEVICE void tri_tet(GLOBAL const REAL* xds, GLOBAL const REAL* yds, GLOBAL const REAL* zds,
                    const int* dv, REAL t[][4], REAL* out)
{
    for (int a = 0; a < 3; a++) {
        for (int k = 1; k < 4; k++) {
            t[a][k] -= t[a][0];
        }
    }
    const REAL* x = t[0];
    const REAL* y = t[1];
    const REAL* z = t[2];
    const REAL det = x[1] * y[2] * z[3] - x[1] * y[3] * z[2] + x[2] * y[3] * z[1] -
                     x[2] * y[1] * z[3] + x[3] * y[1] * z[2] - x[3] * y[2] * z[1];
    const REAL deti = det / (det * det + DET_TINY);
    REAL p[5][SLOTS];
    for (int r = 0; r < 3; r++) {
        // The frame's row r: the cofactors of tet edges a and b.
        const int a = (r + 1) % 3 + 1;
        const int b = (r + 2) % 3 + 1;
        const REAL cyz = y[a] * z[b] - z[a] * y[b];
        const REAL czx = z[a] * x[b] - x[a] * z[b];
        const REAL cxy = x[a] * y[b] - y[a] * x[b];
        for (int v = 0; v < 3; v++) {
            p[r][v] = ((xds[dv[v]] - x[0]) * cyz + (yds[dv[v]] - y[0]) * czx +
                       (zds[dv[v]] - z[0]) * cxy) *
                      deti;
        }
    }
    for (int k = 0; k < 3; k++) {
        p[3][k] = 1 - p[0][k] - p[1][k] - p[2][k];
        p[4][k] = 1 - p[0][k] - p[1][k];
    }
    int next[SLOTS], next1[SLOTS];
    // The triangle in slots 0 to 2, the free slots after it: a clip takes two, and a polygon has
    // at most seven vertices before one, so the free list never runs out and needs no end.
    for (int k = 0; k < SLOTS; k++) {
        next[k] = k == 2 ? -1 : k + 1;
    }
    int first = 0, avail = 3;
    clip_ge_0(p, 4, &first, &avail, next);
    for (int c = 0; c < 3; c++) {
        clip_ge_0(p, c, &first, &avail, next);
    }
    int first1 = first, avail1 = avail;
    for (int k = 0; k < SLOTS; k++) {
        next1[k] = next[k];
    }
    clip_ge_0(p, 3, &first, &avail, next);
    REAL v[4] = {0, 0, 0, 0};
    volume(p, first, next, v);
    // The part above h = 0, projected onto the tet's slanted face.
    for (int j = first1; j >= 0; j = next1[j]) {
        p[3][j] = -p[3][j] - H_TINY;
    }
    clip_ge_0(p, 3, &first1, &avail1, next1);
    for (int j = first1; j >= 0; j = next1[j]) {
        p[2][j] = 1 - p[0][j] - p[1][j];
    }
    volume(p, first1, next1, v);
    const REAL vv = v[0] * ONE6;
    const REAL vm[3] = {v[1] * ONE24, v[2] * ONE24, v[3] * ONE24};
    out[0] = det * vv;
    for (int a = 0; a < 3; a++) {
        out[1 + a] = det * (t[a][0] * vv + t[a][1] * vm[0] + t[a][2] * vm[1] + t[a][3] * vm[2]);
    }
}

// One work-item per facet-tet combination: the launch is exactly 72 per pair, eight pairs per
// intersection, so whole work-groups and no work-item past the last pair (npairs, which RAJAPerf
// guards with, matters only to WGSL's dispatches folded past the per-dimension limit).
KERNEL void intsc_hexhex(GLOBAL const REAL* xds, GLOBAL const REAL* yds, GLOBAL const REAL* zds,
                         GLOBAL const REAL* xts, GLOBAL const REAL* yts, GLOBAL const REAL* zts,
                         GLOBAL REAL* vv_int, const int npairs)
{
    SHARED REAL part[PARTIALS][GROUP];
    const int lid = LOCAL_ID(0);
    const int ith = GLOBAL_ID(0);
    const int ipair = ith / TRI_PER_PAIR;
    const int dfacet = (ith / N_TETS) % N_FACETS;
    const int ttet = ith % N_TETS;
    // Donor facets: corner 0 or 7 with two neighbours in the cycle around it; target tets:
    // corners 0 and 7 with two neighbours in the cycle around the diagonal.
    const int cyc[] = {1, 5, 4, 6, 2, 3, 1};
    const int vert_cyc[] = {1, 3, 2, 6, 4, 5};
    const int low = dfacet < N_FACETS / 2;
    const int dv[] = {low ? 0 : 7, low ? cyc[dfacet] : cyc[N_FACETS - dfacet],
                      low ? cyc[dfacet + 1] : cyc[N_FACETS - dfacet - 1]};
    const int tv[] = {0, vert_cyc[ttet], vert_cyc[(ttet + 1) % N_TETS], 7};
    const int at = 8 * ipair;
    REAL t[3][4], s[4];
    for (int k = 0; k < 4; k++) {
        t[0][k] = xts[at + tv[k]];
        t[1][k] = yts[at + tv[k]];
        t[2][k] = zts[at + tv[k]];
    }
    tri_tet(xds + at, yds + at, zds + at, dv, t, s);
    // Values of a pair starting inside this work-group go to the upper four partials.
    const int hi = ipair * TRI_PER_PAIR > (int)GROUP_ID(0) * GROUP;
    for (int v = 0; v < 4; v++) {
        part[v + 4 * hi][lid] = s[v];
        part[v + 4 - 4 * hi][lid] = 0;
    }
    BARRIER();
    if (lid < PARTIALS) {
        REAL sum = 0;
        for (int k = 0; k < GROUP; k++) {
            sum += part[lid][k];
        }
        vv_int[PARTIALS * GROUP_ID(0) + lid] = sum;
    }
}

// Each intersection's eight pairs span its nine work-groups: pair k adds the upper partials of
// group k (the lower ones for pair 0, which starts its first group) and the lower of group k + 1.
KERNEL void intsc_hexhex_fixup(GLOBAL const REAL* vv_int, GLOBAL REAL* vv_out, const int ngroups)
{
    FOR_EACH(g, ngroups) {
        GLOBAL const REAL* p = vv_int + PARTIALS * (PAIRS_PER_GROUP + 1) * g;
        GLOBAL REAL* out = vv_out + 4 * PAIRS_PER_GROUP * g;
        for (int k = 0; k < PAIRS_PER_GROUP; k++) {
            const int own = k == 0 ? 0 : PARTIALS * k + 4;
            for (int v = 0; v < 4; v++) {
                out[4 * k + v] = p[own + v] + p[PARTIALS * (k + 1) + v];
            }
        }
    }
}

"""Apps_INTSC_HEXRECT (RAJAPerf's INTSC_HEXRECT.cpp): volume and moments of hex-box overlaps.

Each record intersects one hexahedral donor zone (24 triangular facets: four
per face, around the face centre) with one box of a Cartesian target mesh.
Facets are clipped to the box's x and y range and to below its top, and the
prisms between the clipped polygons and the box's bottom give the overlap's
volume and x, y, z moments. RAJAPerf's donor mesh is a Cartesian mesh slightly
finer than the target's and offset from it, so each donor zone overlaps eight
target boxes by different amounts.
"""

from __future__ import annotations

import math

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import (
    NORMAL,
    Array,
    CheckCase,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Tolerance,
    Traffic,
)
from harness.suite.apps.shared import GROUP_NAME, real, wide

#: RAJAPerf's work-group (one record per work-item) and polygon workspace.
GROUP = 64
MAX_POLY = 10
#: RAJAPerf's one third, and the term keeping 1 / det finite.
ONE3 = 0.33333333333333333
DET_TINY = 1.0e-80
#: Target plane pitch, first planes and donor offsets (in pitch / (nd + 1)) per axis x, y, z.
SEP = 0.1
ORIGIN = (-2.0, -1.0, 1.0)
OFFSETS = (1, 2, 3)
#: Face corners of the donor hexahedron, and a facet's ends within its face.
FACES = ((0, 2, 6, 4), (1, 5, 7, 3), (0, 4, 5, 1), (2, 3, 7, 6), (0, 1, 3, 2), (4, 6, 7, 5))


def _side(size: int) -> int:
    """Donor zones per side: half the cube root of the requested intersections."""
    return max(int(math.cbrt(size + 0.5)) // 2, 1)


def _records(size: int) -> int:
    return 8 * _side(size) ** 3


def _init(size: int, seed: int, precision: str) -> dict:
    nd = _side(size)
    nn = nd + 1
    sep1 = SEP * (1.0 - 0.5 / nn)
    corner = [c + SEP * (1.0 - off / nn) for c, off in zip(ORIGIN, OFFSETS, strict=True)]
    k = np.arange(nn, dtype=np.float64)
    kz, ky, kx = np.meshgrid(k, k, k, indexing="ij")
    j = np.arange(nd)
    jz, jy, jx = (a.ravel() for a in np.meshgrid(j, j, j, indexing="ij"))
    node0 = jx + nn * (jy + nn * jz)
    step = np.array([0, 1, nn, nn + 1, nn * nn, nn * nn + 1, nn * nn + nn, nn * nn + nn + 1])
    tz0 = jx + (nd + 1) * (jy + (nd + 1) * jz)
    planes = np.arange(nd + 2, dtype=np.float64) * SEP
    zone = np.arange(nd**3)
    d = DataInit()
    return {
        "xdnode": (corner[0] + kx * sep1).ravel(),
        "ydnode": (corner[1] + ky * sep1).ravel(),
        "zdnode": (corner[2] + kz * sep1).ravel(),
        "znlist": (node0[:, None] + step).ravel().astype(np.int32),
        "xplane": ORIGIN[0] + planes,
        "yplane": ORIGIN[1] + planes,
        "zplane": ORIGIN[2] + planes,
        "intsc_d": np.repeat(zone, 8).astype(np.int32),
        "intsc_t": (tz0[:, None] + _target_step(nd)).ravel().astype(np.int32),
        "records": d.const(4 * 8 * nd**3, 0.0),
        "nxzones": nd + 1,
        "nyzones": nd + 1,
        "nrecords": 8 * nd**3,
    }


def _target_step(nd: int) -> np.ndarray:
    """Offsets of the eight target boxes a donor zone overlaps from its first."""
    nt = nd + 1
    return np.array([0, 1, nt, nt + 1, nt * nt, nt * nt + 1, nt * nt + nt, nt * nt + nt + 1])


def _moved_init(size: int, seed: int, precision: str) -> dict:
    """Donor nodes moved by up to a third of a zone, target planes by up to a fifth.

    Facets then lean every way, faces are no longer planar, and a facet's
    corners fall on every side of the box's planes, reaching each clip case.
    """
    out = _init(size, seed, precision)
    rng = np.random.default_rng(seed)
    for c in ("xdnode", "ydnode", "zdnode"):
        out[c] = out[c] + rng.uniform(-SEP / 3, SEP / 3, out[c].size)
    for c in ("xplane", "yplane", "zplane"):
        out[c] = out[c] + rng.uniform(-SEP / 5, SEP / 5, out[c].size)
    out["records"] = rng.uniform(-1.0, 1.0, out["records"].size)
    return out


def _on_planes_init(size: int, seed: int, precision: str) -> dict:
    """Target planes half a unit apart, donor nodes on a quarter-unit lattice.

    Every coordinate is exact in the box's unit frame, so facet corners and
    whole edges lie on the box's planes: the clip's cases for a vertex on the
    cut arise, and a misplaced comparison there gives a different polygon.
    """
    out = _init(size, seed, precision)
    rng = np.random.default_rng(seed)
    nn = _side(size) + 1
    k = np.arange(nn, dtype=np.float64)
    kz, ky, kx = (a.ravel() for a in np.meshgrid(k, k, k, indexing="ij"))
    for c, kc, origin in zip(("xdnode", "ydnode", "zdnode"), (kx, ky, kz), ORIGIN, strict=True):
        out[c] = origin + 0.5 * kc + 0.25 * rng.integers(-1, 2, kc.size)
    for c, origin in zip(("xplane", "yplane", "zplane"), ORIGIN, strict=True):
        out[c] = origin + 0.5 * np.arange(out[c].size, dtype=np.float64)
    return out


def _plan(size: int) -> list[Launch]:
    n = _records(size)
    args = (
        *("xdnode", "ydnode", "zdnode", "znlist", "xplane", "yplane", "zplane"),
        *("intsc_d", "intsc_t", "records", "nxzones", "nyzones", "nrecords"),
    )
    return [Launch("intsc_hexrect", n, GROUP, args)]


# --- numpy version, vectorised over records and facets -----------------------------------------

#: Each facet's corners (vv0, vv2) and its face's corners, facet = 4 * face + k0.
_FACE = np.array(FACES)
_VV0 = _FACE.ravel()
_VV2 = _FACE[:, [1, 2, 3, 0]].ravel()
#: Records per block of the cpu version: its temporaries then stay in cache.
BLOCK = 4096


def _clip(a, b, c, n, cut, keep_ge: bool, plain: bool = False):
    """clip_polygon_ge / _lt on every row (vertices in columns, the first repeated after the last).

    RAJAPerf clips in place, reading the polygon from one end of the workspace
    and writing it from the other, so the edges' order alternates between
    calls. Rows here hold the vertices in the order the next call visits them,
    which makes every call read edge (t, t + 1); the result is written in that
    order for the next call, or in RAJAPerf's workspace order (``plain``).
    Returns the clipped a, b, c and vertex counts.
    """
    rows, width = a.shape
    cut = np.asarray(cut, dtype=a.dtype).reshape(-1, 1)
    inside = a >= cut if keep_ge else a < cut
    live = np.arange(width) < n[:, None]
    keep = inside & live
    cross = np.zeros_like(keep)
    np.not_equal(inside[:, :-1], inside[:, 1:], out=cross[:, :-1])
    cross &= live
    total = keep.astype(np.int8) + cross
    ends = np.cumsum(total, 1, dtype=np.int32)
    count = ends[:, -1].astype(np.int64)
    new = int(count.max(initial=0)) + 1
    out = [np.zeros(rows * new) for _ in range(3)]
    flat = [v.reshape(-1) for v in (a, b, c)]

    def place(mask: np.ndarray, before: np.ndarray) -> tuple:
        f = np.flatnonzero(mask)
        r = f // width
        k = before.reshape(-1)[f].astype(np.int64)
        return f, r * new + (k if plain else np.where(k == 0, 0, count[r] - k))

    f, dest = place(keep, ends - total)
    for o, v in zip(out, flat, strict=True):
        o[dest] = v[f]
    f, dest = place(cross, ends - cross)
    cr = cut.reshape(-1)[f // width] if cut.shape[0] > 1 else cut[0, 0]
    lo_j = flat[0][f] < cr
    lo, hi = np.where(lo_j, f, f + 1), np.where(lo_j, f + 1, f)
    eta = (cr - flat[0][lo]) / (flat[0][hi] - flat[0][lo])
    out[0][dest] = cr
    for o, v in zip(out[1:], flat[1:], strict=True):
        o[dest] = v[lo] + (v[hi] - v[lo]) * eta
    out = [o.reshape(rows, new) for o in out]
    if not plain:
        at = np.arange(rows)
        for o in out:
            o[at, count] = o[:, 0]
    return (*out, count)


def _prisms(x, y, z, n, off: int, box) -> np.ndarray:
    """intsc24_shxf1 on every row, the fan's vertices from column off: shape (4, rows)."""
    dtx, dty, x0, y0, z0 = box
    s = np.zeros((4, x.shape[0]))
    for t in range(int(n.max(initial=0)) - 2):
        live = t < n - 2
        xc = (x[:, off], x[:, off + t + 1], x[:, off + t + 2])
        yc = (y[:, off], y[:, off + t + 1], y[:, off + t + 2])
        zc = (z[:, off], z[:, off + t + 1], z[:, off + t + 2])
        tri = np.zeros((4, x.shape[0]))
        for e0, e1 in ((0, 1), (1, 2), (2, 0)):
            met = 0.5 * (zc[e0] + zc[e1])
            tri[0] += met
            tri[1] += met * (x0 + 0.5 * dtx * (xc[e0] + xc[e1]))
            tri[2] += met * (y0 + 0.5 * dty * (yc[e0] + yc[e1]))
            tri[3] += met * (z0 + 0.5 * met)
        area = 0.5 * (
            (xc[0] - xc[1]) * (yc[0] + yc[1])
            + (xc[1] - xc[2]) * (yc[1] + yc[2])
            + (xc[2] - xc[0]) * (yc[2] + yc[0])
        )
        s += np.where(live, ONE3 * area * tri, 0.0)
    return s * (dtx * dty)


def _intsc24_hex(xd, yd, zd, xt0, xt1, yt0, yt1, zt0, zt1) -> np.ndarray:
    """Volume and moments of each record's overlap, shape (4, records).

    Every facet not wholly outside a plane of the box is clipped, as the device
    code does (RAJAPerf's shortcuts for facets inside the x and y range equal
    the clip up to rounding); the pieces are added in the device's order.
    """
    nrec = xd.shape[0]
    dzt = np.maximum(zt1 - zt0, 0.0)
    dtx, dty = xt1 - xt0, yt1 - yt0
    det = dtx * dty
    deti = det / (det * det + DET_TINY)
    a11, a22 = dty * deti, dtx * deti
    # intsc24_hex_get_tri for all 24 facets: (records, facets, corner/centre/corner).
    face = [d[:, _FACE] for d in (xd, yd, zd)]
    centre = [np.repeat(0.25 * (f[..., 0] + f[..., 1] + f[..., 2] + f[..., 3]), 4, 1) for f in face]
    t0, scale = xt0[:, None], a11[:, None]
    x = [scale * (d[:, vv] - t0) for d, vv in ((xd, _VV0), (xd, _VV2))]
    y = [a22[:, None] * (d[:, vv] - yt0[:, None]) for d, vv in ((yd, _VV0), (yd, _VV2))]
    z = [d[:, vv] - zt0[:, None] for d, vv in ((zd, _VV0), (zd, _VV2))]
    x.insert(1, (centre[0] - t0) * scale)
    y.insert(1, (centre[1] - yt0[:, None]) * a22[:, None])
    z.insert(1, centre[2] - zt0[:, None])
    lo = [np.minimum(np.minimum(v[0], v[1]), v[2]) for v in (x, y)]
    hi = [np.maximum(np.maximum(v[0], v[1]), v[2]) for v in (x, y, z)]
    out = (np.minimum(np.minimum(hi[0], hi[1]), hi[2]) < 0) | (np.maximum(lo[0], lo[1]) >= 1)
    rec, fac = np.nonzero(~out)
    # The first call reads corner, corner, centre; the first corner again closes the polygon.
    x, y, z = (np.stack([v[k][rec, fac] for k in (0, 2, 1, 0)], 1) for v in (x, y, z))
    n = np.full(rec.size, 3)
    y, x, z, n = _clip(y, x, z, n, 1.0, False)
    y, x, z, n = _clip(y, x, z, n, 0.0, True)
    x, y, z, n = _clip(x, y, z, n, 1.0, False)
    x, y, z, n = _clip(x, y, z, n, 0.0, True)
    box = tuple(v[rec] for v in (dtx, dty, xt0, yt0, zt0))
    top = dzt[rec]
    zu, xu, yu, nu = _clip(z, x, y, n, top, True)
    upper = _prisms(xu, yu, np.broadcast_to(top[:, None], zu.shape), nu, 1, box)
    z, x, y, n = _clip(z, x, y, n, top, False)
    z, x, y, n = _clip(z, x, y, n, 0.0, True, plain=True)
    central = _prisms(x, y, z, n, 0, box)
    # Each record's pieces in the device's order: facet by facet, the upper one first.
    pieces = np.zeros((4, nrec, 24, 2))
    pieces[:, rec, fac, 0] = upper
    pieces[:, rec, fac, 1] = central
    acc = np.zeros((4, nrec))
    for k in range(48):
        acc += pieces[:, :, k // 2, k % 2]
    return acc


def _hexrect_cpu(
    grid: Grid, xdnode, ydnode, zdnode, znlist, xplane, yplane, zplane, intsc_d, intsc_t,
    records, nxzones, nyzones, nrecords,
) -> None:  # fmt: skip
    for lo in range(0, int(nrecords), BLOCK):
        irec = np.arange(lo, min(lo + BLOCK, int(nrecords)))
        nodes = znlist.reshape(-1, 8)[intsc_d[irec]]
        tz = intsc_t[irec].astype(np.int64)
        jz, jy, jx = tz // (nxzones * nyzones), (tz // nxzones) % nyzones, tz % nxzones
        sums = _intsc24_hex(
            *(np.asarray(c[nodes], dtype=np.float64) for c in (xdnode, ydnode, zdnode)),
            *(np.asarray(p[i], dtype=np.float64) for p, i in (
                (xplane, jx), (xplane, jx + 1), (yplane, jy), (yplane, jy + 1),
                (zplane, jz), (zplane, jz + 1),
            )),
        )  # fmt: skip
        records.reshape(-1, 4)[irec] = sums.T


def _reference(inputs: dict) -> dict:
    a = wide(inputs)
    names = ("xdnode", "ydnode", "zdnode", "znlist", "xplane", "yplane", "zplane")
    _hexrect_cpu(
        None, *(a[k] for k in names), a["intsc_d"], a["intsc_t"], a["records"],
        a["nxzones"], a["nyzones"], a["nrecords"],
    )  # fmt: skip
    return {"records": a["records"]}


def _traffic(size: int, real_bytes: int) -> Traffic:
    side = _side(size)
    n = _records(size)
    return Traffic(
        read=3 * (side + 1) ** 3 * real_bytes + 8 * side**3 * 4 + 2 * 4 * n,
        write=4 * real_bytes * n,
    )


def _nodes(size: int) -> int:
    return (_side(size) + 1) ** 3


def _planes(size: int) -> int:
    return _side(size) + 2


def _int(name: str, length) -> Array:
    return Array(name, "i32", length)


KERNEL = KernelSpec(
    name="Apps_INTSC_HEXRECT",
    group=GROUP_NAME,
    summary="volume and moments of the overlap of hexahedral zones with Cartesian boxes",
    arrays=(
        real("xdnode", _nodes),
        real("ydnode", _nodes),
        real("zdnode", _nodes),
        _int("znlist", lambda size: _records(size)),
        real("xplane", _planes),
        real("yplane", _planes),
        real("zplane", _planes),
        _int("intsc_d", _records),
        _int("intsc_t", _records),
        real("records", lambda size: 4 * _records(size), "out"),
    ),
    scalars=(Scalar("nxzones", "i32"), Scalar("nyzones", "i32"), Scalar("nrecords", "u32")),
    plan=_plan,
    init=_init,
    reference=_reference,
    cpu={"intsc_hexrect": _hexrect_cpu},
    traffic=_traffic,
    flops=lambda size: 150 * 24 * _records(size),
    default_size=8 * 50**3,
    default_reps=1,
    check_size=4_000,
    # Records of slivers cancel to near zero: their rounding is judged against the largest.
    tolerance=Tolerance(NORMAL.f64, NORMAL.f32, floor=1e-3),
    group_size=GROUP,
    constants={
        "MAX_POLY": MAX_POLY,
        "SLOT": 3 * MAX_POLY + 1,
        "HEX_NODES": 8,
        "HEX_WORK": 3 * 8,
        "HEX_FACETS": 24,
        "ONE3": ONE3,
        "DET_TINY": DET_TINY,
    },
    check_cases=(
        CheckCase(
            "moved_nodes",
            _moved_init,
            "RAJAPerf's donor zones are boxes aligned with the target's, so facets "
            "are axis-aligned and most clip cases never arise; moved nodes and "
            "planes reach them",
        ),
        CheckCase(
            "on_planes",
            _on_planes_init,
            "no corner of RAJAPerf's facets lies on a box's plane, where the clip "
            "keeps a vertex on the cut and interpolates to it; a lattice of exact "
            "coordinates puts corners and edges there",
        ),
    ),
)

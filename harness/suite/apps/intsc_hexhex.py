"""Apps_INTSC_HEXHEX (RAJAPerf's INTSC_HEXHEX.cpp): volume and moments of hex-hex overlaps.

Each subzone pair intersects a donor hexahedron (12 triangular facets, six
around corner 0 and six around corner 7) with a target hexahedron (six tets
around its 0-7 diagonal). One work-item takes one facet-tet combination (72 per
pair): it maps the facet into the tet's unit frame, clips it to the tet with
linked-list polygons and adds the signed volume and moments under the pieces.
Work-groups of 64 reduce their work-items' values into eight partials (a group
meets at most two pairs: the one running into it and the one starting in it),
and a fixup launch adds each pair's two partials. RAJAPerf's every pair is the
same box and its copy shifted by 0.01 along each axis.
"""

from __future__ import annotations

import math

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import (
    NORMAL,
    CheckCase,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Tolerance,
    Traffic,
)
from harness.suite.apps.shared import GROUP_NAME, real, wide

#: RAJAPerf's work-group, facet-tet combinations per pair, pairs per fixup group.
GROUP = 64
TRI_PER_PAIR = 72
PAIRS_PER_GROUP = 8
#: Partials per work-group: volume and moments of the two pairs a work-group meets.
PARTIALS = 8
#: Polygon slots of a linked list, and the terms keeping 1 / det finite and h < 0 strict.
SLOTS = 9
DET_TINY = 1.0e-100
H_TINY = 1.0e-50
ONE6 = 0.16666666666666667
ONE24 = 0.041666666666666667
#: RAJAPerf's donor box and the target's shift.
BOX = ((-0.2, -0.1), (0.1, 0.2), (-0.8, -0.7))
SHIFT = 0.01
#: Donor facets (corner 0 or 7 and two of the cycle around it) and target tets.
_CYC = (1, 5, 4, 6, 2, 3, 1)
_VC = (1, 3, 2, 6, 4, 5)
FACETS = np.array(
    [(0, _CYC[f], _CYC[f + 1]) for f in range(6)]
    + [(7, _CYC[6 - f], _CYC[5 - f]) for f in range(6)]
)
#: The corners' coordinates: donor x, y, z, then target x, y, z (eight per pair each).
HEXES = ("xds", "yds", "zds", "xts", "yts", "zts")
TETS = np.array([(0, _VC[t], _VC[(t + 1) % 6], 7) for t in range(6)])


def _groups(size: int) -> int:
    """Standard intersections (eight pairs each): the largest cube up to the size."""
    return max(int(math.cbrt(size + 0.5)), 1) ** 3


def _pairs(size: int) -> int:
    return PAIRS_PER_GROUP * _groups(size)


def _partials(size: int) -> int:
    """Length of vv_int: PARTIALS per work-group of the main launch."""
    return PARTIALS * TRI_PER_PAIR * _pairs(size) // GROUP


#: Corner k's offset along x, y, z (bits 0, 1, 2 of k), shaped (1, 3, 8) for (pairs, axis, corner).
_CORNER_BITS = (np.arange(8)[None, None, :] >> np.arange(3)[None, :, None]) & 1


def _hexes(pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """RAJAPerf's donor box and its shifted copy per pair, as (pairs, x y z, eight corners)."""
    donor = np.where(_CORNER_BITS[0] == 1, [[hi] for _, hi in BOX], [[lo] for lo, _ in BOX])
    return np.tile(donor, (pairs, 1, 1)), np.tile(donor + SHIFT, (pairs, 1, 1))


def _coords(donor: np.ndarray, target: np.ndarray) -> dict:
    """The hexes' corners as six arrays, one per hexahedron and axis.

    RAJAPerf keeps a pair's 24 coordinates together (dsubz, tsubz); by axis, each
    array stays under WebGPU's 128 MiB binding limit at --size 100000.
    """
    return {
        f"{c}{h}s": hexes[:, k].ravel()
        for h, hexes in (("d", donor), ("t", target))
        for k, c in enumerate("xyz")
    }


def _init(size: int, seed: int, precision: str) -> dict:
    n = _pairs(size)
    d = DataInit()
    return {
        **_coords(*_hexes(n)),
        "vv_int": np.zeros(_partials(size)),
        "vv_out": d.const(4 * n, 0.0),
        "npairs": n,
        "ngroups": _groups(size),
    }


def _with_boxes(out: dict, donor: np.ndarray, target: np.ndarray, rng: np.random.Generator) -> dict:
    """``out`` with these boxes (pairs, 3, 8) and varied partials and outputs, as
    an earlier repetition would leave them."""
    out.update(_coords(donor, target))
    out["vv_int"] = rng.uniform(-1.0, 1.0, out["vv_int"].size)
    out["vv_out"] = rng.uniform(-1.0, 1.0, out["vv_out"].size)
    return out


def _moved_init(size: int, seed: int, precision: str) -> dict:
    """Each pair a different box pair, corners moved by up to 15%, target shifted by up to 60%.

    Facets then cut tets on every side, every clip case arises, and the pairs
    differ, so a value taken from the wrong pair or partial shows.
    """
    out = _init(size, seed, precision)
    n = _pairs(size)
    rng = np.random.default_rng(seed)
    edge = rng.uniform(0.5, 1.5, (n, 3, 1))
    lo = rng.uniform(-1.0, 1.0, (n, 3, 1))
    donor = lo + _CORNER_BITS * edge + rng.uniform(-0.15, 0.15, (n, 3, 8)) * edge
    shift = rng.uniform(-0.6, 0.6, (n, 3, 1)) * edge
    target = lo + shift + _CORNER_BITS * edge + rng.uniform(-0.15, 0.15, (n, 3, 8)) * edge
    return _with_boxes(out, donor, target, rng)


def _aligned_init(size: int, seed: int, precision: str) -> dict:
    """Each pair two axis-aligned boxes, edges of 0.5 to 2 and offsets of quarter edges.

    Every coordinate is a small multiple of 1/16, so the frames and the clips of the
    corners are exact: corners fall on the tets' faces and planes (a value of exactly
    0, which a clip keeps), where a test of ``< 0`` against ``<= 0`` shows. At f64
    donor faces lie in target faces too, where H_TINY alone keeps a face through
    corner 7 (a tet's h = 0) from being counted twice; at f32 H_TINY is 0 and
    RAJAPerf's kernel does count it twice, so there no donor face ends where the
    target does.
    """
    out = _init(size, seed, precision)
    n = _pairs(size)
    rng = np.random.default_rng(seed)
    edge = rng.choice([0.5, 1.0, 2.0], (n, 3, 1))
    lo = rng.integers(-4, 5, (n, 3, 1)) * 0.5
    step = rng.integers(-2, 3, (n, 3, 1)) * 0.25
    share = rng.choice([0.5, 1.0], (n, 3, 1))
    if precision != "f64":
        # A donor that would end where the target does ends short of it instead.
        share = np.where(step + share == 1.0, 0.625, share)
    donor = lo + (step + _CORNER_BITS * share) * edge
    return _with_boxes(out, donor, lo + _CORNER_BITS * edge, rng)


def _plan(size: int) -> list[Launch]:
    n, npairs = _groups(size), _pairs(size)
    return [
        Launch("intsc_hexhex", TRI_PER_PAIR * npairs, GROUP, (*HEXES, "vv_int", "npairs")),
        Launch("intsc_hexhex_fixup", n, GROUP, ("vv_int", "vv_out", "ngroups")),
    ]


# --- numpy version, vectorised over facet-tet rows ----------------------------------------------
#
# RAJAPerf keeps each polygon as a linked list over SLOTS slots; here a row's polygon sits in
# list order in its slots 0..n-1. A clip keeps the vertices in order from the first kept one and
# puts the two crossings after the last vertex before the cut, as the lists link them, so the
# fans of triangles, and the sums, are RAJAPerf's.


def _clip(p: np.ndarray, c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """clip_polygon_ge_0: keep the part of each row's polygon (p: x, y, z, h rows) with c >= 0.

    Rows cut by the plane are rewritten in place; returns the new vertex counts.
    """
    k = np.arange(SLOTS)
    kept = (k < n[:, None]) & (c >= 0)
    nk = kept.sum(1)
    cut = np.flatnonzero((nk > 0) & (nk < n))
    out_n = np.where(nk == 0, 0, n)
    if not cut.size:
        return out_n
    cs, ps, ks, ns = c[cut], p[:, cut], kept[cut], n[cut]
    r = np.arange(cut.size)
    kn = np.where(k + 1 < ns[:, None], k + 1, 0)
    next_in = np.take_along_axis(ks, kn, 1)
    j1 = SLOTS - 1 - np.argmax((ks & ~next_in)[:, ::-1], 1)
    j2 = SLOTS - 1 - np.argmax(((k < ns[:, None]) & ~ks & next_in)[:, ::-1], 1)
    jj1, jj2 = kn[r, j1], kn[r, j2]
    eta = (0.0 - cs[r, jj1]) / (cs[r, j1] - cs[r, jj1])
    new1 = ps[:, r, j1] * eta + ps[:, r, jj1] * (1.0 - eta)
    eta = (0.0 - cs[r, j2]) / (cs[r, jj2] - cs[r, j2])
    new2 = ps[:, r, jj2] * eta + ps[:, r, j2] * (1.0 - eta)
    pos = np.cumsum(ks, 1) - 1 + 2 * (k > j1[:, None])
    rr, kk = np.nonzero(ks)
    res = np.zeros_like(ps)
    res[:, rr, pos[rr, kk]] = ps[:, rr, kk]
    res[:, r, pos[r, j1] + 1], res[:, r, pos[r, j1] + 2] = new1, new2
    p[:, cut] = res
    out_n[cut] = nk[cut] + 2
    return out_n


def _volume(p: np.ndarray, n: np.ndarray, acc: np.ndarray) -> None:
    """cuda_hex_volpolyh_1poly: add each row's fan of triangles under its polygon to acc."""
    x, y, z = p[0], p[1], p[2]
    x0, y0, z0, x1, y1, z1 = (
        x[:, 0],
        y[:, 0],
        z[:, 0],
        x[:, 1].copy(),
        y[:, 1].copy(),
        z[:, 1].copy(),
    )
    dx1, dy1 = x1 - x0, y1 - y0
    for m in range(2, int(n.max(initial=0))):
        at = np.flatnonzero(n > m)
        x2, y2, z2 = x[at, m], y[at, m], z[at, m]
        xa, ya, za, xb, yb, zb = x0[at], y0[at], z0[at], x1[at], y1[at], z1[at]
        dx2, dy2 = x2 - xa, y2 - ya
        area2 = dx1[at] * dy2 - dx2 * dy1[at]
        v0 = (za + zb + z2) * area2
        acc[0, at] += v0
        acc[1, at] += v0 * (xa + xb + x2) + area2 * (xa * za + xb * zb + x2 * z2)
        acc[2, at] += v0 * (ya + yb + y2) + area2 * (ya * za + yb * zb + y2 * z2)
        acc[3, at] += (za * za + zb * zb + z2 * z2 + za * zb + za * z2 + zb * z2) * area2
        x1[at], y1[at], z1[at], dx1[at], dy1[at] = x2, y2, z2, dx2, dy2


def _tri_tet(dt: np.ndarray, tt: np.ndarray) -> np.ndarray:
    """cuda_intsc_tri_tet per row: triangles dt (rows, 3, 3) and tets tt (rows, 3, 4), x y z.

    Returns the volume and x, y, z moments, shape (4, rows).
    """
    rows = dt.shape[0]
    X, Y, Z = (
        [t[:, 0]] + [t[:, k] - t[:, 0] for k in (1, 2, 3)] for t in (tt[:, 0], tt[:, 1], tt[:, 2])
    )
    det = (
        X[1] * Y[2] * Z[3] - X[1] * Y[3] * Z[2] + X[2] * Y[3] * Z[1]
        - X[2] * Y[1] * Z[3] + X[3] * Y[1] * Z[2] - X[3] * Y[2] * Z[1]
    )  # fmt: skip
    deti = det / (det * det + DET_TINY)
    rel = [dt[:, k] - t[0][:, None] for k, t in enumerate((X, Y, Z))]
    p = np.zeros((4, rows, SLOTS), dt.dtype)
    for out, (a, b) in zip(p, ((2, 3), (3, 1), (1, 2)), strict=False):
        cyz = Y[a] * Z[b] - Z[a] * Y[b]
        czx = Z[a] * X[b] - X[a] * Z[b]
        cxy = X[a] * Y[b] - Y[a] * X[b]
        out[:, :3] = rel[0] * cyz[:, None] + rel[1] * czx[:, None] + rel[2] * cxy[:, None]
        out[:, :3] *= deti[:, None]
    p[3, :, :3] = 1.0 - p[0, :, :3] - p[1, :, :3] - p[2, :, :3]
    h2 = np.zeros((rows, SLOTS), dt.dtype)
    h2[:, :3] = 1.0 - p[0, :, :3] - p[1, :, :3]
    n = _clip(p, h2, np.full(rows, 3))
    for c in range(3):
        n = _clip(p, p[c], n)
    acc = np.zeros((4, rows), dt.dtype)
    live = np.flatnonzero(n > 0)
    p, n = p[:, live], n[live]
    p1, n1 = p.copy(), n.copy()
    sums = np.zeros((4, live.size), dt.dtype)
    _volume(p, _clip(p, p[3], n), sums)
    inside = np.arange(SLOTS) < n1[:, None]
    p1[3] = np.where(inside, -p1[3] - H_TINY, p1[3])
    n1 = _clip(p1, p1[3], n1)
    p1[2] = np.where(np.arange(SLOTS) < n1[:, None], 1.0 - p1[0] - p1[1], p1[2])
    _volume(p1, n1, sums)
    acc[:, live] = sums
    vv, vx, vy, vz = acc[0] * ONE6, acc[1] * ONE24, acc[2] * ONE24, acc[3] * ONE24
    moments = [det * (t[0] * vv + t[1] * vx + t[2] * vy + t[3] * vz) for t in (X, Y, Z)]
    return np.stack([det * vv, *moments])


def _pair_rows(dsubz: np.ndarray, tsubz: np.ndarray) -> np.ndarray:
    """Contributions of every facet-tet row of the pairs given (pairs, 3, 8). Shape (4, rows)."""
    shape = (dsubz.shape[0], len(FACETS), len(TETS), 3)
    dt = np.broadcast_to(dsubz[:, :, FACETS].transpose(0, 2, 1, 3)[:, :, None], (*shape, 3))
    tt = np.broadcast_to(tsubz[:, :, TETS].transpose(0, 2, 1, 3)[:, None], (*shape, 4))
    return _tri_tet(dt.reshape(-1, 3, 3), tt.reshape(-1, 3, 4))


def _hexhex_cpu(grid: Grid, xds, yds, zds, xts, yts, zts, vv_int, npairs) -> None:
    """The main launch: each work-group's partials, the pair running into it first."""
    rows = TRI_PER_PAIR * npairs
    dsubz, tsubz = (
        np.stack([a[: 8 * npairs].reshape(-1, 8) for a in h], 1)
        for h in ((xds, yds, zds), (xts, yts, zts))
    )
    step = TRI_PER_PAIR * PAIRS_PER_GROUP * GROUP
    for lo in range(0, rows, step):
        hi = min(lo + step, rows)
        pairs = slice(lo // TRI_PER_PAIR, hi // TRI_PER_PAIR)
        vals = _pair_rows(dsubz[pairs], tsubz[pairs]).reshape(4, -1, GROUP)
        ith = np.arange(lo, hi).reshape(-1, GROUP)
        upper = (ith // TRI_PER_PAIR * TRI_PER_PAIR > ith[:, :1])[None]
        part = np.zeros((vals.shape[1], 2, PARTIALS // 2), vals.dtype)
        for k in range(GROUP):
            part[:, 0] += np.where(upper[:, :, k], 0.0, vals[:, :, k]).T
            part[:, 1] += np.where(upper[:, :, k], vals[:, :, k], 0.0).T
        vv_int[PARTIALS * lo // GROUP : PARTIALS * hi // GROUP] = part.ravel()


def _fixup_cpu(grid: Grid, vv_int, vv_out, ngroups) -> None:
    """Each pair's volume and moments: its partials in the two work-groups it spans."""
    blocks = TRI_PER_PAIR * PAIRS_PER_GROUP // GROUP
    vi = vv_int[: PARTIALS * blocks * ngroups].reshape(-1, blocks, PARTIALS)
    out = vv_out[: 4 * PAIRS_PER_GROUP * ngroups].reshape(-1, PAIRS_PER_GROUP, 4)
    out[:, 0] = vi[:, 0, :4] + vi[:, 1, :4]
    out[:, 1:] = vi[:, 1:-1, 4:] + vi[:, 2:, :4]


def _reference(inputs: dict) -> dict:
    a = wide(inputs)
    _hexhex_cpu(None, *(a[k] for k in HEXES), a["vv_int"], a["npairs"])
    _fixup_cpu(None, a["vv_int"], a["vv_out"], a["ngroups"])
    return {"vv_out": a["vv_out"]}


def _traffic(size: int, real_bytes: int) -> Traffic:
    n = _groups(size)
    return Traffic(read=(24 + 24 + 9) * 8 * real_bytes * n, write=13 * 8 * real_bytes * n)


KERNEL = KernelSpec(
    name="Apps_INTSC_HEXHEX",
    fixed_group=f"RAJAPerf's work-groups of {GROUP} each reduce into {PARTIALS} partials",
    group=GROUP_NAME,
    summary="volume and moments of the overlap of pairs of hexahedra, by facet-tet clipping",
    arrays=(
        *(real(name, lambda size: 8 * _pairs(size)) for name in HEXES),
        real("vv_int", _partials, "scratch"),
        real("vv_out", lambda size: 4 * _pairs(size), "out"),
    ),
    scalars=(Scalar("npairs", "i32"), Scalar("ngroups", "i32")),
    plan=_plan,
    init=_init,
    reference=_reference,
    cpu={"intsc_hexhex": _hexhex_cpu, "intsc_hexhex_fixup": _fixup_cpu},
    traffic=_traffic,
    flops=lambda size: 336 * TRI_PER_PAIR * _pairs(size),
    default_size=25**3,
    default_reps=1,
    check_sizes=(125, 27),
    # Past the check sizes the clip cases are the same, and each case costs minutes
    # on the simulator (at size 1000, over its 20-minute timeout with both).
    check_cases_up_to=125,
    # Pairs that barely overlap cancel to near zero: their rounding is judged against the largest.
    tolerance=Tolerance(NORMAL.f64, NORMAL.f32, floor=1e-3),
    features=frozenset({"local_memory"}),
    group_size=GROUP,
    constants={
        "TRI_PER_PAIR": TRI_PER_PAIR,
        "PAIRS_PER_GROUP": PAIRS_PER_GROUP,
        "N_FACETS": len(FACETS),
        "N_TETS": len(TETS),
        "PARTIALS": PARTIALS,
        "SLOTS": SLOTS,
        "DET_TINY": DET_TINY,
        "H_TINY": H_TINY,
        "ONE6": ONE6,
        "ONE24": ONE24,
    },
    check_cases=(
        CheckCase(
            "moved_hexes",
            _moved_init,
            "RAJAPerf's pairs are all one box and its copy shifted along the diagonal, "
            "so every pair's values are equal and few clip cases arise; distinct, "
            "distorted pairs overlapping by varying amounts reach every case",
        ),
        CheckCase(
            "aligned_hexes",
            _aligned_init,
            "corners of distorted boxes never fall exactly on a tet's face; boxes on a "
            "grid of sixteenths put them there, where a clip keeps a value of exactly 0",
        ),
    ),
)

"""Apps_EDGE3D (RAJAPerf's EDGE3D.cpp): the summed 12 x 12 edge-element matrix of every zone.

Each hexahedral zone of RAJAPerf's 3-D mesh gets the mass plus curl-curl
matrix of its twelve lowest-order edge (Nedelec) basis functions, integrated
with the 2-point Gauss-Legendre rule per axis; the kernel stores the sum of the
matrix's 144 entries. RAJAPerf's bad-zone fix (replace det J by the zone
centre's where |det J / det J_cc| < detj_tol) never fires: detj_tol is 0.
"""

from __future__ import annotations

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
from harness.suite.apps.mesh import INDEX, domain_3d
from harness.suite.apps.shared import GROUP_NAME, JP, KP, nodal_length_3d, real, wide
from harness.suite.forall import GROUP, N

#: Gauss-Legendre points and weight on [0, 1] (RAJAPerf's quad_type 1, order 2).
QUADRATURE = {"QPT0": 0.211324865405187118, "QPT1": 0.788675134594812882, "QWGT": 0.5}
#: RAJAPerf's ptiny, keeping 1 / |det J| finite.
PTINY = 1.0e-50
#: Edges per zone and RAJAPerf's flops per zone (mixed_fem_helper.hpp's counts).
EB = 12
_FLOPS_JXX = 11
_FLOPS_K = 15 + 6 * _FLOPS_JXX + (17 + 3 + 36) + 2 * 3 * 5 * EB + 9 + 2 * (7 * EB * (EB + 1) // 2)
_FLOPS_J = 2 * _FLOPS_K + 3 * _FLOPS_JXX + 6
_FLOPS_ZONE = 9 * _FLOPS_JXX + 17 + 2 * (2 * _FLOPS_J + 1) + EB * EB + EB


def _init(size: int, seed: int, precision: str) -> dict:
    dom = domain_3d(size)
    d = DataInit()
    for _ in range(3):
        d.const(dom.nnalls, 0.0)  # x, y, z before setMeshPositions_3d
    x, y, z = dom.positions(0.3, 0.2, 0.1)
    return {
        "x": x,
        "y": y,
        "z": z,
        "sum": d.const(dom.nnalls, 0.0),
        "jp": dom.jp,
        "kp": dom.kp,
        "first": dom.fpz,
    }


def _moved_init(size: int, seed: int, precision: str) -> dict:
    """Nodes moved by up to a quarter step: zones differ, and J varies inside each."""
    out = _init(size, seed, precision)
    rng = np.random.default_rng(seed)
    out["x"], out["y"], out["z"] = domain_3d(size).jittered_positions(rng, 0.3, 0.2, 0.1)
    out["sum"] = rng.uniform(-1.0, 1.0, out["sum"].size)
    return out


def _mirrored_init(size: int, seed: int, precision: str) -> dict:
    """The moved mesh reflected in x: det J < 0 at every quadrature point."""
    out = _moved_init(size, seed + 1, precision)
    out["x"] = -out["x"]
    return out


def _items(size: int) -> int:
    dom = domain_3d(size)
    return dom.lpz + 1 - dom.fpz


def _plan(size: int) -> list[Launch]:
    items = _items(size)
    args = ("x", "y", "z", "sum", "jp", "kp", "first", "n")
    return [Launch("edge3d", items, GROUP, args, {"n": items})]


def _corners(a: np.ndarray, i: np.ndarray, jp: int, kp: int) -> list[np.ndarray]:
    """NDPTRSET: a at nodes i, i+1, i+jp, i+1+jp, then the same plus kp."""
    return [a[i + di + dj * jp + dk * kp] for dk in (0, 1) for dj in (0, 1) for di in (0, 1)]


def _jac(v: list[np.ndarray], pairs: tuple, w: tuple) -> np.ndarray:
    """One Jacobian entry: sum of w_k * (v[a_k] - v[b_k]) (Jxx and its kin)."""
    return sum(wk * (v[a] - v[b]) for (a, b), wk in zip(pairs, w, strict=True))


_DX = ((1, 0), (2, 3), (5, 4), (6, 7))  # Jx*: along the first axis
_DY = ((3, 0), (2, 1), (7, 4), (6, 5))  # Jy*
_DZ = ((4, 0), (5, 1), (6, 2), (7, 3))  # Jz*


def _zone_sums(x: np.ndarray, y: np.ndarray, z: np.ndarray, qpts: tuple, qwgt: float) -> np.ndarray:
    """Sum of every zone's edge matrix, zones given by their 8 corner values (lists).

    Every entry of the matrix is w * (t_p . t_m) summed over quadrature
    points, so the entries add up to w * |sum_p t_p|^2 per point, for the
    transformed basis t and the transformed curls alike.
    """
    total = np.zeros_like(x[0])
    for xloc in qpts:
        tmpx = 1.0 - xloc
        dx = np.sum([0.0, 0.0, 0.0, 0.0, tmpx, xloc, -tmpx, -xloc, -tmpx, -xloc, tmpx, xloc])
        for yloc in qpts:
            tmpy = 1.0 - yloc
            wxy = (tmpx * tmpy, xloc * tmpy, xloc * yloc, tmpx * yloc)
            jzx, jzy, jzz = (_jac(c, _DZ, wxy) for c in (x, y, z))
            ez = sum(wxy)
            dy = np.sum([-tmpy, -yloc, tmpy, yloc, 0.0, 0.0, 0.0, 0.0, tmpy, -tmpy, yloc, -yloc])
            for zloc in qpts:
                tmpz = 1.0 - zloc
                wyz = (tmpy * tmpz, yloc * tmpz, tmpy * zloc, yloc * zloc)
                wxz = (tmpx * tmpz, xloc * tmpz, tmpx * zloc, xloc * zloc)
                jxx, jxy, jxz = (_jac(c, _DX, wyz) for c in (x, y, z))
                jyx, jyy, jyz = (_jac(c, _DY, wxz) for c in (x, y, z))
                detj = (
                    jxy * jyz * jzx
                    - jxz * jyy * jzx
                    + jxz * jyx * jzy
                    - jxx * jyz * jzy
                    - jxy * jyx * jzz
                    + jxx * jyy * jzz
                )
                abs_detj = np.abs(detj)
                inv = 1.0 / (detj + PTINY)
                ex, ey = sum(wyz), sum(wxz)
                tx = ((jyy * jzz - jyz * jzy) * ex + (jxz * jzy - jxy * jzz) * ey) * inv
                tx = tx + (jxy * jyz - jxz * jyy) * inv * ez
                ty = ((jyz * jzx - jyx * jzz) * ex + (jxx * jzz - jxz * jzx) * ey) * inv
                ty = ty + (jxz * jyx - jxx * jyz) * inv * ez
                tz = ((jyx * jzy - jyy * jzx) * ex + (jxy * jzx - jxx * jzy) * ey) * inv
                tz = tz + (jxx * jyy - jxy * jyx) * inv * ez
                dz = np.sum([tmpz, -tmpz, zloc, -zloc, -tmpz, tmpz, -zloc, zloc, 0, 0, 0, 0])
                ia = 1.0 / (abs_detj + PTINY)
                cx = (jxx * dx + jyx * dy + jzx * dz) * ia
                cy = (jxy * dx + jyy * dy + jzy * dz) * ia
                cz = (jxz * dx + jyz * dy + jzz * dz) * ia
                w = qwgt * qwgt * qwgt * abs_detj
                total = (
                    total + w * (tx * tx + ty * ty + tz * tz) + w * (cx * cx + cy * cy + cz * cz)
                )
    return total


def _edge3d_cpu(grid: Grid, x, y, z, sum_, jp, kp, first, n) -> None:
    qpts = (QUADRATURE["QPT0"], QUADRATURE["QPT1"])
    step = 1 << 16
    for lo in range(first, first + n, step):
        i = np.arange(lo, min(lo + step, first + n))
        corners = [_corners(a, i, jp, kp) for a in (x, y, z)]
        sum_[i] = _zone_sums(*corners, qpts, QUADRATURE["QWGT"])


def _reference(inputs: dict) -> dict:
    a = wide(inputs)
    items = a["sum"].size - a["jp"] - a["kp"] - 1 - a["first"]
    _edge3d_cpu(None, a["x"], a["y"], a["z"], a["sum"], a["jp"], a["kp"], a["first"], items)
    return {"sum": a["sum"]}


def _traffic(size: int, real_bytes: int) -> Traffic:
    dom = domain_3d(size)
    its = _items(size)
    return Traffic(read=3 * real_bytes * (its + 1 + dom.jp + dom.kp), write=real_bytes * its)


KERNEL = KernelSpec(
    name="Apps_EDGE3D",
    group=GROUP_NAME,
    summary="sum of each hexahedral zone's 12 x 12 edge-element mass plus curl-curl matrix",
    arrays=(
        real("x", nodal_length_3d),
        real("y", nodal_length_3d),
        real("z", nodal_length_3d),
        real("sum", nodal_length_3d, "out"),
    ),
    scalars=(JP, KP, Scalar("first", INDEX), N),
    plan=_plan,
    init=_init,
    reference=_reference,
    cpu={"edge3d": _edge3d_cpu},
    traffic=_traffic,
    flops=lambda size: _FLOPS_ZONE * _items(size),
    default_reps=10,
    check_size=1_000,
    # In f32 the curl-curl block's entries, which cancel to zero in the sum, leave
    # rounding of up to about 5e-5 of the total.
    tolerance=Tolerance(NORMAL.f64, 1e-3),
    constants={**QUADRATURE, "PTINY": PTINY, "EB": EB},
    check_cases=(
        CheckCase(
            "moved_nodes",
            _moved_init,
            "RAJAPerf's regular mesh makes every zone the same box, J constant "
            "and most of its entries zero; moved nodes vary them all",
        ),
        CheckCase(
            "mirrored",
            _mirrored_init,
            "RAJAPerf's zones all have det J > 0, so |det J| and det J agree; "
            "reflected zones have det J < 0",
        ),
    ),
)

"""Apps_VOL3D (RAJAPerf's VOL3D.cpp): the volume of every hexahedral zone of a 3-D mesh."""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import NORMAL, CheckCase, Grid, KernelSpec, Launch, Scalar, Traffic
from harness.suite.apps.mesh import INDEX, domain_3d
from harness.suite.apps.shared import GROUP_NAME, JP, KP, nodal_length_3d, real, wide
from harness.suite.forall import GROUP, N


def _vol3d_init(size: int, seed: int, precision: str) -> dict:
    dom = domain_3d(size)
    d = DataInit()
    for _ in range(3):
        d.const(dom.nnalls, 0.0)  # x, y, z before setMeshPositions_3d
    x, y, z = dom.positions(0.3, 0.2, 0.1)
    return {
        "x": x,
        "y": y,
        "z": z,
        "vol": d.const(dom.nnalls, 0.0),
        "vnormq": 0.083333333333333333,
        "jp": dom.jp,
        "kp": dom.kp,
        "first": dom.fpz,
    }


def _vol3d_check_init(size: int, seed: int, precision: str) -> dict:
    """VOL3D on a mesh whose nodes move by up to a quarter step, vol starting non-zero.

    On RAJAPerf's regular mesh most of the coordinate differences VOL3D forms
    (x60, y30, z50, ...) are exactly zero, so the products they enter vanish.
    """
    out = _vol3d_init(size, seed, precision)
    rng = np.random.default_rng(seed)
    dom = domain_3d(size)
    out["x"], out["y"], out["z"] = dom.jittered_positions(rng, 0.3, 0.2, 0.1)
    out["vol"] = rng.uniform(-1.0, 1.0, dom.nnalls)
    return out


def _vol3d_items(size: int) -> int:
    dom = domain_3d(size)
    return dom.lpz + 1 - dom.fpz


def _vol3d_plan(size: int) -> list[Launch]:
    args = ("x", "y", "z", "vol", "vnormq", "jp", "kp", "first", "n")
    items = _vol3d_items(size)
    return [Launch("vol3d", items, GROUP, args, {"n": items})]


def _corners(a: np.ndarray, i: np.ndarray, jp: int, kp: int) -> list[np.ndarray]:
    """NDPTRSET: a's values at the 8 nodes of the zones whose first node is i."""
    return [a[i + di + dj * jp + dk * kp] for dk in (0, 1) for dj in (0, 1) for di in (0, 1)]


def _vol3d_cpu(grid: Grid, x, y, z, vol, vnormq, jp, kp, first, n) -> None:
    i = np.arange(first, first + n)
    x0, x1, x2, x3, x4, x5, x6, x7 = _corners(x, i, jp, kp)
    y0, y1, y2, y3, y4, y5, y6, y7 = _corners(y, i, jp, kp)
    z0, z1, z2, z3, z4, z5, z6, z7 = _corners(z, i, jp, kp)
    x71, x72, x74, x30, x50, x60 = x7 - x1, x7 - x2, x7 - x4, x3 - x0, x5 - x0, x6 - x0
    y71, y72, y74, y30, y50, y60 = y7 - y1, y7 - y2, y7 - y4, y3 - y0, y5 - y0, y6 - y0
    z71, z72, z74, z30, z50, z60 = z7 - z1, z7 - z2, z7 - z4, z3 - z0, z5 - z0, z6 - z0

    def term(xps, yps, zps, ax, ay, az, bx, by, bz):
        cyz = ay * bz - az * by
        czx = az * bx - ax * bz
        cxy = ax * by - ay * bx
        return xps * cyz + yps * czx + zps * cxy

    v = term(x71 + x60, y71 + y60, z71 + z60, x72, y72, z72, x30, y30, z30)
    v = v + term(x72 + x50, y72 + y50, z72 + z50, x74, y74, z74, x60, y60, z60)
    v = v + term(x74 + x30, y74 + y30, z74 + z30, x71, y71, z71, x50, y50, z50)
    vol[i] = v * vnormq


def _vol3d_traffic(size: int, real_bytes: int) -> Traffic:
    dom = domain_3d(size)
    its = _vol3d_items(size)
    return Traffic(read=3 * real_bytes * (its + 1 + dom.jp + dom.kp), write=real_bytes * its)


_VOL3D_SCALARS = ("vnormq", "jp", "kp", "first")


def _vol3d_reference(inputs: dict) -> dict:
    a = wide(inputs)
    # Zones fpz..lpz: lpz sits jp + kp + 1 below the last node, nnalls - 1.
    items = a["vol"].size - a["jp"] - a["kp"] - 1 - a["first"]
    _vol3d_cpu(None, a["x"], a["y"], a["z"], a["vol"], *(a[k] for k in _VOL3D_SCALARS), items)
    return {"vol": a["vol"]}


KERNEL = KernelSpec(
    name="Apps_VOL3D",
    group=GROUP_NAME,
    summary="volume of every hexahedral zone of a 3-D mesh, ghosts included",
    arrays=(
        real("x", nodal_length_3d),
        real("y", nodal_length_3d),
        real("z", nodal_length_3d),
        real("vol", nodal_length_3d, "out"),
    ),
    scalars=(Scalar("vnormq", "real"), JP, KP, Scalar("first", INDEX), N),
    plan=_vol3d_plan,
    init=_vol3d_init,
    reference=_vol3d_reference,
    cpu={"vol3d": _vol3d_cpu},
    traffic=_vol3d_traffic,
    flops=lambda size: 72 * _vol3d_items(size),
    default_reps=100,
    check_size=10_000,
    tolerance=NORMAL,
    check_cases=(
        CheckCase(
            "moved_nodes",
            _vol3d_check_init,
            "RAJAPerf's regular mesh zeroes most coordinate differences across a "
            "zone and so the products they enter; these move every node",
        ),
    ),
)

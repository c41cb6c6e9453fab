"""Apps_DEL_DOT_VEC_2D (RAJAPerf's DEL_DOT_VEC_2D.cpp): divergence on a 2-D mesh."""

from __future__ import annotations

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
from harness.suite.apps.mesh import INDEX, INDEX_BYTES, domain_2d
from harness.suite.apps.shared import GROUP_NAME, JP, MESH_CHECK_SIZE, real, wide
from harness.suite.forall import GROUP, N


def _del_dot_init(size: int, seed: int, precision: str) -> dict:
    dom = domain_2d(size)
    d = DataInit()
    d.const(dom.nnalls, 0.0)  # x
    d.const(dom.nnalls, 0.0)  # y
    d.const(dom.n_real_zones, -1)  # real_zones
    x, y = dom.positions(0.2, 0.1)
    return {
        "x": x,
        "y": y,
        "real_zones": dom.real_zones(),
        "xdot": d.data(dom.nnalls),
        "ydot": d.data(dom.nnalls),
        "div": d.const(dom.nnalls, 0.0),
        "half": 0.5,
        "ptiny": 1.0e-20,
        "jp": dom.jp,
    }


def _del_dot_check_init(size: int, seed: int, precision: str) -> dict:
    """DEL_DOT_VEC_2D on a mesh with moved nodes and a noisy, diverging velocity.

    On RAJAPerf's regular mesh xj and yi are exactly zero, so every term they
    multiply drops out, and ptiny (1e-20) is lost against the area. Here nodes
    move by up to a quarter step, velocities are a uniform expansion plus noise
    (so the divergence stays away from zero and float32 rounding stays small
    against it), ptiny is about a third of a zone's area, and div starts non-zero.
    """
    dom = domain_2d(size)
    rng = np.random.default_rng(seed)
    x, y = dom.jittered_positions(rng, 0.2, 0.1)
    return {
        "x": x,
        "y": y,
        "real_zones": dom.real_zones(),
        "xdot": 1.5 * x + rng.uniform(-0.05, 0.05, x.size),
        "ydot": y + rng.uniform(-0.05, 0.05, y.size),
        "div": rng.uniform(-1.0, 1.0, dom.nnalls),
        "half": 0.5,
        "ptiny": 1.0 / 128.0,
        "jp": dom.jp,
    }


def _del_dot_plan(size: int) -> list[Launch]:
    dom = domain_2d(size)
    args = ("x", "y", "xdot", "ydot", "div", "real_zones", "half", "ptiny", "jp", "n")
    return [Launch("del_dot_vec_2d", dom.n_real_zones, GROUP, args, {"n": dom.n_real_zones})]


def _del_dot_cpu(grid: Grid, x, y, xdot, ydot, div, real_zones, half, ptiny, jp, n) -> None:
    i = real_zones[:n].astype(np.int64)
    c1, c2, c3, c4 = i + 1, i + 1 + jp, i + jp, i
    xi = half * (x[c1] + x[c2] - x[c3] - x[c4])
    xj = half * (x[c2] + x[c3] - x[c4] - x[c1])
    yi = half * (y[c1] + y[c2] - y[c3] - y[c4])
    yj = half * (y[c2] + y[c3] - y[c4] - y[c1])
    fxi = half * (xdot[c1] + xdot[c2] - xdot[c3] - xdot[c4])
    fxj = half * (xdot[c2] + xdot[c3] - xdot[c4] - xdot[c1])
    fyi = half * (ydot[c1] + ydot[c2] - ydot[c3] - ydot[c4])
    fyj = half * (ydot[c2] + ydot[c3] - ydot[c4] - ydot[c1])
    rarea = 1.0 / (xi * yj - xj * yi + ptiny)
    dfxdx = rarea * (fxi * yj - fxj * yi)
    dfydy = rarea * (fyj * xi - fyi * xj)
    affine = (ydot[c1] + ydot[c2] + ydot[c3] + ydot[c4]) / (y[c1] + y[c2] + y[c3] + y[c4])
    div[i] = dfxdx + dfydy + affine


def _del_dot_traffic(size: int, real_bytes: int) -> Traffic:
    dom = domain_2d(size)
    return Traffic(
        read=INDEX_BYTES * dom.n_real_zones + 4 * real_bytes * dom.n_real_nodes,
        write=real_bytes * dom.n_real_zones,
    )


_DEL_DOT_ARGS = ("x", "y", "xdot", "ydot", "div", "real_zones", "half", "ptiny", "jp")


def _del_dot_reference(inputs: dict) -> dict:
    a = wide(inputs)
    n = a["real_zones"].size
    _del_dot_cpu(None, *(a[k] for k in _DEL_DOT_ARGS), n)
    return {"div": a["div"]}


def _nodal_length_2d(size: int) -> int:
    return domain_2d(size).nnalls


def _zones_2d(size: int) -> int:
    return domain_2d(size).n_real_zones


KERNEL = KernelSpec(
    name="Apps_DEL_DOT_VEC_2D",
    group=GROUP_NAME,
    summary="divergence of a 2-D nodal vector field on the real zones of a mesh",
    arrays=(
        real("x", _nodal_length_2d),
        real("y", _nodal_length_2d),
        real("xdot", _nodal_length_2d),
        real("ydot", _nodal_length_2d),
        real("div", _nodal_length_2d, "out"),
        Array("real_zones", INDEX, _zones_2d),
    ),
    scalars=(Scalar("half", "real"), Scalar("ptiny", "real"), JP, N),
    plan=_del_dot_plan,
    init=_del_dot_init,
    reference=_del_dot_reference,
    cpu={"del_dot_vec_2d": _del_dot_cpu},
    traffic=_del_dot_traffic,
    flops=lambda size: 54 * domain_2d(size).n_real_zones,
    default_reps=100,
    check_size=12_000,
    # div sums terms that can nearly cancel; a compiler that fuses their products
    # (NVRTC and nvcc do by default) rounds them differently, off by an ulp of the
    # terms, not of the sum: a floor, not a global switch against fusing.
    tolerance=Tolerance(NORMAL.f64, NORMAL.f32, floor=1e-3),
    check_cases=(
        CheckCase(
            "moved_nodes",
            _del_dot_check_init,
            "RAJAPerf's regular mesh zeroes xj and yi and so every term they "
            "multiply; these move the nodes, add noise to the velocity and weigh ptiny",
        ),
    ),
    check_sizes=(12_000, MESH_CHECK_SIZE),
)

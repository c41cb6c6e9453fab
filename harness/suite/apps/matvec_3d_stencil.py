"""Apps_MATVEC_3D_STENCIL (RAJAPerf's MATVEC_3D_STENCIL.cpp): b = A x, A a 27-point stencil."""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import NORMAL, Array, CheckCase, Grid, KernelSpec, Launch, Traffic
from harness.suite.apps.mesh import INDEX, INDEX_BYTES, domain_3d
from harness.suite.apps.shared import (
    GROUP_NAME,
    JP,
    KP,
    MESH_CHECK_SIZE,
    real,
    wide,
    zonal_length_3d,
    zones_3d,
)
from harness.suite.forall import GROUP, N

#: The 27 coefficients in RAJAPerf's order: plane d(own), c(entre), u(p); row
#: b(ack), c(entre), f(ront); column l(eft), c(entre), r(ight).
_MATVEC_NAMES = tuple(k + j + i for k in "dcu" for j in "bcf" for i in "lcr")
#: The stored ones, in setUp order: the centre and the 13 before it.
_MATVEC_STORED = _MATVEC_NAMES[:14]


def _matvec_terms(jp: int, kp: int) -> list[tuple[str, int, int]]:
    """The 27 terms coeff[i + c] * x[i + o] of b[i] as (coeff, c, o), in RAJAPerf's order.

    The 14 stored arrays are read at c = 0; the other 13 coefficients are
    RAJAPerf's aliases of the mirrored stored array shifted by the same offset
    as x (the matrix is symmetric), so for them c = o.
    """
    offsets = [i + j * jp + k * kp for k in (-1, 0, 1) for j in (-1, 0, 1) for i in (-1, 0, 1)]
    terms = []
    for t, off in enumerate(offsets):
        if t < len(_MATVEC_STORED):
            terms.append((_MATVEC_NAMES[t], 0, off))
        else:
            terms.append((_MATVEC_NAMES[len(offsets) - 1 - t], off, off))
    return terms


def _matvec_init(size: int, seed: int, precision: str) -> dict:
    dom = domain_3d(size)
    length = dom.lpz + 1
    d = DataInit()
    out = {"b": d.const(length, 0.0), "x": d.data(length)}
    out.update((name, d.data(length)) for name in _MATVEC_STORED)
    d.const(dom.n_real_zones, -1)  # real_zones
    out.update(real_zones=dom.real_zones(), jp=dom.jp, kp=dom.kp)
    return out


def _matvec_check_init(size: int, seed: int, precision: str) -> dict:
    """RAJAPerf's inputs, with x and every stored coefficient independent random values."""
    out = _matvec_init(size, seed, precision)
    rng = np.random.default_rng(seed)
    for name in ("x", *_MATVEC_STORED):
        out[name] = rng.uniform(0.5, 1.5, out[name].size)
    return out


def _matvec_plan(size: int) -> list[Launch]:
    dom = domain_3d(size)
    args = ("b", "x", *_MATVEC_STORED, "real_zones", "jp", "kp", "n")
    return [Launch("matvec_3d_stencil", dom.n_real_zones, GROUP, args, {"n": dom.n_real_zones})]


def _matvec_cpu(grid: Grid, b, x, *rest) -> None:
    stored = dict(zip(_MATVEC_STORED, rest, strict=False))
    real_zones, jp, kp, n = rest[len(_MATVEC_STORED) :]
    i = real_zones[:n].astype(np.int64)
    acc = np.zeros(i.size, dtype=b.dtype)
    for name, c, o in _matvec_terms(int(jp), int(kp)):
        acc += stored[name][i + c] * x[i + o]
    b[i] = acc


def _matvec_traffic(size: int, real_bytes: int) -> Traffic:
    dom = domain_3d(size)
    zones = dom.hi - dom.lo

    def extra(di: int, dj: int, dk: int) -> int:
        return (zones + di) * (zones + dj) * (zones + dk)

    def matrix(si: int, sj: int, sk: int) -> int:
        return extra(0, 0, 0) + extra(0, 0, 0) - (zones - si) * (zones - sj) * (zones - sk)

    shifts = (
        (0, 0, 0),
        (1, 0, 0),
        (1, 1, 0),
        (0, 1, 0),
        (1, 1, 0),
        (1, 1, 1),
        (0, 1, 1),
        (1, 1, 1),
        (1, 0, 1),
        (0, 0, 1),
        (1, 0, 1),
        (1, 1, 1),
        (0, 1, 1),
        (1, 1, 1),
    )
    matrix_accessed = sum(matrix(*s) for s in shifts)
    return Traffic(
        read=INDEX_BYTES * dom.n_real_zones + real_bytes * (extra(2, 2, 2) + matrix_accessed),
        write=real_bytes * extra(0, 0, 0),
    )


def _matvec_reference(inputs: dict) -> dict:
    a = wide(inputs)
    arrays = (a[k] for k in ("b", "x", *_MATVEC_STORED, "real_zones"))
    _matvec_cpu(None, *arrays, a["jp"], a["kp"], a["real_zones"].size)
    return {"b": a["b"]}


KERNEL = KernelSpec(
    name="Apps_MATVEC_3D_STENCIL",
    group=GROUP_NAME,
    summary="b = A x for a symmetric 27-point stencil matrix on the real zones of a mesh",
    arrays=(
        real("b", zonal_length_3d, "out"),
        real("x", zonal_length_3d),
        *(real(name, zonal_length_3d) for name in _MATVEC_STORED),
        Array("real_zones", INDEX, zones_3d),
    ),
    scalars=(JP, KP, N),
    plan=_matvec_plan,
    init=_matvec_init,
    reference=_matvec_reference,
    cpu={"matvec_3d_stencil": _matvec_cpu},
    traffic=_matvec_traffic,
    flops=lambda size: 53 * domain_3d(size).n_real_zones,
    default_reps=100,
    check_size=10_000,
    tolerance=NORMAL,
    check_cases=(
        CheckCase(
            "random",
            _matvec_check_init,
            "RAJAPerf's fill alternates two factors by array, so half the coefficients "
            "equal one another and the rest equal x: a term that reads the wrong one "
            "matched; here each is its own",
        ),
    ),
    check_sizes=(10_000, MESH_CHECK_SIZE),
)

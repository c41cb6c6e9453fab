"""Apps_ZONAL_ACCUMULATION_3D (RAJAPerf's ZONAL_ACCUMULATION_3D.cpp): node averages to zones."""

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
    nodal_length_3d,
    real,
    wide,
    zonal_length_3d,
    zones_3d,
)
from harness.suite.forall import GROUP, N


def _zonal_init(size: int, seed: int, precision: str) -> dict:
    dom = domain_3d(size)
    d = DataInit()
    out = {"x": d.const(dom.nnalls, 1.0), "vol": d.const(dom.lpz + 1, 0.0)}
    d.const(dom.n_real_zones, -1)  # real_zones
    out.update(real_zones=dom.real_zones(), jp=dom.jp, kp=dom.kp)
    return out


def _zonal_check_init(size: int, seed: int, precision: str) -> dict:
    """ZONAL_ACCUMULATION_3D with distinct node values and zones starting non-zero.

    RAJAPerf's nodes are all 1, so every real zone gets 1 whichever nodes it
    reads; here each node has its own value (positive, so no sum cancels) and
    the zones keep theirs until written, so a zone written that should not be
    shows too.
    """
    out = _zonal_init(size, seed, precision)
    rng = np.random.default_rng(seed)
    out["x"] = rng.uniform(0.5, 1.5, out["x"].size)
    out["vol"] = rng.uniform(-1.0, 1.0, out["vol"].size)
    return out


def _zonal_plan(size: int) -> list[Launch]:
    items = domain_3d(size).n_real_zones
    args = ("x", "vol", "real_zones", "jp", "kp", "n")
    return [Launch("zonal_accumulation_3d", items, GROUP, args, {"n": items})]


def _zonal_cpu(grid: Grid, x, vol, real_zones, jp, kp, n) -> None:
    i = real_zones[:n].astype(np.int64)
    total = x[i]
    for corner in (1, jp, 1 + jp, kp, 1 + kp, jp + kp, 1 + jp + kp):
        total = total + x[i + corner]
    vol[i] = 0.125 * total


def _zonal_traffic(size: int, real_bytes: int) -> Traffic:
    dom = domain_3d(size)
    return Traffic(
        read=INDEX_BYTES * dom.n_real_zones + real_bytes * dom.n_real_nodes,
        write=real_bytes * dom.n_real_zones,
    )


def _zonal_reference(inputs: dict) -> dict:
    a = wide(inputs)
    n = a["real_zones"].size
    _zonal_cpu(None, a["x"], a["vol"], a["real_zones"], a["jp"], a["kp"], n)
    return {"vol": a["vol"]}


KERNEL = KernelSpec(
    name="Apps_ZONAL_ACCUMULATION_3D",
    group=GROUP_NAME,
    summary="each real zone's value is the average of its 8 nodes'",
    arrays=(
        real("x", nodal_length_3d),
        real("vol", zonal_length_3d, "inout"),
        Array("real_zones", INDEX, zones_3d),
    ),
    scalars=(JP, KP, N),
    plan=_zonal_plan,
    init=_zonal_init,
    reference=_zonal_reference,
    cpu={"zonal_accumulation_3d": _zonal_cpu},
    traffic=_zonal_traffic,
    flops=lambda size: 8 * domain_3d(size).n_real_zones,
    default_reps=100,
    check_size=10_000,
    tolerance=NORMAL,
    check_cases=(
        CheckCase(
            "random",
            _zonal_check_init,
            "RAJAPerf's nodes are all 1, so every zone gets 1 from any 8 nodes; "
            "these are random, and zones start non-zero",
        ),
    ),
    check_sizes=(10_000, MESH_CHECK_SIZE),
)

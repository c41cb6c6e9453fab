"""Apps_NODAL_ACCUMULATION_3D (RAJAPerf's NODAL_ACCUMULATION_3D.cpp): atomic adds to nodes."""

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


def _nodal_init(size: int, seed: int, precision: str) -> dict:
    dom = domain_3d(size)
    d = DataInit()
    out = {"x": d.const(dom.nnalls, 0.0), "vol": d.const(dom.lpz + 1, 1.0)}
    d.const(dom.n_real_zones, -1)  # real_zones
    out.update(real_zones=dom.real_zones(), jp=dom.jp, kp=dom.kp)
    return out


def _nodal_check_init(size: int, seed: int, precision: str) -> dict:
    """NODAL_ACCUMULATION_3D with distinct volumes, non-zero nodes and a hot zone.

    RAJAPerf's volumes are all 1 and its nodes start at 0, so val = vol / 8
    equals vol * 8 and an add equals a store. Here volumes and starting values
    are random multiples of 1/64 (every sum is exact in either precision, in
    any order); one zone in eight has volume 0, whose adds leave a node's bits
    as they were (a compare-and-swap loop that retries after a success then
    never ends); and every other entry of real_zones is one zone, so its 8
    nodes are added to by thousands of work-items at once and a loop that
    drops or repeats an add under contention shows.
    """
    dom = domain_3d(size)
    rng = np.random.default_rng(seed)
    zones = dom.real_zones()
    vol = rng.integers(32, 97, dom.lpz + 1) / 64.0
    vol[zones[1::8]] = 0.0
    zones[::2] = zones[rng.integers(zones.size)]
    return {
        "x": rng.integers(-64, 65, dom.nnalls) / 64.0,
        "vol": vol,
        "real_zones": zones,
        "jp": dom.jp,
        "kp": dom.kp,
    }


def _nodal_plan(size: int) -> list[Launch]:
    dom = domain_3d(size)
    args = ("x", "vol", "real_zones", "jp", "kp", "n")
    items = dom.n_real_zones
    return [Launch("nodal_accumulation_3d", items, GROUP, args, {"n": items})]


def _nodal_cpu(grid: Grid, x, vol, real_zones, jp, kp, n) -> None:
    i = real_zones[:n].astype(np.int64)
    val = 0.125 * vol[i]
    for dk in (0, 1):
        for dj in (0, 1):
            for di in (0, 1):
                # A zone listed twice adds twice, as the atomic adds do.
                np.add.at(x, i + di + dj * jp + dk * kp, val)


def _nodal_traffic(size: int, real_bytes: int) -> Traffic:
    dom = domain_3d(size)
    return Traffic(
        read=(INDEX_BYTES + real_bytes) * dom.n_real_zones,
        atomic_modify_write=real_bytes * dom.n_real_nodes,
    )


def _nodal_reference(inputs: dict) -> dict:
    a = wide(inputs)
    n = a["real_zones"].size
    _nodal_cpu(None, a["x"], a["vol"], a["real_zones"], a["jp"], a["kp"], n)
    return {"x": a["x"]}


KERNEL = KernelSpec(
    name="Apps_NODAL_ACCUMULATION_3D",
    group=GROUP_NAME,
    summary="each real zone adds an eighth of its volume to its 8 nodes, atomically",
    arrays=(
        real("x", nodal_length_3d, "inout"),
        real("vol", zonal_length_3d),
        Array("real_zones", INDEX, zones_3d),
    ),
    scalars=(JP, KP, N),
    plan=_nodal_plan,
    init=_nodal_init,
    reference=_nodal_reference,
    cpu={"nodal_accumulation_3d": _nodal_cpu},
    traffic=_nodal_traffic,
    flops=lambda size: 9 * domain_3d(size).n_real_zones,
    default_reps=100,
    check_size=10_000,
    tolerance=NORMAL,
    check_cases=(
        CheckCase(
            "hot_zone",
            _nodal_check_init,
            "RAJAPerf's volumes are all 1 and its nodes start at 0; these are "
            "distinct, some 0, and half the work-items add to one zone's nodes at once",
        ),
    ),
    check_sizes=(10_000, MESH_CHECK_SIZE),
    features=frozenset({"atomics"}),
    # Doubles are added by a 64-bit compare-and-swap loop.
    precision_features={"f64": frozenset({"atomics64"})},
    rajaperf_features=("Forall", "Atomic"),
)

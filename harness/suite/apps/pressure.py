"""Apps_PRESSURE (RAJAPerf's PRESSURE.cpp): pressure with cut-offs, in two loops."""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit, registered
from harness.model.spec import NORMAL, CheckCase, Grid, KernelSpec, Launch, Scalar, Traffic
from harness.suite.apps.shared import GROUP_NAME, real, wide
from harness.suite.forall import FORALL_CHECK_SIZES, GROUP, N, per_item


def _pressure_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    out = {
        "compression": d.data(size),
        "bvc": d.data(size),
        "p_new": d.const(size, 0.0),
        "e_old": d.data(size),
        "vnewc": d.data(size),
    }
    for name in ("cls", "p_cut", "pmin", "eosvmax"):
        out[name] = d.scalar()
    return out


def _pressure_plan(size: int) -> list[Launch]:
    values = {"n": size}
    return [
        Launch("pressure1", size, GROUP, ("compression", "bvc", "cls", "n"), values),
        Launch(
            "pressure2",
            size,
            GROUP,
            ("bvc", "p_new", "e_old", "vnewc", "p_cut", "pmin", "eosvmax", "n"),
            values,
        ),
    ]


def _pressure1_cpu(grid: Grid, compression, bvc, cls, n) -> None:
    bvc[:n] = cls * (compression[:n] + 1.0)


def _pressure2_cpu(grid: Grid, bvc, p_new, e_old, vnewc, p_cut, pmin, eosvmax, n) -> None:
    p = bvc[:n] * e_old[:n]
    p = np.where(np.abs(p) < p_cut, 0.0, p)
    p = np.where(vnewc[:n] >= eosvmax, 0.0, p)
    p_new[:n] = np.where(p < pmin, pmin, p)


#: The check case's scalars: bvc = cls (compression + 1) is a multiple of 1/32
#: and e_old one of 1/64, so p = bvc e_old is exact in float32 and float64 and
#: lands on p_cut (or pmin) exactly where it is planted to. pmin < -p_cut, so
#: both the values p_cut zeroes and those pmin raises are seen.
_PRESSURE_CHECK_SCALARS = {"cls": 0.5, "p_cut": 0.375, "pmin": -1.0, "eosvmax": 1.0}


def _pressure_check_init(size: int, seed: int, precision: str) -> dict:
    """PRESSURE inputs on which every cut-off of pressure2 goes both ways.

    RAJAPerf's inputs make every p_new equal pmin: |bvc e_old| is below p_cut
    and vnewc at or above eosvmax everywhere. Here bvc e_old spans [-6, 6]
    (both signs, either side of p_cut and pmin), vnewc either side of eosvmax,
    and a tenth of the elements each sit exactly on p_cut (either sign) and on
    eosvmax, so ``<`` and ``<=`` differ.
    """
    rng = np.random.default_rng(seed)
    s = _PRESSURE_CHECK_SCALARS
    compression = rng.integers(-16, 49, size) / 16.0
    e_old = rng.integers(-256, 257, size) / 64.0
    vnewc = rng.integers(8, 25, size) / 16.0
    at_cut = rng.random(size) < 0.1
    bvc = rng.choice([0.375, 0.75, 1.5], size)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    compression[at_cut] = (bvc / s["cls"] - 1.0)[at_cut]
    e_old[at_cut] = (sign * s["p_cut"] / bvc)[at_cut]
    vnewc[rng.random(size) < 0.1] = s["eosvmax"]
    return {
        "compression": compression,
        "bvc": rng.uniform(-1.0, 1.0, size),
        "p_new": rng.uniform(-1.0, 1.0, size),
        "e_old": e_old,
        "vnewc": vnewc,
        **s,
    }


def _pressure_reference(inputs: dict) -> dict:
    a = wide(inputs)
    n = a["p_new"].size
    _pressure1_cpu(None, a["compression"], a["bvc"], a["cls"], n)
    _pressure2_cpu(
        None, a["bvc"], a["p_new"], a["e_old"], a["vnewc"], a["p_cut"], a["pmin"], a["eosvmax"], n
    )
    return {"bvc": a["bvc"], "p_new": a["p_new"]}


KERNEL = KernelSpec(
    name="Apps_PRESSURE",
    group=GROUP_NAME,
    summary="pressure from energy and compression with cut-offs, in two loops",
    arrays=(
        real("compression", per_item),
        real("bvc", per_item, "out"),
        real("p_new", per_item, "out"),
        real("e_old", per_item),
        real("vnewc", per_item),
    ),
    scalars=(
        Scalar("cls", "real"),
        Scalar("p_cut", "real"),
        Scalar("pmin", "real"),
        Scalar("eosvmax", "real"),
        N,
    ),
    plan=_pressure_plan,
    init=_pressure_init,
    reference=_pressure_reference,
    cpu={"pressure1": _pressure1_cpu, "pressure2": _pressure2_cpu},
    traffic=lambda n, b: Traffic(read=4 * b * n, write=2 * b * n),
    flops=lambda n: 3 * n,
    default_reps=700,
    tolerance=NORMAL,
    check_cases=(
        CheckCase(
            "branches",
            _pressure_check_init,
            "RAJAPerf's p_new are all pmin; these put bvc e_old either side of and "
            "exactly on p_cut and pmin, and vnewc either side of and on eosvmax",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
    # RAJAPerf registers p_new only; bvc is verified but not in the checksum.
    checksum=registered(arrays=("p_new",)),
)

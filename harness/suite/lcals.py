"""RAJAPerf's Lcals group (src/lcals/*.cpp)."""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import (
    EXACT,
    NORMAL,
    Array,
    CheckCase,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Traffic,
)
from harness.suite.forall import FORALL_CHECK_SIZES, GROUP, as_f64, one_launch, per_item
from harness.suite.scan import CHUNKED_CHECK_SIZES, chunking, partial_groups

GROUP_NAME = "Lcals"


# --- HYDRO_1D -----------------------------------------------------------------


def _hydro_1d_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {
        "x": d.const(size, 0.0),
        "y": d.data(size),
        "z": d.data(size + 1),
        "q": d.scalar(),
        "r": d.scalar(),
        "t": d.scalar(),
    }


def _hydro_1d_check_init(size: int, seed: int, precision: str) -> dict:
    """Random y and z of both signs and distinct q, r, t; q keeps x in [1, 4], away from 0."""
    rng = np.random.default_rng(seed)
    r, t = rng.uniform(0.25, 0.5, 2) * np.array([1.0, -1.0])
    return {
        "x": np.zeros(size),
        "y": rng.uniform(-1.0, 1.0, size),
        "z": rng.uniform(-1.0, 1.0, size + 1),
        "q": rng.uniform(2.0, 3.0),
        "r": r,
        "t": t,
    }


def _hydro_1d_cpu(grid: Grid, x, y, z, q, r, t, n: int) -> None:
    # RAJAPerf reads z[i+10] and z[i+11] through a pointer shifted by -10:
    # elements i and i+1 of the stored array of n+1.
    x[:n] = q + y[:n] * (r * z[:n] + t * z[1 : n + 1])


def _hydro_1d_reference(x: dict) -> dict:
    z = as_f64(x["z"])
    q, r, t = float(x["q"]), float(x["r"]), float(x["t"])
    return {"x": q + as_f64(x["y"]) * (r * z[:-1] + t * z[1:])}


HYDRO_1D = KernelSpec(
    name="Lcals_HYDRO_1D",
    group=GROUP_NAME,
    summary="x[i] = q + y[i] * (r * z[i+10] + t * z[i+11]), z shifted by -10",
    arrays=(
        Array("x", "real", per_item, "out"),
        Array("y", "real", per_item),
        Array("z", "real", lambda n: n + 1),
    ),
    scalars=(Scalar("q", "real"), Scalar("r", "real"), Scalar("t", "real"), Scalar("n", "u32")),
    plan=one_launch("hydro_1d", ("x", "y", "z", "q", "r", "t")),
    init=_hydro_1d_init,
    reference=_hydro_1d_reference,
    cpu={"hydro_1d": _hydro_1d_cpu},
    traffic=lambda n, b: Traffic(read=(2 * n + 1) * b, write=n * b),
    flops=lambda n: 5 * n,
    default_reps=1000,
    tolerance=NORMAL,
    check_cases=(
        CheckCase(
            "random",
            _hydro_1d_check_init,
            "RAJAPerf's q equals t and y and z vary by under 2%, so swapped or shifted "
            "terms barely show; these are random y, z of both signs and distinct q, r, t",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


# --- FIRST_MIN ----------------------------------------------------------------


def _first_min_plan(size: int) -> list[Launch]:
    groups, chunk = chunking(size)
    return [
        Launch(
            "first_min_partial",
            groups * GROUP,
            GROUP,
            ("x", "block_val", "block_loc", "xmin_init", "initloc", "n", "chunk"),
            {"n": size, "chunk": chunk},
        ),
        Launch(
            "first_min_final",
            GROUP,
            GROUP,
            ("block_val", "block_loc", "minloc", "xmin_init", "initloc", "count"),
            {"count": groups},
        ),
    ]


def _first_min_inputs(x: np.ndarray) -> dict:
    """FIRST_MIN's arrays and scalars around its values ``x``: empty partials, and
    RAJAPerf's initial minimum (x[0] at location 0)."""
    groups = partial_groups(x.size)
    return {
        "x": x,
        "block_val": np.zeros(groups),
        "block_loc": np.zeros(groups, dtype=np.int32),
        "minloc": np.full(1, -1, dtype=np.int32),
        "xmin_init": x[0],
        "initloc": 0,
    }


def _first_min_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    x = d.const(size, 0.0)
    x[size // 2] = -1.0e10
    return _first_min_inputs(x)


def _first_min_ties_init(size: int, seed: int, precision: str) -> dict:
    """Small random integers, so the minimum recurs in many groups and work-items.

    x[0] is above the minimum, so the first minimum is not the initial location.
    """
    rng = np.random.default_rng(seed)
    x = rng.integers(-32, 32, size).astype(np.float64)
    x[0] = 32.0
    return _first_min_inputs(x)


def _first_min_last_init(size: int, seed: int, precision: str) -> dict:
    """Strictly decreasing values: the one minimum is the last element of the last range."""
    x = np.arange(size, 0, -1, dtype=np.float64)
    return _first_min_inputs(x)


def _first_min_none_init(size: int, seed: int, precision: str) -> dict:
    """Every value +inf: none beats the initial (xmin_init, initloc), which must win."""
    x = np.full(size, np.inf)
    return _first_min_inputs(x)


def _better(val, loc, than_val, than_loc):
    """Whether (val, loc) wins a minloc: smaller value, or equal value and earlier."""
    return (val < than_val) | ((val == than_val) & (loc < than_loc))


def _first_min_partial_cpu(grid: Grid, x, block_val, block_loc, xmin_init, initloc, n, chunk):
    groups = grid.groups
    padded = np.full(groups * chunk, np.inf, dtype=x.dtype)
    padded[:n] = x[:n]
    rows = padded.reshape(groups, chunk)
    first = np.argmin(rows, axis=1)
    vals = rows[np.arange(groups), first]
    locs = first + chunk * np.arange(groups)
    keep = _better(vals, locs, xmin_init, initloc)
    block_val[:groups] = np.where(keep, vals, xmin_init)
    block_loc[:groups] = np.where(keep, locs, initloc)


def _first_min_final_cpu(grid: Grid, block_val, block_loc, minloc, xmin_init, initloc, count):
    vals, locs = block_val[:count], block_loc[:count]
    best = np.lexsort((locs, vals))[0]
    minloc[0] = locs[best] if _better(vals[best], locs[best], xmin_init, initloc) else initloc


def _first_min_reference(x: dict) -> dict:
    values = as_f64(x["x"])
    first = int(np.argmin(values))
    loc = first if values[first] < float(x["xmin_init"]) else int(x["initloc"])
    return {"minloc": np.array([loc], dtype=np.int32)}


FIRST_MIN = KernelSpec(
    name="Lcals_FIRST_MIN",
    group=GROUP_NAME,
    summary="minloc of x (first index of the minimum), a two-pass reduction",
    arrays=(
        Array("x", "real", per_item),
        Array("block_val", "real", partial_groups, "scratch"),
        Array("block_loc", "i32", partial_groups, "scratch"),
        Array("minloc", "i32", lambda n: 1, "out"),
    ),
    scalars=(
        Scalar("xmin_init", "real"),
        Scalar("initloc", "i32"),
        Scalar("n", "u32"),
        Scalar("chunk", "u32"),
        Scalar("count", "u32"),
    ),
    plan=_first_min_plan,
    init=_first_min_init,
    reference=_first_min_reference,
    cpu={"first_min_partial": _first_min_partial_cpu, "first_min_final": _first_min_final_cpu},
    traffic=lambda n, b: Traffic(read=n * b),
    flops=lambda n: 0,
    default_reps=100,
    tolerance=EXACT,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Forall", "Reduction"),
    checksum=lambda out: abs(float(out["minloc"][0])),
    check_cases=(
        CheckCase(
            "ties",
            _first_min_ties_init,
            "RAJAPerf's minimum is unique, so which of equal values wins never shows; "
            "here the minimum recurs across groups and work-items, not at x[0]",
        ),
        CheckCase(
            "last",
            _first_min_last_init,
            "RAJAPerf's minimum is mid-array; here it is the very last element, so a "
            "range that stops one short of its end misses it",
        ),
        CheckCase(
            "none",
            _first_min_none_init,
            "every value is +inf, so the initial location must win and a read past "
            "the end (the guard's huge finite value) would",
        ),
    ),
    check_sizes=CHUNKED_CHECK_SIZES,
)


KERNELS = (HYDRO_1D, FIRST_MIN)

"""RAJAPerf's Lcals group (src/lcals/*.cpp)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from harness.model.rajaperf import DataInit, registered
from harness.model.rajaperf import checksum as array_checksum
from harness.model.spec import (
    EXACT,
    NORMAL,
    TIGHT,
    Array,
    CheckCase,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Tolerance,
    Traffic,
)
from harness.suite.forall import FORALL_CHECK_SIZES, GROUP, N, as_f64, one_launch, per_item
from harness.suite.scan import (
    CHUNKED_CHECK_SIZES,
    CHUNKS_FIXED,
    MANY_PARTIALS_SIZE,
    chunking,
    partial_groups,
)

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
    """Small random integers, so the minimum recurs in many groups and work-items,
    and a run of it from its first place on, so that the work-item holding the
    first one (items stride by GROUP, or take a slice) meets it again after.

    x[0] is above the minimum, so the first minimum is not the initial location.
    """
    rng = np.random.default_rng(seed)
    x = rng.integers(-32, 32, size).astype(np.float64)
    x[0] = 32.0
    first = int(np.argmin(x))
    x[first : first + 2 * GROUP + 1] = x[first]
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
    fixed_group=CHUNKS_FIXED,
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
    checksum=registered(scalars=("minloc",)),
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
    # The fold launch's stride counts only past 256 partials (MANY_PARTIALS_SIZE).
    check_sizes=(*CHUNKED_CHECK_SIZES, MANY_PARTIALS_SIZE),
)


# --- DIFF_PREDICT ---------------------------------------------------------------

#: Planes of DIFF_PREDICT's px: RAJAPerf's planes 4 to 13 (its pointer is shifted
#: by -4 planes), each one problem size long.
DIFF_PREDICT_PLANES = 10


def _diff_predict_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"px": d.const(DIFF_PREDICT_PLANES * size, 0.0), "cx": d.data(size)}


def _diff_predict_check_init(size: int, seed: int, precision: str) -> dict:
    """Random negative px and positive cx: every plane differs from the others, and
    each difference adds magnitudes, so nothing cancels."""
    rng = np.random.default_rng(seed)
    return {
        "px": -rng.uniform(0.5, 1.5, DIFF_PREDICT_PLANES * size),
        "cx": rng.uniform(0.5, 1.5, size),
    }


def _diff_predict_sweep(px: np.ndarray, cx: np.ndarray, n: int) -> None:
    """RAJAPerf's body on px in place: each plane in turn takes the running value,
    which becomes its difference with the plane's old value; the last plane takes
    the final difference."""
    planes = px[: DIFF_PREDICT_PLANES * n].reshape(DIFF_PREDICT_PLANES, n)
    carry = cx[:n].copy()
    for plane in planes[:-1]:
        carry, plane[:] = carry - plane, carry
    planes[-1] = carry


def _diff_predict_cpu(grid: Grid, px, cx, n: int) -> None:
    _diff_predict_sweep(px, cx, n)


def _diff_predict_reference(x: dict) -> dict:
    px = as_f64(x["px"])
    _diff_predict_sweep(px, as_f64(x["cx"]), x["cx"].size)
    return {"px": px}


DIFF_PREDICT = KernelSpec(
    name="Lcals_DIFF_PREDICT",
    group=GROUP_NAME,
    summary="running differences of cx through px's planes 4 to 13 (plane stride n)",
    arrays=(
        Array("px", "real", lambda n: DIFF_PREDICT_PLANES * n, "inout"),
        Array("cx", "real", per_item),
    ),
    scalars=(N,),
    plan=one_launch("diff_predict", ("px", "cx")),
    init=_diff_predict_init,
    reference=_diff_predict_reference,
    cpu={"diff_predict": _diff_predict_cpu},
    traffic=lambda n, b: Traffic(read=n * b, write=n * b, modify_write=9 * n * b),
    flops=lambda n: 9 * n,
    default_reps=200,
    tolerance=NORMAL,
    check_cases=(
        CheckCase(
            "random",
            _diff_predict_check_init,
            "RAJAPerf's px starts at 0, so every plane ends equal to cx and a swapped or "
            "skipped plane cannot show; these are random planes",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


# --- EOS ----------------------------------------------------------------------

#: EOS reads u[i] to u[i+6]: u has this many elements past the problem size.
EOS_U_EXTRA = 6


def _eos_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {
        "x": d.const(size, 0.0),
        "y": d.data(size),
        "z": d.data(size),
        "u": d.data(size + EOS_U_EXTRA),
        "q": d.scalar(),
        "r": d.scalar(),
        "t": d.scalar(),
    }


def _eos_check_init(size: int, seed: int, precision: str) -> dict:
    """Random positive y, z, u and q, r, t from disjoint ranges near 1: every term
    weighs about as much as the others, and nothing cancels."""
    rng = np.random.default_rng(seed)
    return {
        "x": rng.uniform(-1.0, 1.0, size),
        "y": rng.uniform(0.5, 1.5, size),
        "z": rng.uniform(0.5, 1.5, size),
        "u": rng.uniform(0.5, 1.5, size + EOS_U_EXTRA),
        "q": rng.uniform(0.5, 0.7),
        "r": rng.uniform(0.8, 1.0),
        "t": rng.uniform(1.1, 1.3),
    }


def _eos(y, z, u, q, r, t, n: int):
    return (
        u[:n]
        + r * (z[:n] + r * y[:n])
        + t
        * (
            u[3 : n + 3]
            + r * (u[2 : n + 2] + r * u[1 : n + 1])
            + t * (u[6 : n + 6] + q * (u[5 : n + 5] + q * u[4 : n + 4]))
        )
    )


def _eos_cpu(grid: Grid, x, y, z, u, q, r, t, n: int) -> None:
    x[:n] = _eos(y, z, u, q, r, t, n)


def _eos_reference(x: dict) -> dict:
    q, r, t = (float(x[k]) for k in "qrt")
    y, z, u = (as_f64(x[k]) for k in "yzu")
    return {"x": _eos(y, z, u, q, r, t, y.size)}


EOS = KernelSpec(
    name="Lcals_EOS",
    group=GROUP_NAME,
    summary="x[i] = u[i] + r*(z[i] + r*y[i]) + t*(u[i+3] + ... u[i+6]), a 7-point polynomial",
    arrays=(
        Array("x", "real", per_item, "out"),
        Array("y", "real", per_item),
        Array("z", "real", per_item),
        Array("u", "real", lambda n: n + EOS_U_EXTRA),
    ),
    scalars=(Scalar("q", "real"), Scalar("r", "real"), Scalar("t", "real"), N),
    plan=one_launch("eos", ("x", "y", "z", "u", "q", "r", "t")),
    init=_eos_init,
    reference=_eos_reference,
    cpu={"eos": _eos_cpu},
    traffic=lambda n, b: Traffic(read=(3 * n + EOS_U_EXTRA) * b, write=n * b),
    flops=lambda n: 16 * n,
    default_reps=500,
    tolerance=NORMAL,
    check_cases=(
        CheckCase(
            "random",
            _eos_check_init,
            "RAJAPerf's q equals t, r is 0.1 and u varies by under 2%, so swapped "
            "scalars or neighbours barely show; these are random u and distinct q, r, t",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


# --- FIRST_DIFF ---------------------------------------------------------------


def _first_diff_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"x": d.const(size, 0.0), "y": d.rand_value(size + 1)}


def _first_diff_cpu(grid: Grid, x, y, n: int) -> None:
    x[:n] = y[1 : n + 1] - y[:n]


def _first_diff_reference(x: dict) -> dict:
    y = as_f64(x["y"])
    return {"x": y[1:] - y[:-1]}


FIRST_DIFF = KernelSpec(
    name="Lcals_FIRST_DIFF",
    group=GROUP_NAME,
    summary="x[i] = y[i+1] - y[i], y of n+1 random values",
    arrays=(Array("x", "real", per_item, "out"), Array("y", "real", lambda n: n + 1)),
    scalars=(N,),
    plan=one_launch("first_diff", ("x", "y")),
    init=_first_diff_init,
    reference=_first_diff_reference,
    cpu={"first_diff": _first_diff_cpu},
    traffic=lambda n, b: Traffic(read=(n + 1) * b, write=n * b),
    flops=lambda n: n,
    default_reps=2000,
    tolerance=TIGHT,
    check_sizes=FORALL_CHECK_SIZES,
)


# --- FIRST_SUM and TRIDIAG_ELIM: loops over i = 1 .. n-1 -------------------------


def from_one_length(size: int) -> int:
    """RAJAPerf's N for loops from i = 1: the size, at least 2."""
    return max(size, 2)


def _from_one_plan(entry: str, args: tuple[str, ...]) -> Callable[[int], list[Launch]]:
    """A plan of one launch over i = 1 .. n-1, passing n last; the kernel adds the 1."""

    def plan(size: int) -> list[Launch]:
        n = from_one_length(size)
        return [Launch(entry, n - 1, GROUP, (*args, "n"), {"n": n})]

    return plan


#: Check sizes of the loops from 1: odd, and n-1 a whole number of work-groups
#: and one past (4097, 4096).
FROM_ONE_CHECK_SIZES = (10_007, 4_097, 4_096)


def _first_sum_init(size: int, seed: int, precision: str) -> dict:
    n = from_one_length(size)
    d = DataInit()
    return {"x": d.const(n, 0.0), "y": d.data(n)}


def _first_sum_check_init(size: int, seed: int, precision: str) -> dict:
    """Random y of both signs and a stale x, whose x[0] must survive."""
    n = from_one_length(size)
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-1.0, 1.0, n), "y": rng.uniform(-1.0, 1.0, n)}


def _first_sum_cpu(grid: Grid, x, y, n: int) -> None:
    x[1:n] = y[: n - 1] + y[1:n]


def _first_sum_reference(x: dict) -> dict:
    out, y = as_f64(x["x"]), as_f64(x["y"])
    out[1:] = y[:-1] + y[1:]
    return {"x": out}


FIRST_SUM = KernelSpec(
    name="Lcals_FIRST_SUM",
    group=GROUP_NAME,
    summary="x[i] = y[i-1] + y[i] for i = 1 .. n-1 (x[0] kept)",
    arrays=(Array("x", "real", from_one_length, "inout"), Array("y", "real", from_one_length)),
    scalars=(N,),
    plan=_from_one_plan("first_sum", ("x", "y")),
    init=_first_sum_init,
    reference=_first_sum_reference,
    cpu={"first_sum": _first_sum_cpu},
    traffic=lambda n, b: Traffic(read=from_one_length(n) * b, write=(from_one_length(n) - 1) * b),
    flops=lambda n: from_one_length(n) - 1,
    default_reps=2000,
    tolerance=TIGHT,
    check_cases=(
        CheckCase(
            "random",
            _first_sum_check_init,
            "RAJAPerf's x starts at 0 and y varies by under 2%, so a write to x[0] or "
            "a neighbour read twice barely shows; here x is stale and y random",
        ),
    ),
    check_sizes=FROM_ONE_CHECK_SIZES,
)


def _tridiag_elim_init(size: int, seed: int, precision: str) -> dict:
    n = from_one_length(size)
    d = DataInit()
    return {"xout": d.const(n, 0.0), "xin": d.data(n), "y": d.data(n), "z": d.data(n)}


def _tridiag_elim_check_init(size: int, seed: int, precision: str) -> dict:
    """Random xin, y, z of both signs and a stale xout, whose xout[0] must survive."""
    n = from_one_length(size)
    rng = np.random.default_rng(seed)
    return {k: rng.uniform(-1.0, 1.0, n) for k in ("xout", "xin", "y", "z")}


def _tridiag_elim_cpu(grid: Grid, xout, xin, y, z, n: int) -> None:
    xout[1:n] = z[1:n] * (y[1:n] - xin[: n - 1])


def _tridiag_elim_reference(x: dict) -> dict:
    out, xin, y, z = (as_f64(x[k]) for k in ("xout", "xin", "y", "z"))
    out[1:] = z[1:] * (y[1:] - xin[:-1])
    return {"xout": out}


TRIDIAG_ELIM = KernelSpec(
    name="Lcals_TRIDIAG_ELIM",
    group=GROUP_NAME,
    summary="xout[i] = z[i] * (y[i] - xin[i-1]) for i = 1 .. n-1 (xout[0] kept)",
    arrays=(
        Array("xout", "real", from_one_length, "inout"),
        Array("xin", "real", from_one_length),
        Array("y", "real", from_one_length),
        Array("z", "real", from_one_length),
    ),
    scalars=(N,),
    plan=_from_one_plan("tridiag_elim", ("xout", "xin", "y", "z")),
    init=_tridiag_elim_init,
    reference=_tridiag_elim_reference,
    cpu={"tridiag_elim": _tridiag_elim_cpu},
    traffic=lambda n, b: Traffic(
        read=3 * (from_one_length(n) - 1) * b, write=(from_one_length(n) - 1) * b
    ),
    flops=lambda n: 2 * (from_one_length(n) - 1),
    default_reps=1000,
    tolerance=NORMAL,
    check_cases=(
        CheckCase(
            "random",
            _tridiag_elim_check_init,
            "RAJAPerf's xout starts at 0 and xin varies by under 2%, so a write to "
            "xout[0] or xin[i] read for xin[i-1] barely shows; these are random",
        ),
    ),
    check_sizes=FROM_ONE_CHECK_SIZES,
)


# --- GEN_LIN_RECUR ------------------------------------------------------------


def _gen_lin_recur_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"b5": d.const(size, 0.0), "stb5": d.data(size), "sa": d.data(size), "sb": d.data(size)}


def _gen_lin_recur_check_init(size: int, seed: int, precision: str) -> dict:
    """Random positive sa, stb5 and sb above 1, so stb5's update cannot cancel,
    and a stale b5."""
    rng = np.random.default_rng(seed)
    return {
        "b5": rng.uniform(-1.0, 1.0, size),
        "stb5": rng.uniform(0.5, 1.5, size),
        "sa": rng.uniform(0.5, 1.5, size),
        "sb": rng.uniform(1.5, 2.5, size),
    }


def _gen_lin_recur_step(b5, stb5, sa, sb, n: int) -> None:
    """One of RAJAPerf's two loops; each element is independent of the others, so
    loop 2's descending order (k = n - i) changes nothing."""
    b5[:n] = sa[:n] + stb5[:n] * sb[:n]
    stb5[:n] = b5[:n] - stb5[:n]


def _gen_lin_recur_cpu(grid: Grid, b5, stb5, sa, sb, n: int) -> None:
    _gen_lin_recur_step(b5, stb5, sa, sb, n)


def _gen_lin_recur_reference(x: dict) -> dict:
    b5, stb5, sa, sb = (as_f64(x[k]) for k in ("b5", "stb5", "sa", "sb"))
    for _ in range(2):
        _gen_lin_recur_step(b5, stb5, sa, sb, b5.size)
    return {"b5": b5, "stb5": stb5}


def _gen_lin_recur_plan(size: int) -> list[Launch]:
    args = ("b5", "stb5", "sa", "sb", "n")
    return [
        Launch("gen_lin_recur_1", size, GROUP, args, {"n": size}),
        Launch("gen_lin_recur_2", size, GROUP, args, {"n": size}),
    ]


GEN_LIN_RECUR = KernelSpec(
    name="Lcals_GEN_LIN_RECUR",
    group=GROUP_NAME,
    summary="b5[k] = sa[k] + stb5[k]*sb[k]; stb5[k] = b5[k] - stb5[k], over k up then down",
    arrays=(
        Array("b5", "real", per_item, "out"),
        Array("stb5", "real", per_item, "inout"),
        Array("sa", "real", per_item),
        Array("sb", "real", per_item),
    ),
    scalars=(N,),
    plan=_gen_lin_recur_plan,
    init=_gen_lin_recur_init,
    reference=_gen_lin_recur_reference,
    cpu={"gen_lin_recur_1": _gen_lin_recur_cpu, "gen_lin_recur_2": _gen_lin_recur_cpu},
    traffic=lambda n, b: Traffic(read=4 * n * b, write=2 * n * b, modify_write=2 * n * b),
    flops=lambda n: 6 * n,
    default_reps=500,
    tolerance=NORMAL,
    checksum=registered(arrays=("b5",)),
    check_cases=(
        CheckCase(
            "random",
            _gen_lin_recur_check_init,
            "RAJAPerf's sa, sb and stb5 vary by under 2% and sb is 0.1, so a neighbour "
            "read instead or a dropped product barely shows; these are random",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


# --- HYDRO_2D -----------------------------------------------------------------

HYDRO_2D_S = 0.0041
HYDRO_2D_T = 0.0037
#: The interior of an n x n grid; C order, so a[k][j] is element j + k*n.
_INNER = (slice(1, -1), slice(1, -1))
#: HYDRO_2D's arrays in RAJAPerf's setUp order, and those the kernels write
#: (za and zb are read at the boundary, where they keep their initial values).
HYDRO_2D_ARRAYS = ("zrout", "zzout", "za", "zb", "zm", "zp", "zq", "zr", "zu", "zv", "zz")
_HYDRO_2D_INTENTS = {
    "zrout": "out",
    "zzout": "out",
    "za": "inout",
    "zb": "inout",
    "zu": "inout",
    "zv": "inout",
}


def hydro_2d_edge(size: int) -> int:
    """RAJAPerf's kn = jn for a target size: kn * jn is about ``size``."""
    return int(math.sqrt(size) + math.sqrt(2) - 1)


def _hydro_2d_init(size: int, seed: int, precision: str) -> dict:
    cells = hydro_2d_edge(size) ** 2
    d = DataInit()
    x = {"zrout": d.const(cells, 0.0), "zzout": d.const(cells, 0.0)}
    for name in ("za", "zb", "zm", "zp", "zq", "zr", "zu", "zv", "zz"):
        x[name] = d.data(cells)
    return {**x, "s": HYDRO_2D_S, "t": HYDRO_2D_T}


def _hydro_2d_check_init(size: int, seed: int, precision: str) -> dict:
    """Independent random arrays (zm positive, a denominator) and s, t near 1/2,
    so every neighbour and every update weighs as much as the rest."""
    cells = hydro_2d_edge(size) ** 2
    rng = np.random.default_rng(seed)
    x = {name: rng.uniform(-1.0, 1.0, cells) for name in HYDRO_2D_ARRAYS}
    x["zm"] = rng.uniform(0.5, 1.5, cells)
    return {**x, "s": rng.uniform(0.4, 0.5), "t": rng.uniform(0.6, 0.7)}


def _hydro_2d_body1(za, zb, zm, zp, zq, zr) -> None:
    za[_INNER] = (
        (zp[2:, :-2] + zq[2:, :-2] - zp[1:-1, :-2] - zq[1:-1, :-2])
        * (zr[_INNER] + zr[1:-1, :-2])
        / (zm[1:-1, :-2] + zm[2:, :-2])
    )
    zb[_INNER] = (
        (zp[1:-1, :-2] + zq[1:-1, :-2] - zp[_INNER] - zq[_INNER])
        * (zr[_INNER] + zr[:-2, 1:-1])
        / (zm[_INNER] + zm[1:-1, :-2])
    )


def _hydro_2d_flux(za, zb, f):
    """The za/zb-weighted differences of f around each interior point."""
    c = f[_INNER]
    return (
        za[_INNER] * (c - f[1:-1, 2:])
        - za[1:-1, :-2] * (c - f[1:-1, :-2])
        - zb[_INNER] * (c - f[:-2, 1:-1])
        + zb[2:, 1:-1] * (c - f[2:, 1:-1])
    )


def _hydro_2d_body2(zu, zv, za, zb, zr, zz, s) -> None:
    zu[_INNER] += s * _hydro_2d_flux(za, zb, zz)
    zv[_INNER] += s * _hydro_2d_flux(za, zb, zr)


def _hydro_2d_body3(zrout, zzout, zr, zu, zv, zz, t) -> None:
    zrout[_INNER] = zr[_INNER] + t * zu[_INNER]
    zzout[_INNER] = zz[_INNER] + t * zv[_INNER]


def _grid_cpu(body: Callable[..., None]) -> Callable[..., None]:
    """A numpy entry point running ``body`` on n x n views of its arrays."""

    def entry(grid: Grid, *args) -> None:
        n = int(args[-1])
        arrays = [a[: n * n].reshape(n, n) for a in args if isinstance(a, np.ndarray)]
        scalars = [a for a in args[:-1] if not isinstance(a, np.ndarray)]
        body(*arrays, *scalars)

    return entry


def _hydro_2d_reference(x: dict) -> dict:
    n = math.isqrt(x["zz"].size)
    a = {name: as_f64(x[name]).reshape(n, n) for name in HYDRO_2D_ARRAYS}
    s, t = float(x["s"]), float(x["t"])
    _hydro_2d_body1(a["za"], a["zb"], a["zm"], a["zp"], a["zq"], a["zr"])
    _hydro_2d_body2(a["zu"], a["zv"], a["za"], a["zb"], a["zr"], a["zz"], s)
    _hydro_2d_body3(a["zrout"], a["zzout"], a["zr"], a["zu"], a["zv"], a["zz"], t)
    # za and zb are not compared: in f32 they are differences of neighbours that
    # agree to within rounding on RAJAPerf's inputs; zu and zv carry them.
    return {name: a[name].ravel() for name in ("zu", "zv", "zrout", "zzout")}


def hydro_2d_interior(size: int) -> int:
    """Points of the (kn-2) x (jn-2) interior each launch visits."""
    return max(hydro_2d_edge(size) - 2, 0) ** 2


#: RAJAPerf's thread block for HYDRO_2D: 32 along a row (j), 8 rows (k).
HYDRO_2D_GROUP = (32, 8)


def _hydro_2d_plan(size: int) -> list[Launch]:
    n = hydro_2d_edge(size)
    m = max(n - 2, 0)
    items = (m, m)
    bodies = (
        ("hydro_2d_body1", ("za", "zb", "zm", "zp", "zq", "zr", "n")),
        ("hydro_2d_body2", ("zu", "zv", "za", "zb", "zr", "zz", "s", "n")),
        ("hydro_2d_body3", ("zrout", "zzout", "zr", "zu", "zv", "zz", "t", "n")),
    )
    return [Launch(entry, items, HYDRO_2D_GROUP, args, {"n": n}) for entry, args in bodies]


def _hydro_2d_traffic(size: int, b: int) -> Traffic:
    n = hydro_2d_edge(size)
    inner = hydro_2d_interior(size)
    if not inner:
        return Traffic()
    read = 4 * ((n - 1) ** 2 - 1) + 2 * (n - 2) * (n - 1) + 2 * (n * n - 4) + 4 * inner
    return Traffic(read=read * b, write=4 * inner * b, modify_write=2 * inner * b)


HYDRO_2D = KernelSpec(
    name="Lcals_HYDRO_2D",
    group=GROUP_NAME,
    summary="2-D explicit hydrodynamics: za, zb fluxes, zu, zv += updates, zrout, zzout",
    arrays=tuple(
        Array(name, "real", lambda s: hydro_2d_edge(s) ** 2, _HYDRO_2D_INTENTS.get(name, "in"))
        for name in HYDRO_2D_ARRAYS
    ),
    scalars=(Scalar("s", "real"), Scalar("t", "real"), N),
    plan=_hydro_2d_plan,
    init=_hydro_2d_init,
    reference=_hydro_2d_reference,
    cpu={
        "hydro_2d_body1": _grid_cpu(_hydro_2d_body1),
        "hydro_2d_body2": _grid_cpu(_hydro_2d_body2),
        "hydro_2d_body3": _grid_cpu(_hydro_2d_body3),
    },
    traffic=_hydro_2d_traffic,
    flops=lambda s: 44 * hydro_2d_interior(s),
    default_reps=100,
    check_size=10_007,
    # The floor: in f32 the check case's zu and zv updates can cancel to near 0.
    tolerance=Tolerance(NORMAL.f64, NORMAL.f32, floor=1e-2),
    rajaperf_features=("Kernel",),
    checksum=registered(arrays=("zzout", "zrout")),
    check_cases=(
        CheckCase(
            "random",
            _hydro_2d_check_init,
            "RAJAPerf's arrays vary by under 2% between neighbours and s, t are near "
            "0.004, so a misplaced neighbour or update barely shows; these are random",
        ),
    ),
    # Edges 100, 18, 1 and 3: 98^2 interior points (part of a work-group along
    # each axis), 16^2 (two whole groups of rows, half a group along a row),
    # none, and one.
    check_sizes=(10_007, 310, 1, 7),
    group_size=HYDRO_2D_GROUP,
)


# --- INT_PREDICT --------------------------------------------------------------

#: Planes of INT_PREDICT's px, each one problem size long; plane 0 is the output.
INT_PREDICT_PLANES = 13
#: INT_PREDICT's coefficients, in RAJAPerf's setUp order.
INT_PREDICT_COEFFS = ("dm22", "dm23", "dm24", "dm25", "dm26", "dm27", "dm28", "c0")


def _int_predict_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    x = {"px": d.const(INT_PREDICT_PLANES * size, 1.0)}
    return {**x, **{name: d.scalar() for name in INT_PREDICT_COEFFS}}


def _int_predict_check_init(size: int, seed: int, precision: str) -> dict:
    """Random positive planes and eight distinct coefficients."""
    rng = np.random.default_rng(seed)
    coeffs = rng.permutation(np.linspace(0.2, 1.6, len(INT_PREDICT_COEFFS)))
    return {
        "px": rng.uniform(0.5, 1.5, INT_PREDICT_PLANES * size),
        **dict(zip(INT_PREDICT_COEFFS, coeffs, strict=True)),
    }


def _int_predict(px, n: int, dm22, dm23, dm24, dm25, dm26, dm27, dm28, c0):
    def p(k: int):
        return px[k * n : (k + 1) * n]

    return (
        dm28 * p(12)
        + dm27 * p(11)
        + dm26 * p(10)
        + dm25 * p(9)
        + dm24 * p(8)
        + dm23 * p(7)
        + dm22 * p(6)
        + c0 * (p(4) + p(5))
        + p(2)
    )


def _int_predict_cpu(grid: Grid, px, *args) -> None:
    *coeffs, n = args
    px[:n] = _int_predict(px, n, *coeffs)


def _int_predict_reference(x: dict) -> dict:
    px = as_f64(x["px"])
    n = px.size // INT_PREDICT_PLANES
    px[:n] = _int_predict(px, n, *(float(x[k]) for k in INT_PREDICT_COEFFS))
    return {"px": px}


INT_PREDICT = KernelSpec(
    name="Lcals_INT_PREDICT",
    group=GROUP_NAME,
    summary="px[i] = dm28*px[i+12n] + ... + c0*(px[i+4n] + px[i+5n]) + px[i+2n]",
    arrays=(Array("px", "real", lambda n: INT_PREDICT_PLANES * n, "inout"),),
    scalars=(*(Scalar(name, "real") for name in INT_PREDICT_COEFFS), N),
    plan=one_launch("int_predict", ("px", *INT_PREDICT_COEFFS)),
    init=_int_predict_init,
    reference=_int_predict_reference,
    cpu={"int_predict": _int_predict_cpu},
    traffic=lambda n, b: Traffic(read=10 * n * b, write=n * b),
    flops=lambda n: 17 * n,
    default_reps=400,
    tolerance=NORMAL,
    checksum=lambda out: array_checksum(out["px"][: out["px"].size // INT_PREDICT_PLANES]),
    check_cases=(
        CheckCase(
            "random",
            _int_predict_check_init,
            "RAJAPerf's px is 1.0 everywhere, so a swapped plane or coefficient cannot "
            "show; these are random planes and distinct coefficients",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


# --- PLANCKIAN ----------------------------------------------------------------

#: What the sources' exp of REAL needs (SPIR-V's exp is 32-bit only; PoCL's
#: double exp does not vectorise): log2(e), ln 2 split in two (fdlibm's, the
#: high part with 21 trailing zero bits), the Taylor terms for exp on
#: [-ln2/2, ln2/2], whose next is below 1e-17, and 1.5 * 2^52, which rounds a
#: double to an integer when added and leaves it in the low mantissa bits.
PLANCKIAN_CONSTANTS = {
    "LOG2E": 1.4426950408889634,
    "LN2_HI": 6.93147180369123816490e-01,
    "LN2_LO": 1.90821492927058770002e-10,
    "EXP_TERMS": 13,
    "EXP_SHIFT": 6755399441055744.0,
}


def _planckian_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    x = {name: d.data(size) for name in ("x", "y", "u", "v")}
    return {**x, "w": d.const(size, 0.0)}


def _planckian_check_init(size: int, seed: int, precision: str) -> dict:
    """Random u and v, so y = u/v spreads over [0.25, 4] (RAJAPerf's is 2 throughout),
    x of both signs, stale y and w."""
    rng = np.random.default_rng(seed)
    return {
        "x": rng.uniform(-1.5, 1.5, size),
        "y": rng.uniform(-1.0, 1.0, size),
        "u": rng.uniform(0.5, 2.0, size),
        "v": rng.uniform(0.5, 2.0, size),
        "w": rng.uniform(-1.0, 1.0, size),
    }


def _planckian_cpu(grid: Grid, x, y, u, v, w, n: int) -> None:
    y[:n] = u[:n] / v[:n]
    w[:n] = x[:n] / (np.exp(y[:n]) - 1.0)


def _planckian_reference(x: dict) -> dict:
    y = as_f64(x["u"]) / as_f64(x["v"])
    return {"y": y, "w": as_f64(x["x"]) / (np.exp(y) - 1.0)}


PLANCKIAN = KernelSpec(
    name="Lcals_PLANCKIAN",
    group=GROUP_NAME,
    summary="y[i] = u[i] / v[i]; w[i] = x[i] / (exp(y[i]) - 1)",
    arrays=(
        Array("x", "real", per_item),
        Array("y", "real", per_item, "out"),
        Array("u", "real", per_item),
        Array("v", "real", per_item),
        Array("w", "real", per_item, "out"),
    ),
    scalars=(N,),
    plan=one_launch("planckian", ("x", "y", "u", "v", "w")),
    constants=PLANCKIAN_CONSTANTS,
    init=_planckian_init,
    reference=_planckian_reference,
    cpu={"planckian": _planckian_cpu},
    traffic=lambda n, b: Traffic(read=3 * n * b, write=2 * n * b),
    flops=lambda n: 4 * n,
    default_reps=50,
    tolerance=NORMAL,
    checksum=registered(arrays=("w",)),
    check_cases=(
        CheckCase(
            "random",
            _planckian_check_init,
            "RAJAPerf's u/v is 2 everywhere, so swapping u and v or misusing y barely "
            "shows; these give y from 0.25 to 4",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


KERNELS = (
    DIFF_PREDICT,
    EOS,
    FIRST_DIFF,
    FIRST_MIN,
    FIRST_SUM,
    GEN_LIN_RECUR,
    HYDRO_1D,
    HYDRO_2D,
    INT_PREDICT,
    PLANCKIAN,
    TRIDIAG_ELIM,
)

"""RAJAPerf's Basic group (src/basic/*.cpp)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from harness.model.rajaperf import DataInit, registered
from harness.model.spec import (
    EXACT,
    NORMAL,
    Array,
    CheckCase,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Tolerance,
    Traffic,
    numpy_dtype,
)
from harness.suite.forall import FORALL_CHECK_SIZES, GROUP, N, as_f64, one_launch
from harness.suite.scan import (
    CHUNK,
    CHUNKED_CHECK_SIZES,
    CHUNKS_FIXED,
    COUNT,
    MANY_PARTIALS_SIZE,
    chunk_sums,
    chunked_launch,
    exclusive_sums,
    fold_launch,
    partial_groups,
    scan_chunks_in_place,
    scan_plan,
)

GROUP_NAME = "Basic"
INT_BYTES = 4


# --- DAXPY --------------------------------------------------------------------


def _daxpy_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"y": d.const(size, 0.0), "x": d.data(size), "a": d.scalar()}


def _daxpy_cpu(grid: Grid, x: np.ndarray, y: np.ndarray, a, n: int) -> None:
    y[:n] += a * x[:n]


def _daxpy_reference(x: dict) -> dict:
    return {"y": np.asarray(x["y"], np.float64) + float(x["a"]) * np.asarray(x["x"], np.float64)}


DAXPY = KernelSpec(
    name="Basic_DAXPY",
    group=GROUP_NAME,
    summary="y[i] += a * x[i]",
    arrays=(Array("x", "real", lambda n: n), Array("y", "real", lambda n: n, "inout")),
    scalars=(Scalar("a", "real"), Scalar("n", "u32")),
    plan=one_launch("daxpy", ("x", "y", "a")),
    init=_daxpy_init,
    reference=_daxpy_reference,
    cpu={"daxpy": _daxpy_cpu},
    traffic=lambda n, b: Traffic(read=n * b, modify_write=n * b),
    flops=lambda n: 2 * n,
    default_reps=500,
    tolerance=NORMAL,
    check_sizes=FORALL_CHECK_SIZES,
)


# --- REDUCE3_INT --------------------------------------------------------------

INT_MIN = np.iinfo(np.int32).min
INT_MAX = np.iinfo(np.int32).max


def _reduce3_plan(size: int) -> list[Launch]:
    return [
        chunked_launch("reduce3_partial", size, ("vec", "partial")),
        fold_launch("reduce3_final", size, ("partial", "vsum", "vmin", "vmax")),
    ]


def _reduce3_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {
        "vec": d.int_data(size),
        "partial": np.zeros(3 * partial_groups(size)),
        "vsum": np.zeros(1),
        "vmin": np.full(1, INT_MAX),
        "vmax": np.full(1, INT_MIN),
    }


def _reduce3_check_init(size: int, seed: int, precision: str) -> dict:
    """Random ints in [-50, 15]: min and max inside RAJAPerf's -58 and 19, and every
    chunk sum far below the min, so a sum, min or max read for another shows."""
    rng = np.random.default_rng(seed)
    return {
        "vec": rng.integers(-50, 16, size),
        "partial": np.zeros(3 * partial_groups(size)),
        "vsum": np.zeros(1),
        "vmin": np.full(1, INT_MAX),
        "vmax": np.full(1, INT_MIN),
    }


def _reduce3_partial_cpu(
    grid: Grid, vec: np.ndarray, partial: np.ndarray, n: int, chunk: int
) -> None:
    groups = grid.groups
    sums, mins, maxs = (
        partial[:groups],
        partial[groups : 2 * groups],
        partial[2 * groups : 3 * groups],
    )
    sums[:], mins[:], maxs[:] = 0, INT_MAX, INT_MIN
    if n:
        starts = np.arange(0, n, chunk)
        k = starts.size
        sums[:k] = np.add.reduceat(vec[:n], starts, dtype=vec.dtype)
        mins[:k] = np.minimum.reduceat(vec[:n], starts)
        maxs[:k] = np.maximum.reduceat(vec[:n], starts)


def _reduce3_final_cpu(
    grid: Grid,
    partial: np.ndarray,
    vsum: np.ndarray,
    vmin: np.ndarray,
    vmax: np.ndarray,
    count: int,
) -> None:
    groups = count
    vsum[0] = partial[:count].sum(dtype=vsum.dtype)
    vmin[0] = min(INT_MAX, partial[groups : groups + count].min(initial=INT_MAX))
    vmax[0] = max(INT_MIN, partial[2 * groups : 2 * groups + count].max(initial=INT_MIN))


def _reduce3_reference(x: dict) -> dict:
    vec = np.asarray(x["vec"], np.int64)
    return {
        "vsum": np.array([vec.sum()]),
        "vmin": np.array([min(INT_MAX, vec.min(initial=INT_MAX))]),
        "vmax": np.array([max(INT_MIN, vec.max(initial=INT_MIN))]),
    }


REDUCE3_INT = KernelSpec(
    name="Basic_REDUCE3_INT",
    fixed_group=CHUNKS_FIXED,
    group=GROUP_NAME,
    summary="int vsum += vec[i], vmin = min, vmax = max in one pass, then one group folding",
    arrays=(
        Array("vec", "i32", lambda n: n),
        Array("partial", "i32", lambda n: 3 * partial_groups(n), "scratch"),
        Array("vsum", "i32", lambda n: 1, "out"),
        Array("vmin", "i32", lambda n: 1, "out"),
        Array("vmax", "i32", lambda n: 1, "out"),
    ),
    scalars=(N, CHUNK, COUNT),
    plan=_reduce3_plan,
    init=_reduce3_init,
    reference=_reduce3_reference,
    cpu={"reduce3_partial": _reduce3_partial_cpu, "reduce3_final": _reduce3_final_cpu},
    traffic=lambda n, b: Traffic(read=n * INT_BYTES),
    flops=lambda n: 0,
    default_reps=50,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Forall", "Reduction"),
    checksum=registered(scalars=("vsum", "vmin", "vmax")),
    check_cases=(
        CheckCase(
            "random",
            _reduce3_check_init,
            "RAJAPerf's values are -1 and +1 with one -58 and one 19, so the sums stay "
            "between the min and max; here every chunk sum is far below the min",
        ),
    ),
    # The fold launch's stride counts only past 256 partials (MANY_PARTIALS_SIZE).
    check_sizes=(*CHUNKED_CHECK_SIZES, MANY_PARTIALS_SIZE),
)


# --- PI_ATOMIC ----------------------------------------------------------------

#: PI_ATOMIC adds every term to one running sum near 0.8, so in f32 each add
#: rounds by up to 3e-8 relative and the error grows with n (3.4e-4 seen at
#: RAJAPerf's default n = 1e6 on PoCL); f64 keeps RAJAPerf's normal class.
PI_ATOMIC_TOLERANCE = Tolerance(NORMAL.f64, 5e-3)


def _pi_plan(size: int) -> list[Launch]:
    return [
        Launch("pi_atomic", size, GROUP, ("pi", "dx", "n"), {"n": size}),
        Launch("pi_final", 1, GROUP, ("pi", "pi_final")),
    ]


def _pi_init(size: int, seed: int, precision: str) -> dict:
    return {"pi": np.zeros(1), "pi_final": np.zeros(1), "dx": 1.0 / size, "n": size}


def _pi_atomic_cpu(grid: Grid, pi: np.ndarray, dx, n: int) -> None:
    x = (np.arange(n, dtype=pi.dtype) + pi.dtype.type(0.5)) * dx
    pi[0] += np.sum(dx / (1 + x * x), dtype=pi.dtype)


def _pi_final_cpu(grid: Grid, pi: np.ndarray, pi_final: np.ndarray) -> None:
    pi_final[0] = 4 * pi[0]
    pi[0] = 0


def _pi_reference(x: dict) -> dict:
    """4 times the midpoint sum (added to where pi started: 0 between repetitions)
    in pi_final, and pi zeroed again for the next repetition."""
    dx = float(x["dx"])
    i = np.arange(int(x["n"]), dtype=np.float64)
    total = float(x["pi"][0]) + np.sum(dx / (1 + ((i + 0.5) * dx) ** 2))
    return {"pi_final": np.array([4 * total]), "pi": np.zeros(1)}


PI_ATOMIC = KernelSpec(
    name="Basic_PI_ATOMIC",
    group=GROUP_NAME,
    summary="pi += dx / (1 + x*x) by every item atomically on one address; 4*pi",
    arrays=(
        # Verified: pi_final must leave it zero, or the next repetition starts off.
        Array("pi", "real", lambda n: 1, "inout"),
        Array("pi_final", "real", lambda n: 1, "out"),
    ),
    scalars=(Scalar("dx", "real"), N),
    plan=_pi_plan,
    init=_pi_init,
    reference=_pi_reference,
    cpu={"pi_atomic": _pi_atomic_cpu, "pi_final": _pi_final_cpu},
    traffic=lambda n, b: Traffic(atomic_modify_write=b),
    flops=lambda n: 6 * n + 1,
    default_reps=50,
    tolerance=PI_ATOMIC_TOLERANCE,
    features=frozenset({"atomics"}),
    precision_features={"f64": frozenset({"atomics64"})},
    rajaperf_features=("Forall", "Atomic"),
    checksum=registered(scalars=("pi_final",)),
    check_sizes=FORALL_CHECK_SIZES,
)


# --- INDEXLIST_3LOOP ----------------------------------------------------------

#: Bytes of RAJAPerf's Index_type (64-bit) values, which every backend holds in
#: 32 bits (core WGSL has no 64-bit integers; a u32 n bounds every index and count).
INDEX_BYTES = 4


def _indexlist_plan(size: int) -> list[Launch]:
    return [
        Launch("indexlist_count", size, GROUP, ("x", "counts", "n"), {"n": size}),
        *scan_plan(size + 1, ("counts",), "sums", ("counts",)),
        Launch("indexlist_scatter", size, GROUP, ("counts", "list", "len", "n"), {"n": size}),
    ]


def _indexlist_3loop_scratch(size: int) -> dict:
    return {"counts": np.zeros(size + 1), "sums": np.zeros(partial_groups(size + 1))}


def _indexlist_init(scratch: Callable[[int], dict]) -> Callable[[int, int, str], dict]:
    """RAJAPerf's setUp of a list of the i with x[i] < 0 (x, then list), with
    ``scratch(size)``, the plan's working arrays."""

    def init(size: int, seed: int, precision: str) -> dict:
        d = DataInit()
        return {
            "x": d.rand_sign(size),
            **scratch(size),
            "list": d.int_data(size),
            "len": np.zeros(1),
        }

    return init


def _indexlist_cases(scratch: Callable[[int], dict]) -> tuple[CheckCase, CheckCase]:
    """The check cases of a list of the i with x[i] < 0; ``scratch(size)`` makes
    the plan's working arrays."""

    def zeros(size: int, seed: int, precision: str) -> dict:
        """x of -1, 0 and +1 times random magnitudes: exact zeros must not be listed."""
        rng = np.random.default_rng(seed)
        x = rng.integers(-1, 2, size) * rng.uniform(0.5, 1.5, size)
        return {
            "x": x,
            **scratch(size),
            "list": rng.integers(-1000, -1, size),
            "len": np.full(1, -1),
        }

    def every(size: int, seed: int, precision: str) -> dict:
        """Every x negative: every index is listed, and every count the scan adds is 1."""
        rng = np.random.default_rng(seed)
        return {**zeros(size, seed, precision), "x": -rng.uniform(0.5, 1.5, size)}

    return (
        CheckCase(
            "zeros",
            zeros,
            "RAJAPerf's x has no zeros, so x < 0 and x <= 0 agree; here a third of x "
            "is exactly 0, and list starts with values no index has",
        ),
        CheckCase(
            "all",
            every,
            "every x is negative, so every entry the scan adds is 1 and an entry added "
            "twice or skipped at a chunk's edge shows",
        ),
    )


def _indexlist_count_cpu(grid: Grid, x: np.ndarray, counts: np.ndarray, n: int) -> None:
    counts[:n] = x[:n] < 0


def _indexlist_scatter_cpu(
    grid: Grid, counts: np.ndarray, out: np.ndarray, length: np.ndarray, n: int
) -> None:
    length[0] = counts[n]
    hits = np.nonzero(counts[:n] != counts[1 : n + 1])[0]
    out[counts[hits]] = hits


def _indexlist_reference(x: dict) -> dict:
    hits = np.nonzero(np.asarray(x["x"]) < 0)[0]
    out = np.array(x["list"], dtype=np.int64)
    out[: hits.size] = hits
    return {"list": out, "len": np.array([hits.size])}


INDEXLIST_3LOOP = KernelSpec(
    name="Basic_INDEXLIST_3LOOP",
    fixed_group=CHUNKS_FIXED,
    group=GROUP_NAME,
    summary="list of i with x[i] < 0: flags, exclusive scan over n+1, scatter",
    arrays=(
        Array("x", "real", lambda n: n),
        Array("counts", "i32", lambda n: n + 1, "scratch"),
        Array("sums", "i32", lambda n: partial_groups(n + 1), "scratch"),
        Array("list", "i32", lambda n: n, "inout"),
        Array("len", "i32", lambda n: 1, "out"),
    ),
    scalars=(N, CHUNK, COUNT),
    plan=_indexlist_plan,
    init=_indexlist_init(_indexlist_3loop_scratch),
    reference=_indexlist_reference,
    cpu={
        "indexlist_count": _indexlist_count_cpu,
        "scan_reduce": chunk_sums,
        "scan_sums": exclusive_sums,
        "scan_apply": scan_chunks_in_place,
        "indexlist_scatter": _indexlist_scatter_cpu,
    },
    traffic=lambda n, b: Traffic(
        read=n * b + (n + 1) * INDEX_BYTES,
        write=n * INDEX_BYTES + INT_BYTES * (n + 1) // 2,
        modify_write=(n + 1) * INDEX_BYTES,
    ),
    flops=lambda n: 0,
    default_reps=100,
    tolerance=EXACT,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Forall", "Scan"),
    checksum=registered(arrays=("list",), scalars=("len",)),
    type_aliases={"SCAN_T": "i32"},
    check_cases=_indexlist_cases(_indexlist_3loop_scratch),
    check_sizes=(*CHUNKED_CHECK_SIZES, MANY_PARTIALS_SIZE),
)


# --- INDEXLIST ----------------------------------------------------------------


def _indexlist_1loop_plan(size: int) -> list[Launch]:
    """Two launches: RAJAPerf's CUDA variant scans in one, each block waiting on the
    blocks before it (decoupled look-back), which needs every earlier block to make
    progress while a later one spins. OpenCL and Vulkan promise no such progress
    between work-groups, and WGSL's atomics order nothing across them, so the
    waiting is split off at a launch boundary: one launch counts each chunk's
    negatives, the next adds the counts before its chunk and lists the chunk."""
    return [
        chunked_launch("indexlist_count", size, ("x", "counts")),
        chunked_launch("indexlist_scan", size, ("x", "counts", "list", "len")),
    ]


def _indexlist_1loop_scratch(size: int) -> dict:
    return {"counts": np.zeros(partial_groups(size))}


def _indexlist_chunk_count_cpu(
    grid: Grid, x: np.ndarray, counts: np.ndarray, n: int, chunk: int
) -> None:
    chunk_sums(grid, (x[:n] < 0).astype(counts.dtype), counts, n, chunk)


def _indexlist_chunk_scan_cpu(
    grid: Grid,
    x: np.ndarray,
    counts: np.ndarray,
    out: np.ndarray,
    length: np.ndarray,
    n: int,
    chunk: int,
) -> None:
    offsets = np.concatenate(([0], np.cumsum(counts[: grid.groups], dtype=np.int64)))
    hits = np.nonzero(x[:n] < 0)[0]
    group = hits // chunk
    rank = np.arange(hits.size) - np.searchsorted(hits, group * chunk)
    out[offsets[group] + rank] = hits
    length[0] = offsets[-1]


INDEXLIST = KernelSpec(
    name="Basic_INDEXLIST",
    fixed_group=CHUNKS_FIXED,
    group=GROUP_NAME,
    summary="list of i with x[i] < 0: chunk counts, then each chunk listed from their sum",
    arrays=(
        Array("x", "real", lambda n: n),
        Array("counts", "i32", partial_groups, "scratch"),
        Array("list", "i32", lambda n: n, "inout"),
        Array("len", "i32", lambda n: 1, "out"),
    ),
    scalars=(N, CHUNK),
    plan=_indexlist_1loop_plan,
    init=_indexlist_init(_indexlist_1loop_scratch),
    reference=_indexlist_reference,
    cpu={
        "indexlist_count": _indexlist_chunk_count_cpu,
        "indexlist_scan": _indexlist_chunk_scan_cpu,
    },
    traffic=lambda n, b: Traffic(read=n * b, write=n * INT_BYTES // 2),
    flops=lambda n: 0,
    default_reps=100,
    tolerance=EXACT,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Forall", "Scan"),
    checksum=registered(arrays=("list",), scalars=("len",)),
    type_aliases={"SCAN_T": "i32"},
    check_cases=_indexlist_cases(_indexlist_1loop_scratch),
    check_sizes=CHUNKED_CHECK_SIZES,
)


# --- PI_REDUCE and TRAP_INT: sums of a function of the index ------------------


def _index_sum_cpu(term: Callable[..., np.ndarray]) -> Callable[..., None]:
    """The numpy chunked launch writing each chunk's sum of ``term(i, *scalars)``
    into partial, in the run precision."""

    def partial_sums(grid: Grid, partial: np.ndarray, n: int, chunk: int, *scalars) -> None:
        i = np.arange(n, dtype=partial.dtype)
        chunk_sums(grid, term(i, *scalars).astype(partial.dtype), partial, n, chunk)

    return partial_sums


def _pi_term(i: np.ndarray, dx) -> np.ndarray:
    x = (i + i.dtype.type(0.5)) * dx
    return dx / (1 + x * x)


def _pi_reduce_plan(size: int) -> list[Launch]:
    return [
        chunked_launch("pi_reduce_partial", size, ("partial",), ("dx",)),
        fold_launch("pi_reduce_final", size, ("partial", "pi")),
    ]


def _pi_reduce_init(size: int, seed: int, precision: str) -> dict:
    return {
        "partial": np.zeros(partial_groups(size)),
        "pi": np.zeros(1),
        "dx": 1.0 / size,
        "n": size,
    }


def _pi_reduce_reference(x: dict) -> dict:
    i = np.arange(int(x["n"]), dtype=np.float64)
    return {"pi": np.array([4 * _pi_term(i, float(x["dx"])).sum()])}


def _pi_reduce_final_cpu(grid: Grid, partial: np.ndarray, pi: np.ndarray, count: int) -> None:
    pi[0] = 4 * partial[:count].sum()


PI_REDUCE = KernelSpec(
    name="Basic_PI_REDUCE",
    fixed_group=CHUNKS_FIXED,
    group=GROUP_NAME,
    summary="pi = 4 * sum(dx / (1 + x*x)), x = (i + 0.5) * dx: group partials, then their sum",
    arrays=(
        Array("partial", "real", partial_groups, "scratch"),
        Array("pi", "real", lambda n: 1, "out"),
    ),
    scalars=(Scalar("dx", "real"), N, CHUNK, COUNT),
    plan=_pi_reduce_plan,
    init=_pi_reduce_init,
    reference=_pi_reduce_reference,
    cpu={"pi_reduce_partial": _index_sum_cpu(_pi_term), "pi_reduce_final": _pi_reduce_final_cpu},
    traffic=lambda n, b: Traffic(),
    flops=lambda n: 6 * n + 1,
    default_reps=50,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Forall", "Reduction"),
    checksum=registered(scalars=("pi",)),
    check_sizes=CHUNKED_CHECK_SIZES,
)


#: TRAP_INT's real scalars, in trap_int_partial's parameter order.
TRAP_INT_SCALARS = ("x0", "xp", "y", "yp", "h")


def _trap_term(i: np.ndarray, x0, xp, y, yp, h) -> np.ndarray:
    """RAJAPerf's trap_int_func at x = x0 + i*h."""
    x = x0 + i * h
    return 1 / np.sqrt((x - xp) * (x - xp) + (y - yp) * (y - yp))


def _trap_int_plan(size: int) -> list[Launch]:
    final = fold_launch("trap_int_final", size, ("partial", "sumx"))
    return [
        chunked_launch("trap_int_partial", size, ("partial",), TRAP_INT_SCALARS),
        replace(final, args=(*final.args, "h")),
    ]


def _trap_int_init(size: int, seed: int, precision: str) -> dict:
    """setUp's initData calls, in order: xn, x0, xp, y, yp; then h = xn - x0."""
    d = DataInit()
    xn, x0, xp, y, yp = (d.scalar() for _ in range(5))
    return {
        "partial": np.zeros(partial_groups(size)),
        "sumx": np.zeros(1),
        **dict(zip(TRAP_INT_SCALARS, (x0, xp, y, yp, xn - x0), strict=True)),
        "n": size,
    }


def _trap_int_check_init(size: int, seed: int, precision: str) -> dict:
    """Distinct random x0, xp, y, yp and h, and a nonzero sumx to add to."""
    rng = np.random.default_rng(seed)
    return {
        "partial": np.zeros(partial_groups(size)),
        "sumx": np.array([rng.uniform(1.0, 2.0)]),
        "x0": rng.uniform(0.2, 0.4),
        "xp": rng.uniform(-0.8, -0.6),
        "y": rng.uniform(0.4, 0.5),
        "yp": rng.uniform(1.1, 1.3),
        "h": rng.uniform(0.01, 0.02),
        "n": size,
    }


def _trap_int_final_cpu(grid: Grid, partial: np.ndarray, sumx: np.ndarray, count: int, h) -> None:
    sumx[0] += partial[:count].sum() * h


def _trap_int_reference(x: dict) -> dict:
    i = np.arange(int(x["n"]), dtype=np.float64)
    scalars = (float(x[name]) for name in TRAP_INT_SCALARS)
    total = _trap_term(i, *scalars).sum() * float(x["h"])
    return {"sumx": np.asarray(x["sumx"], np.float64) + total}


TRAP_INT = KernelSpec(
    name="Basic_TRAP_INT",
    fixed_group=CHUNKS_FIXED,
    group=GROUP_NAME,
    summary="sumx += h * sum(1 / sqrt((x - xp)^2 + (y - yp)^2)), x = x0 + i*h, in two launches",
    arrays=(
        Array("partial", "real", partial_groups, "scratch"),
        Array("sumx", "real", lambda n: 1, "inout"),
    ),
    scalars=(*(Scalar(name, "real") for name in TRAP_INT_SCALARS), N, CHUNK, COUNT),
    plan=_trap_int_plan,
    init=_trap_int_init,
    reference=_trap_int_reference,
    cpu={"trap_int_partial": _index_sum_cpu(_trap_term), "trap_int_final": _trap_int_final_cpu},
    traffic=lambda n, b: Traffic(),
    flops=lambda n: 10 * n,
    default_reps=50,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Forall", "Reduction"),
    checksum=registered(scalars=("sumx",)),
    check_cases=(
        CheckCase(
            "distinct",
            _trap_int_check_init,
            "RAJAPerf's y equals x0 and yp equals xp (each pair one initData factor), "
            "so swapping either pair shows nowhere; here all five differ, and sumx "
            "starts nonzero, so assigning the sum instead of adding it shows",
        ),
    ),
    check_sizes=CHUNKED_CHECK_SIZES,
)


# --- REDUCE_STRUCT ------------------------------------------------------------

#: Rows of REDUCE_STRUCT's partials and entries of its points, in the order of
#: RAJAPerf's PointsType: center (x, y), then xmin, xmax, ymin, ymax.
POINTS = ("xcenter", "ycenter", "xmin", "xmax", "ymin", "ymax")


def _reduce_struct_plan(size: int) -> list[Launch]:
    bounds = ("init_min", "init_max")
    final = fold_launch("reduce_struct_final", size, ("partial", "points"))
    return [
        chunked_launch("reduce_struct_partial", size, ("x", "y", "partial"), bounds),
        replace(final, args=(*final.args, "n", *bounds), values={**final.values, "n": size}),
    ]


def _reduce_struct_scratch(size: int, precision: str) -> dict:
    limits = np.finfo(numpy_dtype("real", precision))
    return {
        "partial": np.zeros(len(POINTS) * partial_groups(size)),
        "points": np.zeros(len(POINTS)),
        "init_min": float(limits.max),
        "init_max": float(limits.min),
    }


def _reduce_struct_init(size: int, seed: int, precision: str) -> dict:
    """x[i] = i * 100/n and y[i] = i * 50/n, as setUp overwrites its initData."""
    i = np.arange(size, dtype=np.float64)
    return {
        "x": i * (100.0 / size),
        "y": i * (50.0 / size),
        **_reduce_struct_scratch(size, precision),
    }


#: Where REDUCE_STRUCT's check case puts each extreme, as a fraction of the size:
#: x's min, x's max, y's min, y's max, in the middle and last of three chunks, so
#: a partial stored to or read from another group's or row's slot shows.
EXTREMES_AT = (0.9, 0.5, 0.6, 0.8)


def _reduce_struct_check_init(size: int, seed: int, precision: str) -> dict:
    """Random x in [-1, 3) and y in [-4, 1), each extreme planted past the ranges."""
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-1.0, 3.0, size), rng.uniform(-4.0, 1.0, size)
    for values, at, extreme in zip((x, x, y, y), EXTREMES_AT, (-2.5, 4.0, -5.0, 2.0), strict=True):
        values[int(at * size)] = extreme
    return {"x": x, "y": y, **_reduce_struct_scratch(size, precision)}


def _reduce_struct_one_sign_init(size: int, seed: int, precision: str) -> dict:
    """Every x positive and every y negative: a min or max begun at 0, not at its
    initial bound, then stays 0 (RAJAPerf's and the random values reach 0 or past it)."""
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(1.0, 3.0, size), rng.uniform(-4.0, -1.0, size)
    return {"x": x, "y": y, **_reduce_struct_scratch(size, precision)}


def _reduce_struct_rows(x: np.ndarray, y: np.ndarray, starts: np.ndarray) -> list[np.ndarray]:
    """Sums, mins and maxes of the ranges beginning at ``starts``, as POINTS orders them."""
    return [
        np.add.reduceat(x, starts),
        np.add.reduceat(y, starts),
        np.minimum.reduceat(x, starts),
        np.maximum.reduceat(x, starts),
        np.minimum.reduceat(y, starts),
        np.maximum.reduceat(y, starts),
    ]


def _reduce_struct_partial_cpu(
    grid: Grid, x, y, partial: np.ndarray, n: int, chunk: int, init_min, init_max
) -> None:
    groups = grid.groups
    rows = partial[: len(POINTS) * groups].reshape(len(POINTS), groups)
    rows[:2], rows[2::2], rows[3::2] = 0, init_min, init_max
    if n:
        values = _reduce_struct_rows(x[:n], y[:n], np.arange(0, n, chunk))
        for row, value in zip(rows, values, strict=True):
            row[: value.size] = value


def _reduce_struct_final_cpu(
    grid: Grid, partial: np.ndarray, points: np.ndarray, count: int, n: int, init_min, init_max
) -> None:
    rows = partial[: len(POINTS) * count].reshape(len(POINTS), count)
    points[:2] = rows[:2].sum(axis=1) / n
    points[2:6:2] = np.minimum(rows[2::2].min(axis=1), init_min)
    points[3:6:2] = np.maximum(rows[3::2].max(axis=1), init_max)


def _reduce_struct_reference(x: dict) -> dict:
    values = _reduce_struct_rows(as_f64(x["x"]), as_f64(x["y"]), np.zeros(1, dtype=np.intp))
    points = np.concatenate(values)
    points[:2] /= len(x["x"])
    return {"points": points}


REDUCE_STRUCT = KernelSpec(
    name="Basic_REDUCE_STRUCT",
    fixed_group=CHUNKS_FIXED,
    group=GROUP_NAME,
    summary="center, min and max of points (x[i], y[i]): six reductions in one pass, then a fold",
    arrays=(
        Array("x", "real", lambda n: n),
        Array("y", "real", lambda n: n),
        Array("partial", "real", lambda n: len(POINTS) * partial_groups(n), "scratch"),
        Array("points", "real", lambda n: len(POINTS), "out"),
    ),
    scalars=(Scalar("init_min", "real"), Scalar("init_max", "real"), N, CHUNK, COUNT),
    plan=_reduce_struct_plan,
    init=_reduce_struct_init,
    reference=_reduce_struct_reference,
    cpu={
        "reduce_struct_partial": _reduce_struct_partial_cpu,
        "reduce_struct_final": _reduce_struct_final_cpu,
    },
    traffic=lambda n, b: Traffic(read=2 * n * b),
    flops=lambda n: 2 * n + 2,
    default_reps=50,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Forall", "Reduction"),
    checksum=lambda out: float(np.abs(out["points"]).sum()),
    check_cases=(
        CheckCase(
            "random",
            _reduce_struct_check_init,
            "RAJAPerf's x and y rise with i, so each min is the first item and each max "
            "the last, of every chunk too, and both are never negative; here values "
            "of both signs are random and each extreme lies inside a chunk past the first",
        ),
        CheckCase(
            "one_sign",
            _reduce_struct_one_sign_init,
            "both of RAJAPerf's minimums are 0 and the random values cross 0, so a min "
            "or max begun at 0 rather than at its bound matched; here x is all positive "
            "and y all negative",
        ),
    ),
    check_sizes=CHUNKED_CHECK_SIZES,
)


KERNELS = (
    DAXPY,
    INDEXLIST,
    INDEXLIST_3LOOP,
    PI_ATOMIC,
    PI_REDUCE,
    REDUCE3_INT,
    REDUCE_STRUCT,
    TRAP_INT,
)

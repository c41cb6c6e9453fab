"""RAJAPerf's Basic group (src/basic/*.cpp)."""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.rajaperf import checksum as array_checksum
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
)
from harness.suite.forall import FORALL_CHECK_SIZES, GROUP, one_launch
from harness.suite.scan import (
    CHUNK,
    CHUNKED_CHECK_SIZES,
    COUNT,
    chunk_sums,
    chunked_launch,
    exclusive_sums,
    fold_launch,
    partial_groups,
    scan_chunks_in_place,
    scan_plan,
)

GROUP_NAME = "Basic"
N = Scalar("n", "u32")
INT_BYTES = 4


def _scalars_checksum(*names: str):
    """RAJAPerf's addToChecksum of scalar results: the sum of their magnitudes."""

    def checksum(out: dict[str, np.ndarray]) -> float:
        return sum(abs(float(out[name][0])) for name in names)

    return checksum


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
    checksum=_scalars_checksum("vsum", "vmin", "vmax"),
    check_cases=(
        CheckCase(
            "random",
            _reduce3_check_init,
            "RAJAPerf's values are -1 and +1 with one -58 and one 19, so the sums stay "
            "between the min and max; here every chunk sum is far below the min",
        ),
    ),
    check_sizes=CHUNKED_CHECK_SIZES,
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
    """4 times the midpoint sum in pi_final, and pi zeroed again for the next repetition."""
    dx = float(x["dx"])
    i = np.arange(int(x["n"]), dtype=np.float64)
    return {
        "pi_final": np.array([4 * np.sum(dx / (1 + ((i + 0.5) * dx) ** 2))]),
        "pi": np.zeros(1),
    }


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
    checksum=_scalars_checksum("pi_final"),
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


def _indexlist_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {
        "x": d.rand_sign(size),
        "counts": np.zeros(size + 1),
        "sums": np.zeros(partial_groups(size + 1)),
        "list": d.int_data(size),
        "len": np.zeros(1),
    }


def _indexlist_check_init(size: int, seed: int, precision: str) -> dict:
    """x of -1, 0 and +1 times random magnitudes: exact zeros must not be listed."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-1, 2, size) * rng.uniform(0.5, 1.5, size)
    return {
        "x": x,
        "counts": np.zeros(size + 1),
        "sums": np.zeros(partial_groups(size + 1)),
        "list": rng.integers(-1000, -1, size),
        "len": np.full(1, -1),
    }


def _indexlist_all_init(size: int, seed: int, precision: str) -> dict:
    """Every x negative: every index is listed, and every count the scan adds is 1."""
    rng = np.random.default_rng(seed)
    return {**_indexlist_check_init(size, seed, precision), "x": -rng.uniform(0.5, 1.5, size)}


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
    init=_indexlist_init,
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
    checksum=lambda out: array_checksum(out["list"]) + abs(float(out["len"][0])),
    type_aliases={"SCAN_T": "i32"},
    check_cases=(
        CheckCase(
            "zeros",
            _indexlist_check_init,
            "RAJAPerf's x has no zeros, so x < 0 and x <= 0 agree; here a third of x "
            "is exactly 0, and list starts with values no index has",
        ),
        CheckCase(
            "all",
            _indexlist_all_init,
            "every x is negative, so every entry the scan adds is 1 and an entry added "
            "twice or skipped at a chunk's edge shows",
        ),
    ),
    check_sizes=CHUNKED_CHECK_SIZES,
)


KERNELS = (DAXPY, REDUCE3_INT, PI_ATOMIC, INDEXLIST_3LOOP)

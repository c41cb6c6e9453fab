"""RAJAPerf's Algorithm group (src/algorithm/*.cpp): REDUCE_SUM, SCAN, MEMSET,
MEMCPY and HISTOGRAM.

Math, default sizes and reps, init order and bytes/FLOPs follow RAJAPerf;
the multi-launch reduction and scan plans come from `harness.suite.scan`.
"""

from __future__ import annotations

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
    Traffic,
    numpy_dtype,
)
from harness.suite.forall import FORALL_CHECK_SIZES, GROUP, N, as_f64, one_launch, per_item
from harness.suite.scan import (
    CHUNK,
    CHUNKED_CHECK_SIZES,
    CHUNKS_FIXED,
    COUNT,
    MANY_PARTIALS_SIZE,
    chunk_sums,
    chunked_launch,
    chunking,
    exclusive_sums,
    fold_launch,
    partial_groups,
    scan_chunks,
    scan_plan,
)

GROUP_NAME = "Algorithm"


# --- REDUCE_SUM ---------------------------------------------------------------


def _reduce_sum_plan(size: int) -> list[Launch]:
    return [
        chunked_launch("reduce_sum_partial", size, ("x", "partial")),
        fold_launch("reduce_sum_final", size, ("partial", "sum")),
    ]


def _reduce_sum_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"x": d.data(size), "partial": np.zeros(partial_groups(size)), "sum": np.zeros(1)}


def _reduce_sum_check_init(size: int, seed: int, precision: str) -> dict:
    """Distinct random values in [0.5, 1.5] (no cancellation), and a nonzero stale sum."""
    rng = np.random.default_rng(seed)
    return {
        "x": rng.uniform(0.5, 1.5, size),
        "partial": np.zeros(partial_groups(size)),
        "sum": np.array([rng.uniform(1.0, 2.0)]),
    }


def _reduce_sum_final_cpu(grid: Grid, partial: np.ndarray, total: np.ndarray, count: int) -> None:
    total[0] = partial[:count].sum()


REDUCE_SUM = KernelSpec(
    name="Algorithm_REDUCE_SUM",
    fixed_group=CHUNKS_FIXED,
    group=GROUP_NAME,
    summary="sum = sum(x[i]), group partials then one group folding them",
    arrays=(
        Array("x", "real", per_item),
        Array("partial", "real", partial_groups, "scratch"),
        Array("sum", "real", lambda n: 1, "out"),
    ),
    scalars=(N, CHUNK, COUNT),
    plan=_reduce_sum_plan,
    init=_reduce_sum_init,
    reference=lambda x: {"sum": np.array([as_f64(x["x"]).sum()])},
    cpu={"reduce_sum_partial": chunk_sums, "reduce_sum_final": _reduce_sum_final_cpu},
    traffic=lambda n, b: Traffic(read=n * b),
    flops=lambda n: n,
    default_reps=50,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Forall", "Reduction"),
    checksum=registered(scalars=("sum",)),
    check_cases=(
        CheckCase(
            "random",
            _reduce_sum_check_init,
            "RAJAPerf's x varies by under 2%, so a value summed from the wrong index "
            "barely shows; these are distinct random values",
        ),
    ),
    check_sizes=(*CHUNKED_CHECK_SIZES, MANY_PARTIALS_SIZE),
)


# --- SCAN ---------------------------------------------------------------------


def _scan_plan(size: int) -> list[Launch]:
    return scan_plan(size, ("x",), "sums", ("x", "y"))


def _scan_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {
        "x": d.rand_value(size),
        "y": d.const(size, 0.0),
        "sums": np.zeros(partial_groups(size)),
    }


def _scan_reference(x: dict) -> dict:
    y = np.zeros(x["x"].size)
    y[1:] = np.cumsum(as_f64(x["x"]))[:-1]
    return {"y": y}


SCAN = KernelSpec(
    name="Algorithm_SCAN",
    fixed_group=CHUNKS_FIXED,
    group=GROUP_NAME,
    summary="y[i] = x[0] + ... + x[i-1], an exclusive scan in three launches",
    arrays=(
        Array("x", "real", per_item),
        Array("y", "real", per_item, "out"),
        Array("sums", "real", partial_groups, "scratch"),
    ),
    scalars=(N, CHUNK, COUNT),
    plan=_scan_plan,
    init=_scan_init,
    reference=_scan_reference,
    cpu={"scan_reduce": chunk_sums, "scan_sums": exclusive_sums, "scan_apply": scan_chunks},
    traffic=lambda n, b: Traffic(read=n * b, write=n * b),
    flops=lambda n: n,
    default_reps=100,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Scan",),
    type_aliases={"SCAN_T": "real"},
    check_sizes=(*CHUNKED_CHECK_SIZES, MANY_PARTIALS_SIZE),
)


# --- HISTOGRAM ----------------------------------------------------------------

#: RAJAPerf's default --multi_reduce_num_bins; kernels hold at most GROUP bins.
NUM_BINS = 10
#: Bytes of one histogram bin index and one count. RAJAPerf uses Index_type
#: (64-bit) bins and unsigned long long counts; core WGSL has no 64-bit integers
#: or atomics, so every backend uses 32-bit ones. Counts cannot overflow: n is a u32.
BIN_BYTES = 4
COUNT_BYTES = 4


def _histogram_plan(size: int) -> list[Launch]:
    return [
        Launch("histogram_clear", NUM_BINS, GROUP, ("counts", "num_bins")),
        chunked_launch("histogram", size, ("bins", "counts"), ("num_bins",)),
    ]


def histogram_bins(size: int, num_bins: int = NUM_BINS) -> np.ndarray:
    """RAJAPerf's RunsRandomSizes bin assignment: contiguous runs of random lengths.

    Sorted rand() draws are the run ends as fractions of ``size``; index i goes
    to the first bin whose end exceeds i/size (the last bin takes the rest).
    """
    ends = np.sort(DataInit().rand_value(num_bins))
    pos = np.arange(size, dtype=np.float64) / max(size, 1)
    return np.searchsorted(ends[: num_bins - 1], pos, side="right")


def _histogram_init(size: int, seed: int, precision: str) -> dict:
    return {
        "bins": histogram_bins(size),
        "counts": np.zeros(NUM_BINS),
        "num_bins": NUM_BINS,
    }


def _histogram_check_init(size: int, seed: int, precision: str) -> dict:
    """Bins drawn at random, so every group sees most bins, and stale counts to clear.

    The last bin holds exactly one item of each group's chunk, a local count of 1,
    and the one before it exactly ``NUM_BINS`` where the chunk has room: counts
    equal to the kernel's other small numbers, which a wrong test against them
    (``!= num_bins`` for ``!= 0``) drops.
    """
    rng = np.random.default_rng(seed)
    bins = rng.integers(0, NUM_BINS - 2, size)
    _, chunk = chunking(size)
    for start in range(0, size, chunk):
        stop = min(start + chunk, size)
        picked = rng.choice(np.arange(start, stop), min(NUM_BINS + 1, stop - start), replace=False)
        bins[picked[0]] = NUM_BINS - 1
        if picked.size > NUM_BINS:
            bins[picked[1:]] = NUM_BINS - 2
    return {
        "bins": bins,
        "counts": rng.integers(1, 1000, NUM_BINS),
        "num_bins": NUM_BINS,
    }


def _histogram_clear_cpu(grid: Grid, counts: np.ndarray, num_bins: int) -> None:
    counts[:num_bins] = 0


def _histogram_cpu(
    grid: Grid, bins: np.ndarray, counts: np.ndarray, n: int, chunk: int, num_bins: int
) -> None:
    counts[:num_bins] += np.bincount(bins[:n], minlength=num_bins)[:num_bins].astype(counts.dtype)


HISTOGRAM = KernelSpec(
    name="Algorithm_HISTOGRAM",
    fixed_group=CHUNKS_FIXED,
    group=GROUP_NAME,
    summary="counts[bins[i]] += 1 over 10 bins: group-local atomics, then global atomics",
    arrays=(
        Array("bins", "i32", per_item),
        Array("counts", "u32", lambda n: NUM_BINS, "out"),
    ),
    scalars=(N, CHUNK, Scalar("num_bins", "u32")),
    plan=_histogram_plan,
    init=_histogram_init,
    reference=lambda x: {"counts": np.bincount(x["bins"], minlength=NUM_BINS)},
    cpu={"histogram_clear": _histogram_clear_cpu, "histogram": _histogram_cpu},
    traffic=lambda n, b: Traffic(read=n * BIN_BYTES, atomic_modify_write=NUM_BINS * COUNT_BYTES),
    flops=lambda n: 0,
    default_reps=50,
    tolerance=EXACT,
    features=frozenset({"atomics", "local_memory"}),
    rajaperf_features=("Forall", "Atomic"),
    check_cases=(
        CheckCase(
            "random",
            _histogram_check_init,
            "RAJAPerf's bins are ten long runs, so each group sees one or two bins, and "
            "counts start at zero; here bins are random, one bin has one item per "
            "group, and the counts start stale",
        ),
    ),
    check_sizes=CHUNKED_CHECK_SIZES,
)


# --- MEMSET and MEMCPY --------------------------------------------------------

#: The value RAJAPerf fills the arrays MEMSET and MEMCPY overwrite with; in f32
#: it rounds to -inf.
STALE = -1.234567e89
#: RAJAPerf's MEMSET value (m_val).
MEMSET_VAL = 0.0


def _stale(d: DataInit, size: int, precision: str) -> np.ndarray:
    """allocAndInitDataConst(STALE) at the run precision."""
    with np.errstate(over="ignore"):
        return d.const(size, STALE).astype(numpy_dtype("real", precision))


def _memset_init(size: int, seed: int, precision: str) -> dict:
    return {"x": _stale(DataInit(), size, precision), "val": MEMSET_VAL}


def _memset_check_init(size: int, seed: int, precision: str) -> dict:
    """A random nonzero value over random stale values."""
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-1.0, 1.0, size), "val": rng.uniform(0.5, 1.5)}


def _memset_cpu(grid: Grid, x: np.ndarray, val, n: int) -> None:
    x[:n] = val


MEMSET = KernelSpec(
    name="Algorithm_MEMSET",
    group=GROUP_NAME,
    summary="x[i] = val, RAJAPerf's loop (not its library memset tuning)",
    arrays=(Array("x", "real", per_item, "out"),),
    scalars=(Scalar("val", "real"), N),
    plan=one_launch("memset_loop", ("x", "val")),
    init=_memset_init,
    reference=lambda x: {"x": np.full(x["x"].size, float(x["val"]))},
    cpu={"memset_loop": _memset_cpu},
    traffic=lambda n, b: Traffic(write=n * b),
    flops=lambda n: 0,
    default_reps=100,
    tolerance=EXACT,
    check_cases=(
        CheckCase(
            "value",
            _memset_check_init,
            "RAJAPerf's value is 0, which a kernel that writes zeros (or no value at all "
            "into zeroed memory) matches; here it is random and nonzero",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


def _memcpy_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"x": d.const(size, 0.0), "y": _stale(d, size, precision)}


def _memcpy_check_init(size: int, seed: int, precision: str) -> dict:
    """Distinct random x over random stale y."""
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(0.5, 1.5, size), "y": rng.uniform(-1.0, 1.0, size)}


def _memcpy_cpu(grid: Grid, x: np.ndarray, y: np.ndarray, n: int) -> None:
    y[:n] = x[:n]


MEMCPY = KernelSpec(
    name="Algorithm_MEMCPY",
    group=GROUP_NAME,
    summary="y[i] = x[i], RAJAPerf's loop (not its library memcpy tuning)",
    arrays=(Array("x", "real", per_item), Array("y", "real", per_item, "out")),
    scalars=(N,),
    plan=one_launch("memcpy_loop", ("x", "y")),
    init=_memcpy_init,
    reference=lambda x: {"y": as_f64(x["x"])},
    cpu={"memcpy_loop": _memcpy_cpu},
    traffic=lambda n, b: Traffic(read=n * b, write=n * b),
    flops=lambda n: 0,
    default_reps=100,
    tolerance=EXACT,
    check_cases=(
        CheckCase(
            "random",
            _memcpy_check_init,
            "RAJAPerf's x is all zeros, so an element copied from the wrong index (or a "
            "zero written) matches; here x is distinct random values",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


KERNELS = (REDUCE_SUM, SCAN, MEMSET, MEMCPY, HISTOGRAM)

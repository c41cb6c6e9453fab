"""RAJAPerf's kernels built on floating-point atomic adds: Basic_DAXPY_ATOMIC,
Basic_MULTI_REDUCE and Algorithm_ATOMIC.

Every add is the device's floating-point atomic where it has one (CUDA) and a
compare-and-swap loop on the value's bits where it does not (OpenCL, WGSL), so
at f64 a device needs 64-bit atomics ("atomics64") or skips with that reason.
RAJAPerf's tunings that change the work are run options: ATOMIC's replication
(``--atomic_replication``) and MULTI_REDUCE's bin count
(``--multi_reduce_num_bins``), with RAJAPerf's defaults.
"""

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
    Param,
    Scalar,
    Tolerance,
    Traffic,
)
from harness.suite.algorithm import BIN_BYTES, histogram_bins
from harness.suite.forall import FORALL_CHECK_SIZES, GROUP, N, as_f64, one_launch, per_item
from harness.suite.scan import CHUNK, CHUNKED_CHECK_SIZES, CHUNKS_FIXED, chunked_launch

#: What the kernels need to add reals atomically, at either precision.
ATOMIC_FEATURES = frozenset({"atomics"})
ATOMIC_PRECISION_FEATURES = {"f64": frozenset({"atomics64"})}


# --- DAXPY_ATOMIC -------------------------------------------------------------


def _daxpy_atomic_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"y": d.const(size, 0.0), "x": d.data(size), "a": d.scalar()}


def _daxpy_atomic_check_init(size: int, seed: int, precision: str) -> dict:
    """y and x random, so the add must keep y's old value."""
    rng = np.random.default_rng(seed)
    return {"y": rng.uniform(0.5, 1.5, size), "x": rng.uniform(0.5, 1.5, size), "a": 0.75}


def _daxpy_atomic_cpu(grid: Grid, x: np.ndarray, y: np.ndarray, a, n: int) -> None:
    y[:n] += a * x[:n]


DAXPY_ATOMIC = KernelSpec(
    name="Basic_DAXPY_ATOMIC",
    group="Basic",
    summary="y[i] += a * x[i] as an atomic add (every address distinct)",
    arrays=(Array("x", "real", per_item), Array("y", "real", per_item, "inout")),
    scalars=(Scalar("a", "real"), N),
    plan=one_launch("daxpy_atomic", ("x", "y", "a")),
    init=_daxpy_atomic_init,
    reference=lambda x: {"y": as_f64(x["y"]) + float(x["a"]) * as_f64(x["x"])},
    cpu={"daxpy_atomic": _daxpy_atomic_cpu},
    traffic=lambda n, b: Traffic(read=n * b, atomic_modify_write=n * b),
    flops=lambda n: 2 * n,
    default_reps=500,
    tolerance=NORMAL,
    features=ATOMIC_FEATURES,
    precision_features=ATOMIC_PRECISION_FEATURES,
    rajaperf_features=("Forall", "Atomic"),
    check_cases=(
        CheckCase(
            "stale",
            _daxpy_atomic_check_init,
            "RAJAPerf's y starts at zero, so an add that drops y's old value still "
            "matches; here y starts at random values",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


# --- MULTI_REDUCE -------------------------------------------------------------

NUM_BINS = Param(
    "multi_reduce_num_bins",
    ("1", "4", "10", "16", "64", "100", "256", "1000"),
    ("10",),
    "Basic_MULTI_REDUCE's number of bins, as RAJAPerf's --multi_reduce_num_bins "
    "(default 10, RAJAPerf's)",
)

#: MULTI_REDUCE adds each work-item's run sums in whatever order the atomics
#: land; in f32 a bin of 1e5 values so summed was 1.1e-5 off (relative) on PoCL
#: at n = 1e6 with 10 bins, and the error grows with n.
MULTI_REDUCE_TOLERANCE = Tolerance(NORMAL.f64, 1e-3)


def _multi_reduce_plan(num_bins: int):
    def plan(size: int) -> list[Launch]:
        return [
            Launch("multi_reduce_clear", num_bins, GROUP, ("values", "num_bins")),
            chunked_launch("multi_reduce", size, ("data", "bins", "values")),
        ]

    return plan


def _multi_reduce_inputs(data: np.ndarray, bins: np.ndarray, values: np.ndarray) -> dict:
    return {"data": data, "bins": bins, "values": values, "num_bins": values.size}


def _multi_reduce_clear_cpu(grid: Grid, values: np.ndarray, num_bins: int) -> None:
    values[:num_bins] = 0


def _multi_reduce_cpu(
    grid: Grid, data: np.ndarray, bins: np.ndarray, values: np.ndarray, n: int, chunk: int
) -> None:
    sums = np.bincount(bins[:n], weights=data[:n], minlength=values.size)
    values += sums.astype(values.dtype)


def _multi_reduce_reference(x: dict) -> dict:
    num_bins = int(x["num_bins"])
    return {"values": np.bincount(x["bins"], weights=as_f64(x["data"]), minlength=num_bins)}


def _multi_reduce(num_bins: int) -> KernelSpec:
    """MULTI_REDUCE over ``num_bins`` bins, assigned as RAJAPerf's RunsRandomSizes."""

    def init(size: int, seed: int, precision: str) -> dict:
        d = DataInit()
        data = d.rand_value(size)
        return _multi_reduce_inputs(data, histogram_bins(size, num_bins), np.zeros(num_bins))

    def check_init(size: int, seed: int, precision: str) -> dict:
        """Bins drawn at random and stale values to clear."""
        rng = np.random.default_rng(seed)
        return _multi_reduce_inputs(
            rng.uniform(0.5, 1.5, size),
            rng.integers(0, num_bins, size),
            rng.uniform(1, 2, num_bins),
        )

    return KernelSpec(
        name="Basic_MULTI_REDUCE",
        fixed_group=CHUNKS_FIXED,
        group="Basic",
        summary=f"values[bins[i]] += data[i] over {num_bins} bins: runs summed, then atomics",
        arrays=(
            Array("data", "real", per_item),
            Array("bins", "i32", per_item),
            Array("values", "real", lambda n: num_bins, "out"),
        ),
        scalars=(N, CHUNK, Scalar("num_bins", "u32")),
        plan=_multi_reduce_plan(num_bins),
        init=init,
        reference=_multi_reduce_reference,
        cpu={"multi_reduce_clear": _multi_reduce_clear_cpu, "multi_reduce": _multi_reduce_cpu},
        traffic=lambda n, b: Traffic(read=n * (b + BIN_BYTES), atomic_modify_write=num_bins * b),
        flops=lambda n: n,
        default_reps=50,
        tolerance=MULTI_REDUCE_TOLERANCE,
        features=ATOMIC_FEATURES,
        precision_features=ATOMIC_PRECISION_FEATURES,
        rajaperf_features=("Forall", "Atomic"),
        check_cases=(
            CheckCase(
                "random",
                check_init,
                "RAJAPerf's bins are long runs, so a work-item adds one or two sums "
                "and values start at zero; here every item's bin is random and values "
                "start stale",
            ),
        ),
        check_sizes=CHUNKED_CHECK_SIZES,
        params=(NUM_BINS,),
        bind=lambda chosen: _multi_reduce(int(chosen.get(NUM_BINS.name, NUM_BINS.default[0]))),
        param_values={NUM_BINS.name: str(num_bins)},
    )


MULTI_REDUCE = _multi_reduce(int(NUM_BINS.default[0]))


# --- ATOMIC -------------------------------------------------------------------

REPLICATION = Param(
    "atomic_replication",
    tuple(str(1 << k) for k in range(13)),
    ("64", "4096"),
    "Algorithm_ATOMIC's number of addresses the adds spread over, as RAJAPerf's "
    "--atomic_replication (default: RAJAPerf's CPU default 64 and GPU default 4096, "
    "as two rows)",
    role="variant",
)
#: What every item adds, RAJAPerf's ATOMIC_VALUE.
ATOMIC_VALUE = 1.0


def _atomic_counts(n: int, replication: int) -> np.ndarray:
    """How many of the items 0..n-1 add to each address."""
    counts = np.full(replication, n // replication)
    counts[: n % replication] += 1
    return counts


def _atomic(replication: int) -> KernelSpec:
    """ATOMIC with its adds spread over ``replication`` addresses."""

    def init(size: int, seed: int, precision: str) -> dict:
        return {"atomic": np.zeros(replication), "n": size}

    def cpu(grid: Grid, atomic: np.ndarray, n: int) -> None:
        # Every item's add, as a histogram of the addresses: the adds' result in
        # closed form took microseconds at any n, and read as 1000 GB/s.
        adds = np.bincount(np.arange(n) % replication, minlength=replication)
        atomic[:replication] += (ATOMIC_VALUE * adds).astype(atomic.dtype)

    def reference(x: dict) -> dict:
        counts = _atomic_counts(int(x["n"]), replication)
        return {"atomic": as_f64(x["atomic"]) + ATOMIC_VALUE * counts}

    def check_init(size: int, seed: int, precision: str) -> dict:
        """Stale, distinct counts the adds must keep."""
        rng = np.random.default_rng(seed)
        return {"atomic": rng.integers(1, 1000, replication).astype(np.float64), "n": size}

    return KernelSpec(
        name="Algorithm_ATOMIC",
        group="Algorithm",
        summary=f"atomic[i % {replication}] += 1; the result is the sum of atomic",
        arrays=(Array("atomic", "real", lambda n: replication, "inout"),),
        scalars=(N,),
        plan=one_launch("atomic_replicate", ("atomic",)),
        init=init,
        reference=reference,
        cpu={"atomic_replicate": cpu},
        traffic=lambda n, b: Traffic(atomic_modify_write=n * b),
        flops=lambda n: n,
        default_reps=50,
        tolerance=NORMAL,
        features=ATOMIC_FEATURES,
        precision_features=ATOMIC_PRECISION_FEATURES,
        rajaperf_features=("Forall", "Atomic"),
        checksum=lambda out: abs(float(np.sum(out["atomic"], dtype=np.float64))),
        constants={"REPLICATION": replication, "ATOMIC_VALUE": ATOMIC_VALUE},
        check_cases=(
            CheckCase(
                "stale",
                check_init,
                "RAJAPerf's atomic starts at zero, so an add that drops the old value "
                "still matches where n < replication; here it starts at distinct counts",
            ),
        ),
        check_sizes=FORALL_CHECK_SIZES,
        params=(REPLICATION,),
        bind=lambda chosen: _atomic(int(chosen.get(REPLICATION.name, REPLICATION.default[0]))),
        param_values={REPLICATION.name: str(replication)},
    )


ATOMIC = _atomic(int(REPLICATION.default[0]))

KERNELS: tuple[KernelSpec, ...] = (DAXPY_ATOMIC, MULTI_REDUCE, ATOMIC)

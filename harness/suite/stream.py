"""RAJAPerf's Stream group: COPY, MUL, ADD, TRIAD and DOT.

Math, default sizes and reps, init order and bytes/FLOPs follow RAJAPerf's
src/stream/*.cpp; the init order matters because it fixes each array's factor.
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
)
from harness.suite.forall import FORALL_CHECK_SIZES, N, as_f64, one_launch, per_item
from harness.suite.scan import (
    CHUNK,
    CHUNKED_CHECK_SIZES,
    CHUNKS_FIXED,
    COUNT,
    MANY_PARTIALS_SIZE,
    chunked_launch,
    fold_launch,
    partial_groups,
)

GROUP_NAME = "Stream"


def _real_traffic(read: int, write: int = 0, modify: int = 0):
    def traffic(size: int, real_bytes: int) -> Traffic:
        return Traffic(
            read * size * real_bytes, write * size * real_bytes, modify * size * real_bytes
        )

    return traffic


# --- COPY ---------------------------------------------------------------------


def _copy_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"a": d.data(size), "c": d.const(size, 0.0)}


def _copy_cpu(grid: Grid, a: np.ndarray, c: np.ndarray, n: int) -> None:
    np.copyto(c[:n], a[:n])


COPY = KernelSpec(
    name="Stream_COPY",
    group=GROUP_NAME,
    summary="c[i] = a[i]",
    arrays=(Array("a", "real", per_item), Array("c", "real", per_item, "out")),
    scalars=(N,),
    plan=one_launch("copy", ("a", "c")),
    init=_copy_init,
    reference=lambda x: {"c": as_f64(x["a"])},
    cpu={"copy": _copy_cpu},
    traffic=_real_traffic(1, 1),
    flops=lambda n: 0,
    default_reps=1800,
    tolerance=EXACT,
    peak_bandwidth=True,
    check_sizes=FORALL_CHECK_SIZES,
)


# --- MUL ----------------------------------------------------------------------


def _mul_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"b": d.const(size, 0.0), "c": d.data(size), "alpha": d.scalar()}


def _mul_cpu(grid: Grid, b: np.ndarray, c: np.ndarray, alpha, n: int) -> None:
    np.multiply(c[:n], alpha, out=b[:n])


MUL = KernelSpec(
    name="Stream_MUL",
    group=GROUP_NAME,
    summary="b[i] = alpha * c[i]",
    arrays=(Array("b", "real", per_item, "out"), Array("c", "real", per_item)),
    scalars=(Scalar("alpha", "real"), N),
    plan=one_launch("mul", ("b", "c", "alpha")),
    init=_mul_init,
    reference=lambda x: {"b": float(x["alpha"]) * as_f64(x["c"])},
    cpu={"mul": _mul_cpu},
    traffic=_real_traffic(1, 1),
    flops=lambda n: n,
    default_reps=1800,
    check_sizes=FORALL_CHECK_SIZES,
)


# --- ADD ----------------------------------------------------------------------


def _add_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"a": d.data(size), "b": d.data(size), "c": d.const(size, 0.0)}


def _add_cpu(grid: Grid, a: np.ndarray, b: np.ndarray, c: np.ndarray, n: int) -> None:
    np.add(a[:n], b[:n], out=c[:n])


ADD = KernelSpec(
    name="Stream_ADD",
    group=GROUP_NAME,
    summary="c[i] = a[i] + b[i]",
    arrays=(
        Array("a", "real", per_item),
        Array("b", "real", per_item),
        Array("c", "real", per_item, "out"),
    ),
    scalars=(N,),
    plan=one_launch("add", ("a", "b", "c")),
    init=_add_init,
    reference=lambda x: {"c": as_f64(x["a"]) + as_f64(x["b"])},
    cpu={"add": _add_cpu},
    traffic=_real_traffic(2, 1),
    flops=lambda n: n,
    default_reps=1000,
    check_sizes=FORALL_CHECK_SIZES,
)


# --- TRIAD --------------------------------------------------------------------


def _triad_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"a": d.const(size, 0.0), "b": d.data(size), "c": d.data(size), "alpha": d.scalar()}


def _triad_cpu(grid: Grid, a: np.ndarray, b: np.ndarray, c: np.ndarray, alpha, n: int) -> None:
    np.multiply(c[:n], alpha, out=a[:n])
    np.add(a[:n], b[:n], out=a[:n])


TRIAD = KernelSpec(
    name="Stream_TRIAD",
    group=GROUP_NAME,
    summary="a[i] = b[i] + alpha * c[i]",
    arrays=(
        Array("a", "real", per_item, "out"),
        Array("b", "real", per_item),
        Array("c", "real", per_item),
    ),
    scalars=(Scalar("alpha", "real"), N),
    plan=one_launch("triad", ("a", "b", "c", "alpha")),
    init=_triad_init,
    reference=lambda x: {"a": as_f64(x["b"]) + float(x["alpha"]) * as_f64(x["c"])},
    cpu={"triad": _triad_cpu},
    traffic=_real_traffic(2, 1),
    flops=lambda n: 2 * n,
    default_reps=1000,
    check_sizes=FORALL_CHECK_SIZES,
)


# --- DOT ----------------------------------------------------------------------


def _dot_plan(size: int) -> list[Launch]:
    return [
        chunked_launch("dot_partial", size, ("a", "b", "partial")),
        fold_launch("dot_final", size, ("partial", "dot")),
    ]


def _dot_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {
        "a": d.data(size),
        "b": d.data(size),
        "partial": np.zeros(partial_groups(size)),
        "dot": np.zeros(1),
    }


def _dot_check_init(size: int, seed: int, precision: str) -> dict:
    """Distinct random factors in [0.5, 1.5] (no cancellation) and a nonzero start for dot."""
    rng = np.random.default_rng(seed)
    return {
        "a": rng.uniform(0.5, 1.5, size),
        "b": rng.uniform(0.5, 1.5, size),
        "partial": np.zeros(partial_groups(size)),
        "dot": np.array([rng.uniform(1.0, 2.0)]),
    }


def _dot_partial_cpu(grid: Grid, a, b, partial, n: int, chunk: int) -> None:
    partial[: grid.groups] = 0
    if n:
        sums = np.add.reduceat(a[:n] * b[:n], np.arange(0, n, chunk))
        partial[: sums.size] = sums


def _dot_final_cpu(grid: Grid, partial, dot, count: int) -> None:
    dot[0] += partial[:count].sum()


DOT = KernelSpec(
    name="Stream_DOT",
    fixed_group=CHUNKS_FIXED,
    group=GROUP_NAME,
    summary="dot += sum(a[i] * b[i]), a two-pass reduction",
    arrays=(
        Array("a", "real", per_item),
        Array("b", "real", per_item),
        Array("partial", "real", partial_groups, "scratch"),
        Array("dot", "real", lambda n: 1, "inout"),
    ),
    scalars=(N, CHUNK, COUNT),
    plan=_dot_plan,
    init=_dot_init,
    reference=lambda x: {"dot": as_f64(x["dot"]) + np.dot(as_f64(x["a"]), as_f64(x["b"]))},
    cpu={"dot_partial": _dot_partial_cpu, "dot_final": _dot_final_cpu},
    traffic=_real_traffic(2),
    flops=lambda n: 2 * n,
    default_reps=2000,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Forall", "Reduction"),
    checksum=registered(scalars=("dot",)),
    check_cases=(
        CheckCase(
            "random",
            _dot_check_init,
            "RAJAPerf's a and b each vary by under 2%, so a term read from the wrong "
            "index barely shows; these are distinct random factors and dot starts nonzero",
        ),
    ),
    # The fold launch's stride counts only past 256 partials (MANY_PARTIALS_SIZE).
    check_sizes=(*CHUNKED_CHECK_SIZES, MANY_PARTIALS_SIZE),
)


KERNELS = (COPY, MUL, ADD, TRIAD, DOT)

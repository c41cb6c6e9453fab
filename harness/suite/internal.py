"""Kernels the harness runs for itself rather than as benchmarks: not listed, not
selectable, but described like any other so that every backend runs them and
the checks that hold for the suite (CUDA compiles, the calling convention) hold
for them too."""

from __future__ import annotations

import numpy as np

from harness.model.spec import Array, Grid, KernelSpec, Launch, Scalar, Traffic
from harness.suite.forall import FORALL_CHECK_SIZES, GROUP, N, per_item

#: Elements of the scratch buffer each work-item of the flush reads.
PASSES = 64


def _width(n: int) -> int:
    """Work-items of the flush, and elements of its sink."""
    return -(-n // PASSES)


def _init(size: int, seed: int, precision: str) -> dict:
    scratch = np.random.default_rng(seed).integers(0, 2**32, size, dtype=np.uint32)
    return {"scratch": scratch, "sink": np.zeros(_width(size), np.uint32)}


def _reference(inputs: dict) -> dict[str, np.ndarray]:
    scratch = inputs["scratch"]
    width = _width(scratch.size)
    padded = np.zeros(width * PASSES, np.uint32)
    padded[: scratch.size] = scratch
    return {"sink": np.bitwise_xor.reduce(padded.reshape(PASSES, width), axis=0)}


def _cpu(grid: Grid, scratch: np.ndarray, sink: np.ndarray, n: int, width: int) -> None:
    sink[:width] = _reference({"scratch": scratch[:n]})["sink"]


def _plan(size: int) -> list[Launch]:
    width = _width(size)
    return [
        Launch(
            "cache_flush",
            width,
            GROUP,
            ("scratch", "sink", "n", "width"),
            {"n": size, "width": width},
        )
    ]


#: Reads a scratch buffer between cold-cache repetitions (`harness.execution.flush`).
FLUSH = KernelSpec(
    name="CacheFlush",
    group="Internal",
    summary="reads a buffer larger than the last-level cache (cold-cache runs)",
    arrays=(Array("scratch", "u32", per_item), Array("sink", "u32", _width, "out")),
    scalars=(N, Scalar("width", "u32")),
    plan=_plan,
    init=_init,
    reference=_reference,
    cpu={"cache_flush": _cpu},
    traffic=lambda n, b: Traffic(read=4 * n, write=4 * _width(n)),
    flops=lambda n: 0,
    constants={"PASSES": PASSES},
    check_sizes=FORALL_CHECK_SIZES,
    rajaperf_features=(),
)


#: Every internal kernel.
KERNELS = (FLUSH,)

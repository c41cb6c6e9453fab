"""Kernels the harness runs for itself rather than as benchmarks: not listed, not
selectable, but described like any other so that every backend runs them and
the checks that hold for the suite (CUDA compiles, the calling convention) hold
for them too."""

from __future__ import annotations

import numpy as np

from harness.model.spec import Array, Grid, KernelSpec, Traffic
from harness.suite.forall import FORALL_CHECK_SIZES, N, one_launch, per_item


def _init(size: int, seed: int, precision: str) -> dict:
    return {"scratch": np.random.default_rng(seed).integers(0, 2**32, size, dtype=np.uint32)}


def _reference(inputs: dict) -> dict[str, np.ndarray]:
    return {"scratch": inputs["scratch"] * np.uint32(3) + np.uint32(1)}


def _cpu(grid: Grid, scratch: np.ndarray, n: int) -> None:
    view = scratch[:n]
    view *= np.uint32(3)
    view += np.uint32(1)


#: Reads and writes a scratch buffer between cold-cache repetitions
#: (`harness.execution.flush`).
FLUSH = KernelSpec(
    name="CacheFlush",
    group="Internal",
    summary="reads and writes a buffer larger than the last-level cache (cold-cache runs)",
    arrays=(Array("scratch", "u32", per_item, "inout"),),
    scalars=(N,),
    plan=one_launch("cache_flush", ("scratch",)),
    init=_init,
    reference=_reference,
    cpu={"cache_flush": _cpu},
    traffic=lambda n, b: Traffic(modify_write=4 * n),
    flops=lambda n: 0,
    check_sizes=FORALL_CHECK_SIZES,
    rajaperf_features=(),
)


#: Every internal kernel.
KERNELS = (FLUSH,)

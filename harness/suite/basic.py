"""RAJAPerf's Basic group (src/basic/*.cpp)."""

from __future__ import annotations

import numpy as np

from harness.rajaperf import DataInit
from harness.spec import NORMAL, Array, Grid, KernelSpec, Scalar, Traffic
from harness.suite.forall import one_launch

GROUP_NAME = "Basic"


def _daxpy_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"y": d.const(size, 0.0), "x": d.data(size), "a": d.scalar()}


def _daxpy_cpu(grid: Grid, x: np.ndarray, y: np.ndarray, a, n: int) -> None:
    y[:n] += a * x[:n]


def _daxpy_reference(x: dict) -> dict:
    return {"y": np.asarray(x["y"], np.float64) + float(x["a"]) * np.asarray(x["x"], np.float64)}


KERNELS = (
    KernelSpec(
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
    ),
)

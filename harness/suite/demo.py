"""Classic demonstration kernels that are not part of RAJAPerf."""

from __future__ import annotations

import numpy as np

from harness.spec import TIGHT, Array, Grid, KernelSpec, Scalar, Traffic
from harness.suite.forall import one_launch

GROUP_NAME = "Demo"


def _vadd_init(size: int, seed: int, precision: str) -> dict:
    rng = np.random.default_rng(seed)
    return {"a": rng.uniform(-1, 1, size), "b": rng.uniform(-1, 1, size), "c": np.zeros(size)}


def _vadd_cpu(grid: Grid, a: np.ndarray, b: np.ndarray, c: np.ndarray, n: int) -> None:
    np.add(a[:n], b[:n], out=c[:n])


KERNELS = (
    KernelSpec(
        name="Demo_VADD",
        group=GROUP_NAME,
        summary="c[i] = a[i] + b[i] on random inputs (the hello-world of GPU kernels)",
        arrays=(
            Array("a", "real", lambda n: n),
            Array("b", "real", lambda n: n),
            Array("c", "real", lambda n: n, "out"),
        ),
        scalars=(Scalar("n", "u32"),),
        plan=one_launch("vadd", ("a", "b", "c")),
        init=_vadd_init,
        reference=lambda x: {"c": np.asarray(x["a"], np.float64) + np.asarray(x["b"], np.float64)},
        cpu={"vadd": _vadd_cpu},
        traffic=lambda n, b: Traffic(read=2 * n * b, write=n * b),
        flops=lambda n: n,
        default_reps=200,
        tolerance=TIGHT,
    ),
)

"""Two kernels of one's own, run by the harness like its shipped ones:

    harness run --suite examples/my_kernels/kernels.py -k My -b cpu opencl wgpu

A description says what the kernel's arrays and scalars are, how one repetition
is launched (``plan``), how inputs are made (``init``), what the right answer
is (``reference``, in float64), a numpy version of each entry point (``cpu``,
which the cpu backend runs) and what a repetition moves and computes. The
sources sit beside this file: c/<name>.c (OpenCL and CUDA, in the words of
kernels/README.md) and wgsl/<name>.wgsl, the arrays first, then the scalars,
in the order the launch lists them.
"""

from __future__ import annotations

import math

import numpy as np

from harness.model.spec import TIGHT, Array, Grid, KernelSpec, Launch, Scalar, Tolerance, Traffic

# --- My_SAXPY: y = a x + y -----------------------------------------------------


def _saxpy_plan(size: int) -> list[Launch]:
    # One work-item per element, in work-groups of 256 (the sources see GROUP).
    return [Launch("saxpy", size, 256, ("x", "y", "a", "n"), {"n": size})]


def _saxpy_init(size: int, seed: int, precision: str) -> dict:
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-1, 1, size), "y": rng.uniform(-1, 1, size), "a": 2.5}


def _saxpy_cpu(grid: Grid, x: np.ndarray, y: np.ndarray, a: float, n: int) -> None:
    y[:n] += a * x[:n]


SAXPY = KernelSpec(
    name="My_SAXPY",
    group="My",
    summary="y = a x + y",
    arrays=(Array("x", "real", lambda n: n), Array("y", "real", lambda n: n, "inout")),
    scalars=(Scalar("a", "real"), Scalar("n", "u32")),
    plan=_saxpy_plan,
    init=_saxpy_init,
    reference=lambda x: {"y": float(x["a"]) * np.float64(x["x"]) + np.float64(x["y"])},
    cpu={"saxpy": _saxpy_cpu},
    traffic=lambda n, b: Traffic(read=n * b, modify_write=n * b),
    flops=lambda n: 2 * n,
    # Largest relative error at f64 and f32; a x + y cancels to near 0 for some
    # elements, so each is judged against at least 5% of the largest.
    tolerance=Tolerance(1e-13, 1e-5, floor=0.05),
)


# --- My_STENCIL2D: a 5-point stencil on a 2-D grid -------------------------------


def edge(size: int) -> int:
    """The grid's edge: about sqrt(size) points, at least 3."""
    return max(3, math.isqrt(size))


def _stencil_plan(size: int) -> list[Launch]:
    n = edge(size)
    # A 2-D launch over the interior, x along a row, in 16 x 16 work-groups.
    return [Launch("stencil2d", (n - 2, n - 2), (16, 16), ("src", "dst", "n"), {"n": n})]


def _stencil_init(size: int, seed: int, precision: str) -> dict:
    n = edge(size)
    rng = np.random.default_rng(seed)
    return {"src": rng.uniform(0, 1, n * n), "dst": np.zeros(n * n)}


def _stencil(a: np.ndarray) -> np.ndarray:
    return 0.5 * a[1:-1, 1:-1] + 0.125 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])


def _stencil_cpu(grid: Grid, src: np.ndarray, dst: np.ndarray, n: int) -> None:
    dst[: n * n].reshape(n, n)[1:-1, 1:-1] = _stencil(src[: n * n].reshape(n, n))


def _stencil_reference(x: dict) -> dict:
    n = math.isqrt(x["src"].size)
    out = np.float64(x["dst"]).reshape(n, n).copy()
    out[1:-1, 1:-1] = _stencil(np.float64(x["src"]).reshape(n, n))
    return {"dst": out.ravel()}


STENCIL2D = KernelSpec(
    name="My_STENCIL2D",
    group="My",
    summary="dst = 0.5 centre + 0.125 of each of the 4 neighbours (interior of an n x n grid)",
    arrays=(
        Array("src", "real", lambda s: edge(s) ** 2),
        Array("dst", "real", lambda s: edge(s) ** 2, "out"),
    ),
    scalars=(Scalar("n", "u32"),),
    plan=_stencil_plan,
    init=_stencil_init,
    reference=_stencil_reference,
    cpu={"stencil2d": _stencil_cpu},
    traffic=lambda s, b: Traffic(read=edge(s) ** 2 * b, write=(edge(s) - 2) ** 2 * b),
    flops=lambda s: 6 * (edge(s) - 2) ** 2,
    # Every launch's work-group shape: the sources see GROUP_X and GROUP_Y.
    group_size=(16, 16),
    tolerance=TIGHT,
    # An edge that fills no work-group (97) and one that fills them exactly (66).
    check_sizes=(97 * 97, 66 * 66),
)

#: What the harness reads: the kernels this file adds.
KERNELS = (SAXPY, STENCIL2D)

"""Classic demonstration kernels that are not part of RAJAPerf."""

from __future__ import annotations

import functools
import math

import numpy as np

from harness.model.spec import (
    EXACT,
    TIGHT,
    Array,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Tolerance,
    Traffic,
)
from harness.model.verify import Verdict
from harness.suite.forall import GROUP, one_launch
from harness.suite.library import call, with_library

GROUP_NAME = "Demo"


def _vadd_init(size: int, seed: int, precision: str) -> dict:
    rng = np.random.default_rng(seed)
    return {"a": rng.uniform(-1, 1, size), "b": rng.uniform(-1, 1, size), "c": np.zeros(size)}


def _vadd_cpu(grid: Grid, a: np.ndarray, b: np.ndarray, c: np.ndarray, n: int) -> None:
    np.add(a[:n], b[:n], out=c[:n])


VADD = KernelSpec(
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
    # A multiple of the work-group width, where a wrong group width leaves elements out.
    check_sizes=(4096, 10_007),
)


#: Escape-time iterations per pixel, and the rectangle of the complex plane drawn.
MANDELBROT_ITERATIONS = 256
MANDELBROT_VIEW = (-2.0, -1.5, 3.0)


def _side(size: int) -> int:
    return max(1, math.isqrt(size))


def _mandelbrot_plan(size: int) -> list[Launch]:
    side = _side(size)
    return [
        Launch(
            "mandelbrot",
            side * side,
            GROUP,
            ("iterations", "side", "limit", "x0", "y0", "step"),
            {
                "side": side,
                "limit": MANDELBROT_ITERATIONS,
                "x0": MANDELBROT_VIEW[0],
                "y0": MANDELBROT_VIEW[1],
                "step": MANDELBROT_VIEW[2] / side,
            },
        )
    ]


def _mandelbrot_counts(side: int, limit: int, x0, y0, step, dtype) -> np.ndarray:
    """Escape iterations of every pixel in ``dtype``: all pixels iterate at once,
    those that escape leaving the arrays, so that each iteration costs as many
    pixels as are still inside (a quarter of the time of iterating them all)."""
    index = np.arange(side * side)
    cx = (dtype.type(x0) + dtype.type(step) * (index % side).astype(dtype)).astype(dtype)
    cy = (dtype.type(y0) + dtype.type(step) * (index // side).astype(dtype)).astype(dtype)
    x = np.zeros_like(cx)
    y = np.zeros_like(cy)
    counts = np.full(side * side, limit, dtype=np.uint32)
    for iteration in range(limit):
        xx, yy = x * x, y * y
        inside = xx + yy <= 4
        if not inside.all():
            counts[index[~inside]] = iteration
            index, cx, cy, x, y, xx, yy = (a[inside] for a in (index, cx, cy, x, y, xx, yy))
        y = 2 * x * y + cy
        x = xx - yy + cx
    return counts


def _mandelbrot_cpu(grid: Grid, iterations: np.ndarray, side, limit, x0, y0, step) -> None:
    iterations[: int(side) ** 2] = _mandelbrot_counts(
        int(side), int(limit), x0, y0, step, np.asarray(x0).dtype
    )


def _mandelbrot_init(size: int, seed: int, precision: str) -> dict:
    return {"iterations": np.zeros(_side(size) ** 2, dtype=np.uint32)}


@functools.lru_cache(maxsize=4)
def _reference_counts(side: int) -> np.ndarray:
    view = MANDELBROT_VIEW
    counts = _mandelbrot_counts(
        side, MANDELBROT_ITERATIONS, view[0], view[1], view[2] / side, np.dtype(np.float64)
    )
    counts.flags.writeable = False
    return counts


def _mandelbrot_reference(inputs: dict) -> dict[str, np.ndarray]:
    return {"iterations": _reference_counts(_side(inputs["iterations"].size)).copy()}


#: FLOPs of the kernel's work: per pixel its point (2 multiplies, 2 adds); per
#: iteration that goes on, 4 multiplies and 4 adds; per pixel that escapes, the
#: test that finds it (2 multiplies, 1 add).
FLOPS_PER_PIXEL, FLOPS_PER_ITERATION, FLOPS_PER_ESCAPE = 4, 8, 3


#: The side of the largest image whose FLOPs are counted pixel by pixel; a larger
#: image's are this one's scaled by its pixels (the same view, sampled finer), so
#: that no size asks the host for more than this image's reference.
COUNTED_SIDE = 2048


def mandelbrot_flops(size: int) -> int:
    """FLOPs one image takes, counted from its escape iterations (the f64
    reference's: an f32 image differs on a few boundary pixels only)."""
    side = _side(size)
    counts = _reference_counts(min(side, COUNTED_SIDE))
    escaped = int(np.count_nonzero(counts < MANDELBROT_ITERATIONS))
    flops = (
        FLOPS_PER_PIXEL * counts.size
        + FLOPS_PER_ITERATION * int(counts.sum(dtype=np.int64))
        + FLOPS_PER_ESCAPE * escaped
    )
    return flops if side <= COUNTED_SIDE else round(flops * side * side / counts.size)


#: Pixels on the set's boundary are chaotic: one rounding difference (a fused
#: multiply-add, f32 against f64) changes their count. Up to this fraction of
#: pixels may differ; a wrong kernel changes far more.
MANDELBROT_DIFFERING = 0.01


def _mandelbrot_verify(inputs: dict, outputs: dict, reference: dict) -> Verdict:
    """At most MANDELBROT_DIFFERING of the pixels differ, and none is left unwritten.

    Every pixel's first test sees z = 0, so a count of 0 (the initial contents)
    means no work-item wrote it: rounding cannot do that, a wrong index can,
    and a few missed pixels would otherwise hide under the allowance.
    """
    got, want = outputs["iterations"], reference["iterations"]
    unwritten = np.flatnonzero((got == 0) & (want != 0))
    if unwritten.size:
        at = int(unwritten[0])
        return Verdict(
            float("inf"),
            f"iterations: {unwritten.size} of {want.size} pixels were never written; "
            f"first at {at} (expected {want[at]})",
        )
    differ = int(np.count_nonzero(got != want))
    fraction = differ / max(1, want.size)
    if fraction > MANDELBROT_DIFFERING:
        at = int(np.flatnonzero(got != want)[0])
        return Verdict(
            fraction,
            f"iterations: {differ} of {want.size} pixels differ (more than "
            f"{MANDELBROT_DIFFERING:.0%}); first at {at}: got {got[at]}, expected {want[at]}",
        )
    return Verdict(fraction, None)


MANDELBROT = KernelSpec(
    name="Demo_MANDELBROT",
    group=GROUP_NAME,
    summary="escape iterations of a square image of the Mandelbrot set (up to 256)",
    arrays=(Array("iterations", "u32", lambda n: _side(n) ** 2, "out"),),
    scalars=(
        Scalar("side", "u32"),
        Scalar("limit", "u32"),
        Scalar("x0", "real"),
        Scalar("y0", "real"),
        Scalar("step", "real"),
    ),
    plan=_mandelbrot_plan,
    init=_mandelbrot_init,
    reference=_mandelbrot_reference,
    cpu={"mandelbrot": _mandelbrot_cpu},
    traffic=lambda n, b: Traffic(write=4 * _side(n) ** 2),
    flops=mandelbrot_flops,
    default_size=1 << 20,
    default_reps=20,
    check_size=40_000,
    # 256 x 256 pixels fill whole work-groups, where a wrong group width leaves some out.
    check_sizes=(40_000, 65_536),
    tolerance=EXACT,
    verify=_mandelbrot_verify,
    items="pixels",
    image=lambda outputs: outputs["iterations"].reshape(
        _side(outputs["iterations"].size), _side(outputs["iterations"].size)
    ),
)

# --- SGEMV --------------------------------------------------------------------


def sgemv_dims(size: int) -> tuple[int, int]:
    """Rows and columns of the square matrix of about ``size`` elements."""
    side = _side(size)
    return side, side


def _sgemv_init(size: int, seed: int, precision: str) -> dict:
    rows, cols = sgemv_dims(size)
    rng = np.random.default_rng(seed)
    return {
        "A": rng.uniform(-1, 1, rows * cols),
        "x": rng.uniform(-1, 1, cols),
        "y": np.zeros(rows),
        "alpha": 1.0,
        "beta": 0.0,
    }


def _sgemv_plan(size: int) -> list[Launch]:
    rows, cols = sgemv_dims(size)
    return [
        Launch("sgemv", rows, GROUP, ("A", "x", "y", "rows", "cols"), {"rows": rows, "cols": cols})
    ]


def _sgemv_cpu(grid: Grid, A, x, y, rows: int, cols: int) -> None:
    y[:rows] = A[: rows * cols].reshape(rows, cols) @ x[:cols]


def _sgemv_reference(inputs: dict) -> dict[str, np.ndarray]:
    rows = inputs["y"].size
    a = np.asarray(inputs["A"], np.float64).reshape(rows, -1)
    return {"y": a @ np.asarray(inputs["x"], np.float64)}


def _sgemv_library_plan(size: int) -> list[Launch]:
    rows, cols = sgemv_dims(size)
    return [
        call("gemv", ("y", "A", "x", "alpha", "beta", "rows", "cols"), {"rows": rows, "cols": cols})
    ]


SGEMV = KernelSpec(
    name="Demo_SGEMV",
    group=GROUP_NAME,
    summary="y = A x in f32, A square and stored by rows: a work-item per row",
    arrays=(
        Array("A", "f32", lambda n: sgemv_dims(n)[0] * sgemv_dims(n)[1]),
        Array("x", "f32", lambda n: sgemv_dims(n)[1]),
        Array("y", "f32", lambda n: sgemv_dims(n)[0], "out"),
    ),
    scalars=(
        Scalar("alpha", "f32"),
        Scalar("beta", "f32"),
        Scalar("rows", "u32"),
        Scalar("cols", "u32"),
    ),
    plan=_sgemv_plan,
    init=_sgemv_init,
    reference=_sgemv_reference,
    cpu={"sgemv": _sgemv_cpu},
    traffic=lambda n, b: Traffic(
        read=4 * (sgemv_dims(n)[0] * sgemv_dims(n)[1] + sgemv_dims(n)[1]),
        write=4 * sgemv_dims(n)[0],
    ),
    flops=lambda n: 2 * sgemv_dims(n)[0] * sgemv_dims(n)[1],
    default_size=1 << 22,
    default_reps=50,
    check_size=10_000,
    # 64 x 64: whole work-groups of rows, where a wrong group width leaves rows out.
    check_sizes=(10_000, 4096),
    # Single-precision sums of thousands of products against the f64 reference:
    # an element that cancels to near 0 is judged against 5% of the largest.
    tolerance=Tolerance(1e-4, 1e-4, floor=0.05),
)

KERNELS = (
    VADD,
    MANDELBROT,
    with_library(
        SGEMV,
        _sgemv_library_plan,
        {},
        "y = A x in f32 by the device's BLAS gemv (CLBlast, numpy's)",
    ),
)

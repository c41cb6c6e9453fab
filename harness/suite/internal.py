"""Kernels the harness runs for itself rather than as benchmarks: not listed, not
selectable, but described like any other so that every backend runs them and
the checks that hold for the suite (CUDA compiles, the calling convention) hold
for them too."""

from __future__ import annotations

import numpy as np

from harness.model.spec import Array, Grid, KernelSpec, Launch, Scalar, Tolerance, Traffic
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


#: Independent chains of fused multiply-adds per work-item, and steps per chain:
#: enough chains to hide an FMA's latency, enough steps that arithmetic, not
#: memory, decides the time.
CHAINS = 8
STEPS = 256
#: Each step is x = x * FMA_SCALE + FMA_SHIFT: a scale just under 1 keeps every
#: value bounded while each step still changes it.
FMA_SCALE = 1.0 - 2.0**-12
FMA_SHIFT = 2.0**-10


def _fma_init(size: int, seed: int, precision: str) -> dict:
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(0.5, 1.5, size), "y": np.zeros(size)}


def _fma_chains(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The chains' sum per item, each chain starting from x plus its number."""
    scale, shift = dtype.type(FMA_SCALE), dtype.type(FMA_SHIFT)
    chains = [x.astype(dtype) + dtype.type(c) for c in range(CHAINS)]
    for _ in range(STEPS):
        chains = [v * scale + shift for v in chains]
    return sum(chains[1:], chains[0])


def _fma_reference(inputs: dict) -> dict[str, np.ndarray]:
    return {"y": _fma_chains(np.asarray(inputs["x"], np.float64), np.dtype(np.float64))}


def _fma_cpu(grid: Grid, x: np.ndarray, y: np.ndarray, n: int) -> None:
    y[:n] = _fma_chains(x[:n], x.dtype)


#: Arithmetic throughput: `harness peak` times it for a device's FLOP ceiling.
PEAK_FMA = KernelSpec(
    name="PeakFMA",
    group="Internal",
    summary=f"{CHAINS} chains of {STEPS} dependent fused multiply-adds per item (FLOP peak)",
    arrays=(Array("x", "real", per_item), Array("y", "real", per_item, "out")),
    scalars=(N,),
    plan=lambda size: [Launch("peak_fma", size, GROUP, ("x", "y", "n"), {"n": size})],
    init=_fma_init,
    reference=_fma_reference,
    cpu={"peak_fma": _fma_cpu},
    traffic=lambda n, b: Traffic(read=n * b, write=n * b),
    flops=lambda n: 2 * CHAINS * STEPS * n,
    constants={"CHAINS": CHAINS, "STEPS": STEPS, "FMA_SCALE": FMA_SCALE, "FMA_SHIFT": FMA_SHIFT},
    default_size=1 << 20,
    check_sizes=FORALL_CHECK_SIZES,
    tolerance=Tolerance(f64=1e-13, f32=1e-5),
    rajaperf_features=(),
)

#: Every internal kernel.
KERNELS = (FLUSH, PEAK_FMA)

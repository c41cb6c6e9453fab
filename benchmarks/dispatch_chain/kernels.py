"""Chains of dependent launches: Chain_K makes K launches a repetition, each adding
1 to every element of the one array the launch before wrote. Timed at a size
where a launch does almost nothing, a chain's time against K gives what one more
dependent launch costs through an API (the slope), which is what a kernel of
several launches (a reduction's group partials, then their fold) pays for each
launch after its first. `benchmarks/dispatch_chain.py` runs and fits them."""

from __future__ import annotations

import numpy as np

from harness.model.spec import TIGHT, Array, Grid, KernelSpec, Launch, Scalar, Traffic

#: Launches per repetition of the chains.
LENGTHS = (1, 2, 4, 8, 16)
#: Elements of the array: four work-groups of 256.
SIZE = 1024


def _bump(grid: Grid, y: np.ndarray, n: int) -> None:
    y[:n] += 1


def _chain(length: int) -> KernelSpec:
    def plan(size: int) -> list[Launch]:
        return [Launch("bump", size, 256, ("y", "n"), {"n": size})] * length

    def init(size: int, seed: int, precision: str) -> dict:
        return {"y": np.random.default_rng(seed).uniform(-1, 1, size)}

    return KernelSpec(
        name=f"Chain_{length}",
        group="Chain",
        summary=f"{length} dependent launches, each y = y + 1",
        arrays=(Array("y", "real", lambda n: n, "inout"),),
        scalars=(Scalar("n", "u32"),),
        plan=plan,
        init=init,
        reference=lambda x: {"y": np.float64(x["y"]) + length},
        cpu={"bump": _bump},
        traffic=lambda n, b: Traffic(modify_write=length * n * b),
        flops=lambda n: length * n,
        default_size=SIZE,
        source="Chain",
        tolerance=TIGHT,
    )


#: What the harness reads: one chain per length.
KERNELS = tuple(_chain(length) for length in LENGTHS)

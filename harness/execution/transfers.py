"""Where a kernel's data lives while it is timed: the `--transfers` modes.

``resident``: inputs are uploaded once and outputs read once, outside the
timed region (a row times kernels only). ``per-rep``: each repetition uploads
what the kernel reads, runs every launch and downloads what it writes: the
transfers fused around the repetition, as an offload runtime that hoists them
does. ``per-launch``: each launch uploads the arrays it reads and downloads
those it writes, as a runtime that neither fuses nor hoists does.

A launch is taken to read an array of intent ``in`` or ``inout`` and one an
earlier launch of the repetition wrote (an intermediate result), and to write
every array that is not ``in``: the description says what a kernel does with
an array, not what each launch does, so this is what a runtime that maps each
argument by its declared use moves. Copies are timed by the device's clock
where the API times them (the row's ``transfer_timer`` says which).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harness.backends import base
from harness.model.spec import KernelSpec, ResolvedLaunch


@dataclass(frozen=True)
class Step:
    """Arrays uploaded, launches run (one timed span), arrays downloaded."""

    uploads: tuple[str, ...]
    launches: tuple[ResolvedLaunch, ...]
    downloads: tuple[str, ...]


def steps(spec: KernelSpec, launches: Sequence[ResolvedLaunch], mode: str) -> list[Step]:
    """One repetition's steps in a mode other than ``resident``."""
    intent = {a.name: a.intent for a in spec.arrays}
    if mode == "per-rep":
        named = list(dict.fromkeys(n for launch in launches for n in launch.arrays))
        return [
            Step(
                tuple(n for n in named if intent[n] in ("in", "inout")),
                tuple(launches),
                tuple(n for n in named if intent[n] in ("out", "inout")),
            )
        ]
    if mode != "per-launch":
        raise ValueError(f"transfer mode {mode!r} has no steps; expected per-rep or per-launch")
    written: set[str] = set()
    out = []
    for launch in launches:
        uploads = tuple(n for n in launch.arrays if intent[n] in ("in", "inout") or n in written)
        downloads = tuple(n for n in launch.arrays if intent[n] != "in")
        written.update(downloads)
        out.append(Step(uploads, (launch,), downloads))
    return out


class Mover:
    """The host's copies of a kernel's arrays, and repetitions that move them.

    The host copies start as the inputs and follow the device's results, so
    after a repetition they hold what the kernel computed (which is verified).
    """

    def __init__(
        self,
        spec: KernelSpec,
        launches: Sequence[ResolvedLaunch],
        mode: str,
        execution: base.Execution,
        inputs: Mapping[str, np.ndarray],
        hold: bool = True,
    ) -> None:
        self.steps = steps(spec, launches, mode)
        self.host = {a.name: np.array(inputs[a.name], copy=True) for a in spec.arrays}
        self._execution = execution
        self._hold = hold
        #: Seconds of each repetition's uploads, launches and downloads.
        self.parts: list[tuple[float, float, float]] = []

    def bytes(self) -> tuple[int, int]:
        """Bytes one repetition uploads and downloads."""
        up = sum(self.host[n].nbytes for s in self.steps for n in s.uploads)
        down = sum(self.host[n].nbytes for s in self.steps for n in s.downloads)
        return up, down

    def rep(self) -> float:
        """One repetition with its transfers; its total seconds (parts in `parts`)."""
        h2d = kernel = d2h = 0.0
        run = self._execution
        for step in self.steps:
            h2d += sum(run.upload(n, self.host[n]) for n in step.uploads)
            kernel += sum(run.time(step.launches, 1, self._hold))
            d2h += sum(run.download(n, self.host[n]) for n in step.downloads)
        self.parts.append((h2d, kernel, d2h))
        return h2d + kernel + d2h

    def columns(self) -> dict[str, float | int]:
        """The row's split of a repetition: median seconds of each part, and bytes."""
        up, down = self.bytes()
        h2d, kernel, d2h = (statistics.median(p) for p in zip(*self.parts, strict=True))
        return {
            "h2d_s": h2d,
            "kernel_s": kernel,
            "d2h_s": d2h,
            "h2d_bytes_per_rep": up,
            "d2h_bytes_per_rep": down,
        }

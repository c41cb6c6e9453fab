"""Plan -> execute -> verify -> record, for kernel x backend x device x size.

Each unit of work is a small picklable `Task`. Executing one compiles the
kernel (once per device and precision), uploads fresh inputs, runs one
verification repetition against the CPU reference, then untimed warm-ups and
timed repetitions on the device's own clock. Whatever goes wrong becomes a
row with a status and a reason; the run goes on.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from harness import sources, suite
from harness.backends import base
from harness.backends import get as get_backend
from harness.rajaperf import checksum as array_checksum
from harness.spec import KernelSpec, numpy_dtype
from harness.verify import compare

#: Fewest timed repetitions when the time budget cuts the default count.
MIN_REPS = 5


@dataclass(frozen=True)
class RunOptions:
    """Options shared by every task of a run."""

    precision: str = "f64"
    size: int | None = None
    reps: int | None = None
    warmup: int = 2
    seed: int = 1
    check: bool = False
    max_time: float = 2.0
    sources: tuple[Path, ...] = ()
    sizes: tuple[int, ...] = ()
    params: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Task:
    """One row's worth of work: a kernel on one device at one size and precision."""

    kernel: str
    backend: str
    device: int
    size: int
    precision: str
    params: tuple[tuple[str, str], ...] = ()


def task_size(spec: KernelSpec, options: RunOptions) -> int:
    """The problem size a kernel runs at under these options (without --sizes)."""
    if options.size is not None:
        return options.size
    return spec.check_size if options.check else spec.default_size


def task_sizes(spec: KernelSpec, options: RunOptions) -> tuple[int, ...]:
    """Every problem size a kernel runs at: the sweep, or the one size."""
    return options.sizes or (task_size(spec, options),)


def param_choices(
    spec: KernelSpec, chosen: Mapping[str, Sequence[str]]
) -> list[tuple[tuple[str, str], ...]]:
    """Every combination of the kernel's run options: the user's, else the defaults."""
    axes = [[(p.name, v) for v in chosen.get(p.name, p.default)] for p in spec.params]
    return [tuple(combo) for combo in itertools.product(*axes)]


def plan(
    kernels: Sequence[KernelSpec],
    devices: Sequence[base.DeviceInfo],
    options: RunOptions,
) -> list[Task]:
    """Every task, kernel-major so inputs and references are made once per kernel."""
    chosen = dict(options.params)
    return [
        Task(spec.name, dev.backend, dev.index, size, options.precision, params)
        for spec in kernels
        for params in param_choices(spec, chosen)
        for size in task_sizes(spec, options)
        for dev in devices
    ]


def make_inputs(spec: KernelSpec, size: int, seed: int, precision: str) -> dict[str, Any]:
    """The description's inputs, each array and scalar cast to its run type."""
    raw = spec.init(size, seed, precision)
    lengths = spec.lengths(size)
    inputs: dict[str, Any] = {}
    for array in spec.arrays:
        value = np.ascontiguousarray(raw[array.name], dtype=numpy_dtype(array.dtype, precision))
        if value.size != lengths[array.name]:
            raise ValueError(
                f"{spec.name}: init made {value.size} elements of {array.name}, "
                f"its length is {lengths[array.name]}"
            )
        inputs[array.name] = value.ravel()
    for scalar in spec.scalars:
        if scalar.name in raw:
            inputs[scalar.name] = numpy_dtype(scalar.dtype, precision).type(raw[scalar.name])
    return inputs


def kernel_checksum(spec: KernelSpec, outputs: dict[str, np.ndarray]) -> float:
    """RAJAPerf's checksum of the verified arrays (or the description's own)."""
    if spec.checksum is not None:
        return spec.checksum(outputs)
    return sum(array_checksum(outputs[a.name]) for a in spec.outputs)


def stats(times: Sequence[float]) -> dict[str, float | None]:
    """Min, median, mean and sample standard deviation of per-rep times."""
    return {
        "time_min_s": min(times),
        "time_median_s": statistics.median(times),
        "time_mean_s": statistics.fmean(times),
        "time_std_s": statistics.stdev(times) if len(times) > 1 else None,
    }


class Runner:
    """Executes tasks, keeping device sessions and the current kernel's inputs."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self._sessions: dict[tuple[str, int], base.Session | Exception] = {}
        self._backends: dict[str, base.Backend] = {}
        self._data_key: tuple | None = None
        self._data: tuple[dict[str, Any], dict[str, np.ndarray]] | None = None

    def run(self, tasks: Sequence[Task]) -> Iterator[dict[str, Any]]:
        """Yield each task's row as soon as it is known."""
        for task in tasks:
            yield self.execute(task)

    def _backend(self, name: str) -> base.Backend:
        if name not in self._backends:
            self._backends[name] = get_backend(name)
        return self._backends[name]

    def _session(self, backend: base.Backend, index: int) -> base.Session:
        key = (backend.name, index)
        if key not in self._sessions:
            try:
                self._sessions[key] = backend.open(index)
            except Exception as exc:  # a driver that fails to open fails every row on it
                self._sessions[key] = exc
        session = self._sessions[key]
        if isinstance(session, Exception):
            raise RuntimeError(f"could not open {backend.name}:{index}: {session}") from session
        return session

    def _inputs(self, spec: KernelSpec, task: Task) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        key = (spec.name, task.size, task.precision, task.params)
        if self._data_key != key:
            self._data = None
            inputs = make_inputs(spec, task.size, self.options.seed, task.precision)
            self._data = (inputs, spec.reference(inputs))
            self._data_key = key
        assert self._data is not None
        return self._data

    def execute(self, task: Task) -> dict[str, Any]:
        """One row: never raises for a kernel's or a device's failure."""
        spec = suite.BY_NAME[task.kernel].with_params(dict(task.params))
        backend = self._backend(task.backend)
        real_bytes = numpy_dtype("real", task.precision).itemsize
        row: dict[str, Any] = {
            "kernel": spec.name,
            "group": spec.group,
            "backend": backend.name,
            "device_id": f"{backend.name}:{task.device}",
            "device": None,
            "precision": task.precision,
            "size": task.size,
            "reps": 0,
            "warmup": 0,
            "launches": len(spec.plan(task.size)),
            "status": "ok",
            "reason": None,
            "bytes_per_rep": spec.traffic(task.size, real_bytes).moved,
            "flops_per_rep": spec.flops(task.size),
            "timer": None,
            **dict(task.params),
        }
        try:
            session = self._session(backend, task.device)
            row["device"] = session.info.name
            row["timer"] = session.timer
            missing = spec.required_features(task.precision) - session.info.features
            if missing:
                return _skip(row, f"needs {', '.join(sorted(missing))}, which this device lacks")
            source = None
            if backend.language is not None:
                source = sources.find(
                    backend.language, backend.extension, spec.source_name, self.options.sources
                )
                if source is None:
                    where = f"kernels/{backend.language}/{spec.source_name}{backend.extension}"
                    return _skip(row, f"no source {where}")
            self._measure(spec, task, session, source, row)
        except base.DeviceLimit as exc:
            return _skip(row, str(exc))
        except base.CompileError as exc:
            row.update(status="error", reason=f"compile error: {exc}")
        except base.DeviceOutOfMemory as exc:
            row.update(status="error", reason=f"out of memory: {exc}")
        except Exception as exc:
            where = traceback.extract_tb(exc.__traceback__)[-1]
            row.update(
                status="error",
                reason=f"{type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})",
            )
        return row

    def _measure(
        self,
        spec: KernelSpec,
        task: Task,
        session: base.Session,
        source: Path | None,
        row: dict[str, Any],
    ) -> None:
        inputs, reference = self._inputs(spec, task)
        arrays = {a.name: inputs[a.name] for a in spec.arrays}
        launches = spec.resolve(task.size, inputs, task.precision)
        execution = session.load(spec, task.precision, source, arrays)
        try:
            start = time.perf_counter()
            execution.run(launches)
            estimate = time.perf_counter() - start
            outputs = {name: execution.read(name) for name in reference}
            if spec.verify is not None:
                verdict = spec.verify(inputs, outputs, reference)
            else:
                verdict = compare(outputs, reference, spec.tolerance.at(task.precision))
            row["max_rel_error"] = verdict.max_rel_error
            row["checksum"] = kernel_checksum(spec, outputs)
            if not verdict.ok:
                row.update(status="fail", reason=verdict.problem)
                return
            if self.options.check:
                return
            if not launches:
                row["reason"] = "nothing to launch at this size, so nothing to time"
                return
            for _ in range(self.options.warmup):
                start = time.perf_counter()
                execution.run(launches)
                estimate = time.perf_counter() - start
            reps = self.options.reps or _budget_reps(
                spec.default_reps, estimate, self.options.max_time
            )
            times = execution.time(launches, reps)
        finally:
            execution.close()
        row.update(reps=reps, warmup=self.options.warmup, **stats(times))
        median = row["time_median_s"]
        if median > 0:
            row["gbytes_per_s"] = row["bytes_per_rep"] / median / 1e9
            row["gflops_per_s"] = row["flops_per_rep"] / median / 1e9
            if spec.items:
                row[f"{spec.items}_per_s"] = task.size / median


def _budget_reps(default: int, estimate: float, max_time: float) -> int:
    """The default rep count, cut so the timed part takes about ``max_time``."""
    if estimate <= 0:
        return default
    return max(min(default, MIN_REPS), min(default, math.floor(max_time / estimate)))


def _skip(row: dict[str, Any], reason: str) -> dict[str, Any]:
    row.update(status="skipped", reason=reason)
    return row


def run_tasks(
    tasks: Sequence[Task],
    options: RunOptions,
    on_row: Callable[[int, dict[str, Any]], None],
) -> list[dict[str, Any]]:
    """Execute tasks in order, handing each row to ``on_row`` as it finishes."""
    rows = []
    for i, row in enumerate(Runner(options).run(tasks)):
        rows.append(row)
        on_row(i, row)
    return rows

"""Where tasks execute: worker processes that contain crashes and hangs, or in-process.

Drivers crash, hang and run out of memory. Each backend device gets its own
worker process, reused across kernels; a worker that dies (a segfault in a
driver, an abort) or outlives a row's timeout becomes an ``error`` row naming
what happened, is replaced, and the run goes on. So is a worker whose device
faulted beyond repair (`harness.backends.base.DeviceLost`): it reports the row,
then ends, and a fresh process opens the device for the next row. Workers
never take the run's stop signals (Ctrl-C, SIGTERM), even when they are sent
to the whole process group: the run decides what becomes of the row in hand.

A kernel's inputs and reference are made once, here, and handed to every
device's worker through one memory-mapped file, as an in-process run shares them.
They are made when a worker first asks for them, at the size its row runs: a
row that sizes itself down (`Runner._fitted_size`) would otherwise leave the
ones made at its planned size unused.

Each row gets ``host_s``, what it cost besides its timed repetitions: its wall
time here, from dispatch to its row coming back (inputs, set-up, verification,
a worker's start and the hand-over), less their wall time (``timed_wall_s``).

Workers list the devices as well, so this process never loads a driver. That
is also what lets it fork them: a worker starts in milliseconds with the
harness already loaded, instead of in a fresh interpreter.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import mmap
import multiprocessing
import os
import signal
import sys
import tempfile
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

import numpy as np

from harness import suite
from harness.backends import Catalog, catalog, drivers_loaded
from harness.execution import energy
from harness.execution.runner import (
    Case,
    Data,
    Runner,
    RunOptions,
    Task,
    array_bytes,
    base_row,
    data_key,
    default_timeout,
    host_available_bytes,
    make_data,
)
from harness.model.spec import KernelSpec


def _die_with(parent: int) -> None:
    """Have the kernel kill this worker when the run's process dies (Linux), so
    that a killed run leaves no worker behind, not even one stuck in a kernel."""
    if sys.platform != "linux":
        return
    pr_set_pdeathsig = 1
    ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


#: The signals that stop a run (`harness.cli.run`); its workers never take them.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """Block the stop signals in this thread while a worker starts: the worker
    inherits the mask and keeps it for life, and so do the programs its driver
    starts (a linker). A mask, unlike an ignored signal, holds against drivers
    that install handlers of their own: LLVM's, in PoCL, deletes the compiler's
    files on Ctrl-C, which made a bogus compile error of the row in hand."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _Supplied(Runner):
    """A worker's runner, whose inputs and references come from the parent: asked
    for when a row needs them, at the size it runs."""

    def __init__(self, options: RunOptions, conn: Connection) -> None:
        super().__init__(options)
        self._conn = conn
        self._arena = _ArenaReader()
        #: Whether the data in hand are views of the parent's arena, which the
        #: parent refills for other kernels.
        self._borrowed = False

    def take(self, task: Task, shared: dict[str, Any] | None) -> None:
        """Use the data the parent sent with a task; without any, let go of data
        borrowed from the arena, which may hold another kernel's by now."""
        if shared is not None:
            self.provide(task, self._arena.load(shared))
            self._borrowed = "inline" not in shared
        elif self._borrowed:
            self._data_key, self._data, self._borrowed = None, None, False

    def _inputs(self, spec: KernelSpec, task: Task) -> Data:
        if self._data_key != data_key(task):
            self._conn.send(("data", task))
            shared = self._conn.recv()
            self.take(task, shared)
        return super()._inputs(spec, task)


def _serve(conn: Connection, backend: str, parent: int) -> None:
    """A worker's life: list its backend's devices for the parent, open the device
    it is then given, and execute each task received: ask the parent for inputs
    when a row needs ones it was not sent (``("data", task)``, answered with them
    or None: then it makes its own), and send back ``("row", row, lost, sources)``:
    whether the device was lost (the worker then ends) and its devices' energy
    sources (`energy_sources`)."""
    _die_with(parent)
    if not hasattr(signal, "pthread_sigmask"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn.send(catalog(backend))
    try:
        options, index = conn.recv()
    except EOFError:
        return
    runner = _Supplied(options, conn)
    runner.open(backend, index)
    while not runner.lost:
        try:
            task, shared = conn.recv()
        except EOFError:
            break
        runner.take(task, shared)
        row = runner.execute(task)
        conn.send(("row", row, runner.lost, energy_sources(runner)))
    runner.close()


def energy_sources(runner: Runner) -> dict[str, dict[str, Any]]:
    """What the runner's devices read energy from, or why nothing, by device id
    (`energy.describe`), for the run's metadata."""
    return {device: energy.describe(found) for device, found in runner.energy.items()}


def host_cost(row: dict[str, Any], wall_s: float) -> dict[str, Any]:
    """The row with ``host_s``: its wall time ``wall_s`` from dispatch to return,
    less its timed repetitions' (none for a row that timed nothing)."""
    row["host_s"] = max(0.0, wall_s - (row.get("timed_wall_s") or 0.0))
    return row


def _note_energy(devices: dict[str, dict[str, Any]], sources: dict[str, dict[str, Any]]) -> None:
    """Put each device's energy source into its entry of the run's devices."""
    for device, source in sources.items():
        if device in devices:
            devices[device]["energy"] = source


#: Inputs up to this size travel with the task through the pipe; larger ones
#: go through the arena, a memory-backed file that every worker maps.
INLINE_BYTES = 4 << 20

#: Arrays in the arena start at multiples of this many bytes.
_ALIGN = 4096


class _Arena:
    """A memory-backed file that carries each kernel's large arrays to the workers.

    The same file serves every kernel of a run, growing when one needs more,
    so its pages are allocated once per run rather than once per kernel: a
    kernel's arrays cost one copy here and none in the workers.
    """

    def __init__(self) -> None:
        shm = Path("/dev/shm")
        fd, name = tempfile.mkstemp(prefix="harness-", dir=shm if shm.is_dir() else None)
        self._file = os.fdopen(fd, "r+b")
        self._map: mmap.mmap | None = None
        self.path = name
        held = Path(f"/proc/{os.getpid()}/fd/{fd}")
        if held.exists():
            # Workers open it through this process's descriptor, so it can go
            # now and vanish with the run, even with a run that is killed.
            os.unlink(name)
            self.path = str(held)

    def share(self, data: Data) -> dict[str, Any]:
        """Copy a task's arrays in; what a worker needs to find them."""
        layout: dict[tuple[int, str, str], tuple[int, str, tuple[int, ...]]] = {}
        end = 0
        for index, case in enumerate(data):
            for kind, values in (("in", case.inputs), ("ref", case.reference)):
                for name, value in values.items():
                    if isinstance(value, np.ndarray):
                        layout[(index, kind, name)] = (end, value.dtype.str, value.shape)
                        end += -(-value.nbytes // _ALIGN) * _ALIGN
        if self._map is None or len(self._map) < end:
            self._file.truncate(end)
            self._map = mmap.mmap(self._file.fileno(), end)
        for (index, kind, name), (offset, _, _) in layout.items():
            case = data[index]
            value = (case.inputs if kind == "in" else case.reference)[name]
            if value.nbytes:
                place = np.frombuffer(self._map, np.uint8, value.nbytes, offset)
                place[:] = np.ascontiguousarray(value).reshape(-1).view(np.uint8)
        cases = [
            (case.name, {n: v for n, v in case.inputs.items() if not isinstance(v, np.ndarray)})
            for case in data
        ]
        return {"arena": self.path, "size": end, "layout": layout, "cases": cases}

    def close(self) -> None:
        """Unmap and remove the file."""
        if self._map is not None:
            with contextlib.suppress(BufferError):
                self._map.close()
        self._file.close()
        if not self.path.startswith("/proc/"):
            with contextlib.suppress(OSError):
                os.unlink(self.path)


class _ArenaReader:
    """A worker's read-only view of the parent's arena, mapped again only when it grew."""

    def __init__(self) -> None:
        self._map: mmap.mmap | None = None

    def load(self, shared: dict[str, Any]) -> Data:
        """The data a parent shared: sent along, or views of the arena, not copies."""
        if "inline" in shared:
            return shared["inline"]
        if self._map is None or len(self._map) < shared["size"]:
            with open(shared["arena"], "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        cases = [Case(name, dict(scalars), {}) for name, scalars in shared["cases"]]
        for (index, kind, name), (offset, dtype, shape) in shared["layout"].items():
            count = math.prod(shape)
            view = np.frombuffer(self._map, dtype, count, offset).reshape(shape)
            (cases[index].inputs if kind == "in" else cases[index].reference)[name] = view
        return tuple(cases)


def _context() -> BaseContext:
    """How workers start: forked (in milliseconds, with the harness already
    loaded) on Linux while this process holds no driver, else as fresh
    interpreters, which is safe everywhere."""
    if sys.platform == "linux" and not drivers_loaded():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


class _Worker:
    """A worker process of one backend: it lists the devices, then serves one."""

    def __init__(self, backend: str) -> None:
        context = _context()
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(child, backend, os.getpid()), daemon=True
        )
        with warnings.catch_warnings():
            # The one other thread here is numpy's OpenBLAS pool, which OpenBLAS
            # shuts down before every fork (pthread_atfork) and restarts when next
            # used, so Python 3.12's warning about forking threads does not apply.
            warnings.filterwarnings("ignore", r"This process .* multi-threaded", DeprecationWarning)
            with _stop_signals_blocked():
                self.process.start()
        child.close()
        self._catalog: Catalog | None = None

    def catalog(self, timeout: float) -> Catalog | None:
        """The devices the worker found, or None if it found none in ``timeout``
        seconds; EOFError when it died."""
        if self._catalog is None and self.conn.poll(timeout):
            self._catalog = self.conn.recv()
        return self._catalog

    def serve(self, options: RunOptions, index: int) -> None:
        """Give the worker its device; one that died already is found at its first task."""
        with contextlib.suppress(OSError):
            self.conn.send((options, index))

    def stop(self) -> None:
        self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


def _death(exitcode: int | None) -> str:
    if exitcode is None:
        return "worker crashed"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = "unknown"
        return f"worker crashed: signal {-exitcode} ({name})"
    return f"worker crashed: exit code {exitcode}"


#: Seconds a worker may take to list its backend's devices, unless told otherwise.
LIST_TIMEOUT = 120.0


@dataclass
class _Pending:
    """A task handed to its worker, and when its timeout runs out."""

    index: int
    task: Task
    key: tuple[str, int]
    worker: _Worker
    timeout: float
    deadline: float


def batches(tasks: Sequence[Task], together: bool) -> Iterator[list[Task]]:
    """The tasks in order, in runs that may execute at once (`Workers.execute_together`):
    with ``together``, neighbours on different devices with the same inputs (a
    verification-only run: one kernel's row on each device, its inputs and
    reference made once); else one task each, as timing needs the machine alone."""
    batch: list[Task] = []
    for task in tasks:
        if batch and (
            not together
            or data_key(task) != data_key(batch[0])
            or any((t.backend, t.device) == (task.backend, task.device) for t in batch)
        ):
            yield batch
            batch = []
        batch.append(task)
    if batch:
        yield batch


class Workers:
    """One worker process per (backend, device), started when first needed.

    The devices themselves are listed by workers too, so this process never
    loads a driver: a driver that crashes or hangs while listing costs its
    backend, not the run, and workers can be forked from here.
    """

    def __init__(self, list_timeout: float | None = None) -> None:
        self.list_timeout = list_timeout or LIST_TIMEOUT
        self.options = RunOptions()
        self.devices: dict[str, dict[str, Any]] = {}
        self._spare: dict[str, _Worker] = {}
        self._workers: dict[tuple[str, int], _Worker] = {}
        self._arena = _Arena()
        self._shared_key: tuple | None = None
        self._shared: dict[str, Any] | None = None

    def catalogs(self, backends: Sequence[str]) -> dict[str, Catalog]:
        """Each backend's devices, listed by a worker of its own, all at once.

        A worker that listed devices stays, to serve the first device of its
        backend that the run uses.
        """
        started = {name: _Worker(name) for name in backends}
        deadline = time.monotonic() + self.list_timeout
        found: dict[str, Catalog] = {}
        for name, worker in started.items():
            try:
                listed = worker.catalog(max(0.0, deadline - time.monotonic()))
                problem = f"timed out after {self.list_timeout:g} s while listing devices"
            except (EOFError, OSError):
                worker.process.join(5)
                listed, problem = None, f"{_death(worker.process.exitcode)} while listing devices"
            found[name] = listed or Catalog(name, problem)
            if found[name].reason is None:
                self._spare[name] = worker
            else:
                worker.stop()
        return found

    def _made(self, task: Task) -> dict[str, Any] | None:
        """The task's shared inputs and reference where they are made already."""
        return self._shared if data_key(task) == self._shared_key else None

    def _data_for(self, task: Task) -> dict[str, Any] | None:
        """The task's shared inputs and reference, made when its kernel changes.

        None (the worker then makes its own, and reports any failure as the
        row's) when making them here fails or would not fit in host memory.
        """
        key = data_key(task)
        if key == self._shared_key:
            return self._shared
        self._shared_key, self._shared = key, None
        spec = suite.spec_of(task.kernel).with_params(dict(task.params))
        host = host_available_bytes()
        if host and 3 * array_bytes(spec, task.size, task.precision) > host:
            return None
        try:
            data = make_data(spec, task, self.options.seed)
        except Exception:
            return None
        if array_bytes(spec, task.size, task.precision) <= INLINE_BYTES:
            self._shared = {"inline": data}
        else:
            self._shared = self._arena.share(data)
        return self._shared

    def _worker(self, backend: str, index: int) -> _Worker:
        """A worker serving this device: a spare one of its backend, else a new one."""
        worker = self._spare.pop(backend, None) or _Worker(backend)
        worker.serve(self.options, index)
        return worker

    def start(
        self, options: RunOptions, devices: dict[str, dict[str, Any]], tasks: list[Task]
    ) -> None:
        """Start the workers these tasks need, all at once, so they open their devices
        in parallel; workers left spare by `catalogs` stop. ``devices`` describes each
        device by id (`DeviceInfo.as_dict`): its name for rows, its kind for timeouts;
        each entry gains ``energy`` (`energy_sources`) once a row is timed on it, so
        that the run's metadata, which holds these entries, says it."""
        self.options, self.devices = options, devices
        for task in tasks:
            key = (task.backend, task.device)
            if key not in self._workers:
                self._workers[key] = self._worker(*key)
        for worker in self._spare.values():
            worker.stop()
        self._spare.clear()

    def execute(self, task: Task) -> dict[str, Any]:
        """The task's row (with ``host_s``), or an error row when its worker crashed
        or timed out. Cut short (a second interrupt raises in the middle), its
        worker goes too."""
        return self.execute_together([task])[0]

    def execute_together(self, tasks: Sequence[Task]) -> list[dict[str, Any]]:
        """The rows of tasks on different devices (`batches`), each on its own
        worker at the same time, in order: each with ``host_s`` from the start to
        its own end, or an error row when its worker crashed or timed out. Cut
        short (a second interrupt), the workers still running go too."""
        start = time.perf_counter()
        rows: list[dict[str, Any]] = []
        ends: list[float] = []
        waiting: dict[Connection, _Pending] = {}
        try:
            for index, task in enumerate(tasks):
                rows.append({})
                ends.append(0.0)
                pending = self._dispatch(index, task)
                if isinstance(pending, _Pending):
                    waiting[pending.worker.conn] = pending
                else:
                    rows[index], ends[index] = pending, time.perf_counter()
            while waiting:
                soonest = min(p.deadline for p in waiting.values())
                ready = wait(list(waiting), max(0.0, soonest - time.monotonic()))
                for conn in ready:
                    pending = waiting[conn]
                    row = self._answer(pending, waiting.values())
                    if row is not None:
                        rows[pending.index], ends[pending.index] = row, time.perf_counter()
                        del waiting[conn]
                for conn, pending in list(waiting.items()):
                    if conn not in ready and pending.deadline <= time.monotonic():
                        rows[pending.index] = self._failed(
                            pending, f"timed out after {pending.timeout:g} s"
                        )
                        ends[pending.index] = time.perf_counter()
                        del waiting[conn]
        except BaseException:
            for pending in waiting.values():
                pending.worker.stop()
                self._workers.pop(pending.key, None)
            raise
        return [host_cost(row, end - start) for row, end in zip(rows, ends, strict=True)]

    def _dispatch(self, index: int, task: Task) -> _Pending | dict[str, Any]:
        """Hand the task to its device's worker (started if need be): what to wait
        for, or the error row of a worker that is dead or never listed its devices."""
        key = (task.backend, task.device)
        device = self.devices.get(f"{task.backend}:{task.device}", {})
        timeout = self.options.timeout or default_timeout(task, device.get("kind"))
        worker = self._workers.get(key)
        if worker is None or not worker.process.is_alive():
            worker = self._workers[key] = self._worker(*key)
        pending = _Pending(index, task, key, worker, timeout, 0.0)
        try:
            if worker.catalog(timeout) is None:
                return self._failed(pending, f"timed out after {timeout:g} s")
            worker.conn.send((task, self._made(task)))
        except (EOFError, OSError):
            worker.process.join(5)
            return self._failed(pending, _death(worker.process.exitcode))
        # The timeout is the worker's: time spent here making inputs does not count.
        pending.deadline = time.monotonic() + timeout
        return pending

    def _answer(self, pending: _Pending, others: Iterable[_Pending]) -> dict[str, Any] | None:
        """Take a worker's message: its row, an error row when it died, or None when
        it asked for its inputs (then handed over; the time making them is added to
        every deadline in ``others``)."""
        try:
            message = pending.worker.conn.recv()
        except (EOFError, OSError):
            pending.worker.process.join(5)
            return self._failed(pending, _death(pending.worker.process.exitcode))
        if message[0] == "data":
            making = time.monotonic()
            with contextlib.suppress(OSError):
                pending.worker.conn.send(self._data_for(message[1]))
            for other in others:
                other.deadline += time.monotonic() - making
            return None
        _, row, lost, sources = message
        _note_energy(self.devices, sources)
        if lost:
            pending.worker.stop()
            self._workers.pop(pending.key, None)
        return row

    def _failed(self, pending: _Pending, problem: str) -> dict[str, Any]:
        """The error row of a task whose worker died or timed out; the worker goes."""
        pending.worker.stop()
        self._workers.pop(pending.key, None)
        task = pending.task
        row = base_row(task, self.devices.get(f"{task.backend}:{task.device}", {}).get("name"))
        row.update(
            status="error",
            reason=f"{problem} during {task.kernel} on {task.backend}:{task.device}",
        )
        return row

    def close(self) -> None:
        """Stop every worker and remove the shared inputs."""
        for worker in [*self._workers.values(), *self._spare.values()]:
            worker.stop()
        self._workers.clear()
        self._spare.clear()
        self._arena.close()


class InProcess:
    """Every task in this process: for debugging, and where processes cost too much."""

    def __init__(self) -> None:
        self._runner = Runner(RunOptions())
        self._devices: dict[str, dict[str, Any]] = {}

    def catalogs(self, backends: Sequence[str]) -> dict[str, Catalog]:
        """Each backend's devices, listed here."""
        return {name: catalog(name) for name in backends}

    def start(
        self, options: RunOptions, devices: dict[str, dict[str, Any]], tasks: list[Task]
    ) -> None:
        """Take the run's options and its devices (entries that gain ``energy``, as
        `Workers.start`'s); there is nothing to start."""
        self._runner = Runner(options)
        self._devices = devices

    def execute(self, task: Task) -> dict[str, Any]:
        """The task's row, with ``host_s``."""
        start = time.perf_counter()
        row = self._runner.execute(task)
        _note_energy(self._devices, energy_sources(self._runner))
        return host_cost(row, time.perf_counter() - start)

    def execute_together(self, tasks: Sequence[Task]) -> list[dict[str, Any]]:
        """The tasks' rows, one after another: this process runs one at a time."""
        return [self.execute(task) for task in tasks]

    def close(self) -> None:
        """Give the devices back."""
        self._runner.close()

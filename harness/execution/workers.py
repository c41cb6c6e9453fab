"""Where tasks execute: worker processes that contain crashes and hangs, or in-process.

Drivers crash, hang and run out of memory. Each backend device gets its own
worker process, reused across kernels (in a verification-only run, where the
devices need not take turns, as many as keep the host's cores busy: see
`Workers.rows`); a worker that dies (a segfault in a driver, an abort) or
outlives a row's timeout becomes an ``error`` row naming what happened, is
replaced, and the run goes on. So is a worker whose device
faulted beyond repair (`harness.backends.base.DeviceLost`): it reports the row,
then ends, and a fresh process opens the device for the next row. Workers
never take the run's stop signals (Ctrl-C, SIGTERM), even when they are sent
to the whole process group: the run decides what becomes of the row in hand.

A kernel's inputs and reference are made once, here, and handed to every
device's worker through a memory-mapped file, as an in-process run shares them.
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
import functools
import math
import mmap
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

import numpy as np

from harness import suite
from harness.backends import BACKENDS, Catalog, catalog, drivers_loaded
from harness.execution import energy
from harness.execution.results import STOP_SIGNALS
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
    source_fields,
    task_source,
    task_spec,
)
from harness.model.spec import KernelSpec, library_routine


def _die_with(parent: int) -> None:
    """Have the kernel kill this worker when the run's process dies (Linux), so
    that a killed run leaves no worker behind, not even one stuck in a kernel."""
    if sys.platform != "linux":
        return
    pr_set_pdeathsig = 1
    ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


@contextlib.contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """Block the stop signals (`STOP_SIGNALS`) in this thread while a worker starts,
    as a run's workers never take them: the worker inherits the mask and keeps it
    for life, and so do the programs its driver starts (a linker). A mask, unlike
    an ignored signal, holds against drivers that install handlers of their own:
    LLVM's, in PoCL, deletes the compiler's files on Ctrl-C, which made a bogus
    compile error of the row in hand."""
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
    or None: then it makes its own), or only build its kernel (`Runner.prepare`),
    and send back ``("row", row, lost, sources)``:
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
            task, shared, prepare = conn.recv()
        except EOFError:
            break
        runner.take(task, shared)
        row = runner.prepare(task) if prepare else runner.execute(task)
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

    In a timed run the same file serves every kernel, growing when one needs
    more, so its pages are allocated once per run rather than once per kernel;
    a verification-only run gives each kernel its own, as its devices' workers
    move through the kernels each at its own pace. A kernel's arrays cost one
    copy here and none in the workers.
    """

    #: Arenas made so far in this process: each one's number, which tells a
    #: worker's reader to map it afresh (a path may be a reused descriptor's).
    made = 0

    def __init__(self) -> None:
        shm = Path("/dev/shm")
        fd, name = tempfile.mkstemp(prefix="harness-", dir=shm if shm.is_dir() else None)
        self._file = os.fdopen(fd, "r+b")
        self._map: mmap.mmap | None = None
        self.path = name
        #: Bytes it holds.
        self.size = 0
        _Arena.made += 1
        self.number = _Arena.made
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
            if hasattr(os, "posix_fallocate"):
                # Its pages taken now, or OSError: a /dev/shm too small for them
                # (a container's 64 MiB) killed this process with SIGBUS as they
                # were written.
                os.posix_fallocate(self._file.fileno(), 0, end)
            self._map = mmap.mmap(self._file.fileno(), end)
        self.size = end
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
        return {
            "arena": self.path,
            "number": self.number,
            "size": end,
            "layout": layout,
            "cases": cases,
        }

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
    """A worker's read-only view of a parent's arena, mapped again only when it
    grew or is another."""

    def __init__(self) -> None:
        self._map: mmap.mmap | None = None
        self._number = 0

    def load(self, shared: dict[str, Any]) -> Data:
        """The data a parent shared: sent along, or views of an arena, not copies."""
        if "inline" in shared:
            return shared["inline"]
        if self._map is None or self._number != shared["number"] or len(self._map) < shared["size"]:
            with open(shared["arena"], "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            self._number = shared["number"]
        cases = [Case(name, dict(scalars), {}) for name, scalars in shared["cases"]]
        for (index, kind, name), (offset, dtype, shape) in shared["layout"].items():
            count = math.prod(shape)
            view = np.frombuffer(self._map, dtype, count, offset).reshape(shape)
            (cases[index].inputs if kind == "in" else cases[index].reference)[name] = view
        return tuple(cases)


def _context() -> BaseContext:
    """How workers start: forked (in milliseconds, with the harness already
    loaded) on Linux while this process holds no driver and has not started MPI,
    else as fresh interpreters, which is safe everywhere. MPI's threads and locks,
    as a driver's, reach a forked child broken: under a launcher's variables (one
    rank of ``srun -n 1`` too), a forked PoCL worker hung until its row timed out."""
    if sys.platform == "linux" and not drivers_loaded() and "mpi4py.MPI" not in sys.modules:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


@contextlib.contextmanager
def _main_left_out(context: BaseContext) -> Iterator[None]:
    """A spawned worker started without this process's main script: a spawned
    interpreter runs it again first (as ``__mp_main__``), and a script calling
    `harness.run` unguarded by ``if __name__ == "__main__"`` ran its runs again in
    every worker (a second run folder), whose parent then found the worker crashed.
    The worker needs nothing of it: it starts as under ``python -c``."""
    main = sys.modules.get("__main__")
    if context.get_start_method() == "fork" or main is None:
        yield
        return
    spec, path = main.__dict__.get("__spec__"), main.__dict__.pop("__file__", None)
    main.__spec__ = None
    try:
        yield
    finally:
        main.__spec__ = spec
        if path is not None:
            main.__file__ = path


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
            with _stop_signals_blocked(), _main_left_out(context):
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


#: Seconds a worker may take to list its backend's devices, unless told otherwise,
#: and the least it is given: starting a driver (PoCL, lavapipe) takes a second or
#: more, and a --timeout sized for millisecond rows made it 'unavailable'.
LIST_TIMEOUT, LIST_FLOOR_S = 120.0, 10.0


@dataclass
class _Pending:
    """A task handed to its worker, and when its timeout runs out."""

    index: int
    task: Task
    key: tuple[str, int, int]
    worker: _Worker
    timeout: float
    deadline: float
    #: The lane of `Workers.rows` it runs in: (its queue, the worker's lane).
    lane: tuple[Any, int] = ("", 0)


#: The most workers a device has in a verification-only run (`_Schedule`): the
#: host's cores, up to four, as a check's work is mostly the host's.
CHECK_LANES = min(4, os.cpu_count() or 1)


@functools.cache
def _calls_library(kernel: str, params: tuple[tuple[str, str], ...]) -> bool:
    """Whether a kernel (with its parameters) calls a library routine; False
    where its description cannot say (its row reports why)."""
    try:
        spec = suite.spec_of(kernel).with_params(dict(params))
        return any(library_routine(launch.entry) for launch in spec.plan(spec.check_size))
    except Exception:
        return False


class _Schedule:
    """Which task `Workers.rows` starts next, and on which of its device's workers
    (its lane). A verification-only run hands a device's tasks out in units, the
    runs of one kernel's rows (with its parameters), which one worker takes whole
    as it compiles the kernel once; a timed run hands out one task at a time."""

    def __init__(self, tasks: Sequence[Task], together: bool) -> None:
        self.units: dict[Any, deque[list[int]]] = {}
        last: dict[Any, tuple] = {}
        library: dict[Any, list[int]] = {}
        for index, task in enumerate(tasks):
            device = (task.backend, task.device) if together else ""
            queue = self.units.setdefault(device, deque())
            if together and _calls_library(task.kernel, task.params):
                # One unit for a device's library calls: a library builds its
                # routine in the worker that first calls it (CLBlast's GEMM, 20 s
                # on PoCL), and two workers at once would both build it.
                if device not in library:
                    library[device] = []
                    queue.append(library[device])
                library[device].append(index)
            elif together and queue and last[device] == (task.kernel, task.params):
                queue[-1].append(index)
            else:
                queue.append([index])
            last[device] = (task.kernel, task.params)
        self.lanes = CHECK_LANES if together else 1
        #: The most rows in flight: one more than the cores in a check.
        self.limit = CHECK_LANES + 1 if together else 1
        self.left = Counter({device: sum(map(len, q)) for device, q in self.units.items()})
        self.current: dict[tuple[Any, int], deque[int]] = {}

    def next(self, busy: set[tuple[Any, int]]) -> tuple[tuple[Any, int], int] | None:
        """The next task's lane and index, or None when none may start while the
        ``busy`` lanes run: a lane in the middle of a unit goes on with it; else
        the device with the most rows left starts its next unit on a free lane."""
        if len(busy) >= self.limit:
            return None
        for lane, unit in self.current.items():
            if unit and lane not in busy:
                return lane, self._take(lane)
        for device, _ in self.left.most_common():
            if not self.units[device]:
                continue
            for number in range(self.lanes):
                lane = (device, number)
                if lane not in busy and not self.current.get(lane):
                    self.current[lane] = deque(self.units[device].popleft())
                    return lane, self._take(lane)
        return None

    def _take(self, lane: tuple[Any, int]) -> int:
        self.left[lane[0]] -= 1
        return self.current[lane].popleft()


class _TooLong(Exception):
    """A kernel's inputs or reference took longer here than its row may take."""


@contextlib.contextmanager
def _within(seconds: float) -> Iterator[None]:
    """_TooLong where the block outlasts ``seconds``: a user's description whose
    init or reference never returns hung the whole run here, where no worker's
    timeout reaches (its worker, handed nothing, then makes them itself, and
    times out as a row). Only the main thread takes SIGALRM: elsewhere no limit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum: int, frame: Any) -> None:
        raise _TooLong(f"over {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: How many times this process was continued after a stop (SIGCONT), while a
#: `Workers` counts them (`_count_continues`), and how many do.
_CONTINUED = [0]
_COUNTING: list[Workers] = []


def _on_continue(signum: int, frame: Any) -> None:
    _CONTINUED[0] += 1


def _count_continues(workers: Workers, counting: bool) -> None:
    """Count the times this process is continued after a stop while ``workers``
    run rows (``counting``), or no longer: a job suspended (Ctrl-Z then ``fg``, a
    scheduler's suspend) with a row in hand had that row recorded as timed out, a
    fault of its kernel, as the time stopped ran out its timeout. The handler only
    counts (the process continues as by default) and is the default again once no
    `Workers` is left. Only the main thread may handle signals, and a handler the
    process had (its own, or a C library's) is left alone."""
    if threading.current_thread() is not threading.main_thread():
        return
    if counting and not _COUNTING and signal.getsignal(signal.SIGCONT) == signal.SIG_DFL:
        signal.signal(signal.SIGCONT, _on_continue)
    if counting:
        _COUNTING.append(workers)
    elif workers in _COUNTING:
        _COUNTING.remove(workers)
        if not _COUNTING and signal.getsignal(signal.SIGCONT) == _on_continue:
            signal.signal(signal.SIGCONT, signal.SIG_DFL)


class Workers:
    """One worker process per (backend, device), started when first needed.

    The devices themselves are listed by workers too, so this process never
    loads a driver: a driver that crashes or hangs while listing costs its
    backend, not the run, and workers can be forked from here.
    """

    def __init__(self, list_timeout: float | None = None) -> None:
        self.list_timeout = max(list_timeout, LIST_FLOOR_S) if list_timeout else LIST_TIMEOUT
        self.options = RunOptions()
        self.devices: dict[str, dict[str, Any]] = {}
        self._spare: dict[str, _Worker] = {}
        #: By (backend, device index, lane): a device has a worker per lane.
        self._workers: dict[tuple[str, int, int], _Worker] = {}
        self._arena = _Arena()
        #: Inputs and references made here, by `data_key`: the current kernel's
        #: alone in a timed run, every kernel's still to be verified somewhere
        #: in a verification-only one (`rows`).
        self._shared: dict[tuple, dict[str, Any] | None] = {}
        self._several = False
        #: The arenas of the kernels kept in a verification-only run.
        self._arenas: dict[tuple, _Arena] = {}
        _count_continues(self, True)

    def catalogs(self, backends: Sequence[str]) -> dict[str, Catalog]:
        """Each backend's devices, listed by a worker of its own, all at once.

        A worker that listed devices stays, to serve the first device of its
        backend that the run uses. A backend named twice (``-b cpu cpu``) gets one:
        the first of two was left waiting for work, and the process for it at its
        exit, for ever.
        """
        started: dict[str, _Worker] = {}
        try:
            for name in dict.fromkeys(backends):
                started[name] = _Worker(name)
            return self._listed(started)
        except BaseException:
            # Ctrl-C while listing: workers take no signal, and this process would
            # wait for them at its exit for ever; those not yet kept are stopped.
            for worker in started.values():
                if worker not in self._spare.values():
                    worker.stop()
            raise

    def _listed(self, started: dict[str, _Worker]) -> dict[str, Catalog]:
        """The catalogs of the started workers, keeping those that listed devices."""
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
        return self._shared.get(data_key(task))

    def _data_for(self, task: Task) -> dict[str, Any] | None:
        """The task's shared inputs and reference, made when first asked for.

        None (the worker then makes its own, and reports any failure as the
        row's) when making them here fails or would not fit in host memory; in a
        run that keeps several kernels' (`rows`), also when the ones kept already
        take a quarter of it.
        """
        key = data_key(task)
        if key in self._shared:
            return self._shared[key]
        if not self._several:
            self._shared.clear()
        self._shared[key] = None
        spec = suite.spec_of(task.kernel).with_params(dict(task.params))
        size = array_bytes(spec, task.size, task.precision)
        host = host_available_bytes()
        kept = sum(arena.size for arena in self._arenas.values())
        if host and (3 * size > host or (size > INLINE_BYTES and 4 * (kept + size) > host)):
            return None
        kind = self.devices.get(f"{task.backend}:{task.device}", {}).get("kind")
        try:
            with _within(self.options.timeout or default_timeout(task, kind)):
                data = make_data(spec, task, self.options.seed, self.options.check)
        except Exception:
            return None
        except BaseException as exc:
            # A user suite's init or reference that calls sys.exit (or raises another
            # BaseException) ended the whole run here with its status, silent; the
            # worker makes them itself, and its row says what they raised.
            where = traceback.extract_tb(exc.__traceback__)[-1]
            if Path(where.filename) not in suite.LOADED:
                raise
            return None
        if size <= INLINE_BYTES:
            self._shared[key] = {"inline": data}
            return self._shared[key]
        try:
            if self._several:
                # Each kernel's own arena, as workers read several kernels' at once.
                self._arenas[key] = _Arena()
                self._shared[key] = self._arenas[key].share(data)
            else:
                self._shared[key] = self._arena.share(data)
        except OSError:
            # No room in the shared memory: the worker makes its own.
            self._forget(key)
            self._shared[key] = None
        return self._shared[key]

    def _forget(self, key: tuple) -> None:
        """Let a kernel's shared inputs and reference go: no row needs them now."""
        self._shared.pop(key, None)
        arena = self._arenas.pop(key, None)
        if arena is not None:
            arena.close()

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
            key = (task.backend, task.device, 0)
            if key not in self._workers:
                self._workers[key] = self._worker(task.backend, task.device)
        for worker in self._spare.values():
            worker.stop()
        self._spare.clear()

    @property
    def _timing(self) -> float:
        """Seconds a row's timed repetitions may take, which its default timeout
        adds: --max-time, where the stop rule times it (not --check or --reps)."""
        return 0.0 if self.options.check or self.options.reps else self.options.max_time

    def execute(self, task: Task) -> dict[str, Any]:
        """The task's row (with ``host_s``), or an error row when its worker crashed
        or timed out. Cut short (a second interrupt raises in the middle), its
        worker goes too."""
        return next(self.rows([task], lambda: False))

    def prepare(
        self,
        tasks: Sequence[Task],
        halted: Callable[[], bool],
        each: Callable[[dict[str, Any]], None] | None = None,
    ) -> int:
        """Build the kernels of ``tasks`` (`runner.ahead`'s) as a check runs its
        rows, as many at once as the host has cores, so that the timed rows find
        them built; the workers started for this go again. ``each`` is told of
        each build as it ends (its row). How many were built."""
        built = 0
        try:
            for row in self._rows(tasks, halted, True, prepare=True):
                built += row["status"] == "ok"
                if each is not None:
                    each(row)
        finally:
            for key in [k for k in self._workers if k[2] != 0]:
                self._workers.pop(key).stop()
        return built

    def rows(
        self, tasks: Sequence[Task], halted: Callable[[], bool], together: bool = False
    ) -> Iterator[dict[str, Any]]:
        """The tasks' rows in the tasks' order, each with ``host_s`` from its dispatch
        to its return, or an error row when its worker crashed or timed out.

        A timed run executes one task at a time, as timing needs the machine
        alone. With ``together`` (a verification-only run, whose work is mostly
        the host's: compiling, making references, comparing) as many rows run
        at once as the host has cores, and one more, on several workers of a
        device where need be (`_Schedule`), so that no device waits for a slower
        one and the one with the most left gets the cores; a row waits here only
        for the earlier rows, and a kernel's inputs and reference are made once
        for all its rows. Once ``halted()``, no task starts: the rows of those
        running are yielded, in order, and the rows end. Cut short (a second
        interrupt), the workers still running go too.
        """
        return self._rows(tasks, halted, together)

    def _rows(
        self,
        tasks: Sequence[Task],
        halted: Callable[[], bool],
        together: bool,
        prepare: bool = False,
    ) -> Iterator[dict[str, Any]]:
        """`rows`, or with ``prepare`` the rows of `Runner.prepare`."""
        self._several = together
        schedule = _Schedule(tasks, together)
        users = Counter(data_key(task) for task in tasks)
        done: dict[int, dict[str, Any]] = {}
        began: dict[int, float] = {}
        waiting: dict[Connection, _Pending] = {}
        following = 0
        continued = _CONTINUED[0]

        def finish(index: int, row: dict[str, Any]) -> None:
            done[index] = host_cost(row, time.perf_counter() - began[index])
            key = data_key(tasks[index])
            users[key] -= 1
            if together and users[key] == 0:
                self._forget(key)

        try:
            while True:
                busy = {p.lane for p in waiting.values()}
                while not halted() and (chosen := schedule.next(busy)) is not None:
                    lane, index = chosen
                    began[index] = time.perf_counter()
                    pending = self._dispatch(index, tasks[index], lane[1], prepare)
                    if isinstance(pending, _Pending):
                        pending.lane = lane
                        waiting[pending.worker.conn] = pending
                        busy.add(lane)
                    else:
                        finish(index, pending)
                while following in done:
                    yield done.pop(following)
                    following += 1
                if not waiting:
                    break
                soonest = min(p.deadline for p in waiting.values())
                ready = wait(list(waiting), max(0.0, soonest - time.monotonic()))
                if _CONTINUED[0] != continued:
                    # Stopped, then continued: the time stopped is no row's, and
                    # each row waited for has its whole timeout again.
                    continued = _CONTINUED[0]
                    for pending in waiting.values():
                        pending.deadline = max(pending.deadline, time.monotonic() + pending.timeout)
                for conn in ready:
                    pending = waiting[conn]
                    row = self._answer(pending, waiting.values())
                    if row is not None:
                        del waiting[conn]
                        finish(pending.index, row)
                for conn, pending in list(waiting.items()):
                    if conn not in ready and pending.deadline <= time.monotonic():
                        del waiting[conn]
                        problem = f"timed out after {pending.timeout:g} s"
                        finish(pending.index, self._failed(pending, problem))
        except BaseException:
            for pending in waiting.values():
                pending.worker.stop()
                self._workers.pop(pending.key, None)
            raise
        # Halted: the rows that ran, though some before them never started.
        for index in sorted(done):
            yield done[index]

    def _dispatch(
        self, index: int, task: Task, lane: int = 0, prepare: bool = False
    ) -> _Pending | dict[str, Any]:
        """Hand the task to its device's worker of ``lane`` (started if need be): what
        to wait for, or the error row of a worker that is dead or never listed its
        devices."""
        key = (task.backend, task.device, lane)
        device = self.devices.get(f"{task.backend}:{task.device}", {})
        timeout = self.options.timeout or default_timeout(task, device.get("kind"), self._timing)
        worker = self._workers.get(key)
        if worker is None or not worker.process.is_alive():
            worker = self._workers[key] = self._worker(task.backend, task.device)
        pending = _Pending(index, task, key, worker, timeout, 0.0)
        try:
            if worker.catalog(timeout) is None:
                return self._failed(pending, f"timed out after {timeout:g} s")
            worker.conn.send((task, self._made(task), prepare))
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
        # The source it ran, as a row that ended says: where a planted bug crashed.
        kind = BACKENDS.get(task.backend)
        source = task_source(task_spec(task), kind, self.options.sources) if kind else None
        if source is not None:
            row.update(source_fields(source))
        return row

    def close(self) -> None:
        """Stop every worker and remove the shared inputs."""
        for worker in [*self._workers.values(), *self._spare.values()]:
            worker.stop()
        self._workers.clear()
        self._spare.clear()
        self._arena.close()
        for key in list(self._arenas):
            self._forget(key)
        _count_continues(self, False)


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

    def rows(
        self, tasks: Sequence[Task], halted: Callable[[], bool], together: bool = False
    ) -> Iterator[dict[str, Any]]:
        """The tasks' rows, one after another until ``halted()``: this process runs
        one at a time, whatever ``together`` allows (`Workers.rows`)."""
        for task in tasks:
            if halted():
                return
            yield self.execute(task)

    def close(self) -> None:
        """Give the devices back."""
        self._runner.close()

"""Where tasks execute: worker processes that contain crashes and hangs, or in-process.

Drivers crash, hang and run out of memory. Each backend device gets its own
worker process, reused across kernels; a worker that dies (a segfault in a
driver, an abort) or outlives a row's timeout becomes an ``error`` row naming
what happened, is replaced, and the run goes on. Workers ignore Ctrl-C so that
the first one lets the current row finish.

A kernel's inputs and reference are made once, here, and handed to every
device's worker as memory-mapped files, as an in-process run shares them.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from harness import suite
from harness.forkserver import CONTEXT
from harness.runner import (
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


def _serve(conn: Connection, options: RunOptions, backend: str, device: int) -> None:
    """A worker's loop: open its device at once (while others start), then execute
    each task received and send back its row."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    runner = Runner(options)
    runner.open(backend, device)
    while True:
        try:
            task, shared = conn.recv()
        except EOFError:
            return
        if shared is not None:
            runner.provide(task, _load(shared))
        conn.send(runner.execute(task))


#: Inputs up to this size travel with the task through the pipe; larger ones
#: are written once to memory-backed files that every worker maps.
INLINE_BYTES = 4 << 20


def _share(data: Data, folder: Path) -> dict[str, Any]:
    """Write a task's arrays into ``folder``; what a worker needs to map them."""
    inputs, reference = data
    arrays = {}
    for kind, values in (("in", inputs), ("ref", reference)):
        for name, value in values.items():
            if isinstance(value, np.ndarray):
                path = folder / f"{kind}-{name}.npy"
                np.save(path, value)
                arrays[(kind, name)] = str(path)
    scalars = {n: v for n, v in inputs.items() if not isinstance(v, np.ndarray)}
    return {"arrays": arrays, "scalars": scalars}


def _load(shared: dict[str, Any]) -> Data:
    """The data a parent shared: sent along, or arrays mapped read-only, not copied."""
    if "inline" in shared:
        return shared["inline"]
    inputs: dict[str, Any] = dict(shared["scalars"])
    reference: dict[str, np.ndarray] = {}
    for (kind, name), path in shared["arrays"].items():
        (inputs if kind == "in" else reference)[name] = np.load(path, mmap_mode="r")
    return inputs, reference


def _scratch_folder() -> Path:
    shm = Path("/dev/shm")
    return Path(tempfile.mkdtemp(prefix="harness-", dir=shm if shm.is_dir() else None))


class _Worker:
    def __init__(self, options: RunOptions, backend: str, device: int) -> None:
        self.conn, child = CONTEXT.Pipe()
        self.process = CONTEXT.Process(
            target=_serve, args=(child, options, backend, device), daemon=True
        )
        self.process.start()
        child.close()

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


class Workers:
    """One worker process per (backend, device), started when first needed."""

    def __init__(self, options: RunOptions, device_names: dict[str, str]) -> None:
        self.options = options
        self.device_names = device_names
        self._workers: dict[tuple[str, int], _Worker] = {}
        self._folder = _scratch_folder()
        self._shared_key: tuple | None = None
        self._shared: dict[str, Any] | None = None

    def _data_for(self, task: Task) -> dict[str, Any] | None:
        """The task's shared inputs and reference, made when its kernel changes.

        None (the worker then makes its own, and reports any failure as the
        row's) when making them here fails or would not fit in host memory.
        """
        key = data_key(task)
        if key == self._shared_key:
            return self._shared
        shutil.rmtree(self._folder, ignore_errors=True)
        self._folder.mkdir()
        self._shared_key, self._shared = key, None
        spec = suite.BY_NAME[task.kernel].with_params(dict(task.params))
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
            self._shared = _share(data, self._folder)
        return self._shared

    def start(self, tasks: list[Task]) -> None:
        """Start the workers these tasks need, all at once, so they load in parallel."""
        for task in tasks:
            key = (task.backend, task.device)
            if key not in self._workers:
                self._workers[key] = _Worker(self.options, *key)

    def execute(self, task: Task) -> dict[str, Any]:
        """The task's row, or an error row when its worker crashed or timed out."""
        key = (task.backend, task.device)
        worker = self._workers.get(key)
        if worker is None or not worker.process.is_alive():
            worker = self._workers[key] = _Worker(self.options, *key)
        timeout = self.options.timeout or default_timeout(task)
        shared = self._data_for(task)
        try:
            worker.conn.send((task, shared))
            if worker.conn.poll(timeout):
                return worker.conn.recv()
            problem = f"timed out after {timeout:g} s"
        except (EOFError, OSError):
            worker.process.join(5)
            problem = _death(worker.process.exitcode)
        worker.stop()
        del self._workers[key]
        row = base_row(task, self.device_names.get(f"{task.backend}:{task.device}"))
        row.update(
            status="error",
            reason=f"{problem} during {task.kernel} on {task.backend}:{task.device}",
        )
        return row

    def close(self) -> None:
        """Stop every worker and remove the shared inputs."""
        for worker in self._workers.values():
            worker.stop()
        self._workers.clear()
        shutil.rmtree(self._folder, ignore_errors=True)


class InProcess:
    """Every task in this process: for debugging, and where processes cost too much."""

    def __init__(self, options: RunOptions) -> None:
        self._runner = Runner(options)

    def start(self, tasks: list[Task]) -> None:
        """Nothing to start."""

    def execute(self, task: Task) -> dict[str, Any]:
        """The task's row."""
        return self._runner.execute(task)

    def close(self) -> None:
        """Nothing to stop."""

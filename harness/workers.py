"""Where tasks execute: worker processes that contain crashes and hangs, or in-process.

Drivers crash, hang and run out of memory. Each backend device gets its own
worker process, reused across kernels; a worker that dies (a segfault in a
driver, an abort) or outlives a row's timeout becomes an ``error`` row naming
what happened, is replaced, and the run goes on. Workers ignore Ctrl-C so that
the first one lets the current row finish.
"""

from __future__ import annotations

import multiprocessing
import signal
from multiprocessing.connection import Connection
from typing import Any

from harness.runner import Runner, RunOptions, Task, base_row, default_timeout

_CONTEXT = multiprocessing.get_context("forkserver")
#: Imported once by the fork server, so that each worker starts without
#: importing them again (pyopencl is skipped where it is not installed). No
#: driver is initialised there: CUDA, for one, does not survive a fork.
_CONTEXT.set_forkserver_preload(["harness.cli", "pyopencl"])


def start_server() -> None:
    """Start the process workers are forked from, so it loads while we do other work."""
    from multiprocessing import forkserver

    forkserver.ensure_running()


def _serve(conn: Connection, options: RunOptions, backend: str, device: int) -> None:
    """A worker's loop: open its device at once (while others start), then execute
    each task received and send back its row."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    runner = Runner(options)
    runner.open(backend, device)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        conn.send(runner.execute(task))


class _Worker:
    def __init__(self, options: RunOptions, backend: str, device: int) -> None:
        self.conn, child = _CONTEXT.Pipe()
        self.process = _CONTEXT.Process(
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
        try:
            worker.conn.send(task)
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
        """Stop every worker."""
        for worker in self._workers.values():
            worker.stop()
        self._workers.clear()


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

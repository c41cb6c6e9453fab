"""A verification-only run (``--check``) lets each device's worker take its next
row as soon as it is free; a timed run keeps one row at a time. What one device's
row does (crash, hang) stays that row's, and the rows keep the plan's order."""

from __future__ import annotations

import csv
import itertools
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, harness, need_backend, run_folder

from harness import suite
from harness.execution import results
from harness.execution.runner import RunOptions, Task
from harness.execution.workers import Workers


def _tasks(kernels: list[str], devices: list[tuple[str, int]]) -> list[Task]:
    """The check's tasks, kernel-major as a run plans them: each kernel at its
    checked sizes on each device."""
    return [
        Task(kernel, backend, index, size, "f64")
        for kernel in kernels
        for size in suite.BY_NAME[kernel].sizes_for_check
        for backend, index in devices
    ]


def test_a_device_stuck_on_a_row_holds_back_no_other_device() -> None:
    """TRIAD hangs on OpenCL until its timeout. The numpy backend goes on through
    ADD meanwhile: stopped while TRIAD still hangs, the rows in hand hold every
    numpy row, in the plan's order, and TRIAD's OpenCL row is its timeout."""
    need_backend("opencl")
    kernels = ["Stream_COPY", "Stream_TRIAD", "Stream_ADD"]
    tasks = _tasks(kernels, [("cpu", 0), ("opencl", 0)])
    workers = Workers()
    try:
        found = workers.catalogs(["cpu", "opencl"])
        devices = {d.id: d.as_dict() for name in ("cpu", "opencl") for d in found[name].devices[:1]}
        options = RunOptions(check=True, timeout=12, sources=(FIXTURES / "hang",))
        workers.start(options, devices, tasks)
        start = time.monotonic()
        rows = list(workers.rows(tasks, lambda: time.monotonic() > start + 6, together=True))
        assert time.monotonic() - start < 40
    finally:
        workers.close()
    planned = [(t.kernel, t.size, f"{t.backend}:{t.device}") for t in tasks]
    got = [(r["kernel"], r["size"], r["device_id"]) for r in rows]
    assert got == [p for p in planned if p in got], "rows out of the plan's order"
    numpy_rows = [r for r in rows if r["device_id"] == "cpu:0"]
    assert len(numpy_rows) == len(tasks) // 2 and all(r["status"] == "ok" for r in numpy_rows)
    opencl = [(r["kernel"], r["status"], r["reason"]) for r in rows if r["device_id"] != "cpu:0"]
    assert ("Stream_TRIAD", "error") in {(kernel, status) for kernel, status, _ in opencl}
    for kernel, status, reason in opencl:
        hung = kernel == "Stream_TRIAD"
        assert (status, reason) == (
            ("error", "timed out after 12 s during Stream_TRIAD on opencl:0")
            if hung
            else ("ok", None)
        )


def _rows(out: Path) -> list[dict[str, str]]:
    with (run_folder(out) / results.RESULTS).open() as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("fault", ["crash", "hang"])
def test_a_faulty_row_beside_the_other_devices_rows_stays_its_own(
    fault: str, tmp_path: Path
) -> None:
    """TRIAD's OpenCL source crashes or hangs; the numpy backend's TRIAD, run at
    the same time, and every other row pass, in the plan's order."""
    need_backend("opencl")
    start = time.monotonic()
    proc = harness(
        *["run", "-k", "Stream_COPY", "Stream_TRIAD", "Stream_ADD", "-b", "cpu", "opencl"],
        *["--check", "--timeout", "4", "--sources", str(FIXTURES / fault)],
        *["--out", str(tmp_path)],
    )
    assert proc.returncode == 1, proc.stderr
    assert time.monotonic() - start < 90
    rows = _rows(tmp_path)
    # Each kernel and size: the numpy backend's row, then OpenCL's.
    assert [r["device_id"] for r in rows] == ["cpu:0", "opencl:0"] * (len(rows) // 2)
    pairs = [(a["kernel"], a["size"]) for a in rows[::2]]
    assert pairs == [(b["kernel"], b["size"]) for b in rows[1::2]]
    blocks = [kernel for kernel, _ in itertools.groupby(k for k, _ in pairs)]
    assert sorted(blocks) == ["Stream_ADD", "Stream_COPY", "Stream_TRIAD"]
    problem = "worker crashed: signal 11 (SIGSEGV)" if fault == "crash" else "timed out after 4 s"
    for row in rows:
        faulty = (row["kernel"], row["device_id"]) == ("Stream_TRIAD", "opencl:0")
        expected = f"{problem} during Stream_TRIAD on opencl:0" if faulty else ""
        assert (row["status"] != "ok", row["reason"]) == (faulty, expected), row


def test_a_devices_library_calls_are_one_unit_of_one_worker() -> None:
    """A library builds its routine in the worker that first calls it, so a
    check hands every library row of a device to one worker, in the plan's
    order; the kernels' own rows stay units of their kernel."""
    from harness.execution.workers import _Schedule

    kernels = ["Polybench_GEMM", "Polybench_3MM", "Polybench_ATAX"]
    tasks = [
        Task(kernel, "opencl", 0, 100, "f64", (("impl", impl),))
        for kernel in kernels
        for impl in ("kernel", "library")
    ]
    schedule = _Schedule(tasks, together=True)
    units = list(schedule.units[("opencl", 0)])
    assert units == [[0], [1, 3, 5], [2], [4]]
    _lane, first = schedule.next(set())
    taken = [first] + [schedule.next({("other", 0)})[1] for _ in range(2)]
    assert taken == [0, 1, 3]

"""A verification-only run (``--check``) hands each kernel's row to every device's
worker at once; a timed run keeps one row at a time. What one device's row does
(crash, hang) stays that row's, and the rows keep the plan's order."""

from __future__ import annotations

import csv
import itertools
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, harness, need_backend, run_folder

from harness.execution import results
from harness.execution.runner import Task
from harness.execution.workers import batches


def _task(kernel: str, backend: str, size: int = 100, device: int = 0) -> Task:
    return Task(kernel, backend, device, size, "f64")


def test_a_check_batches_one_kernels_rows_across_devices_and_a_timed_run_does_not() -> None:
    tasks = [
        _task("Stream_COPY", "cpu"),
        _task("Stream_COPY", "opencl"),
        _task("Stream_COPY", "wgpu"),
        _task("Stream_COPY", "cpu", 200),
        _task("Stream_COPY", "opencl", 200),
        _task("Stream_ADD", "opencl", 200),
        _task("Stream_ADD", "opencl", 200, device=1),
        _task("Stream_ADD", "opencl", 200, device=1),
    ]
    where = {id(t): i for i, t in enumerate(tasks)}
    together = [[where[id(t)] for t in b] for b in batches(tasks, True)]
    # Another kernel has other inputs; a device already in the batch waits.
    assert together == [[0, 1, 2], [3, 4], [5, 6], [7]]
    assert [len(b) for b in batches(tasks, False)] == [1] * len(tasks)
    assert list(batches([], True)) == []


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

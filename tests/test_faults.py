"""Fault injection with real faults: crashes, hangs, memory, kills and interrupts."""

from __future__ import annotations

import csv
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, harness, need_backend, run_folder, start_run, wait_rows

from harness.backends.opencl import OpenCLExecution
from harness.execution import results
from harness.execution.runner import Runner, RunOptions, Task
from harness.model import sources
from harness.reporting.table import format_rows

STREAM = ["-k", "Stream", "-b", "cpu", "opencl"]


def rows_of(folder: Path) -> list[dict]:
    with (folder / results.RESULTS).open() as f:
        return list(csv.DictReader(f))


def test_a_crashing_kernel_is_an_error_row_and_the_run_goes_on(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "run",
        "-k",
        "Stream_COPY",
        "Stream_TRIAD",
        "Stream_ADD",
        "-b",
        "opencl",
        "--check",
        "--sources",
        str(FIXTURES / "crash"),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    rows = {r["kernel"]: r for r in rows_of(run_folder(tmp_path))}
    assert rows["Stream_TRIAD"]["status"] == "error"
    assert rows["Stream_TRIAD"]["reason"] == (
        "worker crashed: signal 11 (SIGSEGV) during Stream_TRIAD on opencl:0"
    )
    assert rows["Stream_COPY"]["status"] == rows["Stream_ADD"]["status"] == "ok"


def test_a_hanging_kernel_times_out_and_the_run_goes_on(tmp_path: Path) -> None:
    need_backend("opencl")
    start = time.monotonic()
    proc = harness(
        "run",
        "-k",
        "Stream_COPY",
        "Stream_TRIAD",
        "Stream_ADD",
        "-b",
        "opencl",
        "--check",
        "--timeout",
        "4",
        "--sources",
        str(FIXTURES / "hang"),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    assert time.monotonic() - start < 60
    rows = {r["kernel"]: r for r in rows_of(run_folder(tmp_path))}
    assert rows["Stream_TRIAD"]["reason"] == "timed out after 4 s during Stream_TRIAD on opencl:0"
    assert rows["Stream_COPY"]["status"] == rows["Stream_ADD"]["status"] == "ok"
    # The row names the source that hung, as a row that ended does (it had none).
    hung = FIXTURES / "hang" / "opencl" / "Stream_TRIAD.cl"
    assert rows["Stream_TRIAD"]["source"] == str(hung)
    assert rows["Stream_TRIAD"]["source_sha256"] == sources.digest(hung)


def test_more_memory_than_the_device_has_is_an_error_row(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "run",
        "-k",
        "Stream_TRIAD",
        "-b",
        "cpu",
        "opencl",
        "--check",
        "--size",
        "2000000000",
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    for row in rows_of(run_folder(tmp_path)):
        assert row["status"] == "error"
        assert "out of memory: Stream_TRIAD at size 2000000000 needs" in row["reason"]
        assert "48000000000 bytes" in row["reason"]


def _identity(rows: list[dict]) -> list[tuple]:
    return [(r["kernel"], r["device_id"], r["size"], r["status"], r["reps"]) for r in rows]


def test_sigkill_then_resume_gives_the_rows_of_an_uninterrupted_run(tmp_path: Path) -> None:
    need_backend("opencl")
    args = [*STREAM, "--size", "200000", "--reps", "300"]
    whole = harness("run", *args, "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr

    proc = start_run(args, tmp_path / "cut", stdout=subprocess.DEVNULL)
    folder = wait_rows(tmp_path / "cut", 2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 2 <= len(results.read_journal(folder)) < 10
    with (folder / results.JOURNAL).open("a") as f:
        f.write('{"kernel": "Stream_A')

    resumed = harness("run", "--resume", str(folder))
    assert resumed.returncode == 0, resumed.stderr
    assert "skipped a torn or corrupt line" in resumed.stderr
    assert "skipped" not in harness("show", str(folder)).stderr
    assert _identity(rows_of(folder)) == _identity(rows_of(run_folder(tmp_path / "whole")))
    assert results.read_metadata(folder)["interrupted"] is False


def test_one_interrupt_finishes_the_row_and_keeps_everything(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = start_run(
        [*STREAM, "--size", "200000", "--reps", "300"], tmp_path, stdout=subprocess.DEVNULL
    )
    folder = wait_rows(tmp_path, 1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "stopping after the current row" in err
    assert f"continue with: harness run --resume {folder}" in err
    kept = rows_of(folder)
    assert 1 <= len(kept) < 10 and all(r["status"] == "ok" for r in kept)
    assert results.read_metadata(folder)["interrupted"] is True


def test_the_summary_warns_about_unstable_rows() -> None:
    rows = [
        {
            "kernel": "Stream_COPY",
            "device_id": "cpu:0",
            "size": 8,
            "status": "ok",
            "unstable": True,
        },
        {
            "kernel": "Stream_ADD",
            "device_id": "cpu:0",
            "size": 8,
            "status": "ok",
            "unstable": "False",
        },
    ]
    text = format_rows(rows)
    assert "warning: 1 row(s) unstable" in text and "Stream_COPY n=8 on cpu:0" in text
    assert "Stream_ADD" not in text.split("warning:")[1]


@pytest.mark.parametrize("during", ["run", "time"])
def test_a_failure_to_free_arrays_does_not_hide_the_fault_before_it(
    during: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a kernel faults, a GPU context refuses every call, freeing arrays
    included; the row must name the fault, not the failed clean-up."""
    need_backend("opencl")

    def fault(self: object, *args: object) -> None:
        raise RuntimeError("illegal address in triad")

    def refuse(self: object) -> None:
        raise RuntimeError("cuMemFree failed: CUDA_ERROR_ILLEGAL_ADDRESS")

    monkeypatch.setattr(OpenCLExecution, during, fault)
    monkeypatch.setattr(OpenCLExecution, "close", refuse)
    row = Runner(RunOptions(reps=3, warmup=0)).execute(
        Task("Stream_TRIAD", "opencl", 0, 4096, "f64")
    )
    assert row["status"] == "error"
    assert row["reason"].startswith("RuntimeError: illegal address in triad"), row["reason"]
    assert "cuMemFree" not in row["reason"]

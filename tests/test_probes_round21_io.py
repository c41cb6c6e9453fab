"""Hostile probes, round 21: input and output faults of the commands that read and
write files: a standard error that cannot be written, full disks, unwritable
caches and stores, inputs that are no files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import run_folder

from harness.execution import results

RUN = ["-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3"]


def _environment() -> dict[str, str]:
    return {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}


def _whole(run: Path) -> None:
    """Assert that ``run`` ended as a finished run folder: its one row, its table and
    its summary written, its metadata ended."""
    assert [row["status"] for row in results.read_journal(run)] == ["ok"]
    assert (run / results.RESULTS).is_file() and (run / results.SUMMARY).is_file()
    assert results.read_metadata(run)["end"]


def test_a_run_whose_standard_error_is_on_a_full_disk_still_ends(tmp_path: Path) -> None:
    """``harness run ... 2>log`` with the log's disk full (here /dev/full) died at its
    first progress line in an OSError traceback no one could read, exit 1, leaving
    a run folder that had not ended. The messages are lost; the run is not."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "harness", "run", *RUN, "--out", str(tmp_path)],
            stdout=subprocess.PIPE, stderr=full, text=True, env=_environment(), timeout=120,
        )  # fmt: skip
    assert proc.returncode == 0
    assert "Stream_COPY" in proc.stdout
    _whole(run_folder(tmp_path))


def test_a_run_with_its_standard_error_closed_still_ends(tmp_path: Path) -> None:
    """``harness run ... 2>&-`` ended in an AttributeError on a stderr of None once its
    rows began (exit 1, the folder not ended, no results.csv), and the notes meant
    for stderr were printed into the table on stdout."""
    command = [sys.executable, "-m", "harness", "run", *RUN, "--out", str(tmp_path)]
    proc = subprocess.run(
        ["sh", "-c", 'exec "$@" 2>&-', "sh", *command],
        stdout=subprocess.PIPE, text=True, env=_environment(), timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0
    assert proc.stdout.startswith("kernel "), proc.stdout
    run = run_folder(tmp_path)
    _whole(run)

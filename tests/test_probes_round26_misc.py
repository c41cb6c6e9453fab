"""Round 26 probes between the commands: planted bugs in kernels that the check let
through, on the simulator that should have caught them."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import harness, run_folder
from test_oclgrind import _simulator

from harness.backends import oclgrind
from harness.execution import results


def test_the_simulator_checks_mat_mat_shared_in_doubles(tmp_path: Path) -> None:
    """Its 32 KiB of work-group memory made MAT_MAT_SHARED's f64 rows skipped there,
    so a mutant that survived PoCL's check was never checked on the simulator."""
    device = _simulator()
    assert device["limits"]["local_mem_bytes"] == oclgrind.LOCAL_MEM_BYTES == 65536
    proc = harness(
        "run", "-k", "Basic_MAT_MAT_SHARED", "--check", "--size", "100", "--precision", "f64",
        "--device", "oclgrind", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = results.read_journal(run_folder(tmp_path))
    assert (row["status"], row["precision"]) == ("ok", "f64")


@pytest.mark.full
def test_a_deleted_barrier_in_mat_mat_shared_doubles_is_killed(tmp_path: Path) -> None:
    """The barrier before the next tile is loaded, deleted: PoCL runs a group's
    items as one loop and verifies; the simulator, at the check sizes, sees the race."""
    _simulator()
    proc = harness(
        "mutants", "-k", "Basic_MAT_MAT_SHARED", "-b", "opencl", "--device", "oclgrind",
        "--precision", "f64", "--lines", "Basic_MAT_MAT_SHARED.c:32", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with (run_folder(tmp_path) / "mutants.csv").open(newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["line"], row["original"], row["status"]) == ("32", "BARRIER();", "killed")

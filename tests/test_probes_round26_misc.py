"""Round 26 probes between the commands: planted bugs in kernels that the check let
through, on the simulator that should have caught them."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import harness, run_folder
from test_oclgrind import _simulator

from harness.backends import oclgrind
from harness.execution import results
from harness.mutation import mutants


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
    items as one loop and verifies; the simulator sees the race at the check size of
    4096, the first past one tile (the sizes above it only take it longer)."""
    _simulator()
    proc = harness(
        "mutants", "-k", "Basic_MAT_MAT_SHARED", "-b", "opencl", "--device", "oclgrind",
        "--precision", "f64", "--lines", "Basic_MAT_MAT_SHARED.c:32", "--max-size", "4096",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with (run_folder(tmp_path) / "mutants.csv").open(newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["line"], row["original"], row["status"]) == ("32", "BARRIER();", "killed")


@pytest.mark.parametrize(
    ("kernel", "line", "mutated", "found"),
    [
        # Bins past num_bins, never zeroed, are read: their work-group memory is
        # zero on PoCL and on the simulator alike, so the sum is right.
        (
            "Algorithm_HISTOGRAM",
            "Algorithm_HISTOGRAM.c:31",
            "if (lid < num_bins || local_counts[lid] != 0) {",
            "Controlflow depends on uninitialized value (kernel histogram, "
            "Algorithm_HISTOGRAM.c:31)",
        ),
        # The first of a work-item's rows is summed onto a register never set. It holds
        # whatever was there: on some CPUs no zero, and PoCL's check (or the
        # simulator's first, not strict, recheck) kills the mutant on its result.
        (
            "Polybench_3MM",
            "product_rows.h:22",
            "for (int r = 1; r < CPU_ROWS; ++r) {",
            "Uninitialized value written to in global memory (kernel mm3_e, product_rows.h:35)",
        ),
    ],
)
def test_a_survivor_that_reads_memory_never_written_is_killed_on_the_simulator(
    tmp_path: Path, kernel: str, line: str, mutated: str, found: str
) -> None:
    """These survived PoCL's check and the simulator's recheck, which looked for
    races and overruns only: the recheck now also reports values read unset (where
    an unset register holds no zero, a check already fails on the result)."""
    simulator = _simulator()["id"]
    proc = harness(
        "mutants", "-k", kernel, "-b", "opencl", "--impl", "kernel", "--precision", "f64",
        "--lines", line, "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with (run_folder(tmp_path) / "mutants.csv").open(newline="") as handle:
        (row,) = [r for r in csv.DictReader(handle) if r["mutated"] == mutated]
    assert row["status"] == "killed"
    wrong = kernel == "Polybench_3MM" and ": fail: check case " in row["detail"]
    reported = row["detail"].startswith(f"on {simulator}: {kernel}") and found in row["detail"]
    assert wrong or reported, row["detail"]


def test_a_strict_lab_asks_the_simulator_for_unset_values_and_puts_the_environment_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OCLGRIND_UNINITIALIZED", raising=False)
    with mutants._Lab.compiling(SimpleNamespace(form=None, strict=True)):
        assert os.environ["OCLGRIND_UNINITIALIZED"] == "1"
    assert "OCLGRIND_UNINITIALIZED" not in os.environ
    with mutants._Lab.compiling(SimpleNamespace(form=None, strict=False)):
        assert "OCLGRIND_UNINITIALIZED" not in os.environ

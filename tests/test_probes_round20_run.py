"""Hostile probes, round 20: the run side of the command line (user kernel suites,
resumes of folders not of this run's making, the environment the harness reads) and
the commands beside it (devices, list, show, compare, cuda-compile)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, harness, need_backend, run_folder

EXAMPLE = ROOT / "examples" / "my_kernels"


def _rows(run: Path) -> list[dict]:
    """The journal rows of a run folder."""
    return [json.loads(line) for line in (run / "journal.jsonl").read_text().splitlines()]


def test_a_user_kernel_without_a_source_names_the_user_s_folder(tmp_path: Path) -> None:
    """A user suite's kernel with no WGSL source was skipped naming the shipped
    ``kernels/wgsl/My_SAXPY.wgsl``, a file the user never had to write: the reason
    now names the suite's own folder, where the source was looked for."""
    need_backend("wgpu")
    suite = tmp_path / "mine"
    shutil.copytree(EXAMPLE, suite)
    (suite / "wgsl" / "My_SAXPY.wgsl").unlink()
    out = tmp_path / "out"
    proc = harness(
        "run", "--suite", str(suite / "kernels.py"), "-k", "My_SAXPY", "-b", "wgpu",
        "--size", "1000", "--reps", "3", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = _rows(run_folder(out))
    assert row["status"] == "skipped"
    assert row["reason"] == f"no source {suite}/wgsl/My_SAXPY.wgsl"


@pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None, reason="mpi4py not installed")
def test_a_run_under_one_launched_rank_does_not_hang_its_opencl_worker(tmp_path: Path) -> None:
    """Under a launcher's variables (``srun -n 1`` sets PMI_SIZE=1) the run starts
    MPI, and a PoCL worker forked after that hung until its row timed out (an error
    row after 120 s): a process that started MPI now spawns its workers."""
    need_backend("opencl")
    out = tmp_path / "out"
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "opencl", "--size", "1000", "--reps", "3",
        "--timeout", "30", "--out", str(out), env={"PMI_SIZE": "1"}, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = _rows(run_folder(out))
    assert row["status"] == "ok", row["reason"]

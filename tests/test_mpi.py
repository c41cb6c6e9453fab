"""harness run under mpirun: one run folder of every rank's rows, ranks measuring
row by row together, and the summary over ranks RAJAPerf's MPI runs give."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need_backend, required, run_folder

from harness.execution import results

RANKS = 3


def _mpirun() -> str:
    path = shutil.which("mpirun")
    if path is None or not _has_mpi4py():
        if required("mpi"):
            pytest.fail("mpirun and mpi4py are required here (HARNESS_REQUIRE_BACKENDS)")
        pytest.skip("mpirun or mpi4py is not installed (Debian: openmpi-bin; pip: mpi4py)")
    return path


def _has_mpi4py() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def test_ranks_write_one_run_folder_with_min_avg_max(tmp_path: Path) -> None:
    mpirun = _mpirun()
    need_backend("opencl")
    command = [
        mpirun, "-n", str(RANKS), "--oversubscribe", sys.executable, "-m", "harness", "run",
        "-k", "Stream", "-b", "cpu", "opencl", "--size", "100000", "--reps", "3",
        "--out", str(tmp_path),
    ]  # fmt: skip
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=600,
        # Open MPI refuses root unless told; containers run tests as root.
        env={
            **os.environ,
            "OMPI_ALLOW_RUN_AS_ROOT": "1",
            "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp"),
        },
    )
    assert done.returncode == 0, done.stderr[-3000:]
    folder = run_folder(tmp_path)
    rows = results.read_journal(folder)
    kernels = ("Stream_COPY", "Stream_MUL", "Stream_ADD", "Stream_TRIAD", "Stream_DOT")
    assert {(r["kernel"], r["device_id"], r["rank"]) for r in rows} == {
        (k, d, r) for k in kernels for d in ("cpu:0", "opencl:0") for r in range(RANKS)
    }
    assert all(r["status"] == "ok" for r in rows), [r["reason"] for r in rows]
    assert {r["host"] for r in rows} == {rows[0]["host"]}
    # Every rank's row of a kernel on a device carries the same checksum.
    for kernel in kernels:
        for device in ("cpu:0", "opencl:0"):
            found = {
                r["checksum"] for r in rows if (r["kernel"], r["device_id"]) == (kernel, device)
            }
            assert len(found) == 1, (kernel, device, found)
    meta = results.read_metadata(folder)
    assert [r["rank"] for r in meta["ranks"]] == list(range(RANKS))
    summary = (folder / results.SUMMARY).read_text()
    over = summary.split("median time per repetition over ranks:\n", 1)[1].splitlines()
    assert over[0].split() == ["kernel", "backend", "prec", "size", "ranks", "min", "avg", "max"]
    assert {tuple(line.split()[:5]) for line in over[1:]} == {
        (k, b, "f64", "100000", str(RANKS)) for k in kernels for b in ("cpu", "opencl")
    }
    assert "cpu:0 r2" in summary

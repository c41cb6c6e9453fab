"""Hostile-user probes, sixth round: an interrupt to a command started in a script's
background (which inherits SIGINT ignored), nonsense figures in the stored peaks
and in a run's recorded peaks, collections the Python API did not unpack, and MPI
ranks given different options."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import copy_run, finished_run, harness

from harness.api import run_arguments
from harness.backends import get as get_backend
from harness.cli.run import _differing_plan
from harness.execution import peaks
from harness.execution.runner import Task

QUICK = ["-k", "Stream_COPY", "Basic_DAXPY", "-b", "cpu", "--sizes", "1000", "--reps", "3"]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of two timed cpu rows, to copy."""
    return finished_run(tmp_path_factory.mktemp("quick"), *QUICK)


def _ignore_sigint() -> None:
    """What a shell does to a command it starts in a script's background."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_an_interrupt_to_the_group_of_a_background_command_stops_it(
    quick_run: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "report", str(quick_run), "--out", str(tmp_path / "r")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=_ignore_sigint,
    )
    # Once it has made its output folder, the command has long set up its handlers.
    deadline = time.monotonic() + 60
    while not (tmp_path / "r").exists() and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert proc.returncode == 130, err
    assert "interrupted" in err.splitlines()[-1]


def _cpu_key() -> str:
    """The stored peaks' key of this host's cpu:0."""
    return peaks.device_key(get_backend("cpu").devices()[0].as_dict())


@pytest.mark.parametrize("value", ["abc", -5, True, [1], {"f64": "x"}])
def test_nonsense_in_the_stored_peaks_places_no_row_and_raises_nothing(
    value: object, tmp_path: Path
) -> None:
    store = tmp_path / "peaks.json"
    entry = {
        "measured": "2026-01-01T00:00:00+0000",
        "copy_gbytes_per_s": value,
        "triad_gbytes_per_s": value,
        "fma_gflops_per_s": value,
    }
    store.write_text(json.dumps({_cpu_key(): entry}))
    out = tmp_path / "out"
    proc = harness("run", *QUICK, "--out", str(out), env={"HARNESS_PEAKS": str(store)})
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr
    journal = next(out.iterdir()) / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    assert all("pct_peak_bw" not in r and "pct_peak_flops" not in r for r in rows)


@pytest.mark.parametrize("command", ["report", "export"])
def test_a_recorded_peak_that_is_no_number_is_left_out_of_reports(
    command: str, quick_run: Path, tmp_path: Path
) -> None:
    run = copy_run(quick_run, tmp_path)
    meta = json.loads((run / "metadata.json").read_text())
    meta["peaks"] = {"cpu:0": {"fma_gflops_per_s": {"f64": "x"}, "copy_gbytes_per_s": True}}
    (run / "metadata.json").write_text(json.dumps(meta))
    extra = ["--thicket"] if command == "export" else []
    proc = harness(command, str(run), *extra, "--out", str(tmp_path / "out"))
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr


def test_the_api_unpacks_numpy_arrays_and_generators() -> None:
    argv = run_arguments(
        {"sizes": np.array([1000, 2000]), "backends": (b for b in ["cpu"]), "reps": np.int64(3)}
    )
    assert argv == ["--sizes", "1000,2000", "--backends", "cpu", "--reps", "3"]


def test_the_api_keeps_text_and_paths_whole() -> None:
    assert run_arguments({"kernels": "Stream_COPY", "out": Path("a/b")}) == [
        "--kernels",
        "Stream_COPY",
        "--out",
        "a/b",
    ]


def test_ranks_with_other_rows_are_refused_naming_the_first_difference() -> None:
    copy = Task("Stream_COPY", "cpu", 0, 1000, "f64")
    assert _differing_plan([[copy], [Task("Stream_COPY", "opencl", 1, 1000, "f64")]]) is None
    problem = _differing_plan([[copy], [Task("Stream_COPY", "cpu", 0, 2000, "f64")]])
    assert problem == (
        "rank 1 planned other rows than rank 0 (row 1: Stream_COPY n=2000, where rank 0 "
        "has Stream_COPY n=1000): give every rank the same options"
    )


@pytest.mark.full
def test_an_mpi_rank_given_other_sizes_ends_the_job_before_any_row(tmp_path: Path) -> None:
    if shutil.which("mpirun") is None:
        pytest.skip("mpirun is not installed")
    pytest.importorskip("mpi4py")
    mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
    base = [sys.executable, "-m", "harness", "run", "-k", "Stream_COPY", "-b", "cpu"]
    out = ["--reps", "3", "--out", str(tmp_path / "out")]
    rank_0 = ["-np", "1", *base, "--sizes", "1000", *out]
    rank_1 = ["-np", "1", *base, "--sizes", "2000", *out]
    proc = subprocess.run(
        [*mpirun, *rank_0, ":", *rank_1],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "harness: error: rank 1 planned other rows than rank 0 (row 1: Stream_COPY n=2000" in (
        proc.stderr
    )
    assert not list((tmp_path / "out").glob("run-*"))


def test_resuming_a_merged_run_says_it_was_merged(tmp_path: Path) -> None:
    """A merged folder has no run of its own to finish: the refusal said only that
    its metadata had no 'options'."""
    first = finished_run(tmp_path / "a", *QUICK)
    second = finished_run(tmp_path / "b", *QUICK)
    merged = tmp_path / "merged"
    proc = harness("merge", str(first), str(second), "--out", str(merged))
    assert proc.returncode == 0, proc.stderr
    (folder,) = [p for p in merged.iterdir() if p.is_dir()]
    proc = harness("run", "--resume", str(folder))
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith(
        f"--resume: {folder} was merged by harness merge, not measured by harness run, so "
        "there is no run to finish: resume its source runs instead"
    ), proc.stderr

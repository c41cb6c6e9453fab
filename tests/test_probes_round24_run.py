"""Hostile probes, round 24: `harness run` with numbers at the edges of what its
options take, resumes of runs whose inputs moved, and the benchmark scripts that pass
run options on to the harness."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, harness, need_backend, one_error, run_folder

BENCHMARKS = ROOT / "benchmarks"


def _script(script: str, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    """``python benchmarks/SCRIPT ARGS``, run from another folder, its output captured."""
    env = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--sizes", "2^20000", "'2^20000' is out of range: sizes go up to 2^128"),
        ("--sizes", "2^3..2^2000000", "'2^3..2^2000000' is out of range: sizes go up to 2^128"),
        ("--sizes", "1" + "0" * 39, f"'1{'0' * 39}' is out of range: sizes go up to 2^128"),
        ("--memory-allocated", "2^20000", "'2^20000' is out of range: budgets go up to 2^128"),
        ("--memory-moved", "9" * 400, f"'{'9' * 400}' is out of range: budgets go up to 2^128"),
        ("--flush-bytes", "9" * 400 + "GiB", "is out of range: give a byte count up to 2^128"),
        ("--flush-bytes", "2^99999", "'2^99999' is out of range: give a byte count up to 2^128"),
        ("--group", "9" * 5000, "is not a work-group size: expected powers of two from 32"),
    ],
)
def test_a_size_or_byte_count_past_any_machine_is_one_line(
    tmp_path: Path, option: str, value: str, said: str
) -> None:
    """--sizes 2^20000 and --memory-allocated 2^20000 ended in a ValueError's traceback
    (an integer of too many digits to print), a byte count of 400 digits in an
    OverflowError's, and --sizes 2^3..2^2000000 never ended, doubling two million
    times before any check. Each is refused in one line, before any work."""
    out = tmp_path / "out"
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", option, value, "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    line = one_error(proc.stderr)
    assert line.startswith(f"argument {option}: ") and said in line, line
    assert not out.exists()


def test_a_sweep_just_past_what_a_run_records_still_names_the_kernel_s_largest(
    tmp_path: Path,
) -> None:
    """The bound leaves sizes past what a run records to the kernel's own check,
    which names the largest size it takes."""
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", "--sizes", "2^128",
                   "--out", str(tmp_path / "out"))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    line = one_error(proc.stderr)
    assert line.startswith(f"Stream_TRIAD at size {2**128} is past what a run records"), line


def test_a_resume_whose_suite_file_is_gone_names_the_run_s_suite(tmp_path: Path) -> None:
    """A run of a user suite whose file was moved since was refused at --resume with
    '--suite FILE: no such file', an option the user had not given. The line says it
    is the run's own suite, from its metadata."""
    suite = shutil.copytree(ROOT / "examples" / "my_kernels", tmp_path / "mine")
    proc = harness("run", "--suite", str(suite / "kernels.py"), "-k", "My_SAXPY", "-b", "cpu",
                   "--size", "1000", "--reps", "2", "--out", str(tmp_path / "runs"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(tmp_path / "runs")
    shutil.rmtree(suite)
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--resume: {run / 'metadata.json'}: the run's --suite {suite / 'kernels.py'}: no such file"
    )


@pytest.mark.full
def test_host_cost_profiles_the_worst_row_of_a_run_that_chose_its_kernels(
    tmp_path: Path,
) -> None:
    """host_cost.py's own example (``-- -b opencl -k Stream Basic``) profiled each worst
    row with a second -k and --size, which the harness refused; that refusal, unseen,
    was printed as the row's profile: '0.00 s in Runner._execute'. The profile takes
    the run's options less its kernels and sizes, and is a real one."""
    proc = _script("host_cost.py", "--reps", "1", "--worst", "1", "--profile", "1", "--",
                   "-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Stream_TRIAD n=1000 alone, in-process:" in proc.stdout
    assert "0.00 s in Runner._execute" not in proc.stdout
    assert "(_sample)" in proc.stdout, proc.stdout


def test_host_cost_names_a_profile_the_harness_refused(tmp_path: Path) -> None:
    """A profiled run the harness refused (cProfile, which ran it, exits 0 even so)
    ended in a profile of nothing, printed as the row's; it ends the script with the
    harness's line."""
    package = tmp_path / "tree" / "harness"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(_REFUSING_HARNESS)
    proc = _script("host_cost.py", "--tree", str(tmp_path / "tree"), "--worst", "1",
                   "--profile", "1", "--", "-b", "cpu")  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "profile of Stream_COPY n=1000: harness run refused it: harness: error: refused"
    )
    assert "in Runner._execute" not in proc.stdout


#: A checkout's harness that runs a suite (one row of host cost) but refuses the
#: in-process run of a profile, with a usage error.
_REFUSING_HARNESS = """
import pathlib, sys

args = sys.argv[1:]
if "--in-process" in args:
    print("harness: error: refused", file=sys.stderr)
    sys.exit(2)
run = pathlib.Path(args[args.index("--out") + 1]) / "run-1"
run.mkdir(parents=True, exist_ok=True)
(run / "results.csv").write_text(
    "kernel,size,device_id,status,host_s,timed_wall_s\\nStream_COPY,1000,cpu:0,ok,0.5,0.1\\n"
)
"""


@pytest.mark.parametrize("given", ["--in-process", "--in"])
def test_worker_overhead_refuses_run_options_that_run_in_process(given: str) -> None:
    """worker_overhead.py with --in-process among its run options ran both sides of
    each pair in-process, and printed their ratio as what workers cost."""
    proc = _script("worker_overhead.py", "--launches", "1", "--", "-k", "Stream_TRIAD",
                   "-b", "cpu", "--size", "100", "--reps", "2", given)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr == (
        "worker_overhead.py: error: run_args: --in-process is what this script adds to the "
        "second run of each pair; leave it out (see --help)\n"
    )
    assert proc.stdout == ""


@pytest.mark.full
def test_revision_ab_keeps_the_partitions_of_an_abbreviated_sweep_apart() -> None:
    """revision_ab.py told a partition sweep by the word --partition alone: given as
    --part (which the harness takes), the item and chunk rows had one key, and their
    times were mixed into one median, printed as one row. They are two rows now."""
    need_backend("opencl")
    proc = _script("revision_ab.py", "--base", "HEAD", "--launches", "1", "--", "-k",
                   "Stream_TRIAD", "-b", "opencl", "--size", "1000", "--reps", "2",
                   "--part", "item", "chunk")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines() if line.startswith("Stream_")]
    assert sorted(row[6] for row in rows) == ["chunk", "item"], proc.stdout
    assert "median ratio over 2 rows" in proc.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["-k", "Bitonic_U32", "-b", "cpu", "--param", "strategy=fused,strategy=tiled"],
            "--param 'strategy=fused,strategy=tiled': strategy given twice; repeat --param "
            "to compare its values",
        ),
        (
            ["-k", "Stream_TRIAD", "-b", "cpu", "--partition", "chunk"],
            "--partition chunk: cpu takes item alone; give item, or a backend that deals "
            "items (opencl, cuda)",
        ),
        (
            ["-k", "Stream_TRIAD", "-b", "wgpu", "--partition", "item", "chunk", "stride"],
            "--partition chunk stride: wgpu takes item alone; give item, or a backend that "
            "deals items (opencl, cuda)",
        ),
    ],
)
def test_launch_breakdown_refuses_what_it_would_not_do_as_labelled(
    args: list[str], said: str
) -> None:
    """launch_breakdown.py timed strategy=tiled alone for 'strategy=fused,strategy=tiled'
    (the last value replaced the first), and on the numpy backend or wgpu, which deal
    no items, printed a breakdown labelled partition=chunk of a plan dealt one item per
    work-item. Each is refused in one line."""
    if "wgpu" in args:
        need_backend("wgpu")
    proc = _script("launch_breakdown.py", *args, "--size", "1000")
    assert proc.returncode == 2
    assert proc.stderr == f"launch_breakdown.py: error: {said} (see --help)\n"
    assert proc.stdout == ""


def test_launch_breakdown_times_a_partition_given_twice_once() -> None:
    """--partition item item printed the same breakdown twice."""
    need_backend("opencl")
    proc = _script("launch_breakdown.py", "-k", "Stream_TRIAD", "-b", "opencl", "--size",
                   "1000", "--partition", "item", "item")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("Stream_TRIAD [partition=item] on opencl") == 1, proc.stdout


def test_a_timeout_an_in_process_run_cannot_use_is_said_to_change_nothing(tmp_path: Path) -> None:
    """--in-process --timeout 5 took the timeout without a word, and kept it in the
    run's options, though no row of an in-process run can be stopped: a kernel that
    hangs hangs the run. It is noted as changing nothing."""
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "100", "--reps", "2",
                   "--in-process", "--timeout", "5", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        "note: --in-process runs every row in this process, where no row can be stopped (nor "
        "a backend listing its devices): --timeout 5 changes nothing\n" in proc.stderr
    )
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "100", "--reps", "2",
                   "--timeout", "5", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "--in-process runs every row" not in proc.stderr


@pytest.mark.parametrize("option", ["--flushes", "--caches"])
def test_cache_cold_hot_refuses_a_fraction_of_a_cache_under_a_byte(option: str) -> None:
    """--flushes 2 1e-12 ran the hot, cold and 2x rows, then stopped on the harness's
    "argument --flush-bytes: '0' must be more than 0 bytes", an option the user had not
    given. The script refuses the factor itself, before any row runs."""
    proc = _script("cache_cold_hot.py", "-b", "cpu", "-k", "Stream_COPY", "--launches", "1",
                   "--max-time", "0.05", option, "2", "1e-12")  # fmt: skip
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"cache_cold_hot.py: error: {option} 1e-12: that many of cpu:0's "), line
    assert "is under a byte; give at least" in line
    assert proc.stdout == ""

"""Round 27 probes of mutants, peak, cuda-compile, devices, list and the benchmark
scripts: each test says what was wrong before."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, device_without_f64, harness, need_backend

ENV = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}


def _script(script: str, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "benchmarks" / script), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=ENV)


def test_peak_names_a_device_or_backend_given_twice(tmp_path: Path) -> None:
    """``harness peak -b cpu cpu --device cpu:0 --device cpu:0`` measured cpu:0 once,
    unsaid, where harness run, mutants and cuda-compile name a value given twice."""
    store = {"HARNESS_PEAKS": str(tmp_path / "p.json")}
    proc = harness("peak", "-b", "cpu", "cpu", "--device", "cpu:0", "--device", "cpu:0",
                   "--fma-size", str(2**50), env=store)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[:2] == [
        "note: -b cpu given more than once; each is measured once",
        "note: --device cpu:0 given more than once; each is measured once",
    ]
    assert lines[2].startswith("harness: error: --fma-size 1125899906842624: ")
    assert len(lines) == 3
    assert not (tmp_path / "p.json").exists()


def test_list_names_an_exclude_that_leaves_out_nothing() -> None:
    """``harness list -k Stream -x Basic_DAXPY`` (or with --files) listed the Stream
    kernels unsaid, where harness run says such a -x changes nothing."""
    proc = harness("list", "-k", "Stream", "-x", "Basic_DAXPY", "Stream_COPY")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        "note: -x Basic_DAXPY leaves out no kernel -k selects, so it changes nothing\n"
    )
    assert "Stream_COPY" not in proc.stdout and "Stream_TRIAD" in proc.stdout
    proc = harness("list", "--files", "Stream_COPY", "-x", "Basic")
    assert proc.returncode == 0, proc.stderr
    assert (
        proc.stderr
        == "note: -x Basic leaves out no kernel --files selects, so it changes nothing\n"
    )
    assert proc.stdout.startswith("Stream_COPY\n")


def test_mutants_names_a_sample_that_leaves_out_nothing(tmp_path: Path) -> None:
    """``--sample 100 --seed 5`` of a kernel with one mutant checked it, unsaid, as if
    a sample had been drawn (and its table had no 'narrowed by:' line to tell)."""
    need_backend("opencl")
    proc = harness("mutants", "-k", "Stream_COPY", "-b", "opencl", "--sample", "100", "--seed",
                   "5", "--out", str(tmp_path / "m"), "--max-size", "1")  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    note, error = proc.stderr.splitlines()
    assert note == (
        "note: --sample 100 and --seed 5 pick every mutant: no chosen kernel has more than 1, "
        "so every one is checked and the score is not a sample's"
    )
    assert error.startswith("harness: error: --max-size 1 is under every check size")


def test_host_cost_names_reps_beside_check_and_a_profile_over_worst() -> None:
    """``host_cost.py --check --reps 5 --worst 1 --profile 3`` dropped --reps (a check
    times nothing) and profiled one row, both unsaid, as if five repetitions had been
    timed and three rows profiled."""
    proc = _script("host_cost.py", "--check", "--reps", "5", "--worst", "1", "--profile", "3",
                   "--", "-b", "cpu", "-k", "Stream_COPY")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "note: --reps 5 changes nothing with --check, which times no repetition",
        "note: --profile 3 profiles the rows --worst names, so at most 1",
    ]
    assert proc.stdout.count("alone, in-process:") == 1


def test_launch_breakdown_names_a_param_or_partition_given_twice() -> None:
    """``launch_breakdown.py --param strategy=global,steps=2 --param
    steps=2,strategy=global`` printed the same breakdown twice, and ``--partition
    item item`` was taken once, unsaid: each is now broken down once, and said."""
    proc = _script("launch_breakdown.py", "-k", "Bitonic_U32", "-b", "cpu", "--size", "1000",
                   "--reps", "1", "--param", "strategy=global,steps=2", "--param",
                   "steps=2,strategy=global", "--partition", "item", "item")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "note: --param steps=2,strategy=global given more than once; each is broken down once",
        "note: --partition item given more than once; each is broken down once",
    ]
    assert proc.stdout.count("Bitonic_U32 [strategy=global,steps=2,") == 1, proc.stdout


@pytest.mark.parametrize(
    ("script", "args", "notes"),
    [
        ("cache_cold_hot.py",
         ["-b", "cpu", "-k", "Stream_COPY", "--launches", "1", "--max-time", "0.05",
          "--caches", "0.5", "0.5", "--flushes", "2", "2"],
         ["--caches 0.5", "--flushes 2"]),
        ("sort_vs_numpy.py",
         ["-b", "cpu", "cpu", "--size", "1000", "--launches", "1", "--reps", "1",
          "--strategy", "global", "global", "--steps", "2", "2"],
         ["--backends cpu", "--strategy global", "--steps 2"]),
        ("queue_hold.py",
         ["-b", "cpu", "cpu", "-k", "Bitonic_U32", "--strategy", "global", "global",
          "--launches", "1", "--size", "100"],
         ["--backend cpu", "--strategy global"]),
    ],
)  # fmt: skip
def test_scripts_name_a_value_given_twice(script: str, args: list[str], notes: list[str]) -> None:
    """``cache_cold_hot.py --caches 0.5 0.5``, ``sort_vs_numpy.py --strategy global
    global`` and ``queue_hold.py -b cpu cpu`` measured each value once, unsaid (the
    note harness run makes of it is not shown), where harness run names a repeat."""
    proc = _script(script, *args)
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("note:")]
    assert said == [f"note: {n} given more than once; each value runs once" for n in notes]
    rows = [
        line
        for line in proc.stdout.splitlines()
        if line.startswith(("0.5 x", "cpu:0 g", "Bitonic_U32 cpu:0 g"))
    ]
    assert len(rows) == 1, proc.stdout


def test_mutants_max_size_over_every_check_size_is_not_said_to_narrow(tmp_path: Path) -> None:
    """``--max-size 100000000`` on a device that is no simulator left out no check size,
    yet the table and summary.txt said 'narrowed by: --max-size 100000000', as of a
    score with sizes left unchecked: it is now said to change nothing."""
    need_backend("opencl")
    proc = harness("mutants", "-k", "Stream_COPY", "-b", "opencl", "--precision", "f32",
                   "--no-simulator", "--max-size", "100000000", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        "note: --max-size 100000000 is over every check size of the chosen kernels (the "
        "largest: 10007, Stream_COPY's), so it changes nothing"
    )
    assert "narrowed by" not in proc.stdout
    (folder,) = tmp_path.iterdir()
    assert "narrowed by" not in (folder / "summary.txt").read_text()


def test_mutants_summary_of_a_stop_at_a_survivor_is_not_said_interrupted(
    tmp_path: Path,
) -> None:
    """``--stop-at-first-survivor`` printed 'stopped at the first survivor: a partial
    table', but its summary.txt said 'interrupted: a partial table' and 'interrupted
    before the end', of a run no signal stopped."""
    need_backend("opencl")
    suite = tmp_path / "my_kernels"
    shutil.copytree(ROOT / "examples" / "my_kernels", suite)
    text = (suite / "kernels.py").read_text()
    # A check too loose to kill any mutant of My_SAXPY.
    loose = text.replace("Tolerance(1e-13, 1e-5, floor=0.05)", "Tolerance(1e6, 1e6, floor=0.05)")
    assert loose != text
    (suite / "kernels.py").write_text(loose)
    proc = harness("mutants", "--suite", str(suite / "kernels.py"), "-k", "My_SAXPY", "-b",
                   "opencl", "--precision", "f64", "--no-simulator", "--stop-at-first-survivor",
                   "--out", str(tmp_path / "out"))  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    (folder,) = (tmp_path / "out").iterdir()
    summary = (folder / "summary.txt").read_text()
    assert "interrupted" not in summary
    assert summary.startswith("stopped at the first survivor: a partial table (see below)\n")
    assert "\nstopped at the first survivor:\n  My_SAXPY on opencl:0: 1 of " in summary
    assert summary == proc.stdout.rsplit("\n\nmutants folder:", 1)[0] + "\n"


def test_mutants_lines_of_every_mutant_or_given_twice_are_said_to_change_nothing(
    tmp_path: Path,
) -> None:
    """``--lines Stream_COPY.c:1-40 Stream_COPY.c:1-40`` (the whole file, twice) was
    taken unsaid, and the table said 'narrowed by: --lines Stream_COPY.c:1-40
    Stream_COPY.c:1-40' of a run that checked every mutant."""
    need_backend("opencl")
    proc = harness("mutants", "-k", "Stream_COPY", "-b", "opencl", "--precision", "f32",
                   "--no-simulator", "--lines", "Stream_COPY.c:1-40", "Stream_COPY.c:1-40",
                   "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[:2] == [
        "note: --lines Stream_COPY.c:1-40 given more than once; each value runs once",
        "note: --lines Stream_COPY.c:1-40 hold every mutant of the chosen kernels, so it "
        "changes nothing",
    ]
    assert "narrowed by" not in proc.stdout
    (folder,) = tmp_path.iterdir()
    assert "narrowed by" not in (folder / "summary.txt").read_text()


@pytest.mark.parametrize(
    ("devices", "note"),
    [
        (["host", "cpu:0"], "note: --device cpu:0 names cpu:0, which an earlier --device chose"),
        (["cpu:0", "cpu:00"], "note: --device cpu:00 names cpu:0, which an earlier --device chose"),
    ],
)
def test_run_names_a_device_chosen_twice_in_other_words(
    tmp_path: Path, devices: list[str], note: str
) -> None:
    """``--device host --device cpu:0`` (or ``cpu:0`` and ``cpu:00``) ran cpu:0 once,
    unsaid, where a value written twice the same way is named."""
    chosen = [w for d in devices for w in ("--device", d)]
    proc = harness("run", "-k", "Stream_COPY", *chosen, "--check", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert f"{note}; each device runs once" in proc.stderr.splitlines()
    assert "\n2 ok, 0 fail, 0 error, 0 skipped\n" in proc.stdout  # its two check sizes


def test_wgsl_checks_with_no_row_compared_fails() -> None:
    """``wgsl_checks.py`` of rows a device skips (f64 where it lacks f64) printed a
    table of no row and exited 0, as if a comparison had been made."""
    device = device_without_f64()
    if not device.startswith("wgpu:"):
        pytest.skip("no wgpu device without f64 here")
    proc = _script("wgsl_checks.py", "-k", "Stream_COPY", "--device", device, "--launches",
                   "1", "--", "--size", "1000", "--reps", "2", "--precision", "f64")  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "no row was timed with both choices: nothing is compared"
    )
    assert "left out: Stream_COPY checks on: needs f64, which this device lacks" in proc.stdout

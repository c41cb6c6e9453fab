"""Probes, round 20: the documentation as a contract. Each test runs a command
as README.md or a --help text gives it and asserts what the text says it does."""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, finished_run, harness, need_backend

from harness.cli import build_parser

BENCHMARKS = ROOT / "benchmarks"


def _script(script: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    command = [sys.executable, str(BENCHMARKS / script), *args]
    env = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


def test_queue_hold_times_the_global_and_local_sorts_the_readme_quotes() -> None:
    """The README quotes queue_hold.py timing Bitonic_U32 by the global strategy
    (136 launches) and the local one; it timed each device's default strategy
    alone (fused on PoCL), a row of neither."""
    proc = _script("queue_hold.py", "-b", "cpu", "--size", "64", "--launches", "1")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split()[:3] for line in proc.stdout.splitlines() if "cpu:0" in line]
    assert rows == [["Bitonic_U32", "cpu:0", "global"], ["Bitonic_U32", "cpu:0", "local"]]


def test_plot_help_names_every_plot_it_writes(tmp_path: Path) -> None:
    """`harness plot --help` listed five plots; a run of two APIs of the host CPU
    with transfers got cross_api and transfers plots it did not name (nor did it
    name roofline or saturation, which README describes)."""
    need_backend("opencl")
    run = finished_run(tmp_path / "runs", "-k", "Stream_TRIAD", "-b", "cpu", "opencl",
                       "--size", "1000", "--reps", "3",
                       "--transfers", "resident", "per-rep")  # fmt: skip
    proc = harness("plot", str(run), "--out", str(tmp_path / "plots"))
    assert proc.returncode == 0, proc.stderr
    written = {p.stem for p in (tmp_path / "plots").glob("*.png")}
    assert {"cross_api", "transfers"} <= written
    listed = harness("plot", "--help").stdout
    for stem in [*written, "roofline", "saturation", "sweep_<KERNEL>"]:
        assert f"\n  {stem} " in listed, stem


def test_every_option_of_every_command_has_help() -> None:
    """`harness cuda-compile --help` gave --precision no text (neither its choices'
    meaning nor its default), and `show` and `merge` left RUN_DIR bare."""
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    bare = [
        f"{name} {' '.join(action.option_strings) or action.metavar or action.dest}"
        for name, command in commands.choices.items()
        for action in command._actions
        if not action.help
    ]
    assert bare == []


def test_a_check_that_verified_nothing_is_exit_status_1_from_python_too(tmp_path: Path) -> None:
    """README gave harness.run's attrs["exit_status"] as 0 when every row is ok or
    skipped, and `harness run --help` its exit status so, while a --check whose
    every row was skipped exits 1 (README's own rule for the command line): the
    two texts now say it, and both faces do it."""
    need_backend("opencl")
    args = ["-k", "Bitonic_U32", "-b", "opencl", "--check", "--strategy", "library"]
    proc = harness("run", *args, "--out", str(tmp_path / "cli"))
    assert proc.returncode == 1, proc.stderr
    assert "a --check verified nothing" in " ".join(harness("run", "--help").stdout.split())
    code = (
        "import harness; rows = harness.run(['Bitonic_U32'], ['opencl'], check=True, "
        f"strategy=['library'], out={str(tmp_path / 'api')!r}, progress=False); "
        "print(sorted(set(rows.status)), rows.attrs['exit_status'])"
    )
    env = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout.split("\n")[-2] == "['skipped'] 1", done.stderr


def test_the_peak_command_a_run_suggests_measures_each_device_without_one(
    tmp_path: Path,
) -> None:
    """A run of two devices without peaks suggested `harness peak --device cpu:0`,
    which measures cpu:0 alone: the other device's rows stayed without a peak."""
    need_backend("opencl")
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", "opencl", "--size", "1000",
                   "--reps", "3", "--out", str(tmp_path / "runs"),
                   env={"HARNESS_PEAKS": str(tmp_path / "no-peaks.json")})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stderr.splitlines() if "no measured peak" in x]
    assert "so their rows" in line
    suggested = line.split("measure with: harness ")[1].split()
    assert build_parser().parse_args(suggested).device == ["cpu:0", "opencl:0"]


def _options_without_text(help_text: str) -> list[str]:
    """The options an argparse --help lists with no description."""
    lines = help_text.split("\n")
    options: list[list[Any]] = []
    for line in lines[lines.index("options:") + 1 :]:
        if not line.strip():
            break
        found = re.match(r"^  (-\S.*)$", line)
        if found:
            options.append([found.group(1), "  " in found.group(1)])
        elif options:
            options[-1][1] = True
    return [name for name, described in options if not described]


@pytest.mark.parametrize("script", sorted(p.name for p in BENCHMARKS.glob("*.py")))
def test_every_option_of_every_benchmark_script_has_help(script: str) -> None:
    """launch_breakdown.py's -k, -b and --size, wgpu_triad.py's --size, --precision
    and --warmup, opencl_stream_floor.py's -k, and the -b of sort_vs_numpy.py and
    dispatch_chain.py had no help text: neither what they take nor their default."""
    proc = _script(script, "--help")
    assert proc.returncode == 0, proc.stderr
    if "options:" in proc.stdout:
        assert _options_without_text(proc.stdout) == []


def test_samples_jsonl_holds_the_fields_readme_lists(tmp_path: Path) -> None:
    """README listed samples.jsonl's fields as row, kernel, device_id and
    samples_ns, each sample a repetition's time; every line has batch too, and a
    batched row's samples are a batch's mean per repetition."""
    run = finished_run(tmp_path, "-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000",
                       "--max-time", "0.3", "--min-time", "0.05")  # fmt: skip
    (line,) = [json.loads(x) for x in (run / "samples.jsonl").read_text().splitlines()]
    assert sorted(line) == ["batch", "device_id", "kernel", "row", "samples_ns"]
    with (run / "results.csv").open() as csv_file:
        (row,) = csv.DictReader(csv_file)
    assert line["batch"] == int(row["batch"]) > 1
    assert min(line["samples_ns"]) * 1e-9 == pytest.approx(float(row["time_min_s"]), rel=1e-3)


def test_a_run_on_an_unreadable_peaks_store_suggests_no_peak_command(tmp_path: Path) -> None:
    """With HARNESS_PEAKS naming a folder, a run warned that no row is placed
    against a peak, then told the user to measure with `harness peak --device
    cpu:0`, which refuses that store before measuring (exit 2)."""
    env = {"HARNESS_PEAKS": str(tmp_path)}
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "100", "--reps", "3",
                   "--out", str(tmp_path / "runs"), env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "is a folder" in proc.stderr
    assert "harness peak" not in proc.stderr
    assert harness("peak", "--device", "cpu:0", env=env).returncode == 2


def test_readme_layout_names_every_module_of_the_layers() -> None:
    """README's Layout lists each layer's modules; ten of them (sampling.py,
    peaks.py, ranks.py, portability.py, cublas.py and others) were in no line,
    so a reader looking for where a row stops or where MPI is handled found
    nothing there."""
    text = (ROOT / "README.md").read_text()
    layout = text[text.index("    harness/model/") : text.index("    harness/api.py")]
    blocks = dict(
        re.findall(r"^    harness/(\w+)/ +(.*?)(?=^    harness/|\Z)", layout, re.M | re.S)
    )
    missing = [
        f"{layer}/{module.name}"
        for layer in ("model", "backends", "execution", "reporting", "mutation", "cli")
        for module in sorted((ROOT / "harness" / layer).glob("*.py"))
        if module.name != "__init__.py" and module.name not in blocks[layer]
    ]
    assert missing == []

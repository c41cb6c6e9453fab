"""Hostile probes, round 18: the time plot's panels per precision, vendor
libraries in the cross-API table, energy figures' shortest windows and the
notes on clocks below their device's highest."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, harness, need_backend, run_folder

from harness.execution import results
from harness.reporting import portability

QUICK = ["-k", "Stream_COPY", "Stream_MUL", "Stream_ADD", "-b", "cpu", "--size", "1000"]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of three timed cpu rows, to copy and edit."""
    out = tmp_path_factory.mktemp("quick")
    proc = harness("run", *QUICK, "--reps", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def _edited(run: Path, tmp_path: Path, *changes: dict[str, Any]) -> Path:
    """A copy of ``run`` whose journal's rows take ``changes``, one per row in
    order (JSON numbers as Python gives them, NaN and Infinity included)."""
    copy = tmp_path / run.name
    shutil.copytree(run, copy)
    journal = copy / results.JOURNAL
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row, change in zip(rows, changes, strict=False):
        row.update(change)
    journal.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return copy


def _md_table(text: str, title: str) -> list[dict[str, str]]:
    """The rows of the markdown table under the heading ``title``."""
    block = text.split(f"## {title}\n", 1)[1].strip().split("\n\n", 1)[0]
    lines = [line.strip("|").split(" | ") for line in block.splitlines()]
    header = [c.strip() for c in lines[0]]
    return [dict(zip(header, (c.strip() for c in line), strict=True)) for line in lines[2:]]


def test_the_host_sort_is_not_set_beside_an_api_s_kernel_across_apis(tmp_path: Path) -> None:
    """The numpy backend sorts with np.sort (a sort's ``strategy`` library) and
    PoCL with a bitonic kernel: across APIs np.sort is a kernel of its own, as
    cuBLAS is, not 'cpu' beside 'opencl' for the same sort."""
    need_backend("opencl")
    out = tmp_path / "runs"
    proc = harness(
        "run", "-b", "cpu", "opencl", "-k", "Bitonic_F32", "--size", "4096", "--reps", "3",
        "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(out)
    rows = {r["backend"]: r for r in results.read_journal(folder)}
    assert rows["cpu"]["strategy"] == "library" and rows["opencl"]["strategy"] != "library"
    proc = harness("report", str(folder), "--out", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    title = next(line[3:] for line in text.splitlines() if line.startswith("## Across APIs"))
    table = {line["Kernel"]: line for line in _md_table(text, title)}
    library = f"Bitonic_F32{portability.LIBRARY} (asc, uniform)"
    assert table[library]["cpu"] == "1.00\N{MULTIPLICATION SIGN}"
    assert table[library]["opencl"] == "-"
    assert table["Bitonic_F32 (asc, uniform)"]["cpu"] == "-"
    assert table["Bitonic_F32 (asc, uniform)"]["opencl"] == "1.00\N{MULTIPLICATION SIGN}"


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("clock_max_mhz", 1e14, "100000000000000.0"),
        ("clock_max_mhz", -5, "-5"),
        ("clock_mhz_before", -100, "-100"),
        ("clock_mhz_after", 1e7, "10000000.0"),
    ],
)
def test_a_clock_no_device_runs_at_is_named_and_its_row_not_shown(
    quick_run: Path, tmp_path: Path, field: str, value: float, shown: str
) -> None:
    """A clock of 10^14 MHz was taken as the device's highest, and the summary
    warned of a row timed at '2445 of 100000000000000 MHz'."""
    folder = _edited(quick_run, tmp_path, {field: value})
    proc = harness("show", str(folder))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"warning: {folder / results.JOURNAL}:1: skipped a torn or corrupt line: "
        f"{field!r} is {shown}; a clock from 0 to 1e+06 MHz is accepted"
    ) in proc.stderr.splitlines()
    assert "Traceback" not in proc.stderr and " MHz)" not in proc.stdout
    assert [r["kernel"] for r in results.read_journal(folder)] == ["Stream_MUL", "Stream_ADD"]


def test_clock_notes_name_rows_below_their_device_s_highest_clock_only(
    quick_run: Path, tmp_path: Path
) -> None:
    """A highest clock of 0 (a device that tells none) or below the row's clock
    gives no warning; one well above it names the row and both clocks."""
    folder = _edited(
        quick_run,
        tmp_path,
        {"clock_mhz_before": 1290.0, "clock_max_mhz": 0},
        {"clock_mhz_before": 1290.0, "clock_max_mhz": 1000.0},
        {"clock_mhz_before": 1290.0, "clock_max_mhz": 1980.0, "clock_ramp_s": 0.5},
    )
    proc = harness("show", str(folder))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert (
        "warning: 1 row(s) were timed more than 10% below their device's highest clock: "
        "Stream_ADD f64 n=1000 on cpu:0 (1290 of 1980 MHz)"
    ) in lines
    assert (
        "note: 1 row(s) first ran untimed for their device's clock to rise "
        "(up to 0.5 s; a row waits about 1 s at most)"
    ) in lines


@pytest.mark.parametrize(("wall", "short"), [("x", 0), (None, 0), (0.25, 1), (1.5, 0)])
def test_only_rows_known_to_be_short_are_counted_short_of_energy(
    quick_run: Path, tmp_path: Path, wall: object, short: int
) -> None:
    """Beside a metered row, a row whose timed wall time is missing or not a
    number was counted as one whose repetitions 'lasted under 1 s'."""
    metered = {"power_w": 300.0, "energy_j_per_rep": 0.003, "timed_wall_s": 2.0}
    folder = _edited(quick_run, tmp_path, metered, {"timed_wall_s": wall}, metered)
    proc = harness("show", str(folder))
    assert proc.returncode == 0, proc.stderr
    note = (
        f"note: {short} timed row(s) have no energy figures: their timed repetitions lasted "
        "under 1 s, too short for the energy counter's steps (--min-time 1 times every row "
        "that long)"
    )
    assert (note in proc.stdout.splitlines()) == bool(short)
    assert ("have no energy figures" in proc.stdout) == bool(short)


def _refused(script: str, *args: str) -> str:
    """A benchmark script's one-line refusal (exit 2, nothing on stdout): its line."""
    command = [sys.executable, str(ROOT / "benchmarks" / script), *args]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and proc.stdout == "", proc.stderr
    return proc.stderr


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--budget", "0"], "argument --budget: '0' is out of range: give more than 0"),
        (["--budget", "nan"], "argument --budget: 'nan' is out of range: give more than 0"),
        (["--budget", "-3"], "argument --budget: '-3' is out of range: give more than 0"),
        (["--step-seconds", "x"], "argument --step-seconds: 'x' is not a number of seconds"),
        (["--check-seconds", "inf"], "argument --check-seconds: 'inf' is out of range"),
        (["--skip", "bogus"], "--skip 'bogus': give a group (peak, suite,"),
    ],
)
def test_the_gpu_reference_refuses_a_budget_or_limit_of_no_time_in_one_line(
    tmp_path: Path, args: list[str], error: str
) -> None:
    """A budget of 0 meant no budget at all, NaN as much, and a negative one
    skipped every step; a NaN step limit stopped each step as it began."""
    out = tmp_path / "out"
    line = _refused("gpu_reference.py", "--out", str(out), "--device", "cpu:0", *args)
    assert line.startswith(f"gpu_reference.py: error: {error}") and not out.exists()


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--launches", "0"], "argument --launches: '0' must be a positive whole number"),
        (["--size", "0"], "argument --size: '0' must be a positive whole number"),
        (["--reps", "-1"], "argument --reps: '-1' must be a positive whole number"),
        (["--steps", "9"], "argument --steps: invalid choice: '9' (choose from '2', '3',"),
        (["--tile_bytes", "100"], "argument --tile_bytes: invalid choice: '100' (choose from"),
        (["--wgsl-checks", "maybe"], "argument --wgsl-checks: invalid choice: 'maybe'"),
    ],
)
def test_sort_vs_numpy_refuses_bad_arguments_in_one_line(args: list[str], error: str) -> None:
    """--launches 0 ended in a traceback (no median of no times), and values
    harness run refuses in a traceback of the script's own."""
    line = _refused("sort_vs_numpy.py", "-b", "cpu", "--size", "1024", *args)
    assert line.startswith(f"sort_vs_numpy.py: error: {error}")


def test_sort_vs_numpy_rows_with_naga_s_checks_off_are_rows_of_their_own() -> None:
    """--wgsl-checks on off gives wgpu's rows twice, the second named 'checks off',
    each with the clock its device began it at where the device tells it."""
    need_backend("wgpu")
    script = ROOT / "benchmarks" / "sort_vs_numpy.py"
    command = [
        sys.executable, str(script), "-b", "wgpu", "--size", "1024", "--launches", "1",
        "--reps", "3", "--strategy", "global", "--wgsl-checks", "on", "off",
    ]  # fmt: skip
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    labels = [
        line.split("  ")[0] for line in proc.stdout.splitlines() if line.startswith("wgpu:0 ")
    ]
    assert labels == ["wgpu:0 global", "wgpu:0 global,checks off"]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("script", "args", "error"),
    [
        # The script refuses the device, as harness run would, before it runs.
        (
            "dispatch_chain.py",
            ["--device", "cpu:7"],
            "dispatch_chain.py: error: argument --device: 'cpu:7': no such",
        ),
        (
            "cache_cold_hot.py",
            ["--device", "bogus:0"],
            "cache_cold_hot.py: error: --device 'bogus:0': no such device",
        ),
    ],
)
def test_benchmark_scripts_pass_on_a_refused_device_in_one_line(
    script: str, args: list[str], error: str
) -> None:
    """A device harness run refuses ended the benchmark scripts in a traceback of
    their own (a RuntimeError around the harness's message, or a ValueError from
    the backend's lookup)."""
    line = _refused(script, *args, "--launches", "1")
    assert line.startswith(error), line

"""benchmarks/gpu_reference.py run here on the CPU devices, step groups at a time:
that each step starts, writes its log and run folder under --out and ends in a
status line, that a step left out says why, and that the script's exit status
tells a failed step from one stopped at its limit (a GPU machine's time is too
short to find these there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

SCRIPT = ROOT / "benchmarks" / "gpu_reference.py"
GROUPS = ["peak", "suite", "stream", "chain", "sort", "check", "sweep", "cache", "transfers"]


def _reference(
    out: Path,
    *args: str,
    keep: tuple[str, ...] = (),
    path: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """gpu_reference.py into ``out`` with every group but ``keep`` skipped (and
    two_ranks unless kept), PATH replaced by ``path`` where given, ``env`` added."""
    skip = [g for g in [*GROUPS, "two_ranks"] if g not in keep]
    env = {**os.environ, **(env or {}), **({"PATH": path} if path is not None else {})}
    command = [sys.executable, str(SCRIPT), "--out", str(out), *args, "--skip", *skip]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


def _only_run(folder: Path) -> Path:
    runs = list(folder.glob("run-*"))
    assert len(runs) == 1, runs
    return runs[0]


def test_the_transfers_step_writes_its_log_and_run_folder(tmp_path: Path) -> None:
    """The harness options the step passes are taken, its rows are in
    OUT/runs/transfers, and each left-out group is named with its reason."""
    out = tmp_path / "ref"
    proc = _reference(out, "--device", "cpu:0", keep=("transfers",))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "peak: skipped (--skip)" in lines and "two_ranks: skipped (--skip)" in lines
    assert any(line.startswith("devices: exit 0 after") for line in lines)
    assert any(line.startswith("transfers: exit 0 after") for line in lines)
    assert "cpu:0" in (out / "devices.log").read_text()
    run = _only_run(out / "runs" / "transfers")
    rows = (run / "results.csv").read_text().splitlines()[1:]
    # Two kernels in three transfer modes, every row ok.
    assert len(rows) == 6 and all(",ok," in row for row in rows), rows
    assert "6 ok, 0 fail, 0 error, 0 skipped" in (out / "transfers.log").read_text()


def test_failed_steps_are_named_and_exit_1_and_missing_tools_said(tmp_path: Path) -> None:
    """A step that failed (here: every row out of memory, planted) read as success,
    exit 0; the sanitizer and pycuda checks without a CUDA device, and the MPI
    step without mpirun, were left out without a word."""
    out = tmp_path / "ref"
    bare = str(Path(sys.executable).parent)
    fault = tmp_path / "fault"
    fault.mkdir()
    (fault / "sitecustomize.py").write_text(
        "from harness.backends import base\n"
        "from harness.execution import runner\n"
        "def _no_room(*args, **kwargs):\n"
        "    raise base.DeviceOutOfMemory('out of memory (planted)')\n"
        "runner.check_memory = _no_room\n"
    )
    proc = _reference(
        out, "--device", "cpu:0", "--sanitize", keep=("check", "two_ranks"), path=bare,
        env={"PYTHONPATH": os.pathsep.join([str(fault), str(ROOT)])},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "check_pycuda: skipped, no CUDA device" in lines
    assert "sanitize: skipped, no CUDA device" in lines
    assert "two_ranks: skipped, no mpirun on the PATH" in lines
    assert lines[-1] == "failed: check_cpu0_sort (exit 1), check_cpu0_rest (exit 1)"
    for half in ("sort", "rest"):
        log = (out / f"check_cpu0_{half}.log").read_text()
        assert "out of memory (planted)" in log


def test_a_step_stopped_at_its_limit_keeps_its_rows_and_is_no_failure(tmp_path: Path) -> None:
    """The sweep runs until its limit by design: it is stopped as Ctrl-C stops a
    run, its run folder says interrupted, and the script still exits 0."""
    out = tmp_path / "ref"
    proc = _reference(out, "--device", "cpu:0", "--step-seconds", "6", keep=("sweep",))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("sweep: exit"))
    assert line.startswith("sweep: exit 130 after") and line.endswith(
        "(stopped at its limit of 6 s)"
    )
    assert "failed:" not in proc.stdout
    meta = json.loads((_only_run(out / "runs" / "sweep") / "metadata.json").read_text())
    assert meta["interrupted"] is True and meta["end"]


def test_a_spent_budget_skips_each_step_by_name(tmp_path: Path) -> None:
    """A budget that leaves no step 5 s skips every step, each saying so."""
    out = tmp_path / "ref"
    proc = _reference(out, "--device", "cpu:0", "--budget", "20", keep=("transfers",))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "devices: skipped, the budget is spent" in lines
    assert "transfers: skipped, the budget is spent" in lines
    assert not (out / "transfers.log").exists()


def test_a_step_whose_program_cannot_start_fails_alone(tmp_path: Path) -> None:
    """An mpirun (or compute-sanitizer) found but not runnable ended the script in
    a FileNotFoundError traceback, the steps after it lost."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mpirun = bin_dir / "mpirun"
    mpirun.write_text("#!/no/such/interpreter\n")
    mpirun.chmod(0o755)
    out = tmp_path / "ref"
    proc = _reference(out, "--device", "cpu:0", keep=("two_ranks",), path=str(bin_dir))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert f"two_ranks: cannot start {mpirun}: No such file or directory" in lines
    assert lines[-1] == "failed: two_ranks (exit 127)"


def test_a_babelstream_that_is_no_program_is_refused_before_any_step(tmp_path: Path) -> None:
    """It was found missing only at the Stream step, in a traceback that ended
    every step after it."""
    out = tmp_path / "ref"
    proc = _reference(out, "--device", "cpu:0", "--babelstream", "no-such-babel --x")
    assert proc.returncode == 2 and not out.exists()
    assert proc.stderr.startswith(
        "gpu_reference.py: error: argument --babelstream: 'no-such-babel' is no program"
    )


@pytest.mark.full
def test_the_sweep_takes_the_kernels_sweep_names(tmp_path: Path) -> None:
    """--sweep replaces the Stream and Apps groups: a later call can sweep what an
    earlier one had no time for. Its rows are that kernel's alone, at the factors."""
    out = tmp_path / "ref"
    proc = _reference(
        out, "--device", "cpu:0", "--sweep", "Basic_DAXPY", "--step-seconds", "60", keep=("sweep",)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "-k Basic_DAXPY -x Apps_INTSC_HEXHEX --size-factor" in proc.stdout
    lines = (_only_run(out / "runs" / "sweep") / "journal.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    assert {row["kernel"] for row in rows} == {"Basic_DAXPY"}
    assert sorted(row["size"] for row in rows) == [
        int(1_000_000 * f) for f in (0.125, 0.25, 0.5, 1, 2, 4, 8, 16)
    ]


def test_the_script_runs_where_the_harness_is_not_installed(tmp_path: Path) -> None:
    """A GPU machine's own Python has numpy but not the harness: the script imports
    it from its checkout (Python's -S leaves this environment's install out; its
    packages come back by PYTHONPATH), from another folder."""
    site = next(p for p in sys.path if p.endswith("site-packages"))
    env = {**os.environ, "PYTHONPATH": site}
    command = [sys.executable, "-S", str(SCRIPT), "--help"]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: gpu_reference.py")


def test_each_api_without_a_gpu_is_named_with_its_reason(tmp_path: Path) -> None:
    """Without --device, each API that gives no GPU says why (here every one: the
    CPU devices are no GPU, and no NVIDIA driver is found), and with none left the
    script stops, exit 2, before any step."""
    proc = _reference(tmp_path / "ref")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "wgpu: no GPU, its steps are left out: it lists no GPU device" in lines
    assert "opencl: no GPU, its steps are left out: it lists no GPU device" in lines
    assert any(
        line.startswith("cuda: no GPU, its steps are left out: no NVIDIA driver") for line in lines
    )
    assert proc.stderr == "no GPU device is listed: see 'harness devices'\n"
    assert not (tmp_path / "ref").exists()

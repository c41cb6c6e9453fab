"""The Python API: harness.run gives the rows the command line writes, and
harness.devices what `harness devices --json` lists."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import harness as run_cli
from conftest import need_backend, run_folder

import harness
from harness.api import run_arguments
from harness.cli import Progress
from harness.errors import UsageError
from harness.execution import results

#: What identifies a row and what its verification found.
SAME = ["kernel", "device_id", "size", "precision", "transfers", "status", "checksum"]


def test_run_gives_the_rows_the_command_line_writes(tmp_path: Path) -> None:
    need_backend("opencl")
    options = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "opencl", "--check"]
    proc = run_cli("run", *options, "--transfers", "resident", "per-rep",
                   "--out", str(tmp_path / "cli"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    cli = pd.read_csv(run_folder(tmp_path / "cli") / results.RESULTS)
    api = harness.run(
        ["Stream_TRIAD", "Basic_DAXPY"], ["cpu", "opencl"], check=True,
        transfers=["resident", "per-rep"], out=tmp_path / "api", progress=False,
    )  # fmt: skip
    assert api.attrs["exit_status"] == 0
    folder = Path(api.attrs["run_dir"])
    assert folder.parent == tmp_path / "api"
    # The frame is the folder's results.csv, row for row.
    own = pd.read_csv(folder / results.RESULTS)
    pd.testing.assert_frame_equal(api[SAME].reset_index(drop=True), own[SAME], check_dtype=False)
    key = ["kernel", "device_id", "size", "transfers"]
    left, right = (f[SAME].sort_values(key).reset_index(drop=True) for f in (api, cli))
    pd.testing.assert_frame_equal(left, right, check_dtype=False)
    assert len(api) == 2 * 2 * 2 * 2  # kernels x devices x check sizes x transfer modes


def test_options_become_the_command_line() -> None:
    argv = run_arguments(
        {"kernels": "Stream", "sizes": [1024, 4096], "reps": 5, "check": True, "hold": True,
         "device": ["cpu:0", "llvmpipe"], "transfers": ("resident",), "precision": None}
    )  # fmt: skip
    assert argv == [
        "--kernels", "Stream", "--sizes", "1024,4096", "--reps", "5", "--check",
        "--device", "cpu:0", "--device", "llvmpipe", "--transfers", "resident",
    ]  # fmt: skip
    assert run_arguments({"hold": False}) == ["--no-hold"]


def test_a_bad_option_is_named() -> None:
    with pytest.raises(TypeError, match=r"harness\.run\(\) takes no option 'repetitions'"):
        harness.run("Stream_COPY", repetitions=3)
    with pytest.raises(UsageError, match="'0' must be a positive whole number"):
        harness.run("Stream_COPY", reps=0)
    with pytest.raises(UsageError, match="unknown backend 'metal'"):
        harness.run("Stream_COPY", "metal")


def test_devices_is_what_the_command_lists() -> None:
    listed = json.loads(run_cli("devices", "--json").stdout)
    assert harness.devices() == listed


def test_the_bar_prints_the_rows_that_are_not_ok(capsys: pytest.CaptureFixture[str]) -> None:
    progress = Progress(2, bar=True)
    base = {"device_id": "cpu:0", "precision": "f64", "size": 10, "kernel": "Stream_COPY"}
    progress.row(0, {**base, "status": "ok"})
    progress.row(1, {**base, "status": "fail", "reason": "c: 10 of 10 elements off"})
    progress.close()
    err = capsys.readouterr().err
    assert "[2/2] Stream_COPY on cpu:0 f64 n=10: fail (c: 10 of 10 elements off)" in err
    assert "[1/2]" not in err
    # tqdm's bar, at its end: 100%|███| 2/2 [elapsed<left, rate, postfix]
    assert re.search(r"100%\|.*\| 2/2 \[", err)


def test_run_takes_a_users_suite(tmp_path: Path) -> None:
    """In a fresh interpreter: loading a suite adds kernels to this process's suite."""
    example = Path(__file__).resolve().parents[1] / "examples" / "my_kernels" / "kernels.py"
    script = (
        "import harness\n"
        f"rows = harness.run('My', 'cpu', suite=[{str(example)!r}], check=True,\n"
        f"                   out={str(tmp_path)!r}, progress=False)\n"
        "print(sorted(set(zip(rows['kernel'], rows['status']))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[('My_SAXPY', 'ok'), ('My_STENCIL2D', 'ok')]"

"""benchmarks/dispatch_chain: chains of dependent launches, verified on every backend
here, and the script's fit of time against launches."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import harness, need_backend

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SUITE = BENCHMARKS / "dispatch_chain" / "kernels.py"


def test_every_chain_verifies_on_every_backend(tmp_path: Path) -> None:
    """Chain_K adds K to every element, one launch at a time: a launch that read
    an array other than the one the launch before wrote, or ran fewer times,
    would leave y + K wrong."""
    need_backend("opencl")
    need_backend("wgpu")
    proc = harness(
        "run", "--check", "--suite", str(SUITE), "-k", "Chain", "-b", "cpu", "opencl", "wgpu",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "15 ok, 0 fail, 0 error, 0 skipped" in proc.stdout


@pytest.mark.full
def test_the_script_fits_each_devices_launch_cost() -> None:
    need_backend("opencl")
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / "dispatch_chain.py"), "-b", "opencl",
         "--launches", "1", "--max-time", "0.05"],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    table = [line.split() for line in proc.stdout.splitlines() if re.match(r"\s+\d+\s", line)]
    assert [int(row[0]) for row in table] == [1, 2, 4, 8, 16]
    assert all(float(row[1]) > 0 for row in table)
    fit = re.search(r"opencl:0: (-?[\d.]+) µs per dependent launch after the first", proc.stdout)
    assert fit is not None, proc.stdout
    # One launch more costs something, and less than a whole repetition of 16.
    assert 0 < float(fit.group(1)) < float(table[-1][1])


def test_bad_arguments_get_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / "dispatch_chain.py"), "--size", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "dispatch_chain.py: error: argument --size: '0' must be a positive whole number "
        "(see --help)"
    ]

"""Round 26 probes of the commands mutants, peak, cuda-compile, devices and list,
and of the benchmark scripts: each test says what was wrong before."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT

ENV = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}


def _script(script: str, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "benchmarks" / script), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=ENV)


@pytest.mark.parametrize(
    ("script", "args", "device"),
    [
        ("cpu_triad_vs_numpy.py", [], "cpu:0"),
        ("stream_vs_babelstream.py", ["--babelstream", "true", "--device", "cpu:0"], "cpu:0"),
    ],
)
def test_a_size_no_memory_holds_is_refused_before_any_launch(
    script: str, args: list[str], device: str
) -> None:
    """``--size 2^40`` started the launches, each allocating until it failed (or the
    harness's rows erred one by one): it is now refused up front, in one line
    naming the size and the largest that fits, exit 2."""
    proc = _script(script, *args, "--size", str(2**40), "--launches", "1", "--reps", "1")
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith(
        f"{script}: error: --size {2**40}: the arrays would take {3 * 8 * 2**40} bytes, "
        f"more than {device} ("
    ), line
    assert " has room for; give at most " in line and line.endswith(" (see --help)")

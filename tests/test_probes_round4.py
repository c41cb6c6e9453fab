"""Hostile-user probes, fourth round: values that look valid and are not (an empty
path, an infinite peak, one run given twice), metadata and rows of the wrong
type, options of the Python API that read as options, and a usage error only
one MPI rank finds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import harness, run_folder

QUICK = ["-k", "Stream_COPY", "Stream_ADD", "-b", "cpu", "--size", "1000"]


def _one_error(err: str) -> str:
    """The single line of a command that stopped on bad input."""
    assert "Traceback" not in err, err
    assert err.startswith("harness: error: ") and err.count("\n") == 1, err
    return err.strip()[len("harness: error: ") :]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of two timed cpu rows, to copy."""
    out = tmp_path_factory.mktemp("quick")
    proc = harness("run", *QUICK, "--reps", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


@pytest.fixture
def run(quick_run: Path, tmp_path: Path) -> Path:
    """A copy of the quick run to damage."""
    copy = tmp_path / "copy" / quick_run.name
    shutil.copytree(quick_run, copy)
    return copy


@pytest.mark.parametrize(
    "args",
    [
        ["show", ""],
        ["report", "RUN", "--out", ""],
        ["report", " "],
        ["plot", "RUN", "--out", ""],
        ["compare", "RUN", ""],
        ["compare", "RUN", "RUN", "--csv", ""],
        ["export", "RUN", "--thicket", "--out", ""],
        ["import-rajaperf", ""],
        ["merge", "RUN", "", "--out", "OUT"],
        ["run", *QUICK, "--out", ""],
        ["run", *QUICK, "--out", "OUT", "--sources", ""],
        ["run", "--resume", ""],
        ["list", "--suite", ""],
    ],
)
def test_an_empty_path_is_refused_not_read_as_the_current_folder(
    args: list[str], run: Path, tmp_path: Path
) -> None:
    """``Path("")`` is ``.``: an empty --out wrote a report's files into the current
    folder, an empty DIR imported it, an empty --sources searched it."""
    work = tmp_path / "cwd"
    work.mkdir()
    argv = [str(run) if a == "RUN" else str(tmp_path / "out") if a == "OUT" else a for a in args]
    proc = subprocess.run(
        [sys.executable, "-m", "harness", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=work,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )
    assert proc.returncode == 2, proc.stderr
    blank = next(a for a in args if not a.strip())
    assert repr(blank) in _one_error(proc.stderr)
    assert not list(work.iterdir())

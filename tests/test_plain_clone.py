"""A clone that was never pip-installed still runs ``python -m harness``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

# Runs the harness from a folder with only harness/ and kernels/, with the
# installed (editable) copy's import hooks removed, as in a plain clone.
RUN_PLAIN = """
import runpy, sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in str(getattr(f, "__module__", ""))]
sys.path_hooks[:] = [h for h in sys.path_hooks if "editable" not in repr(h)]
sys.path.insert(0, sys.argv[1])
sys.argv = ["harness", *sys.argv[2:]]
runpy.run_module("harness", run_name="__main__")
"""


def test_python_m_harness_runs_from_a_plain_clone(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "harness", tmp_path / "harness")
    shutil.copytree(ROOT / "kernels", tmp_path / "kernels")
    # Without its WGSL source, the copy's Stream_TRIAD lists no wgpu: proof
    # that the copy's own kernels folder is the one used.
    (tmp_path / "kernels" / "wgsl" / "Stream_TRIAD.wgsl").unlink()

    def plain(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", RUN_PLAIN, str(tmp_path), *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )

    listed = plain("list", "-k", "Stream_TRIAD")
    assert listed.returncode == 0, listed.stderr
    assert "Stream_TRIAD" in listed.stdout and "cpu,opencl,cuda " in listed.stdout
    out = str(tmp_path / "results")
    checked = plain(
        "run", "--check", "-k", "Stream_TRIAD", "-b", "cpu", "--in-process", "--out", out
    )
    assert checked.returncode == 0, checked.stderr
    assert " ok, 0 fail, 0 error" in checked.stdout

"""The tree is ruff-clean, lint and format, as the project holds it: a line too long
in a test once landed, as nothing but a reader ran ruff."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]])
def test_the_tree_is_ruff_clean(command: list[str]) -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[dev]')")
    proc = subprocess.run(
        [ruff, *command, "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

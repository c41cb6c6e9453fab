"""Helpers the benchmark scripts share: running the harness and reading its rows."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def harness_rows(*args: str) -> tuple[list[dict[str, str]], float]:
    """Run ``harness run ARGS`` in a fresh process; its rows and its wall time."""
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", tempfile.gettempdir())
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as out:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "harness", "run", *args, "--out", out],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - start
        (folder,) = Path(out).iterdir()
        with (folder / "results.csv").open() as f:
            return list(csv.DictReader(f)), wall

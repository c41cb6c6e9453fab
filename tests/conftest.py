"""Shared test helpers: real backends, real command lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends import get as get_backend

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def required(name: str) -> bool:
    """Whether the test set-up promised this backend (then its absence fails)."""
    return name in os.environ.get("HARNESS_REQUIRE_BACKENDS", "").split(",")


def need_backend(name: str) -> None:
    """Skip the calling test when a backend is unavailable, unless it is required."""
    reason = get_backend(name).unavailable_reason()
    if reason is None:
        return
    if required(name):
        pytest.fail(f"{name} is required here but unavailable: {reason}")
    pytest.skip(f"{name} unavailable: {reason}")


def harness(
    *args: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run ``python -m harness ARGS`` (with ``env`` added to the environment)
    and capture its output."""
    env = {**os.environ, **(env or {})}
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def run_folder(out: Path) -> Path:
    """The single run folder a run made under ``out``."""
    folders = [p for p in out.iterdir() if p.is_dir()]
    assert len(folders) == 1, folders
    return folders[0]

"""What a run records about where and how it ran, so results can be trusted later."""

from __future__ import annotations

import platform
import subprocess
import sys
import time
import uuid
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

#: Libraries whose versions change results; recorded when installed.
LIBRARIES = (
    "harness",
    "numpy",
    "pyopencl",
    "pocl-binary-distribution",
    "wgpu",
    "cuda-python",
    "cuda-core",
    "cuda-bindings",
    "pycuda",
    "pandas",
    "matplotlib",
)


def library_versions() -> dict[str, str]:
    """Installed versions of the libraries that matter, by distribution name."""
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            continue
    return versions


def git_commit() -> str | None:
    """The harness source's git commit (with '+dirty' for local changes), if any."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if dirty else "")


def new_id() -> str:
    """A run's identifier, the same in every copy of its folder and kept by a resume,
    so that a merge can tell one run under two paths from two runs."""
    return uuid.uuid4().hex


def now() -> str:
    """Local time with offset, ISO 8601."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def host() -> dict[str, Any]:
    """The machine and interpreter."""
    return {
        "hostname": platform.node(),
        "os": platform.platform(),
        "machine": platform.machine(),
        "python": sys.version.split()[0],
    }

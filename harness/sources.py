"""Finding a kernel's source: ``kernels/<language>/<kernel name><extension>``.

The shipped sources live in the package (``harness.kernels``); extra folders
given with ``--sources`` are searched first, so a user can try a modified
kernel without touching the installation.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path


def shipped_root() -> Path:
    """The folder holding the shipped ``opencl/``, ``wgsl/`` and ``cuda/`` sources."""
    return Path(str(resources.files("harness.kernels")))


def find(language: str, extension: str, kernel: str, extra: Sequence[Path] = ()) -> Path | None:
    """The first ``<root>/<language>/<kernel><extension>`` that exists, or None."""
    for root in (*extra, shipped_root()):
        path = Path(root) / language / f"{kernel}{extension}"
        if path.is_file():
            return path
    return None

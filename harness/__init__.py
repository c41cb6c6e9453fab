"""harness: benchmark GPU compute kernels on many backends from one description."""

from __future__ import annotations

import os
from os import PathLike
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

from harness.version import __version__

__all__ = ["__version__", "devices", "load", "run"]


def load(run_dir: str | PathLike[str]) -> pd.DataFrame:
    """A run folder's rows as a pandas DataFrame (`harness.reporting.frames.load`; needs pandas).
    An empty or blank name is refused, as the command line refuses it: it would read
    the current folder (``Path("")`` is ``.``); a leading ``~`` is the home folder."""
    from harness.execution.results import RunFolderError
    from harness.reporting.frames import load as load_run

    try:
        # A path object whose name is bytes (or no name) is no path, as bytes are.
        path = os.fspath(run_dir) if isinstance(run_dir, (str, PathLike)) else None
    except TypeError:
        path = None
    if not isinstance(path, str):
        raise RunFolderError(f"{run_dir!r} is no path: give a run folder as text or a Path")
    if isinstance(run_dir, str) and not run_dir.strip():
        raise RunFolderError(f"{run_dir!r} is no path: give a run folder")
    if "\0" in path:
        # As the command line's paths: the message named it with the NUL itself.
        raise RunFolderError(
            f"{path!r} is no path: it holds a NUL character, which no file name can; "
            "give a run folder"
        )
    # '~' is the home folder, as for the command line's paths and run(out=...).
    expanded = os.path.expanduser(path)
    if expanded.startswith("~"):
        # '~user' of no user was 'no such run folder', as if the user's folder lacked it.
        raise RunFolderError(
            f"{path!r}: no home folder for {path.split('/')[0]!r}; give a path without it"
        )
    return load_run(expanded)


def run(
    kernels: str | Sequence[str] | None = None,
    backends: str | Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Run, verify and time kernels as ``harness run`` does; the rows as a
    DataFrame (`harness.api.run` says more; needs pandas)."""
    from harness.api import run as run_api

    return run_api(kernels, backends, **options)


def devices() -> list[dict[str, Any]]:
    """Every backend, whether it is available, and its devices (`harness.api.devices`)."""
    from harness.api import devices as list_devices

    return list_devices()

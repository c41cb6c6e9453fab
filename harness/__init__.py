"""harness: benchmark GPU compute kernels on many backends from one description."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from os import PathLike

    import pandas as pd

__version__ = "0.1.0"


def load(run_dir: str | PathLike[str]) -> pd.DataFrame:
    """A run folder's rows as a pandas DataFrame (`harness.reporting.frames.load`; needs pandas)."""
    from harness.reporting.frames import load as load_run

    return load_run(run_dir)

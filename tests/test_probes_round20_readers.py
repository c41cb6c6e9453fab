"""Hostile probes, round 20: the readers and writers of run folders (report, plot,
export, merge, import-rajaperf) given journal fields of the wrong type, damaged or
unusual folders, outputs that are their inputs, RAJAPerf output of other layouts,
and kernels with very long names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import harness

from harness.execution import results

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]


def _edited(run: Path, **change: Any) -> Path:
    """``run`` (a copy) with its journal's first row taking ``change``."""
    journal = run / results.JOURNAL
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    rows[0].update(change)
    journal.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return run


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"bytes_read_per_rep": "x"}, "'bytes_read_per_rep' is a string, not a number"),
        ({"iterations_per_rep": True}, "'iterations_per_rep' is a boolean, not a number"),
        ({"bytes_allocated": 1.5}, "'bytes_allocated' is 1.5; a whole number from 0"),
        ({"power_w": "12 W"}, "'power_w' is a string, not a number"),
    ],
)
def test_work_counts_and_energy_of_the_wrong_type_are_damage(
    run: Path, tmp_path: Path, change: dict[str, Any], said: str
) -> None:
    """A row's byte and iteration counts were read whatever their type: text in one
    ended `report` in a traceback (int('x') writing RAJAPerf's kernel-details file), a
    boolean became a count of 1, a fraction was cut to a whole number, text in an
    energy column was shown as a figure."""
    _edited(run, **change)
    out = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{results.JOURNAL}:1: skipped" in proc.stderr
    assert said in proc.stderr
    details = (out / "RAJAPerf-kernel-details.csv").read_text()
    assert "Stream_TRIAD" not in details and "Basic_DAXPY" in details

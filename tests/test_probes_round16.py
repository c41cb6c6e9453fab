"""Hostile probes, round 16: what a user reads off a run must tell its rows apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

pytest.importorskip("matplotlib")

from harness.reporting import plot
from harness.reporting.frames import load_runs


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run of one kernel at two sizes, two precisions, two cache states and
    two transfer modes: sixteen rows that differ in one thing or more."""
    need_backend("opencl")
    out = tmp_path_factory.mktemp("variants")
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "opencl", "--sizes", "1000,4000", "--reps", "2",
        "--cache", "hot", "cold", "--transfers", "resident", "per-rep",
        "--precision", "f64", "f32", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def test_every_transfers_bar_has_a_label_of_its_own(variants: Path) -> None:
    frame, _ = load_runs([variants])
    fig = plot.plot_transfers(frame)
    (ax,) = [a for a in fig.axes if a.get_title(loc="left") == "Stream_COPY"]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    # Bars are drawn bottom up: the first label read is the last drawn.
    assert labels[::-1] == [
        f"opencl:0 · {p}{cold} · {mode}"
        for p in ("f32", "f64")
        for cold in ("", " · cold cache")
        for mode in ("resident", "per-rep")
    ]


def test_every_sweep_line_has_a_style_of_its_own(variants: Path) -> None:
    frame, _ = load_runs([variants])
    fig = plot.plot_sweep(frame, "Stream_COPY")
    time_ax, _ = fig.axes
    lines = time_ax.get_lines()
    assert len(lines) == 8  # two precisions, two cache states, two transfer modes
    looks = {
        (ln.get_color(), ln.get_marker(), ln.get_linestyle(), ln.get_fillstyle()) for ln in lines
    }
    assert len(looks) == len(lines)
    # The variant without options (hot cache, resident), at each precision.
    plain = {ln.get_label()[-3:]: ln for ln in lines if "·" not in ln.get_label()}
    f64, f32 = plain["f64"], plain["f32"]
    assert (f64.get_color(), f64.get_marker()) == (f32.get_color(), f32.get_marker())
    assert (f64.get_fillstyle(), f32.get_fillstyle()) == ("full", "none")


def test_rows_removed_with_their_count_fail_compare(tmp_path: Path) -> None:
    """A run counts its rows at its end; removing a row and the count as well passed
    compare ("1 only in base"), as a run of a version that counted none would."""
    runs = []
    for name in ("base", "new"):
        proc = harness(
            "run", "-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000",
            "--reps", "3", "--out", str(tmp_path / name),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        runs.append(run_folder(tmp_path / name))
    base, new = runs
    meta = json.loads((new / "metadata.json").read_text())
    assert (meta["format"], meta["journal_rows"]) == (2, 2)
    del meta["journal_rows"]
    (new / "metadata.json").write_text(json.dumps(meta))
    journal = new / "journal.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[1])
    proc = harness("compare", "--threshold", "99", str(base), str(new))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        f"{new / 'metadata.json'} has an 'end' but no 'journal_rows', which a run of its "
        "format counts at its end: rows removed from journal.jsonl cannot be told"
    ) in proc.stdout + proc.stderr
    # A run of the format before counts no rows: compare reads it as it is.
    del meta["format"]
    (new / "metadata.json").write_text(json.dumps(meta))
    proc = harness("compare", "--threshold", "99", str(base), str(new))
    assert proc.returncode == 0, proc.stdout + proc.stderr

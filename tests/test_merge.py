"""harness merge: runs from several machines (here two runs of this one) become
one run folder with a host column, which report, plot and compare take."""

from __future__ import annotations

import platform
from pathlib import Path

from conftest import harness, need_backend, one_error, run_folder

from harness.execution import results


def _run(out: Path) -> Path:
    proc = harness(
        "run", "-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "opencl", "--size", "20000",
        "--reps", "3", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def test_two_runs_become_one_with_hosts(tmp_path: Path) -> None:
    need_backend("opencl")
    first, second = _run(tmp_path / "a"), _run(tmp_path / "b")
    proc = harness("merge", str(first), str(second), "--out", str(tmp_path / "m"))
    assert proc.returncode == 0, proc.stderr
    merged = run_folder(tmp_path / "m")
    rows = results.read_journal(merged)
    assert len(rows) == 8
    # One machine twice: each run's rows name it with the run, so devices stay apart
    # (with its parent folder where the two runs began in the same second).
    host = platform.node()
    a, b = (
        (first.name, second.name)
        if first.name != second.name
        else (f"a/{first.name}", f"b/{second.name}")
    )
    assert {r["host"] for r in rows} == {f"{host} ({a})", f"{host} ({b})"}
    assert [r["source_run"] for r in rows] == [a] * 4 + [b] * 4
    theirs = [r["checksum"] for d in (first, second) for r in results.read_journal(d)]
    assert [r["checksum"] for r in rows] == theirs
    samples = results.read_samples(merged)
    originals = [*results.read_samples(first).values(), *results.read_samples(second).values()]
    assert [samples[i] for i in range(1, 9)] == originals
    meta = results.read_metadata(merged)
    assert [m["run"] for m in meta["merged_from"]] == [a, b]
    assert len(meta["devices"]) == 4
    report = harness("report", str(merged), "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    assert f"{host} ({a}): cpu:0" in text and f"{host} ({b}): opencl:0" in text
    assert harness("plot", str(merged), "--out", str(tmp_path / "plots")).returncode == 0
    # Its rows of the first run would be matched with themselves.
    compare = harness("compare", str(first), str(merged))
    assert compare.returncode == 2, compare.stderr
    assert one_error(compare.stderr) == (
        f"compare: {first} is inside {merged} (in its merged_from), whose rows of it would be "
        "compared with themselves; compare two runs apart"
    )


def test_merging_needs_two_different_runs(tmp_path: Path) -> None:
    one = _run(tmp_path / "a")
    (tmp_path / "f").write_text("")
    for args, message in (
        ([str(one)], "merge: give at least two run folders"),
        (
            [str(one), str(one)],
            f"merge: a run folder is given twice: {one}; its rows would count twice: give it once",
        ),
        ([str(one), str(tmp_path / "nope")], f"{tmp_path / 'nope'}: no such run folder"),
        # A file, first or alone, was answered with its 'metadata.json' unreadable.
        ([str(tmp_path / "f"), str(one)], f"{tmp_path / 'f'}: is a file, not a run folder"),
        ([str(tmp_path / "f")], "merge: give at least two run folders"),
    ):
        proc = harness("merge", *args, "--out", str(tmp_path / "m"))
        assert proc.returncode == 2
        assert proc.stderr.strip() == f"harness: error: {message}"

"""Hostile-user probes, ninth round: run folders and peak stores whose JSON nests past
what Python's parser recurses into, paths holding a NUL given from Python, and
plots cut short by a signal while a file is being saved."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import harness, one_error

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]

#: Brackets nested far past Python's recursion limit.
DEEP = "[" * 100_000 + "]" * 100_000


def _nest_in_metadata(run: Path, depth: int) -> int:
    """Put a list nested ``depth`` levels into a run's metadata.json, on a line of its
    own; the number of that line."""
    path = run / "metadata.json"
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(1, f'  "nested": {"[" * depth}{"]" * depth},\n')
    path.write_text("".join(lines))
    return 2


@pytest.mark.parametrize(
    ("command", "depth"),
    [
        ("show", 100_000),
        ("merge", 100_000),
        ("resume", 100_000),
        ("report", 600),
        ("compare", 600),
        ("export", 600),
    ],
)
def test_metadata_nested_too_deeply_is_named_by_its_line(
    command: str, depth: int, quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """A metadata.json nested 100000 levels raised RecursionError as it was parsed;
    one of 600 levels parsed, and raised it in pandas' copy of the metadata (report,
    compare, export)."""
    line = _nest_in_metadata(run, depth)
    out = tmp_path / "out"
    args = {
        "show": ["show", str(run)],
        "report": ["report", str(run), "--out", str(out)],
        "compare": ["compare", str(quick_run), str(run)],
        "merge": ["merge", str(run), str(quick_run), "--out", str(out)],
        "export": ["export", str(run), "--thicket", "--out", str(out)],
        "resume": ["run", "--resume", str(run)],
    }[command]
    proc = harness(*args)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{run / 'metadata.json'}:{line}: not valid JSON (nested deeper than 64 levels)"
    )
    assert not out.exists()


def test_a_journal_line_nested_too_deeply_is_skipped_and_named(run: Path) -> None:
    """The journal's reader raised RecursionError: every command reading the run
    ended in a traceback, the rows before the line lost with it."""
    journal = run / "journal.jsonl"
    journal.write_text(journal.read_text() + '{"kernel": ' + DEEP + "}\n")
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert (
        f"warning: {journal}:3: skipped a torn or corrupt line: not JSON (nested deeper than "
        "64 levels)"
    ) in proc.stderr.splitlines()
    assert [x.split()[0] for x in proc.stdout.splitlines()[1:3]] == ["Stream_TRIAD", "Basic_DAXPY"]


def test_a_peaks_store_nested_too_deeply_is_refused_and_left(tmp_path: Path) -> None:
    store = tmp_path / "peaks.json"
    store.write_text(DEEP)
    proc = harness("peak", "-b", "cpu", env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr).startswith(
        f"peaks store {store}: damaged at line 1, column 65 (nested deeper than 64 levels); "
    )
    assert store.read_text() == DEEP


@pytest.mark.parametrize("option", ["out", "suite", "resume", "sources"])
def test_the_api_refuses_a_path_holding_a_nul(
    option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """out="a\\0b" raised ValueError ('embedded null byte') from the middle of the run."""
    import harness as api
    from harness.errors import UsageError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as raised:
        api.run("Stream_TRIAD", "cpu", size=1000, reps=2, progress=False, **{option: "a\0b"})
    assert "'a\\x00b' is no path: it holds a NUL character, which no file name can" in str(
        raised.value
    )
    assert list(tmp_path.iterdir()) == []

"""Round 25 probes between the commands: values repeated within one comma list, and
a run folder whose files hold thousands of damaged lines."""

from __future__ import annotations

from pathlib import Path

from conftest import harness, need_backend, run_folder

from harness.execution import results


def test_a_value_repeated_in_a_comma_list_is_noted_and_runs_once(tmp_path: Path) -> None:
    """`--sizes 100,100` and `--group 64,64` ran each once without a word, where
    `--precision f64 f64` says so: the parser dropped the repeat before the note."""
    need_backend("opencl")
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "opencl", "--sizes", "100,2^6..2^7,128",
        "--group", "64,64", "--reps", "1", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "more than once" in line]
    assert notes == [
        "note: --sizes 128 given more than once; each value runs once",
        "note: --group 64 given more than once; each value runs once",
    ]
    rows = results.read_journal(run_folder(tmp_path))
    assert sorted(r["size"] for r in rows) == [64, 100, 128]
    assert [r["work_group"] for r in rows] == [64, 64, 64]


def test_thousands_of_damaged_lines_are_named_twenty_then_counted(tmp_path: Path) -> None:
    """A journal of 5000 damaged lines printed 5000 warnings, one a line, before the
    table: the first are named, the rest counted."""
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--sizes", "100", "--reps", "1",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    with (folder / results.JOURNAL).open("a") as f:
        f.writelines("{garbage\n" for _ in range(5000))
    shown = harness("show", str(folder))
    assert "Traceback" not in shown.stderr
    warnings = [line for line in shown.stderr.splitlines() if line.startswith("warning: ")]
    journal = folder / results.JOURNAL
    named = [w for w in warnings if w.startswith(f"warning: {journal}:") and "skipped" in w]
    assert len(named) == results.SHOWN_DAMAGE
    assert named[0].startswith(f"warning: {journal}:2: skipped a torn or corrupt line")
    assert f"warning: {journal}: 4980 more such lines, not named one by one" in warnings
    assert len(warnings) < 30, warnings
    assert "Stream_COPY" in shown.stdout

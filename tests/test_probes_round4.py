"""Hostile-user probes, fourth round: values that look valid and are not (an empty
path, an infinite peak, one run given twice), metadata and rows of the wrong
type, options of the Python API that read as options, and a usage error only
one MPI rank finds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import finished_run, harness, harness_mpi, one_error, run_folder

QUICK = ["-k", "Stream_COPY", "Stream_ADD", "-b", "cpu", "--size", "1000"]


@pytest.mark.parametrize(
    "args",
    [
        ["show", ""],
        ["report", "RUN", "--out", ""],
        ["report", " "],
        ["plot", "RUN", "--out", ""],
        ["compare", "RUN", ""],
        ["compare", "RUN", "RUN", "--csv", ""],
        ["export", "RUN", "--thicket", "--out", ""],
        ["import-rajaperf", ""],
        ["merge", "RUN", "", "--out", "OUT"],
        ["run", *QUICK, "--out", ""],
        ["run", *QUICK, "--out", "OUT", "--sources", ""],
        ["run", "--resume", ""],
        ["list", "--suite", ""],
    ],
)
def test_an_empty_path_is_refused_not_read_as_the_current_folder(
    args: list[str], run: Path, tmp_path: Path
) -> None:
    """``Path("")`` is ``.``: an empty --out wrote a report's files into the current
    folder, an empty DIR imported it, an empty --sources searched it."""
    work = tmp_path / "cwd"
    work.mkdir()
    argv = [str(run) if a == "RUN" else str(tmp_path / "out") if a == "OUT" else a for a in args]
    proc = subprocess.run(
        [sys.executable, "-m", "harness", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=work,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )
    assert proc.returncode == 2, proc.stderr
    blank = next(a for a in args if not a.strip())
    assert repr(blank) in one_error(proc.stderr)
    assert not list(work.iterdir())


def test_compare_finds_an_unwritable_csv_before_comparing(run: Path, tmp_path: Path) -> None:
    """--csv into a folder, or under a file, was found after the table was printed."""
    (tmp_path / "file").write_text("x")
    for bad in (tmp_path, tmp_path / "file" / "out.csv", tmp_path / "missing" / "out.csv"):
        proc = harness("compare", str(run), str(run), "--csv", str(bad))
        assert proc.returncode == 2, proc.stderr
        assert repr(str(bad)) in one_error(proc.stderr)
        assert proc.stdout == ""


@pytest.mark.parametrize("value", ["inf", "1e400", "nan", "=900", " =900", "nope=900"])
def test_a_peak_line_that_cannot_be_drawn_is_refused(value: str, run: Path, tmp_path: Path) -> None:
    """An infinite --peak-gbs ended plot in a traceback; one for a device the runs
    lack (or for no device) was drawn nowhere, silently."""
    for command in ("plot", "report"):
        out = tmp_path / command
        proc = harness(
            command,
            str(run),
            "--peak-gbs",
            value,
            "--out",
            str(out),
            *(["--html"] if command == "report" else []),
        )
        assert proc.returncode == 2, proc.stderr
        assert value.split("=")[-1] in one_error(proc.stderr)
        assert not out.exists()


@pytest.mark.full  # a second run and its report: seconds of subprocesses
def test_a_run_given_twice_is_not_reported_twice(quick_run: Path, tmp_path: Path) -> None:
    """report RUN RUN (or RUN beside a link to it, or a copy) doubled every row."""
    link = tmp_path / "link"
    link.symlink_to(quick_run)
    copy = shutil.copytree(quick_run, tmp_path / "copy" / quick_run.name)
    for second in (str(quick_run) + "/", str(link), str(copy)):
        for command in ("report", "plot"):
            out = tmp_path / "out"
            proc = harness(command, str(quick_run), second, "--out", str(out))
            assert proc.returncode == 2, proc.stderr
            assert "twice" in one_error(proc.stderr) or "same run" in proc.stderr
            assert not out.exists()


@pytest.mark.full  # reports of merged runs: seconds of subprocesses
def test_a_merged_run_is_not_reported_beside_its_source(
    quick_run: Path, run: Path, tmp_path: Path
) -> None:
    other = finished_run(tmp_path / "other", *QUICK, "--reps", "3")
    merged = tmp_path / "merged"
    proc = harness("merge", str(quick_run), str(other), "--out", str(merged))
    assert proc.returncode == 0, proc.stderr
    proc = harness("report", str(run_folder(merged)), str(quick_run), "--out", str(tmp_path / "r"))
    assert proc.returncode == 2, proc.stderr
    assert "already inside" in one_error(proc.stderr)


def test_two_runs_of_one_device_make_one_report(quick_run: Path, tmp_path: Path) -> None:
    """Two runs of the same device (before and after a change) ended report and plot
    in a traceback: their labels were built with a Series where text is needed."""
    second = finished_run(tmp_path / "other", *QUICK, "--reps", "3")
    for command in ("report", "plot"):
        out = tmp_path / command
        proc = harness(command, str(quick_run), str(second), "--out", str(out))
        assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    # Markdown-escaped: a run's name in brackets links nowhere. Two runs made in the
    # same second have the same name, and are told apart by their parent folders.
    alike = quick_run.name == second.name
    for run in (quick_run, second):
        label = f"{run.parent.name}/{run.name}" if alike else run.name
        assert f"\\[{label}]" in text


def _edit_metadata(run: Path, **changes: object) -> None:
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta.update(changes)
    path.write_text(json.dumps(meta, indent=2))


@pytest.mark.full  # a report per case: seconds of subprocesses each
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("peaks", "x"),
        ("peaks", {"cpu:0": [1]}),
        ("peaks", {"cpu:0": {"fma_gflops_per_s": "x"}}),
        ("start", 5),
        ("end", 7),
    ],
)
def test_metadata_of_the_wrong_shape_is_named(
    field: str, value: object, run: Path, quick_run: Path, tmp_path: Path
) -> None:
    """'peaks' not an object of objects ended report, plot, compare and export in a
    traceback; a 'start' or 'end' not text ended merge in one."""
    _edit_metadata(run, **{field: value})
    for args in (
        ["report", str(run), "--out", str(tmp_path / "r")],
        ["plot", str(run), "--out", str(tmp_path / "p")],
        ["compare", str(quick_run), str(run)],
        ["export", str(run), "--thicket", "--out", str(tmp_path / "t")],
        ["merge", str(run), str(quick_run), "--out", str(tmp_path / "m")],
    ):
        proc = harness(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "metadata.json:" in one_error(proc.stderr) and repr(field) in proc.stderr


@pytest.mark.full  # a report per case: seconds of subprocesses each
@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("backend", None, "'backend' is not text"),
        ("backend", 3, "'backend' is not text"),
        ("backend", "DROP", "no 'backend'"),
        ("precision", 64, "'precision' is a number, not text"),
        ("device", 3, "'device' is a number, not text"),
    ],
)
def test_a_row_whose_labels_are_not_text_is_named_and_skipped(
    field: str, value: object, why: str, run: Path, tmp_path: Path
) -> None:
    """A row whose backend or precision was no text ended report and plot in a
    traceback; it is a damaged line, named, and the other rows are reported."""
    journal = run / "journal.jsonl"
    lines = journal.read_text().splitlines()
    row = json.loads(lines[0])
    if value == "DROP":
        del row[field]
    else:
        row[field] = value
    journal.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n")
    for command in ("report", "plot"):
        proc = harness(command, str(run), "--out", str(tmp_path / command))
        assert proc.returncode == 0, proc.stderr
        assert f"journal.jsonl:1: skipped a torn or corrupt line: {why}" in proc.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    assert "| Stream_COPY |" not in text and "| Stream_ADD |" in text


@pytest.mark.parametrize(
    "options",
    [
        {"kernels": ["Stream_COPY", "-h"]},
        {"kernels": "Stream_COPY", "backends": ["cpu", "--help"]},
        {"kernels": "Stream_COPY", "device": ["-x"]},
    ],
)
def test_api_values_are_never_read_as_options(options: dict, tmp_path: Path) -> None:
    """harness.run(kernels=[..., "-h"]) printed the help and raised SystemExit."""
    import harness
    from harness.errors import UsageError

    options = {"backends": "cpu", "size": 1000, **options}
    with pytest.raises(UsageError, match="may not begin with '-'"):
        harness.run(out=tmp_path, progress=False, **options)
    assert not list(tmp_path.iterdir())


@pytest.mark.full  # a job of MPI ranks
@pytest.mark.parametrize("option", ["--out", "--resume"])
def test_a_usage_error_of_rank_0_alone_ends_the_mpi_job(option: str, tmp_path: Path) -> None:
    """Only rank 0 makes (or reads) the run folder: a --out or --resume it refused
    left the other ranks waiting for it in a broadcast for ever."""
    (tmp_path / "file").write_text("x")
    args = [*QUICK, "--out", str(tmp_path / "file")] if option == "--out" else []
    if option == "--resume":
        args = ["--resume", str(tmp_path / "file")]
    proc = harness_mpi("run", *args)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("harness: error: ")]
    assert len(errors) == 1 and str(tmp_path / "file") in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr

"""Round 27 probes of harness run, its options, resumes and MPI jobs: each test says what
was wrong before."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import (
    harness,
    harness_mpi,
    harness_to_gone_reader,
    need_backend,
    one_error,
    run_folder,
)

QUICK = ("-k", "Stream_COPY", "-b", "cpu", "--size", "100", "--reps", "1")


def test_a_run_whose_reader_went_away_exits_by_its_rows(tmp_path: Path) -> None:
    """``harness run ... | true``: the run wrote every row and its end, then the table
    met a reader gone and the run exited 141, whatever its rows, where a full output
    exits by them (and ``harness mutants`` by its verdict). It is quiet and exits by
    its rows: 0 here."""
    proc = harness_to_gone_reader("run", *QUICK, "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "warning" not in proc.stderr
    folder = run_folder(tmp_path)
    assert (folder / "summary.txt").is_file()


@pytest.mark.parametrize("rows", [("--cache", "cold"), ("--transfers", "per-rep")])
def test_a_sample_time_no_row_batches_by_says_it_changes_nothing(
    tmp_path: Path, rows: tuple[str, str]
) -> None:
    """``--sample-time`` on a run whose rows are all cold or all move their data
    (``--cache cold``, ``--transfers per-rep``) was taken without a word, though such
    rows time each repetition alone (their batch is 1) whatever it says. A note says
    it changes nothing, and the rows are as before."""
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--max-time",
                   "0.2", *rows, "--sample-time", "0.01", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        "note: cold rows and rows with transfers time each repetition alone: --sample-time "
        "0.01 changes nothing"
    ) in proc.stderr.splitlines()
    (line,) = (run_folder(tmp_path) / "journal.jsonl").read_text().splitlines()
    row = json.loads(line)
    assert row["batch"] == 1


def test_an_mpi_resume_does_not_call_the_lost_after_it_takes_ignored(tmp_path: Path) -> None:
    """``mpirun ... harness run --resume RUN --lost-after 5`` said "ignored here:
    --lost-after", yet its ranks watched each other with it (it is how this job finds
    a lost rank, not one of the run's options). Only the options the resume does
    ignore are named, and it finishes the run."""
    out = tmp_path / "out"
    proc = harness_mpi("run", "-k", "Stream_COPY", "Stream_ADD", *QUICK[2:], "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(out)
    meta = json.loads((folder / "metadata.json").read_text())
    del meta["end"], meta["journal_rows"]
    meta["interrupted"] = True
    (folder / "metadata.json").write_text(json.dumps(meta))
    journal = folder / "journal.jsonl"
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:2]))
    proc = harness_mpi("run", "--resume", str(folder), "--lost-after", "5", "--reps", "3")
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "ignored here" in line]
    assert notes == ["note: --resume runs with the run's own options; ignored here: --reps"]
    assert len(journal.read_text().splitlines()) == 4


@pytest.mark.parametrize(("budget", "size"), [("1TiB", 1 << 36), ("1TB", 62_500_000_000)])
def test_a_budget_in_terabytes_is_a_byte_count(tmp_path: Path, budget: str, size: int) -> None:
    """``--memory-allocated 1TiB`` (a host of a terabyte or more, kept out of its
    caches) was "not a byte count", though ``1024GiB`` was one. Tebibytes and
    terabytes are units as gibibytes and gigabytes are: the row is planned at the size
    the budget gives (and, on a host with less memory, is an out-of-memory error row)."""
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "--check", "--memory-allocated",
                   budget, "--out", str(tmp_path))  # fmt: skip
    assert "not a byte count" not in proc.stderr
    (line,) = (run_folder(tmp_path) / "journal.jsonl").read_text().splitlines()
    assert json.loads(line)["size"] == size


def test_a_check_says_flush_bytes_changes_nothing_without_denying_cache_cold(
    tmp_path: Path,
) -> None:
    """``run --check --cache cold --flush-bytes 1MiB`` said "--flush-bytes is for cold
    rows (--cache cold); it is ignored", as though --cache cold had not been given:
    a check's rows are hot whatever --cache says. The --check note names both."""
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "--check", "--cache", "cold",
                   "--flush-bytes", "1MiB", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "flush-bytes" in line]
    assert notes == [
        "note: --check verifies and times nothing: --cache --flush-bytes change nothing"
    ]


def test_size_factors_that_differ_past_six_digits_are_noted_as_one_problem(
    tmp_path: Path,
) -> None:
    """``--size-factor 1 1.0000001`` gives one size, which ran once; but the note that
    says two asked sizes build one problem was missing, as both factors were written
    "1" (six digits) and taken for one request: a factor silently dropped. The note
    names both, and the run has its one row."""
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "--check", "--size-factor", "1",
                   "1.0000001", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        "note: Stream_COPY: factors 1, 1.0000001 build one problem (the same arrays, bytes "
        "and launches); it runs once, at size 1000000"
    ) in proc.stderr.splitlines()
    assert len((run_folder(tmp_path) / "journal.jsonl").read_text().splitlines()) == 1


def test_a_timeout_under_the_budget_share_of_a_row_is_a_usage_error(tmp_path: Path) -> None:
    """``run --timeout 1`` without --max-time gave each row the budget's share, 2 s,
    and killed a row still timing at 1 s: an error row ("timed out after 1 s") that
    the command line made, found only after the work, where --max-time 2 --timeout 1
    is refused at once. It is refused as that is, with the share it would give, and
    no folder is made."""
    out = tmp_path / "out"
    proc = harness("run", *QUICK[:4], "--size", "1000", "--timeout", "1", "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "--timeout 1 with each row's --max-time of 2 s (--budget 150 over "
        "1 row(s)): a row still timing when its timeout ends is killed, and is an error "
        "row; give a --timeout above 2, or a --max-time below it"
    )
    assert not out.exists()


def test_a_stop_while_kernels_are_built_first_does_not_promise_a_row(tmp_path: Path) -> None:
    """SIGTERM while a timed run built its kernels first said "stopping after the
    current row", though no row was in hand and none ran after it: the building
    stops. The line says what it lets finish: the kernels being compiled."""
    need_backend("opencl")
    command = [sys.executable, "-m", "harness", "run", "-k", "Stream", "Basic", "-b", "opencl",
               "--max-time", "0.2", "--out", str(tmp_path / "out")]  # fmt: skip
    env = {**os.environ, "POCL_CACHE_DIR": str(tmp_path / "pocl")}
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    seen = ""
    while "building " not in seen and proc.poll() is None:
        seen += proc.stderr.readline()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, seen + err
    assert (
        "SIGTERM: stopping after the kernels being compiled (SIGTERM again to stop now)"
    ) in err.splitlines()
    assert "interrupted: 0 of " in err

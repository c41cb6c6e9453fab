"""Hostile probes, round 31: imported lines lost without a word, MPI ranks given
other options than rank 0, a copy of a run whose metadata lost its identity, and
stored or imported figures no device gives."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, finished_run, harness, mpi_env, mpirun, run_folder

RAJAPERF = FIXTURES / "rajaperf_output"
RUN_DATA = "RAJAPerf-kernel-run-data.csv"
QUICK = ("-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--max-time", "0.1")


def _imported(tmp_path: Path, name: str, edit: tuple[bytes, bytes] | None) -> tuple[Path, str]:
    folder = shutil.copytree(RAJAPERF, tmp_path / f"raja-{name}")
    if edit is not None:
        data = folder / RUN_DATA
        text = data.read_bytes()
        assert text.count(edit[0]) == 1, edit[0]
        data.write_bytes(text.replace(*edit))
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / name))
    assert proc.returncode == 0, proc.stderr
    return run_folder(tmp_path / name), proc.stderr


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (b"Stream_TRIAD   , Base_Seq ", b"Stream_TRIAD   , Base_Seq\xe9",
         "not UTF-8 text (byte 26 of the line): skipped"),
        (b"Stream_TRIAD   , Base_Seq ", b"               , Base_Seq ",
         "no kernel, variant or tuning: skipped"),
        (b"Stream_TRIAD   , Base_Seq ", "Stream_TRIAD\u200b   , Base_Seq ".encode(),
         "kernel, variant or tuning holds a character that prints as nothing: skipped"),
        (b"Stream_TRIAD   , Base_Seq ", b"Stream_TRIAD   , Base-Seq ",
         "variant or tuning 'Base-Seq' holds a space or '-': skipped"),
    ],
    ids=["not-utf8", "no-kernel", "unprintable", "dash"],
)  # fmt: skip
def test_an_imported_line_skipped_as_damage_is_unread_and_fails_compare(
    tmp_path: Path, old: bytes, new: bytes, said: str
) -> None:
    """Four kinds of damaged run-data line were skipped with a warning but not
    recorded as unread, as a line cut short is: `show` said nothing of them and
    `compare` against the whole import passed, the lost row 'only in base'. Each
    is an unread line of the run now, which `compare` fails on."""
    whole, _ = _imported(tmp_path, "whole", None)
    damaged, err = _imported(tmp_path, "damaged", (old, new))
    assert f"{RUN_DATA}:5: {said}" in err
    meta = json.loads((damaged / "metadata.json").read_text())
    assert meta["unread_lines"] == {"file": RUN_DATA, "lines": [5]}
    shown = harness("show", str(damaged))
    assert f"{RUN_DATA} with 1 line(s) it could not read" in shown.stderr
    proc = harness("compare", str(whole), str(damaged))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{RUN_DATA} with 1 line(s) it could not read, and 1 row(s) of the base" in proc.stderr


@pytest.mark.parametrize(
    ("time", "said"),
    [
        (b"1e-300", "'Mean time per rep (sec.)' is '1e-300'; a time from 1e-12 up to 1e+07 "
         "seconds, or 'Not run', is accepted"),
        (b"1e-12", "'Mean time per rep (sec.)' is '1e-12': 1.6e+09 GB/s for the kernel's "
         "bytes, past any memory's; a time from 1.6e-09 seconds is accepted"),
    ],
)  # fmt: skip
def test_an_imported_time_no_memory_could_run_at_is_an_error_row(
    tmp_path: Path, time: bytes, said: str
) -> None:
    """A time of 1e-300 s was refused naming the journal's 'time_min_s', not the
    CSV's column, and one of 1e-12 s was imported as an ok row at 1.6e9 GB/s."""
    run, err = _imported(tmp_path, "tiny", (b"1.00000e-05", time))
    assert f"{RUN_DATA}:4: {said}: made an error row" in err
    rows = [json.loads(line) for line in (run / "journal.jsonl").read_text().splitlines()]
    bad = [r for r in rows if r["device_id"] == "rajaperf:1" and r["kernel"] == "Stream_COPY"]
    assert [r["status"] for r in bad] == ["error"]
    assert bad[0]["reason"] == f"{RUN_DATA}:4: {said}"
    assert "gbytes_per_s" not in bad[0]


def test_mpi_ranks_given_other_timing_options_or_folder_are_refused(tmp_path: Path) -> None:
    """Rank 1 given --max-time 3 where rank 0 had 0.1 measured its rows under its
    own options while the run's metadata stated rank 0's for every row; a rank
    given another --out had it ignored. Both are refused before any row, naming
    the option and the ranks' values."""
    python = [sys.executable, "-m", "harness", "run", *QUICK[:-2]]
    out = tmp_path / "runs"
    for theirs, said in (
        (["--max-time", "3", "--out", str(out)], "rank 1 was given --max-time 3.0, where rank "
         "0 has 0.1: give every rank the same options"),
        (["--max-time", "0.1", "--out", str(tmp_path / "other")], f"rank 1 was given --out "
         f"'{tmp_path / 'other'}', where rank 0 has '{out}': give every rank the same options"),
        (["--max-time", "0.1", "--seed", "7", "--out", str(out)], "rank 1 was given --seed 7, "
         "where rank 0 has 1: give every rank the same options"),
    ):  # fmt: skip
        command = [mpirun(), "--oversubscribe", "-n", "1", *python, "--max-time", "0.1"]
        command += ["--out", str(out), ":", "-n", "1", *python, *theirs]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120, env=mpi_env())
        assert proc.returncode == 2, proc.stderr
        assert f"harness: error: {said}" in proc.stderr.splitlines()
        assert not (tmp_path / "other").exists()
        assert not out.exists() or not any(out.iterdir())


def test_a_copy_whose_metadata_lost_its_id_and_start_is_still_one_run(tmp_path: Path) -> None:
    """A copy of a run with run_id and start taken out of its metadata was merged
    with it as a second run (every row twice) and compared with it as a run of its
    own. Their journals are the same byte for byte, which only a copy gives."""
    run = finished_run(tmp_path / "runs", *QUICK)
    copy = shutil.copytree(run, tmp_path / "copy")
    meta = json.loads((copy / "metadata.json").read_text())
    del meta["run_id"], meta["start"]
    (copy / "metadata.json").write_text(json.dumps(meta))
    merged = harness("merge", str(run), str(copy), "--out", str(tmp_path / "merged"))
    assert merged.returncode == 2, merged.stderr
    assert merged.stderr.startswith(f"harness: error: merge: {run} and {copy} are the same run")
    assert not (tmp_path / "merged").exists() or not any((tmp_path / "merged").iterdir())
    compared = harness("compare", str(run), str(copy))
    assert compared.returncode == 2, compared.stdout
    assert compared.stderr.startswith(f"harness: error: compare: {run} and {copy} are one run")


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("measured", "yesterday", 'its measured is "yesterday", not a time such as'),
        ("copy_gbytes_per_s", 1e300, "its copy_gbytes_per_s is 1e+300"),
    ],
)
def test_a_stored_peak_no_device_has_places_no_row(
    tmp_path: Path, field: str, value: object, said: str
) -> None:
    """A stored peak 'measured yesterday' was used and printed so, and one of 1e300
    GB/s placed rows at 5.8e-298 % of it: both are damage, named, and place no row."""
    from harness.backends import get as get_backend

    device = get_backend("cpu").devices()[0].as_dict()
    from harness.execution import peaks

    entry = {
        "device": device,
        "measured": "2026-12-01T10:00:00+0000",
        "copy_gbytes_per_s": 10.0,
        "triad_gbytes_per_s": 10.0,
        "notes": [],
        field: value,
    }
    store = tmp_path / "peaks.json"
    store.write_text(json.dumps({peaks.device_key(device): entry}))
    out = tmp_path / "runs"
    proc = harness("run", *QUICK, "--out", str(out), env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 0, proc.stderr
    warning = proc.stderr.splitlines()[0]
    assert warning.startswith(f"warning: peaks store {store}: ") and said in warning
    assert warning.endswith("no row is placed against a peak")
    row = json.loads((run_folder(out) / "journal.jsonl").read_text().splitlines()[0])
    assert row["status"] == "ok" and row.get("pct_peak_bw") is None


@pytest.fixture
def two_rows(tmp_path: Path) -> Path:
    return finished_run(tmp_path / "runs", *QUICK[2:], "-k", "Stream_TRIAD", "Stream_COPY")


def test_show_of_a_journal_that_lost_a_row_or_holds_a_case_twice_does_not_pass(
    two_rows: Path,
) -> None:
    """A failed row taken out of the journal, or an ok copy of it put before it,
    left `show` exiting 0 for a run that had failed (compare already failed on
    both): the run's status cannot be told from what is left."""
    journal = two_rows / "journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    assert harness("show", str(two_rows)).returncode == 0
    journal.write_text(lines[0])
    proc = harness("show", str(two_rows))
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"fail: {journal} holds 1 row(s) fewer than the run counted at its end, so the run's "
        "status cannot be told from it"
    )
    again = dict(json.loads(lines[0]), host_s=0.5)
    journal.write_text(lines[0] + lines[1] + json.dumps(again) + "\n")
    proc = harness("show", str(two_rows))
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"fail: {journal}:3 measures the case of line 1 again, so the run's status cannot be "
        "told from it"
    )


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda m: m.pop("devices"), "'devices' does not describe cpu:0"),
        (lambda m: m.update(devices=[]), "'devices' does not describe cpu:0"),
        (lambda m: m["options"]["devices"].append("opencl:0"), "'devices' does not describe "
         "opencl:0"),
        (lambda m: m.update(kernels={}), "'kernels' does not describe Stream_COPY"),
    ],
    ids=["no-devices", "no-device", "other-device", "no-kernels"],
)  # fmt: skip
def test_a_resume_of_metadata_that_does_not_describe_its_options_is_refused(
    two_rows: Path, edit: object, said: str
) -> None:
    """A resume of a run whose metadata had lost its devices ended in a traceback
    (KeyError: 'devices'); with an empty list, or an option's device or kernel it
    does not describe, it measured rows again that every reader then skipped as
    damage (one of them twice). It is refused before any row."""
    path = two_rows / "metadata.json"
    meta = json.loads(path.read_text())
    meta.update(interrupted=True, journal_rows=1)
    edit(meta)  # type: ignore[operator]
    path.write_text(json.dumps(meta))
    journal = two_rows / "journal.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[0])
    proc = harness("run", "--resume", str(two_rows))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"harness: error: --resume: {path}: {said}, a "
        f"{'kernel' if 'kernels' in said else 'device'} of its 'options' (edited by hand?); "
        "the metadata harness run wrote is accepted"
    )
    assert len(journal.read_text().splitlines()) == 1


def test_a_samples_line_holding_other_samples_than_its_row_counts_is_skipped(
    two_rows: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A samples line with six samples more than its journal row counts was read as
    the row's: plots of its distribution showed times its statistics never saw."""
    from harness.execution import results

    path = two_rows / "samples.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    counted = len(lines[0]["samples_ns"])
    lines[0]["samples_ns"] += [1, 2, 3, 4, 5, 6]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    kept = results.read_samples(two_rows)
    assert sorted(kept) == [2]
    assert capsys.readouterr().err == (
        f"warning: {path}:1: skipped a damaged line: it holds {counted + 6} samples, but line 1 "
        f"of the journal counts {counted}\n"
    )

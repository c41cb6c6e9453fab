"""Damaged inputs and unusable output folders: journals with numbers no run gives,
RAJAPerf output cut short or garbled, merges that would count a run twice or
take one still being written, and --out folders that cannot take a file."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, harness, one_error, run_folder

from harness.cli import main
from harness.execution import results

QUICK = ["-k", "Stream_COPY", "Stream_MUL", "Stream_ADD", "-b", "cpu", "--size", "1000"]
RAJAPERF = FIXTURES / "rajaperf_output"
RUN_DATA = "RAJAPerf-kernel-run-data.csv"


def _quick(out: Path) -> Path:
    proc = harness("run", *QUICK, "--reps", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two finished runs of three timed cpu rows each, to copy."""
    return _quick(tmp_path_factory.mktemp("a")), _quick(tmp_path_factory.mktemp("b"))


@pytest.fixture
def runs(quick_runs: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """Copies of the two quick runs to damage."""
    copies = []
    for name, run in zip("ab", quick_runs, strict=True):
        copies.append(tmp_path / name / run.name)
        shutil.copytree(run, copies[-1])
    return copies[0], copies[1]


def _damage_line(journal: Path, number: int, field: str, text: str) -> None:
    """Set ``field`` of the journal's line ``number`` to the JSON ``text``."""
    lines = journal.read_text().splitlines(keepends=True)
    row = json.loads(lines[number - 1])
    assert field in row
    row[field] = "@@"
    lines[number - 1] = json.dumps(row).replace('"@@"', text) + "\n"
    journal.write_text("".join(lines))


def _merged(first: Path, second: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["merge", str(first), str(second), "--out", str(out)]) == 0
    capsys.readouterr()
    return run_folder(out)


# 1. Numbers no run gives, in a journal.


@pytest.mark.parametrize(
    ("field", "text", "accepted"),
    [
        ("time_median_s", "NaN", "a time from 0 to 1e+07 seconds"),
        ("time_median_s", "Infinity", "a time from 0 to 1e+07 seconds"),
        ("time_median_s", "1e308", "a time from 0 to 1e+07 seconds"),
        ("time_min_s", "-1e-06", "a time from 0 to 1e+07 seconds"),
        ("gbytes_per_s", "Infinity", "a rate from 0 to 1e+15 per second"),
        ("gbytes_per_s", "1e308", "a rate from 0 to 1e+15 per second"),
        ("size", "1e308", "a whole number from 0 to 1e+18"),
        ("size", "1000.5", "a whole number from 0 to 1e+18"),
        ("reps", "-Infinity", "a whole number from 0 to 1e+18"),
        ("noise", "NaN", "a number from -1e+15 to 1e+15"),
    ],
)
def test_an_absurd_number_in_the_journal_is_named_and_its_row_not_shown(
    runs: tuple[Path, Path], field: str, text: str, accepted: str
) -> None:
    folder = runs[0]
    journal = folder / results.JOURNAL
    _damage_line(journal, 2, field, text)
    shown = "1e+308" if text == "1e308" else text
    warning = (
        f"warning: {journal}:2: skipped a torn or corrupt line: "
        f"{field!r} is {shown}; {accepted} is accepted"
    )
    proc = harness("show", str(folder))
    assert proc.returncode == 0, proc.stderr
    assert warning in proc.stderr.splitlines() and "Traceback" not in proc.stderr
    assert [line.split()[0] for line in proc.stdout.splitlines()[1:3]] == [
        "Stream_COPY",
        "Stream_ADD",
    ]
    assert [r["kernel"] for r in results.read_journal(folder)] == ["Stream_COPY", "Stream_ADD"]


@pytest.mark.parametrize("text", ["NaN", "Infinity", "1e308"])
@pytest.mark.parametrize("command", ["report", "plot", "compare", "show"])
def test_commands_take_a_journal_with_an_absurd_time(
    runs: tuple[Path, Path], text: str, command: str
) -> None:
    folder = runs[0]
    _damage_line(folder / results.JOURNAL, 2, "time_median_s", text)
    _damage_line(folder / results.JOURNAL, 3, "gbytes_per_s", text)
    args = {
        "report": ["report", str(folder), "--html"],
        "plot": ["plot", str(folder)],
        "compare": ["compare", str(runs[1]), str(folder)],
        "show": ["show", str(folder)],
    }[command]
    proc = harness(*args)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    for line in (2, 3):
        assert f"{folder / results.JOURNAL}:{line}: skipped a torn or corrupt line" in proc.stderr
    if command == "compare":
        assert "only in base" in proc.stdout


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b'{"kernel": "Stream_MUL", "device_id": "cpu:0", "status": "great"}', "'status' is"),
        (b'{"kernel": "X", "device_id": "cpu:0", "status": "ok", "size": 1' + b"0" * 400 + b"}",
         "'size' is a 401-digit number; a whole number"),
        (b'{"kernel": "X", "device_id": "cpu:0", "status": "ok", "pixels_per_s": -5}',
         "'pixels_per_s' is -5; a rate from 0"),
        (b'{"kernel": "X", "device_id": "cpu:0", "status": "ok", "power_w": NaN}',
         "'power_w' is NaN; a number from"),
    ],
    ids=["status", "huge-int", "negative-rate", "nan-extra"],
)  # fmt: skip
def test_other_damaged_rows_are_named(
    runs: tuple[Path, Path], line: bytes, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = runs[0]
    journal = folder / results.JOURNAL
    with journal.open("ab") as f:
        f.write(line + b"\n")
    assert main(["show", str(folder)]) == 0
    err = capsys.readouterr().err
    assert f"warning: {journal}:4: skipped a torn or corrupt line: {why}" in err
    assert len(results.read_journal(folder)) == 3


def test_an_outcome_may_be_infinite(runs: tuple[Path, Path]) -> None:
    """A failed check's error can be infinite, a broken kernel's checksum NaN."""
    folder = runs[0]
    _damage_line(folder / results.JOURNAL, 2, "status", '"fail"')
    _damage_line(folder / results.JOURNAL, 2, "max_rel_error", "Infinity")
    _damage_line(folder / results.JOURNAL, 2, "checksum", "NaN")
    assert len(results.read_journal(folder)) == 3


def test_a_repeated_journal_line_counts_once(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = runs[0]
    journal = folder / results.JOURNAL
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join([*lines, lines[1]]))
    assert main(["show", str(folder)]) == 0
    out, err = capsys.readouterr()
    assert (
        f"warning: {journal}:4: skipped a line that repeats line 2 exactly "
        "(its row would count twice)" in err
    )
    assert [line.split()[0] for line in out.splitlines()[1:4]] == [
        "Stream_COPY",
        "Stream_MUL",
        "Stream_ADD",
    ]
    assert len(results.read_journal(folder)) == 3


def test_merge_keeps_samples_with_their_rows_past_a_damaged_line(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = runs
    _damage_line(first / results.JOURNAL, 1, "time_median_s", "NaN")
    samples = first / results.SAMPLES
    lines = samples.read_text().splitlines(keepends=True)
    samples.write_text(
        lines[0] + lines[1].replace('"samples_ns": [', '"samples_ns": [1e999, ') + lines[2]
    )
    assert main(["merge", str(first), str(second), "--out", str(tmp_path / "m")]) == 0
    err = capsys.readouterr().err
    assert f"warning: {samples}:2: skipped a damaged line: 'samples_ns' should be" in err
    merged = run_folder(tmp_path / "m")
    rows = results.read_numbered(merged)
    assert [r["kernel"] for _, r in rows][:2] == ["Stream_MUL", "Stream_ADD"]
    kept = results.read_samples(merged)
    assert kept[2] == results.read_samples(first)[3]  # Stream_ADD's, not another row's
    assert 1 not in kept  # Stream_MUL's samples were damaged


# 2. RAJAPerf output, damaged.


@pytest.fixture
def rajaperf(tmp_path: Path) -> Path:
    folder = tmp_path / "rajaperf"
    shutil.copytree(RAJAPERF, folder)
    return folder


def _edit(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert data.count(old) == 1, old
    path.write_bytes(data.replace(old, new))


def _import(folder: Path, out: Path) -> tuple[int, list[dict]]:
    status = main(["import-rajaperf", str(folder), "--out", str(out)])
    return status, results.read_journal(run_folder(out)) if status == 0 else []


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        (b"Stream_COPY    , Base_OpenMP", b"Stream_\xff\xfeOPY , Base_OpenMP", 4,
         "not UTF-8 text (byte 8 of the line): skipped"),
        (b",                           5.00000\n", b"\n", 5,
         "cut short: 7 of the header's 8 fields: skipped"),
        (b"Stream_COPY    , Base_OpenMP", b"Stream_COPY \x00 , Base_OpenMP", 4,
         "not a line of comma-separated text (a control character in it?): skipped"),
    ],
    ids=["not-utf8", "cut", "nul"],
)  # fmt: skip
def test_an_unreadable_rajaperf_row_is_skipped_and_named(
    rajaperf: Path,
    tmp_path: Path,
    old: bytes,
    new: bytes,
    line: int,
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = rajaperf / RUN_DATA
    _edit(path, old, new)
    status, rows = _import(rajaperf, tmp_path / "out")
    err = capsys.readouterr().err
    assert status == 0, err
    assert f"warning: {path}:{line}: {message}" in err.splitlines()
    assert len(rows) == 5 and "Traceback" not in err


@pytest.mark.parametrize(
    ("time", "message"),
    [
        (b"0.00000e+00", "'Mean time per rep (sec.)' is '0.00000e+00'"),
        (b"-1.0000e-05", "'Mean time per rep (sec.)' is '-1.0000e-05'"),
        (b"nan", "'Mean time per rep (sec.)' is 'nan'"),
        (b"fast", "'Mean time per rep (sec.)' is 'fast'"),
    ],
)
def test_a_time_of_zero_or_below_is_an_error_row_saying_why(
    rajaperf: Path, tmp_path: Path, time: bytes, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = rajaperf / RUN_DATA
    _edit(path, b"1.00000e-05", time)
    status, rows = _import(rajaperf, tmp_path / "out")
    err = capsys.readouterr().err
    assert status == 0, err
    accepted = "a time from 1e-12 up to 1e+07 seconds, or 'Not run', is accepted"
    assert f"warning: {path}:4: {message}; {accepted}: made an error row" in err.splitlines()
    bad = rows[1]
    assert (bad["kernel"], bad["device_id"], bad["status"]) == (
        "Stream_COPY",
        "rajaperf:1",
        "error",
    )
    assert bad["reason"] == f"{RUN_DATA}:4: {message}; {accepted}"
    assert bad.get("time_median_s") is None and bad.get("gbytes_per_s") is None
    assert [r["status"] for r in rows].count("ok") == 3


def test_other_damaged_rajaperf_cells_are_named(
    rajaperf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    details = rajaperf / "RAJAPerf-kernel-details.csv"
    _edit(details, b"1600000 ,            0 ,", b"-1600000 ,            0 ,")
    data = rajaperf / RUN_DATA
    lines = data.read_bytes().splitlines(keepends=True)
    data.write_bytes(b"".join([*lines, lines[3]]))
    checksums = rajaperf / "RAJAPerf-checksum.txt"
    checksums.write_bytes(checksums.read_bytes().replace(b"Checksum Report", b"Checksum \xff"))
    status, rows = _import(rajaperf, tmp_path / "out")
    err = capsys.readouterr().err
    assert status == 0, err
    assert (
        f"warning: {details}:3: BytesMoved/rep is '-1600000'; a whole number from 0 to 1e+18 "
        "is accepted: left out" in err.splitlines()
    )
    assert f"warning: {data}:9: repeats Stream_COPY Base_OpenMP default of line 4: skipped" in err
    assert f"warning: {checksums}:2: not UTF-8 text (byte 10 of the line): skipped" in err
    copy = rows[0]
    assert copy["kernel"] == "Stream_COPY" and copy.get("bytes_per_rep") is None
    assert copy.get("gbytes_per_s") is None and copy["time_median_s"] == 2e-5
    assert len(rows) == 6


def test_rajaperf_output_with_no_usable_row_is_one_line(
    rajaperf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = rajaperf / RUN_DATA
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:2] + [line.replace("e-05", "e+99") for line in lines[2:6]]))
    assert main(["import-rajaperf", str(rajaperf), "--out", str(tmp_path / "out")]) == 2
    *warnings, error = capsys.readouterr().err.splitlines()
    assert len(warnings) == 4 and all(w.startswith(f"warning: {path}:") for w in warnings)
    assert error == (
        f"harness: error: {path}: no usable row: all 4 are damaged (the first: {RUN_DATA}:3: "
        "'Mean time per rep (sec.)' is '2.00000e+99'; a time from 1e-12 up to 1e+07 seconds, "
        "or 'Not run', is accepted)"
    )
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


# 3. Merges that would count a run twice, or take one still being written.


def test_a_merged_run_with_one_of_its_sources_is_refused(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = runs
    merged = _merged(first, second, tmp_path / "m", capsys)
    for args in ([merged, first], [second, merged]):
        assert main(["merge", *map(str, args), "--out", str(tmp_path / "again")]) == 2
        source, outer = (args[1], args[0]) if args[0] == merged else (args[0], args[1])
        assert one_error(capsys.readouterr().err) == (
            f"merge: {source} is already inside {outer} (in its merged_from); its rows would "
            f"count twice: give {outer} with the other runs only"
        )
    # Moved elsewhere, a source is still known by its metadata.
    moved = tmp_path / "moved" / first.name
    shutil.copytree(first, moved)
    assert main(["merge", str(merged), str(moved), "--out", str(tmp_path / "again")]) == 2
    assert f"{moved} is already inside {merged}" in one_error(capsys.readouterr().err)
    # Two merged runs sharing a source.
    other = _merged(moved, second, tmp_path / "m2", capsys)
    assert main(["merge", str(merged), str(other), "--out", str(tmp_path / "again")]) == 2
    assert "is inside both" in one_error(capsys.readouterr().err)
    assert not (tmp_path / "again").exists() or not list((tmp_path / "again").iterdir())


def test_a_copy_of_a_run_is_the_same_run(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy" / runs[0].name
    shutil.copytree(runs[0], copy)
    assert main(["merge", str(runs[0]), str(copy), "--out", str(tmp_path / "m")]) == 2
    assert one_error(capsys.readouterr().err) == (
        f"merge: {runs[0]} and {copy} are the same run (one is a copy of the other, perhaps "
        "taken before the run was resumed); give one of them"
    )


def test_a_run_being_written_is_not_merged(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with results.lock(runs[1]):
        status = main(["merge", *map(str, runs), "--out", str(tmp_path / "m")])
    assert status == 2
    error = one_error(capsys.readouterr().err)
    assert error.startswith(f"merge: {runs[1]} is still being written (pid {os.getpid()} on ")
    assert error.endswith("wait for it to end (or stop it), then merge")
    assert not (tmp_path / "m").exists()


def test_a_run_that_never_ended_is_merged_with_a_warning(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = runs[0] / results.METADATA
    meta = json.loads(path.read_text())
    path.write_text(json.dumps({**meta, "end": None}))
    assert main(["merge", *map(str, runs), "--out", str(tmp_path / "m")]) == 0
    assert (
        f"warning: {runs[0]}: its metadata has no end (a run killed before it ended, or one "
        "still being written on another machine): merging the 3 rows it has now"
    ) in capsys.readouterr().err


def test_a_failed_merge_leaves_no_folder(
    runs: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(results, "finish", full)
    out = tmp_path / "m"
    assert main(["merge", *map(str, runs), "--out", str(out)]) == 2
    assert one_error(capsys.readouterr().err) == (
        f"cannot write a new run folder in {out} (No space left on device); nothing of it is "
        f"left: free some space or make {out} writable, then try again"
    )
    assert list(out.iterdir()) == []


# 4. Thicket profiles of a merged run.


def test_a_merged_runs_profiles_are_split_by_host(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    merged = _merged(*runs, tmp_path / "m", capsys)
    out = tmp_path / "cali"
    assert main(["export", "--thicket", str(merged), "--out", str(out)]) == 0
    files = sorted(out.glob("*.cali"))
    assert len(files) == 2
    hosts = {row["host"] for row in results.read_journal(merged)}
    clusters = set()
    for path in files:
        text = path.read_text()
        assert text.count("__rec=ctx") == 3 + 2  # three kernels, their group and the root
        clusters |= {h for h in hosts if f"data={_cali(h)}" in text}
    assert clusters == hosts


def _cali(text: str) -> str:
    for char in "\\,=":
        text = text.replace(char, "\\" + char)
    return text


# 5. Output folders that cannot take a file.


@contextlib.contextmanager
def _read_only(folder: Path) -> Iterator[bool]:
    """The folder made read-only; yields whether this process then cannot write
    it (root ignores permissions, so it is also made immutable where chattr can)."""
    folder.chmod(0o555)
    immutable = False
    if os.access(folder, os.W_OK) and shutil.which("chattr"):
        immutable = (
            subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode == 0
        )
    try:
        yield not os.access(folder, os.W_OK)
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)


def _args(command: str, runs: tuple[Path, Path], out: Path) -> list[str]:
    return {
        "merge": ["merge", *map(str, runs), "--out", str(out)],
        "import-rajaperf": ["import-rajaperf", str(RAJAPERF), "--out", str(out)],
        "export": ["export", "--thicket", str(runs[0]), "--out", str(out)],
        "report": ["report", str(runs[0]), "--html", "--out", str(out)],
        "plot": ["plot", str(runs[0]), "--out", str(out)],
    }[command]


ACCEPTED = "give --out a folder this user can write, on a disk with free space"
COMMANDS = ["merge", "import-rajaperf", "export", "report", "plot"]


@pytest.mark.parametrize("command", COMMANDS)
def test_an_out_that_is_a_file_is_one_line(
    command: str, runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "file"
    out.write_text("mine\n")
    assert main(_args(command, runs, out)) == 2
    assert one_error(capsys.readouterr().err) == (
        f"output folder {out}: is a file, not a folder; {ACCEPTED}"
    )
    assert out.read_text() == "mine\n"
    inside = out / "deeper"
    assert main(_args(command, runs, inside)) == 2
    assert one_error(capsys.readouterr().err) == (
        f"output folder {inside}: cannot make it (Not a directory); {ACCEPTED}"
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_a_read_only_out_is_one_line(
    command: str, runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "locked"
    out.mkdir()
    with _read_only(out) as unwritable:
        if not unwritable:
            pytest.skip("this process can write a read-only folder here")
        status = main(_args(command, runs, out))
    assert status == 2
    error = one_error(capsys.readouterr().err)
    assert error.startswith(f"output folder {out}: cannot write there (")
    assert error.endswith(f"); {ACCEPTED}")
    assert list(out.iterdir()) == []


def _limit_file_size(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_disk_under_out_is_one_line_before_any_work(
    command: str, runs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "full"
    proc = subprocess.run(
        [sys.executable, "-m", "harness", *_args(command, runs, out)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
        preexec_fn=lambda: _limit_file_size(0),
    )
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"output folder {out}: cannot write there (File too large); {ACCEPTED}"
    )
    # The folder it made to try is gone again: a refused command leaves nothing.
    assert not out.exists()

"""Run folders and command lines under abuse: two writers, SIGTERM, a full disk,
absurd timeouts, devices that moved, unused sources, damaged files, bad usage."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import (
    FIXTURES,
    copy_run,
    finished_run,
    harness,
    need_backend,
    run_folder,
    start_run,
    wait_rows,
)

from harness.cli import main
from harness.execution import results
from harness.execution.runner import MAX_SECONDS
from harness.model.sources import digest as sources_digest

#: A run whose rows take a second or two each on the cpu backend.
SLOW = ["-k", "Stream", "-b", "cpu", "--size", "4000000", "--reps", "500"]
#: A run of three quick timed rows.
QUICK = ["-k", "Stream_COPY", "Stream_MUL", "Stream_ADD", "-b", "cpu", "--size", "1000"]


def _keys(folder: Path) -> list[tuple]:
    return [(r["kernel"], r["device_id"], r["size"]) for r in results.read_journal(folder)]


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("harness: error:")]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of three timed cpu rows, to copy."""
    return finished_run(tmp_path_factory.mktemp("quick"), *QUICK, "--reps", "3")


@pytest.fixture
def copy(quick_run: Path, tmp_path: Path) -> Path:
    """A copy of the quick run to damage."""
    return copy_run(quick_run, tmp_path)


# 1. One writer per run folder.


def test_a_second_writer_is_refused_naming_the_first_and_changes_nothing(tmp_path: Path) -> None:
    first = start_run(SLOW, tmp_path)
    try:
        folder = wait_rows(tmp_path, 1)
        second = harness("run", "--resume", str(folder))
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=120)
    assert second.returncode == 2, second.stderr
    (error,) = _errors(second.stderr)
    assert error.startswith(
        f"harness: error: {folder} is in use by another harness run "
        f"(pid {first.pid} on {platform.node()}, since "
    )
    assert error.endswith("wait for it to end or stop it, then try again")
    assert "Traceback" not in second.stderr
    assert "resumed" not in results.read_metadata(folder)
    keys = _keys(folder)
    assert len(keys) == len(set(keys)) >= 1
    assert not (folder / results.OWNER).exists()


def test_a_folder_left_by_a_killed_run_is_free_again(tmp_path: Path) -> None:
    proc = start_run(SLOW, tmp_path)
    folder = wait_rows(tmp_path, 1)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    # Its workers, which die with it, hold the lock a moment longer.
    deadline = time.monotonic() + 10
    while True:
        try:
            with results.lock(folder):
                assert json.loads((folder / results.OWNER).read_text())["pid"] == os.getpid()
            break
        except results.RunFolderError:
            assert time.monotonic() < deadline, "the lock outlived the killed run"
            time.sleep(0.1)
    assert not (folder / results.OWNER).exists()


# 2. SIGTERM is one Ctrl-C.


def test_sigterm_finishes_the_row_keeps_the_rows_and_exits_130(tmp_path: Path) -> None:
    proc = start_run(SLOW, tmp_path)
    folder = wait_rows(tmp_path, 1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "SIGTERM: stopping after the current row" in err
    assert f"continue with: harness run --resume {folder}" in err
    kept = results.read_journal(folder)
    assert 1 <= len(kept) < 5 and all(r["status"] == "ok" for r in kept)
    assert results.read_metadata(folder)["interrupted"] is True
    assert (folder / results.SUMMARY).read_text().count("ok") >= len(kept)
    with (folder / results.RESULTS).open() as f:
        assert len(list(csv.DictReader(f))) == len(kept)
    assert "Exit status" in harness("run", "--help").stdout
    assert "130 when interrupted" in " ".join(harness("run", "--help").stdout.split())


def test_a_second_sigterm_stops_at_once_and_still_keeps_the_rows(tmp_path: Path) -> None:
    proc = start_run(SLOW, tmp_path)
    folder = wait_rows(tmp_path, 1)
    proc.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    # A second SIGTERM (a batch system's kill after its grace period) exits 143.
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert results.read_metadata(folder)["interrupted"] is True
    assert all(r["status"] == "ok" for r in results.read_journal(folder))


# 3. A full disk.


def test_a_full_disk_at_the_start_of_a_resume_is_one_line_and_loses_nothing(
    copy: Path,
) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    journal = (copy / results.JOURNAL).read_text().splitlines(keepends=True)
    (copy / results.JOURNAL).write_text(journal[0])
    before = {p.name: p.read_bytes() for p in copy.iterdir() if p.name != results.LOCK}
    # write_json writes metadata.json.tmp first: here that is /dev/full, which fails with ENOSPC.
    (copy / "metadata.json.tmp").symlink_to("/dev/full")
    proc = harness("run", "--resume", str(copy))
    assert proc.returncode == 2, proc.stderr
    assert _errors(proc.stderr) == [
        f"harness: error: cannot write to run folder {copy}: No space left on device; "
        "the rows finished so far are kept; free some space, then continue with: "
        f"harness run --resume {copy}"
    ]
    assert "Traceback" not in proc.stderr
    after = {p.name: p.read_bytes() for p in copy.iterdir() if p.name != results.LOCK}
    assert after == before


def _limit_file_size(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_full_disk_at_the_start_of_a_new_run_is_one_line_and_leaves_no_folder(
    tmp_path: Path,
) -> None:
    proc = start_run(QUICK, tmp_path, preexec_fn=lambda: _limit_file_size(0))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    (error,) = _errors(err)
    assert error.startswith(f"harness: error: cannot write to run folder {tmp_path}/run-")
    assert error.endswith(
        ": File too large; nothing was run and the empty folder is removed; "
        "raise the limit on a file's size (ulimit -f) or write to another disk, then run again"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_disk_that_fills_mid_run_is_one_line_and_the_run_resumes(tmp_path: Path) -> None:
    args = ["-k", "Stream", "-b", "cpu", "--check", "--sizes", "1000,2000,3000,4000,5000,6000"]
    whole = harness("run", *args, "--out", str(tmp_path / "a"))
    assert whole.returncode == 0, whole.stderr
    full = run_folder(tmp_path / "a")
    rows = len(results.read_journal(full))
    metadata = (full / results.METADATA).stat().st_size
    limit = metadata + 500
    assert limit < (full / results.JOURNAL).stat().st_size // 2, "too few rows to fill"

    # Files may not grow past `limit` bytes: the journal fails mid-run (EFBIG), which
    # freeing space would not mend.
    proc = start_run(args, tmp_path / "b", preexec_fn=lambda: _limit_file_size(limit))
    _, err = proc.communicate(timeout=300)
    folder = run_folder(tmp_path / "b")
    assert proc.returncode == 2, err
    assert _errors(err) == [
        f"harness: error: cannot write to run folder {folder}: File too large; "
        "the rows finished so far are kept; raise the limit on a file's size (ulimit -f) "
        "or write to another disk, then continue with: "
        f"harness run --resume {folder}"
    ]
    assert "Traceback" not in err
    kept = len(results.read_journal(folder))
    assert 1 <= kept < rows

    resumed = harness("run", "--resume", str(folder))
    assert resumed.returncode == 0, resumed.stderr
    keys = _keys(folder)
    assert len(keys) == len(set(keys)) == rows
    assert _keys(folder) == _keys(full)


# 4. Timeouts and sizes that overflow.


@pytest.mark.parametrize("option", ["--timeout", "--max-time"])
@pytest.mark.parametrize("value", ["inf", "1e9", "nan", "-1", str(MAX_SECONDS + 1)])
def test_seconds_beyond_a_week_are_a_usage_error(
    option: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "-k", "Stream_COPY", "-b", "cpu", option, value, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert err == (
        f"harness: error: argument {option}: {value!r} is out of range: give more than 0 and "
        f"at most {MAX_SECONDS} seconds (one week) (see 'harness run --help')\n"
    )
    assert not any(tmp_path.iterdir())


def test_a_week_long_timeout_is_accepted(tmp_path: Path) -> None:
    proc = harness("run", *QUICK, "--check", "--timeout", str(MAX_SECONDS), "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr


def test_a_huge_size_is_an_error_row_not_an_overflow(tmp_path: Path) -> None:
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--size", str(2**40), "--out", str(tmp_path)
    )
    assert "Traceback" not in proc.stderr and "OverflowError" not in proc.stderr
    assert proc.returncode == 1, proc.stderr
    (row,) = results.read_journal(run_folder(tmp_path))
    assert row["status"] in ("error", "skipped") and "memory" in row["reason"]


# 5. compare matches devices, not ids.


def _rewrite(folder: Path, devices: list[dict], ids: dict[str, str]) -> None:
    """Make a copied run look as if it ran where ``devices`` were, its rows'
    device ids renamed by ``ids``."""
    meta = json.loads((folder / results.METADATA).read_text())
    meta["devices"] = devices
    (folder / results.METADATA).write_text(json.dumps(meta))
    rows = [json.loads(line) for line in (folder / results.JOURNAL).read_text().splitlines()]
    for row in rows:
        row["device_id"] = ids.get(row["device_id"], row["device_id"])
    (folder / results.JOURNAL).write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / results.RESULTS).unlink()


def test_an_id_that_means_another_device_is_not_compared_with_it(
    quick_run: Path, copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (cpu,) = json.loads((quick_run / results.METADATA).read_text())["devices"]
    # The same id and name, driven through another API (wgpu:0 as Vulkan, then GL).
    _rewrite(copy, [dict(cpu, api="Other API 2.0")], {})
    assert main(["compare", str(quick_run), str(copy)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"harness: error: {quick_run} and {copy} have no row in common (same kernel, device, "
        "precision, size and variant), so there is nothing to compare; "
        f"cpu:0 is {cpu['name']} (Python) in base but {cpu['name']} (Other API) in new; "
        "rows are matched by device, not by id\n"
    )


def test_a_device_whose_id_moved_is_still_compared_and_the_move_is_said(
    quick_run: Path, copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (cpu,) = json.loads((quick_run / results.METADATA).read_text())["devices"]
    other = dict(cpu, name="Another CPU", driver="numpy 0.1")
    _rewrite(copy, [other, dict(cpu, id="cpu:1", index=1)], {"cpu:0": "cpu:1"})
    assert main(["compare", str(quick_run), str(copy)]) == 0
    out = capsys.readouterr().out
    lines = [line.split() for line in out.splitlines()[1:4]]
    assert {cells[1] for cells in lines} == {"cpu:0->cpu:1"}
    assert {cells[-1] for cells in lines} == {"noise"}
    assert f"note: cpu:0 is {cpu['name']} (Python) in base but Another CPU (Python) in new" in out
    assert "note: cpu:0 in base is cpu:1 in new" in out
    assert out.rstrip().endswith("3 noise")


def test_runs_with_no_row_in_common_are_a_usage_error(
    quick_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", "--check", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    other = run_folder(tmp_path)
    assert main(["compare", str(quick_run), str(other)]) == 2
    assert capsys.readouterr().err == (
        f"harness: error: {quick_run} and {other} have no row in common (same kernel, device, "
        "precision, size and variant), so there is nothing to compare\n"
    )


# 6. --sources that nothing uses.


def _sources_warning(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: --sources")]


def test_an_empty_or_misfiled_sources_folder_is_warned_about(tmp_path: Path) -> None:
    need_backend("opencl")
    empty = tmp_path / "empty"
    empty.mkdir()
    flat = tmp_path / "flat"
    flat.mkdir()
    shutil.copy(FIXTURES / "wrong_triad" / "opencl" / "Stream_TRIAD.cl", flat)
    for folder in (empty, flat):
        proc = harness(
            "run",
            "-k",
            "Stream_TRIAD",
            "-b",
            "opencl",
            "--check",
            "--sources",
            str(folder),
            "--out",
            str(tmp_path / "runs"),
        )
        assert proc.returncode == 0, proc.stderr
        assert _sources_warning(proc.stderr) == [
            f"warning: --sources {str(folder)!r}: it holds no source this run uses "
            f"(it looks for files such as {folder}/opencl/Stream_TRIAD.cl "
            f"or {folder}/c/Stream_TRIAD.c)"
        ]


def test_a_used_sources_folder_gets_no_warning(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "run",
        "-k",
        "Stream_TRIAD",
        "-b",
        "opencl",
        "--check",
        "--sources",
        str(FIXTURES / "wrong_triad"),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    assert _sources_warning(proc.stderr) == []


def test_sources_for_a_backend_that_compiles_none_are_warned_about(tmp_path: Path) -> None:
    proc = harness(
        "run",
        "-k",
        "Stream_TRIAD",
        "-b",
        "cpu",
        "--check",
        "--sources",
        str(FIXTURES / "wrong_triad"),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    assert _sources_warning(proc.stderr) == [
        f"warning: --sources {str(FIXTURES / 'wrong_triad')!r}: "
        "the backends of this run (cpu) compile no kernel sources"
    ]


def test_a_resume_whose_sources_are_gone_or_edited_is_refused(tmp_path: Path) -> None:
    """A resume whose --sources folder is gone ran the shipped sources, with a
    warning, and put their rows beside those of the run's own sources under one
    name; a source edited since (the shipped ones too) ran without a word."""
    need_backend("opencl")
    sources = tmp_path / "sources"
    shutil.copytree(FIXTURES / "wrong_triad", sources)
    args = ["-k", "Stream_TRIAD", "Stream_COPY", "-b", "opencl", "--check"]
    proc = harness("run", *args, "--sources", str(sources), "--out", str(tmp_path / "runs"))
    assert proc.returncode == 1, proc.stderr
    folder = run_folder(tmp_path / "runs")
    journal = folder / results.JOURNAL
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join(line for line in lines if '"Stream_TRIAD"' in line))
    kept = journal.read_bytes()
    triad = sources / "opencl" / "Stream_TRIAD.cl"
    text = triad.read_text()
    triad.write_text(text + "\n")
    edited = harness("run", "--resume", str(folder))
    assert edited.returncode == 2
    assert edited.stderr.splitlines()[-1] == (
        f"harness: error: --resume: the run's Stream_TRIAD on opencl: {triad} has changed "
        f"since its rows ran (sha256 {results.read_journal(folder)[0]['source_sha256']} then, "
        f"{sources_digest(triad)} now); its rows would be two sources' under one name; put the "
        "source back as the run began, or begin a new run"
    )
    triad.write_text("")
    empty = harness("run", "--resume", str(folder))
    assert empty.returncode == 2
    assert empty.stderr.splitlines()[-1] == (
        "harness: error: --resume: the run's Stream_TRIAD on opencl: its source cannot be read "
        "now (Stream_TRIAD.cl: empty, where a kernel's source is expected); put it back as the "
        "run began, or begin a new run"
    )
    shutil.rmtree(sources)
    gone = harness("run", "--resume", str(folder))
    assert gone.returncode == 2
    assert gone.stderr.splitlines()[-1] == (
        f"harness: error: --resume: the run's Stream_TRIAD on opencl: its rows ran {triad}, "
        f"and c/Stream_TRIAD.c would run now (--sources {str(sources)!r} no longer exists); "
        "its rows would be two sources' under one name; put the source back as the run "
        "began, or begin a new run"
    )
    assert journal.read_bytes() == kept
    shutil.copytree(FIXTURES / "wrong_triad", sources)
    resumed = harness("run", "--resume", str(folder))
    assert resumed.returncode == 1, resumed.stderr
    assert len(results.read_journal(folder)) == len(lines)


# 7. show rebuilds a damaged results.csv, and only reads a read-only folder.


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: "garbage\n\x00\x01",
        lambda text: text[: len(text) // 2],
        lambda text: "",
        lambda text: text.replace("Stream_MUL", "Stream_XYZ"),
    ],
    ids=["garbage", "truncated", "empty", "edited"],
)
def test_show_rebuilds_a_results_csv_that_does_not_match_the_journal(
    copy: Path, damage, capsys: pytest.CaptureFixture[str]
) -> None:
    csv_path = copy / results.RESULTS
    good = csv_path.read_text()
    csv_path.write_text(damage(good))
    assert main(["show", str(copy)]) == 0
    assert csv_path.read_text() == good
    with csv_path.open() as f:
        assert [r["kernel"] for r in csv.DictReader(f)] == [
            "Stream_COPY",
            "Stream_MUL",
            "Stream_ADD",
        ]


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


def test_show_of_a_read_only_folder_reads_it_and_writes_nothing(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv_path = copy / results.RESULTS
    csv_path.write_text("garbage\n")
    stamp = csv_path.stat().st_mtime_ns
    with _read_only(copy) as unwritable:
        status = main(["show", str(copy)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "Stream_MUL" in out and "Traceback" not in err
    if not unwritable:
        pytest.skip("this process can write a read-only folder here")
    assert f"{csv_path} is out of date, but {copy} is read-only: not rebuilt" in err
    assert csv_path.read_text() == "garbage\n" and csv_path.stat().st_mtime_ns == stamp


# 8. Damaged metadata.json and journal lines.


@pytest.mark.parametrize(
    ("damage", "where", "message"),
    [
        (lambda t: "[1, 2]\n", 1, "a JSON list, not an object"),
        (lambda t: "42\n", 1, "a JSON number, not an object"),
        (lambda t: t[: len(t) // 2], None, "not valid JSON"),
        (lambda t: t.replace('"host": {', '"host": "\xff", "x": {'), None, "not UTF-8 text"),
        (
            lambda t: t.replace('"devices": [', '"devices": 5, "was": ['),
            None,
            "'devices' is 5; a list",
        ),
        (
            lambda t: t.replace('"options": {', '"options": [], "was": {'),
            None,
            "'options' is []; an object",
        ),
    ],
    ids=["list", "number", "truncated", "not-utf8", "devices-number", "options-list"],
)
@pytest.mark.parametrize("command", ["report", "plot", "compare", "resume"])
def test_damaged_metadata_is_one_line_naming_file_and_line(
    copy: Path,
    damage,
    where: int | None,
    message: str,
    command: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = copy / results.METADATA
    text = path.read_text()
    damaged = damage(text)
    path.write_bytes(damaged.encode("utf-8").replace("\xff".encode(), b"\xff"))
    args = {
        "report": ["report", str(copy)],
        "plot": ["plot", str(copy)],
        "compare": ["compare", str(copy), str(copy)],
        "resume": ["run", "--resume", str(copy)],
    }[command]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    prefix = f"harness: error: {path}:"
    assert err.startswith(prefix), err
    line = int(err[len(prefix) :].split(":")[0])
    if where is not None:
        assert line == where
    else:
        assert 1 < line < damaged.count("\n") + 2
    assert message in err


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (b"[1, 2]", "a JSON list, not an object"),
        (b"7", "a JSON number, not an object"),
        (b'{"device_id": "cpu:0", "status": "ok"}', "no 'kernel'"),
        (
            b'{"kernel": "Stream_MUL", "device_id": "cpu:0", "status": "ok", "size": "x"}',
            "'size' is a string, not a number",
        ),
        (b'{"kernel": "Stream_\xff", "device_id": "cpu:0", "status": "ok"}', "not UTF-8 text"),
        (b'{"kernel": "Stream_MUL", "dev', "not JSON"),
    ],
    ids=["list", "number", "no-kernel", "size-text", "not-utf8", "torn-middle"],
)
@pytest.mark.parametrize("command", ["show", "report", "plot", "compare"])
def test_a_bad_journal_line_is_skipped_with_one_line_naming_it(
    quick_run: Path,
    copy: Path,
    bad: bytes,
    why: str,
    command: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    journal = copy / results.JOURNAL
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(lines[0] + bad + b"\n" + b"".join(lines[1:]))
    # Compared as the base with the run it was copied from: its rows are all there.
    args = [command, str(copy)] + ([str(quick_run)] if command == "compare" else [])
    assert main(args) == 0
    err = capsys.readouterr().err
    assert f"warning: {journal}:2: skipped a torn or corrupt line: {why}" in err
    assert "Traceback" not in err and "error" not in err


@pytest.mark.parametrize("command", ["show", "report", "plot", "compare", "resume"])
def test_a_torn_last_line_is_tolerated_with_a_warning(
    quick_run: Path, copy: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = copy / results.JOURNAL
    with journal.open("ab") as f:
        f.write(b'{"kernel": "Stream_TRIAD", "group": "Str\xc3')
    warning = (
        f"warning: {journal}:4: skipped a torn or corrupt line "
        "(the last line, cut short as a killed run leaves it)"
    )
    if command == "resume":
        proc = harness("run", "--resume", str(copy))
        assert proc.returncode == 0, proc.stderr
        assert warning in proc.stderr
        assert journal.read_bytes().endswith(b"\n") and len(_keys(copy)) == 3
        return
    # Compared as the base with the run it was copied from: its rows are all there.
    args = [command, str(copy)] + ([str(quick_run)] if command == "compare" else [])
    assert main(args) == 0
    err = capsys.readouterr().err
    assert warning in err and "Traceback" not in err


# 9. --resume with options it ignores.


def test_resume_names_the_options_it_ignores(copy: Path) -> None:
    proc = harness("run", "--resume", str(copy), "--size", "5", "-k", "Stream", "--reps", "9")
    assert proc.returncode == 0, proc.stderr
    assert (
        "note: --resume runs with the run's own options; ignored here: --kernels --size --reps"
        in proc.stderr.splitlines()
    )
    assert len(_keys(copy)) == 3
    quiet = harness("run", "--resume", str(copy))
    assert "ignored here" not in quiet.stderr


# 10. A report where nothing was timed says why.


def test_a_report_of_a_run_where_every_row_errored_says_so(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "run",
        "-k",
        "Stream_TRIAD",
        "-b",
        "opencl",
        "--reps",
        "3",
        "--sources",
        str(FIXTURES / "bad_syntax"),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    folder = run_folder(tmp_path)
    assert [r["status"] for r in results.read_journal(folder)] == ["error"]
    report = harness("report", str(folder))
    assert report.returncode == 0, report.stderr
    text = (folder / "report" / "report.md").read_text()
    assert "check-only" not in text
    assert (
        "no row was timed: 1 errored (see 'Rows that are not ok'), "
        "so there are no times, rates or speedups" in text
    )


# 11. Usage errors are one line.


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["run", "--reps", "x"],
            "argument --reps: 'x' is not a whole number (see 'harness run --help')",
        ),
        (["run", "--bogus"], "unrecognized arguments: --bogus (see 'harness run --help')"),
        (["run", "--precision", "f16"], "argument --precision: invalid choice: 'f16'"),
        (["run", "--size"], "argument --size: expected one argument"),
        (
            ["frob"],
            "argument COMMAND: invalid choice: 'frob' (choose from 'devices', 'list', 'run'",
        ),
        ([], "the following arguments are required: COMMAND (see 'harness --help')"),
        (["show"], "the following arguments are required: RUN_DIR (see 'harness show --help')"),
        (["report"], "the following arguments are required: RUN_DIR (see 'harness report --help')"),
        (["report", "x", "--html=3"], "argument --html: ignored explicit argument '3'"),
        (["plot", "x", "--peak-gbs", "fast"], "argument --peak-gbs: 'fast': expected GB/s"),
        (["compare", "a"], "the following arguments are required: NEW_RUN"),
        (
            ["compare", "a", "b", "--threshold", "x"],
            "argument --threshold: 'x' is not a percentage",
        ),
        (["compare", "a", "b", "c"], "unrecognized arguments: c (see 'harness compare --help')"),
        (["list", "--json"], "unrecognized arguments: --json (see 'harness list --help')"),
    ],
)
def test_every_usage_error_is_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("harness: error: ") and err.count("\n") == 1, err
    assert message in err
    assert "usage:" not in err

"""Round 21 probes: commands and processes at once on one folder or store, and
processes killed (SIGKILL) at the worst moment."""

from __future__ import annotations

import json
import os
import platform
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import filelock
import pytest
from conftest import (
    copy_run,
    cut_journal,
    harness,
    need_backend,
    one_error,
    run_folder,
    started_until,
)

from harness.execution import results

#: A run of three quick timed cpu rows.
QUICK = ["-k", "Stream_COPY", "Stream_MUL", "Stream_ADD", "-b", "cpu", "--size", "1000"]


def _killed_at(args: list[str], seen: str) -> str:
    """``harness ARGS``, killed (SIGKILL) once its stderr shows ``seen``; its stderr."""
    proc, err = started_until(args, seen)
    proc.kill()
    proc.communicate(timeout=60)
    return err.decode()


def test_a_report_killed_while_drawing_leaves_no_rajaperf_files(
    quick_run: Path, tmp_path: Path
) -> None:
    """A report --html wrote its RAJAPerf files, then drew its plots for seconds, then
    wrote report.md: killed while drawing (SIGKILL, the OOM killer), it left our
    RAJAPerf files without a report, which import-rajaperf then took for raja-perf.exe's
    output and the next report into the folder refused as such."""
    out = tmp_path / "report"
    _killed_at(["report", str(quick_run), "--html", "--out", str(out)], "[1/")
    assert not any(out.iterdir()), sorted(p.name for p in out.iterdir())
    again = harness("report", str(quick_run), "--out", str(out))
    assert again.returncode == 0, again.stderr


def _being_written(run: Path) -> Path:
    """``run`` as a run still running leaves it while it appends its last row: no
    end in its metadata, and half of that row's journal and samples lines written."""
    meta = json.loads((run / "metadata.json").read_text())
    for key in ("end", "interrupted", "journal_rows"):
        meta.pop(key, None)
    (run / "metadata.json").write_text(json.dumps(meta))
    for name in ("journal.jsonl", "samples.jsonl"):
        text = (run / name).read_text()
        (run / name).write_text(text[: text.rstrip("\n").rfind("\n") + 1 + 40])
    return run


def test_a_row_being_appended_is_not_called_torn(run: Path, tmp_path: Path) -> None:
    """A command that read a run's journal while the run appended a row read that
    row's line half-written: show, plot and report called it 'a torn or corrupt line
    (the last line, cut short as a killed run leaves it)', and the report counted
    a damaged line and a row lost, of a run in progress that had lost nothing."""
    _being_written(run)
    with results.lock(run):
        shown = harness("show", str(run))
        made = harness("report", str(run), "--out", str(tmp_path / "report"))
    assert shown.returncode == 0 and made.returncode == 0, shown.stderr + made.stderr
    for err in (shown.stderr, made.stderr):
        assert "torn" not in err and "damaged" not in err, err
        assert "being written" in err, err
    text = (tmp_path / "report" / "report.md").read_text()
    assert "still being written" in text and "its 2 rows so far" in text, text
    assert "damaged" not in text, text


def _simulator_id() -> str:
    """The Oclgrind simulator's device id; skips where it is not installed."""
    need_backend("opencl")
    listed = json.loads(harness("devices", "--json").stdout)
    opencl = next(b for b in listed if b["backend"] == "opencl")
    found = [d["id"] for d in opencl["devices"] if d["kind"] == "simulator"]
    if not found:
        pytest.skip("Oclgrind is not installed")
    return found[0]


def test_a_compiler_cache_lock_left_by_a_killed_worker_stops_no_row(tmp_path: Path) -> None:
    """pyopencl keeps built programs of the drivers that keep none (Oclgrind) under a
    lock file, which a worker killed while holding it (at a row's timeout, or with its
    run) left behind: every later build waited a minute on it, then failed, and each
    row was an error ("KeyError: 'PYOPENCL_CACHE_FAILURE_FATAL'")."""
    device = _simulator_id()
    cache = tmp_path / "cache"
    version = ".".join(str(part) for part in sys.version_info)
    stale = cache / "pyopencl" / f"pyopencl-compiler-cache-v2-py{version}" / "lock"
    stale.parent.mkdir(parents=True)
    stale.touch()
    out = tmp_path / "runs"
    args = ["run", "-k", "Stream_COPY", "--device", device, "--size", "1000", "--reps", "3"]
    proc = harness(*args, "--timeout", "30", "--out", str(out), env={"XDG_CACHE_HOME": str(cache)})
    assert proc.returncode == 0, proc.stderr
    (row,) = results.read_journal(run_folder(out))
    assert row["status"] == "ok", row["reason"]


def test_import_refuses_a_folder_a_report_is_writing_into(quick_run: Path, tmp_path: Path) -> None:
    """A report writes its RAJAPerf files before its report.md, which tells them from
    raja-perf.exe's: import-rajaperf of the folder in between imported this harness's
    own rows as raja-perf.exe's. The report holds the folder while it writes."""
    folder = tmp_path / "report"
    made = harness("report", str(quick_run), "--out", str(folder))
    assert made.returncode == 0, made.stderr
    (folder / "report.md").unlink()
    out = tmp_path / "imported"
    with results.hold_output(folder):
        proc = harness("import-rajaperf", str(folder), "--out", str(out))
    assert proc.returncode == 2, proc.stdout
    assert one_error(proc.stderr) == (
        f"{folder}: another harness command (a report) is writing into it now; wait for it "
        "to end, then import the folder raja-perf.exe wrote"
    )
    assert not out.exists()


@pytest.mark.parametrize("owner", ["ended", "reused"])
def test_a_stale_owner_note_names_no_process_to_stop(
    quick_run: Path, tmp_path: Path, owner: str
) -> None:
    """A run killed (SIGKILL) leaves its owner note, .lock.owner, behind. While the
    lock was held by something that writes none (a command's probe of the folder, a
    dying worker), a second writer was told the folder was in use by that note's pid,
    'wait for it to end or stop it': a process that had ended, or the unrelated one
    that had since taken its pid."""
    folder = copy_run(quick_run, tmp_path)
    other = subprocess.Popen(["sleep", "60"])
    try:
        if owner == "ended":
            other.kill()
            other.wait()
        note = {"pid": other.pid, "host": platform.node(), "since": "2026-01-01 00:00:00"}
        (folder / results.OWNER).write_text(json.dumps(note))
        with filelock.FileLock(folder / results.LOCK, timeout=0):
            proc = harness("run", "--resume", str(folder))
    finally:
        other.kill()
        other.wait()
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{folder} is in use by another harness run (its process did not say which); "
        "wait for it to end or stop it, then try again"
    )


def test_a_run_being_resumed_is_reported_as_being_written(run: Path, tmp_path: Path) -> None:
    """A run being resumed keeps, until it ends, the end and interruption of the
    session it continues: its report said 'the run was interrupted; 2 rows were
    kept' while the resume was adding rows, where show said it was being written."""
    cut_journal(run, 2)
    meta = json.loads((run / "metadata.json").read_text())
    meta["interrupted"] = True
    (run / "metadata.json").write_text(json.dumps(meta))
    out = tmp_path / "report"
    with results.lock(run):
        made = harness("report", str(run), "--out", str(out))
    assert made.returncode == 0, made.stderr
    text = (out / "report.md").read_text()
    assert f"{run.name}: still being written (pid {os.getpid()} on " in text, text
    assert "interrupted" not in text, text


def test_show_of_a_run_being_resumed_names_no_results_csv(run: Path) -> None:
    """show of a run being resumed printed its rows so far, then 'results:
    .../results.csv', a file of the earlier session's rows (fewer than shown), or
    of none at all where the run had not yet ended once."""
    cut_journal(run, 2)
    results.write_csv(run / results.RESULTS, results.read_journal(run)[:1])
    with results.lock(run):
        proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "results.csv" not in proc.stdout, proc.stdout
    assert [line.split()[0] for line in proc.stdout.splitlines()[1:3]] == [
        "Stream_COPY",
        "Stream_MUL",
    ], proc.stdout
    assert "results.csv is left to that run" in proc.stderr


def _peak_waiting(folder: Path, *args: str) -> tuple[subprocess.Popen, bytes]:
    """``harness peak ARGS`` of cpu:0 (quick, kept with --force), its store in
    ``folder``, which the caller holds, once it says it waits for it; what it said."""
    quick = ["--span", "0.2", "--max-time", "0.2", "--bandwidth-size", "65536"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "peak", "--device", "cpu:0", *quick, "--fma-size",
         "1024", "--force", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "HARNESS_PEAKS": str(folder / "peaks.json")},
    )  # fmt: skip
    assert proc.stderr is not None
    err = b""
    deadline = time.monotonic() + 120
    while b"waiting for" not in err:
        assert time.monotonic() < deadline and proc.poll() is None, err.decode()
        if select.select([proc.stderr], [], [], 0.05)[0]:
            err += os.read(proc.stderr.fileno(), 65536)
    return proc, err


def test_a_peak_waiting_for_its_store_s_folder_says_so(tmp_path: Path) -> None:
    """The peaks store is written holding its folder, as a report, plot or export
    holds its output folder: a peak whose store is in a folder such a command was
    writing into (HARNESS_PEAKS=results/peaks.json beside a report into results/)
    measured its device, then hung without a word until that command ended."""
    folder = tmp_path / "results"
    folder.mkdir()
    with results.hold_output(folder):
        proc, err = _peak_waiting(folder)
        assert not (folder / "peaks.json").exists()
    rest = proc.communicate(timeout=60)[1]
    said = (err + rest).decode()
    assert proc.returncode == 0, said
    assert f"  waiting for {folder}: another harness command holds it (" in said
    assert "Traceback" not in said
    stored = json.loads((folder / "peaks.json").read_text())
    assert [key.split(" | ")[1] for key in stored] == ["cpu"]


def test_a_peak_stopped_as_it_waits_for_its_store_prints_what_it_measured(
    tmp_path: Path,
) -> None:
    """Ctrl-C as a measured peak waited for its store's folder ended it with 'harness
    peak: interrupted; what it was writing may be incomplete': the device's JSON
    (--json) was lost, and whether its peak was kept went unsaid."""
    folder = tmp_path / "results"
    folder.mkdir()
    with results.hold_output(folder):
        proc, err = _peak_waiting(folder, "--json")
        proc.send_signal(signal.SIGINT)
        out, rest = proc.communicate(timeout=60)
    said = (err + rest).decode()
    assert proc.returncode == 130, said
    assert "Traceback" not in said
    assert (
        "interrupted: the peak of cpu:0, measured, is not kept (a stored one stays); "
        "0 device(s) measured before it kept theirs"
    ) in said.splitlines()
    # The line of its figures, then the JSON of the devices it measured.
    assert [peak["device"]["id"] for peak in json.loads(out[out.index(b"\n[") :])] == ["cpu:0"]
    assert not (folder / "peaks.json").exists()

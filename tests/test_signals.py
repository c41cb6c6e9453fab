"""Interrupts sent as Ctrl-C and batch systems send them, to the whole process
group: what was measured is kept, no row is recorded as failed because of the
signal, and the run says it was interrupted."""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import FIXTURES, harness, need_backend, run_folder, wait_rows

from harness.execution import results

#: Six rows, the fourth Stream_TRIAD on OpenCL, which hangs until its --timeout.
HANGING = ["-k", "Stream_COPY", "Stream_TRIAD", "Stream_DOT", "-b", "cpu", "opencl"]
HANGING += ["--size", "1000", "--reps", "1", "--sources", str(FIXTURES / "hang")]


def start_group(args: list[str], out: Path, **env: str) -> subprocess.Popen:
    """``harness run ARGS --out OUT`` as the leader of a process group of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", "harness", "run", *args, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp"), **env},
        start_new_session=True,
    )


def _term_group(proc: subprocess.Popen, after: float) -> str:
    """SIGTERM to the run's process group ``after`` seconds on; what it said."""
    time.sleep(after)
    os.killpg(proc.pid, signal.SIGTERM)
    return proc.communicate(timeout=120)[1]


def rows_of(folder: Path) -> list[dict]:
    with (folder / results.RESULTS).open() as f:
        return list(csv.DictReader(f))


def test_sigterm_to_the_group_records_no_crash_of_the_row_in_hand(tmp_path: Path) -> None:
    """The worker in its hanging row gets the SIGTERM too, but does not die of it:
    the row ends as its kernel makes it end (its timeout), not as 'signal 15'."""
    need_backend("opencl")
    proc = start_group([*HANGING, "--timeout", "4"], tmp_path)
    folder = wait_rows(tmp_path, 3)
    err = _term_group(proc, after=0.5)
    assert proc.returncode == 130, err
    assert "SIGTERM: stopping after the current row" in err
    assert "signal 15" not in err
    rows = rows_of(folder)
    assert [r["status"] for r in rows] == ["ok", "ok", "ok", "error"], err
    assert rows[-1]["reason"] == "timed out after 4 s during Stream_TRIAD on opencl:0"
    assert results.read_metadata(folder)["interrupted"] is True


def _linker_of(session: int) -> bool:
    """Whether a linker runs in the process session ``session`` (PoCL links each
    kernel it compiles with one)."""
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if command.endswith(b"ld") and int(stat.rsplit(")", 1)[1].split()[3]) == session:
            return True
    return False


def test_ctrl_c_during_a_compile_records_no_compile_error(tmp_path: Path) -> None:
    """PoCL's compiler (LLVM) installs its own Ctrl-C handler, which deleted its
    files and made the row in hand a bogus compile error. Neither PoCL's cache
    nor the harness's kept binaries (an empty cache folder) may spare a row its
    compiles, or the run can end before one is caught. Its linker runs for
    milliseconds, so the run has many kernels to compile: with six, a busy
    machine's scan of its processes could miss every one."""
    need_backend("opencl")
    args = ["-k", "Stream", "Basic", "-b", "opencl", "--size", "1000", "--reps", "1"]
    cache = str(tmp_path / "cache")
    proc = start_group(args, tmp_path / "runs", POCL_KERNEL_CACHE="0", XDG_CACHE_HOME=cache)
    wait_rows(tmp_path / "runs", 1)
    deadline = time.monotonic() + 60
    while not _linker_of(proc.pid) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.001)
    assert proc.poll() is None, "the run ended before a compile could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    folder = run_folder(tmp_path / "runs")
    rows = rows_of(folder)
    planned = int(re.search(r"plan: (\d+) rows", err).group(1))
    assert 2 <= len(rows) < planned and all(r["status"] == "ok" for r in rows), err
    assert results.read_metadata(folder)["interrupted"] is True


def test_a_second_sigterm_stops_at_once_and_writes_the_summary(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = start_group([*HANGING, "--timeout", "100"], tmp_path)
    folder = wait_rows(tmp_path, 3)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGTERM)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGTERM)
    start = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - start < 30
    assert proc.returncode == 143, err
    assert "SIGTERM: stopping now" in err
    assert f"interrupted: 3 of 6 rows run; continue with: harness run --resume {folder}" in err
    assert [r["status"] for r in rows_of(folder)] == ["ok", "ok", "ok"]
    assert "3 ok, 0 fail, 0 error" in (folder / results.SUMMARY).read_text()
    assert results.read_metadata(folder)["interrupted"] is True


def test_a_second_ctrl_c_stops_at_once_with_130(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = start_group([*HANGING, "--timeout", "100"], tmp_path)
    folder = wait_rows(tmp_path, 3)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupt: stopping now" in err
    assert "Traceback" not in err
    assert [r["status"] for r in rows_of(folder)] == ["ok", "ok", "ok"]
    assert (folder / results.SUMMARY).exists()


def test_an_interrupt_before_any_row_still_leaves_a_resumable_run(tmp_path: Path) -> None:
    """Ctrl-C while the workers list the devices used to end in a traceback."""
    proc = start_group(["-k", "Stream_COPY", "-b", "cpu", "--size", "1000"], tmp_path)
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + 60
    while not children.read_text().split() and time.monotonic() < deadline:
        time.sleep(0.001)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    folder = run_folder(tmp_path)
    assert f"interrupted: 0 of 1 rows run; continue with: harness run --resume {folder}" in err
    resumed = harness("run", "--resume", str(folder))
    assert resumed.returncode == 0, resumed.stderr
    assert [r["status"] for r in rows_of(folder)] == ["ok"]


def test_resume_runs_again_the_rows_an_interruption_cut_short(tmp_path: Path) -> None:
    """A journal of an older harness holds the row whose worker the run's own
    SIGTERM killed: a resume runs it again instead of keeping the failure."""
    args = ["run", "-k", "Stream_COPY", "Stream_MUL", "Stream_ADD", "-b", "cpu"]
    done = harness(*args, "--size", "1000", "--reps", "1", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    folder = run_folder(tmp_path)
    journal = folder / results.JOURNAL
    lines = journal.read_text().splitlines()
    cut = json.loads(lines[1])
    cut.update(status="error", reason="worker crashed: signal 15 (SIGTERM) during Stream_MUL")
    journal.write_text("\n".join([lines[0], json.dumps(cut)]) + "\n")
    meta = results.read_metadata(folder)
    results.write_json(folder / results.METADATA, {**meta, "interrupted": True})

    resumed = harness("run", "--resume", str(folder))
    assert resumed.returncode == 0, resumed.stderr
    assert "note: 1 row(s) that the interruption cut short run again (lines 2" in resumed.stderr
    rows = rows_of(folder)
    assert [(r["kernel"], r["status"]) for r in rows] == [
        ("Stream_COPY", "ok"),
        ("Stream_MUL", "ok"),
        ("Stream_ADD", "ok"),
    ]
    assert results.read_metadata(folder)["interrupted"] is False


def test_ctrl_c_while_kernels_are_built_first_stops_before_any_row(tmp_path: Path) -> None:
    """With PoCL's cache empty the run builds its kernels first for a while; Ctrl-C
    there stops the building at once and leaves a run to resume, its message saying
    how far the building got."""
    need_backend("opencl")
    args = ["-k", "Stream", "Basic", "-b", "opencl", "--max-time", "0.2"]
    proc = start_group(args, tmp_path / "out", POCL_CACHE_DIR=str(tmp_path / "pocl"))
    assert proc.stderr is not None
    seen = ""
    while "building " not in seen and proc.poll() is None:
        seen += proc.stderr.readline()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, seen + err
    assert " kernels for opencl:0 first, " in seen
    assert "stopped" in err.split("built ")[1].splitlines()[0], err
    folder = run_folder(tmp_path / "out")
    assert f"interrupted: 0 of 25 rows run; continue with: harness run --resume {folder}" in err
    assert results.read_metadata(folder)["interrupted"] is True
    assert results.read_metadata(folder)["built_ahead"]["built"] < 25


def test_a_stop_during_the_last_row_ends_a_whole_run_with_130(tmp_path: Path) -> None:
    """The signal let the last row finish and the run ended as if none had come:
    exit 0, so a job stopped by its scheduler reported success."""
    need_backend("opencl")
    hang = ["-k", "Stream_TRIAD", "-b", "opencl", "--size", "1000", "--reps", "1"]
    proc = start_group([*hang, "--sources", str(FIXTURES / "hang"), "--timeout", "4"], tmp_path)
    folder = wait_rows(tmp_path, 0)
    err = _term_group(proc, after=1.5)
    assert proc.returncode == 130, err
    assert "stopped after the last row: all 1 rows run" in err
    (row,) = rows_of(folder)
    assert row["reason"] == "timed out after 4 s during Stream_TRIAD on opencl:0"
    assert results.read_metadata(folder)["interrupted"] is False


def test_two_stops_during_one_long_step_are_two(tmp_path: Path) -> None:
    """Python runs a handler once for two of one signal that come while the main
    thread is in one C call (making a row's eight million inputs): the second
    SIGTERM was lost, and the row ran on to its end."""
    need_backend("opencl")
    log = tmp_path / "log"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness", "run", "-k", "Stream", "-b", "opencl",
             "--size", "8000000", "--reps", "30", "--out", str(tmp_path / "out")],
            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while "rows to run" not in log.read_text():
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
            time.sleep(0.02)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
    said = log.read_text()
    assert proc.returncode == 143, said
    assert "SIGTERM: stopping now" in said

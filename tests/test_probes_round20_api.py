"""Round 20 probes of the Python API (`harness.run`), of MPI jobs and of the stop
signals of the commands other than run: each test says what was wrong before."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import (
    FIXTURES,
    ROOT,
    harness_mpi,
    need_backend,
    one_quick_run,
    run_folder,
    start_run,
    wait_rows,
)

from harness.execution import results

ENV = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of one quick row on numpy."""
    return one_quick_run(tmp_path_factory.mktemp("quick"))


def _two_sigterms_in_one_c_call() -> None:
    """Two SIGTERMs that come while this process waits in one C call (as during a
    plot's rendering): Python runs its handler once, after the call. The second
    comes a moment after the first, which has then been delivered: two sent at
    once can be merged by the kernel into one pending signal, and the test then
    saw one (130) in a process of its own."""
    ctypes.CDLL(None).system(b"kill -TERM $PPID; sleep 0.1; kill -TERM $PPID")


def test_two_sigterms_during_one_c_call_end_a_command_with_143(
    quick: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two SIGTERMs that came during one long C call (a plot rendered) were counted
    as one, since Python runs the handler once for both: the command ended 130,
    where a second SIGTERM gives 143."""
    from harness.cli import main

    original = results.ensure_csv

    def entered(*given: object, **named: object) -> object:
        _two_sigterms_in_one_c_call()
        return original(*given, **named)

    monkeypatch.setattr(results, "ensure_csv", entered)
    assert main(["show", str(quick)]) == 143
    assert "Traceback" not in capsys.readouterr().err


_SECOND_AT_EXIT = """
import os, signal, sys
from harness import __main__ as entry
from harness.execution import results

def stopped(*given, **named):
    os.kill(os.getpid(), signal.SIGTERM)

results.ensure_csv = stopped
sys.argv[1:] = ["show", sys.argv[1]]
status = entry.entry()
os.kill(os.getpid(), signal.SIGTERM)
sys.exit(status)
"""


def test_a_second_sigterm_as_the_stopped_command_exits_gives_143(quick: Path) -> None:
    """A command a SIGTERM stopped exits 130; a second SIGTERM while Python exited
    (unloading pandas, a matter of moments) ended it with that 130 still, where a
    second SIGTERM during the command gives 143."""
    proc = subprocess.run(
        [sys.executable, "-c", _SECOND_AT_EXIT, str(quick)],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 143, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_second_sigterm_while_a_stopped_report_cleans_up_removes_it_all(
    quick: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A report stopped short removes the files it wrote (a report is whole or not
    at all); a second SIGTERM as it removed them cut that short, and its RAJAPerf
    files stayed without their report.md, passing for raja-perf.exe's output."""
    from harness.cli import main

    out = tmp_path / "report"
    write_text, unlink = results.write_text, Path.unlink

    def stopped(path: Path, text: str) -> None:
        if path.name == "report.md":
            os.kill(os.getpid(), signal.SIGTERM)
        write_text(path, text)

    def again(path: Path, missing_ok: bool = False) -> None:
        if not path.name.endswith(".tmp"):
            monkeypatch.setattr(Path, "unlink", unlink)
            os.kill(os.getpid(), signal.SIGTERM)
        unlink(path, missing_ok=missing_ok)

    monkeypatch.setattr(results, "write_text", stopped)
    monkeypatch.setattr(Path, "unlink", again)
    status = main(["report", str(quick), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 143, err
    assert "Traceback" not in err
    assert "a report is whole or not at all" in err
    assert not out.exists() or not any(out.rglob("*"))


def test_an_in_process_run_stuck_in_a_kernel_stops_at_a_second_sigterm(tmp_path: Path) -> None:
    """``harness run --in-process`` whose kernel never ends took no stop signal at all
    (Python runs its handlers between its own steps, and the row was one C call):
    only SIGKILL ended it, its run unmarked. The second SIGTERM (to the process
    group, as a batch system sends it) now writes the run's end, the row in hand
    left out, and ends the process with 143."""
    need_backend("opencl")
    out = tmp_path / "out"
    proc = start_run(
        ["-k", "Stream_COPY", "Stream_TRIAD", "-b", "opencl", "--size", "1000", "--reps", "2",
         "--in-process", "--sources", str(FIXTURES / "hang")],
        out,
        start_new_session=True,
    )  # fmt: skip
    run = wait_rows(out, 1)
    # Time for Stream_TRIAD's program to build (a second or more on a loaded machine
    # with PoCL's cache empty) and its kernel to start hanging.
    time.sleep(3)
    os.killpg(proc.pid, signal.SIGTERM)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert "interrupted: 1 of 2 rows run; the row in hand is stuck" in err
    meta = results.read_metadata(run)
    assert meta["interrupted"] is True and meta["journal_rows"] == 1
    assert [row["kernel"] for row in results.read_journal(run)] == ["Stream_COPY"]


def test_an_mpi_resume_of_a_run_that_ended_leaves_it_as_it_was(tmp_path: Path) -> None:
    """A resume of a run that had ended is left as it was (its end is its own), but an
    MPI run's resume wrote a new end and a 'resumed' entry over the run's, as if
    it had been continued then."""
    need_backend("opencl")
    out = tmp_path / "out"
    first = harness_mpi(
        "run", "-k", "Stream_TRIAD", "Stream_COPY", "-b", "opencl", "--size", "1000",
        "--reps", "2", "--sources", str(FIXTURES / "wrong_triad"), "--out", str(out),
        timeout=180,
    )  # fmt: skip
    assert first.returncode == 1, first.stderr
    run = run_folder(out)
    before = (run / "metadata.json").read_text()
    again = harness_mpi("run", "--resume", str(run), timeout=180)
    assert again.returncode == 1, again.stderr
    assert f"nothing to resume: {run} ran to its end (4 rows)" in again.stderr
    assert (run / "metadata.json").read_text() == before
    assert "resumed" not in json.loads(before)


_UNGUARDED = """
import sys, harness
print("the script runs", file=sys.stderr, flush=True)
for in_process in (True, False):
    rows = harness.run("Stream_TRIAD", "opencl", out=sys.argv[1], size=1000, reps=2,
                       in_process=in_process, progress=False)
    print(rows.attrs["exit_status"], list(rows.status))
"""


def test_a_script_without_a_main_guard_runs_once_after_an_in_process_run(
    tmp_path: Path,
) -> None:
    """Once drivers are loaded in the script's process (an in-process run), workers
    start as fresh interpreters, which ran the user's script again first (Python's
    spawn does, where no ``if __name__ == "__main__"`` guards it, as in the README's
    example): each worker made a run folder of its own, and the script's run failed
    with 'backend opencl is unavailable: worker crashed'."""
    need_backend("opencl")
    script = tmp_path / "bench.py"
    script.write_text(_UNGUARDED)
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(script), str(out)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "0 ['ok']\n0 ['ok']\n"
    assert proc.stderr.count("the script runs") == 1
    assert len(list(out.iterdir())) == 2


_EDITED = """
import sys, harness
from harness.errors import UsageError
suite, out = sys.argv[1], sys.argv[2]
rows = harness.run("My_SAXPY", "cpu", suite=suite, out=out, size=1000, reps=2, progress=False)
print(list(rows.status))
with open(suite, "a") as f:
    f.write("# edited\\n")
try:
    harness.run("My_SAXPY", "cpu", suite=suite, out=out, size=1000, reps=2, progress=False)
except UsageError as exc:
    print(exc)
"""


def test_a_suite_edited_between_two_runs_of_one_process_is_refused(tmp_path: Path) -> None:
    """harness.run loads a suite file once per process: run again with it after an
    edit (a notebook), it ran the descriptions first loaded, as if they were the
    edited ones. It now says so, before anything is run."""
    suite = tmp_path / "my_kernels"
    shutil.copytree(ROOT / "examples" / "my_kernels", suite)
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-c", _EDITED, str(suite / "kernels.py"), str(out)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    first, refused = proc.stdout.splitlines()
    assert first == "['ok']"
    assert refused.startswith(f"suite={str(suite / 'kernels.py')!r}: changed since this process")
    assert len(list(out.iterdir())) == 1


def test_load_names_a_path_with_a_nul_character_escaped() -> None:
    """harness.load("runs/a\\0b") said 'no such run folder' with the NUL character
    itself in its message (binary on a terminal or in a log), where the command
    line's paths name it escaped and say why no file can have that name."""
    import harness

    with pytest.raises(results.RunFolderError) as raised:
        harness.load("runs/a\0b")
    assert str(raised.value) == (
        "'runs/a\\x00b' is no path: it holds a NUL character, which no file name can; "
        "give a run folder"
    )

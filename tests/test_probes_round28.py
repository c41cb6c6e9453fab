"""Round 28 probes: each test says what was wrong before."""

from __future__ import annotations

import contextlib
import json
import os
import resource
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
    cut_journal,
    harness_mpi,
    mpi_env,
    mpirun,
    need_backend,
    run_folder,
)

from harness.execution import results

QUICK = ["-k", "Basic_DAXPY", "-b", "cpu", "--size", "4096"]


def _harness(*args: str | bytes, encoding: str) -> subprocess.CompletedProcess:
    """``harness ARGS`` with standard streams in ``encoding``; output as bytes."""
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    command = [sys.executable, "-m", "harness", *args]
    return subprocess.run(command, capture_output=True, timeout=300, env=env)


def test_a_table_shown_in_ascii_writes_its_units_in_ascii(tmp_path: Path) -> None:
    """``PYTHONIOENCODING=ascii harness run`` (a terminal or log of a narrower
    encoding) measured every row and then ended in a traceback printing the
    summary's ``µs``; ``show`` and a script's table did the same."""
    proc = _harness("run", *QUICK, "--out", str(tmp_path), encoding="ascii")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    assert b" us" in proc.stdout
    shown = _harness("show", str(run_folder(tmp_path)), encoding="ascii")
    assert shown.returncode == 0, shown.stderr.decode()
    assert b" us " in shown.stdout
    script = [sys.executable, str(ROOT / "benchmarks" / "dispatch_chain.py"), "-b", "cpu"]
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    chain = subprocess.run([*script, "--max-time", "0.2", "--launches", "1"],
                           capture_output=True, env=env, timeout=120)  # fmt: skip
    assert chain.returncode == 0, chain.stderr.decode()
    assert b"us a repetition" in chain.stdout


def test_a_run_folder_whose_path_is_no_utf8_is_printed_and_reported(tmp_path: Path) -> None:
    """``--out`` holding a byte that is no UTF-8 (a folder made under another
    locale) measured the run and then ended in a traceback printing its path,
    where the standard output was strict UTF-8; ``report`` wrote the RAJAPerf
    files and then died writing report.md, whose next try was refused for them."""
    out = os.fsencode(tmp_path) + b"/caf\xe9"
    proc = _harness("run", *QUICK, "--out", out, encoding="utf-8")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    (folder,) = Path(os.fsdecode(out)).glob("run-*")
    assert b"run folder: " + os.fsencode(folder) in proc.stdout
    report = tmp_path / "report"
    made = _harness("report", os.fsencode(folder), "--out", str(report), encoding="utf-8")
    assert made.returncode == 0, made.stderr.decode()
    text = (report / "report.md").read_text(encoding="utf-8")
    assert "caf\\udce9" in text


def _limited(*args: str, size: int) -> subprocess.CompletedProcess:
    """``harness ARGS`` where no file may grow past ``size`` bytes (``ulimit -f``)."""
    env = {**os.environ}
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    command = [sys.executable, "-m", "harness", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=300, env=env, preexec_fn=limit
    )


def test_a_report_past_the_size_limit_is_not_called_a_full_disk(
    quick_run: Path, tmp_path: Path
) -> None:
    """A report grown past the limit on a file's size (``ulimit -f``; EFBIG) was
    told to "free some space", which frees nothing; a run's journal the same
    (tests/test_run_folder_holes.py)."""
    out = tmp_path / "report"
    report = _limited("report", str(quick_run), "--html", "--out", str(out), size=65536)
    assert report.returncode == 2
    assert report.stderr.splitlines()[-1].endswith(
        "(File too large); none of its files was kept (a report is whole or not at all); "
        "raise the limit on a file's size (ulimit -f) or write to another disk and run it again"
    )
    # Nor the folder it had made for them.
    assert not out.exists()


#: ``harness`` whose end of an MPI run takes two seconds more at one place (as under
#: load): its workers' close, or the way out once the job's end is agreed.
SLOW = """
import sys, time
from harness.cli import run
from harness.execution import workers
if sys.argv.pop(1) == "close":
    close = workers.Workers.close
    workers.Workers.close = lambda self: (time.sleep(2), close(self))
else:
    ranks = run._execute_ranks
    run._execute_ranks = lambda *a: (ranks(*a), time.sleep(2))[0]
from harness.cli import main
sys.exit(main())
"""


@pytest.mark.full  # a job of MPI ranks
@pytest.mark.parametrize("slow", ["close", "way out"])
def test_sigterm_to_rank_0_once_its_run_ended_is_no_interruption(slow: str, tmp_path: Path) -> None:
    """SIGTERM to an MPI job's rank 0 once its run's end was written, as its workers
    closed or on its way out, ended the job 'rank 0 interrupted', exit 130, the run
    whole; seen twice in CI (tests/test_probes_round10.py's SIGTERM as the last row
    is written)."""
    script = tmp_path / "slow.py"
    script.write_text(SLOW)
    out = tmp_path / "out"
    command = [mpirun(), "-n", "2", "--oversubscribe", sys.executable, str(script), slow,
               "run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--reps", "3",
               "--out", str(out)]  # fmt: skip
    job = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                           env={**mpi_env(), "PYTHONPATH": str(ROOT)})  # fmt: skip
    try:
        deadline, pid = time.monotonic() + 120, None
        while not list(out.glob("run-*/summary.txt")) and time.monotonic() < deadline:
            owner = list(out.glob("run-*/.lock.owner"))
            if pid is None and owner:
                with contextlib.suppress(OSError, ValueError):
                    pid = json.loads(owner[0].read_text())["pid"]
            time.sleep(0.005)
        run = run_folder(out)
        assert pid is not None
        time.sleep(0.5)
        os.kill(pid, signal.SIGTERM)
        _, err = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode == 0, err.decode()
    assert "interrupted" not in err.decode()
    assert results.read_metadata(run)["interrupted"] is False


@pytest.mark.full  # a job of MPI ranks
def test_an_mpi_resume_whose_source_was_edited_is_refused(tmp_path: Path) -> None:
    """An MPI run's resume never looked at its rows' sources (a resume in one process
    now refuses one edited since): it ran the edited source beside the rows of the
    one the run began with, under one name."""
    need_backend("opencl")
    sources = tmp_path / "sources"
    shutil.copytree(FIXTURES / "wrong_triad", sources)
    out = tmp_path / "out"
    first = harness_mpi("run", "-k", "Stream_TRIAD", "-b", "opencl", "--size", "1000",
                        "--reps", "2", "--sources", str(sources), "--out", str(out))  # fmt: skip
    assert first.returncode == 1, first.stderr
    run = run_folder(out)
    journal = run / "journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text(lines[0])
    triad = sources / "opencl" / "Stream_TRIAD.cl"
    triad.write_text(triad.read_text() + "\n")
    resumed = harness_mpi("run", "--resume", str(run))
    assert resumed.returncode == 2, resumed.stderr
    assert f"harness: error: --resume: the run's Stream_TRIAD on opencl: {triad} has changed " in (
        resumed.stderr
    )
    assert journal.read_text() == lines[0]


@pytest.mark.full  # a job of MPI ranks
def test_an_mpi_resume_of_a_user_kernel_runs_or_names_its_edited_suite(tmp_path: Path) -> None:
    """An MPI run of a user's kernel could not be resumed: rank 0 loaded the run's
    suite, the other ranks knew none of its kernels and ended the job ('the run's
    kernels are not all known here'); nor did the resume compare the kernel's
    description with the run's, as a resume in one process does."""
    shutil.copytree(ROOT / "examples" / "my_kernels", tmp_path / "mine")
    suite = tmp_path / "mine" / "kernels.py"
    out = tmp_path / "out"
    first = harness_mpi("run", "--suite", str(suite), "-k", "My_SAXPY", "-b", "cpu",
                        "--sizes", "100,200", "--reps", "1", "--out", str(out))  # fmt: skip
    assert first.returncode == 0, first.stderr
    run = run_folder(out)
    cut_journal(run, 1)
    text = suite.read_text()
    suite.write_text(text.replace("Tolerance(1e-13, 1e-5", "Tolerance(1e-3, 1e-5"))
    edited = harness_mpi("run", "--resume", str(run))
    assert edited.returncode == 2, edited.stderr
    assert (
        "harness: error: --resume: the run's My_SAXPY has tolerance {'f64': 1e-13, 'f32': "
        "1e-05} in its metadata, {'f64': 0.001, 'f32': 1e-05} in " + f"{suite} now: "
    ) in edited.stderr
    assert len((run / "journal.jsonl").read_text().splitlines()) == 1
    suite.write_text(text)
    resumed = harness_mpi("run", "--resume", str(run))
    assert resumed.returncode == 0, resumed.stderr
    rows = results.read_journal(run)
    assert sorted((r["rank"], r["size"]) for r in rows) == [(0, 100), (0, 200), (1, 100), (1, 200)]

"""harness run under mpirun: one run folder of every rank's rows, ranks measuring
row by row together, and the summary over ranks RAJAPerf's MPI runs give."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import (
    harness,
    harness_mpi,
    mpi_env,
    mpirun,
    need_backend,
    rank_pid,
    run_folder,
)

from harness.execution import results

RANKS = 3


def test_ranks_write_one_run_folder_with_min_avg_max(tmp_path: Path) -> None:
    need_backend("opencl")
    done = harness_mpi(
        "run", "-k", "Stream", "-b", "cpu", "opencl", "--size", "100000", "--reps", "3",
        "--out", str(tmp_path), ranks=RANKS, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    folder = run_folder(tmp_path)
    rows = results.read_journal(folder)
    kernels = ("Stream_COPY", "Stream_MUL", "Stream_ADD", "Stream_TRIAD", "Stream_DOT")
    assert {(r["kernel"], r["device_id"], r["rank"]) for r in rows} == {
        (k, d, r) for k in kernels for d in ("cpu:0", "opencl:0") for r in range(RANKS)
    }
    assert all(r["status"] == "ok" for r in rows), [r["reason"] for r in rows]
    assert {r["host"] for r in rows} == {rows[0]["host"]}
    # Every rank's row of a kernel on a device carries the same checksum.
    for kernel in kernels:
        for device in ("cpu:0", "opencl:0"):
            found = {
                r["checksum"] for r in rows if (r["kernel"], r["device_id"]) == (kernel, device)
            }
            assert len(found) == 1, (kernel, device, found)
    meta = results.read_metadata(folder)
    assert [r["rank"] for r in meta["ranks"]] == list(range(RANKS))
    summary = (folder / results.SUMMARY).read_text()
    over = summary.split("median time per repetition over ranks:\n", 1)[1].splitlines()
    assert over[0].split() == ["kernel", "backend", "prec", "size", "ranks", "min", "avg", "max"]
    assert {tuple(line.split()[:5]) for line in over[1:]} == {
        (k, b, "f64", "100000", str(RANKS)) for k in kernels for b in ("cpu", "opencl")
    }
    assert "cpu:0 r2" in summary


def test_a_killed_rank_becomes_error_rows_and_the_others_finish(tmp_path: Path) -> None:
    """Rank 1's process is killed once the journal has rows: rank 0 stops hearing
    its heartbeat, and the run goes on without it to its end."""
    mpi = mpirun()
    need_backend("opencl")
    command = [
        mpi, "--enable-recovery", "-n", str(RANKS), "--oversubscribe", sys.executable,
        "-m", "harness", "run", "-k", "Stream", "-b", "cpu", "opencl",
        "--sizes", "100000,200000,400000", "--reps", "30", "--lost-after", "3",
        "--out", str(tmp_path),
    ]  # fmt: skip
    job = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mpi_env()
    )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            folders = list(tmp_path.glob("run-*"))
            journal = folders[0] / "journal.jsonl" if folders else None
            if journal and journal.exists() and len(journal.read_text().splitlines()) >= 6:
                break
            assert job.poll() is None, job.communicate()[1][-3000:]
            time.sleep(0.1)
        folder = run_folder(tmp_path)
        pids = {r["rank"]: r["pid"] for r in results.read_metadata(folder)["ranks"]}
        os.kill(pids[1], signal.SIGKILL)
        _, stderr = job.communicate(timeout=300)
    finally:
        job.kill()
    rows = results.read_journal(folder)
    kernels = ("Stream_COPY", "Stream_MUL", "Stream_ADD", "Stream_TRIAD", "Stream_DOT")
    planned = {
        (k, d, s, r)
        for k in kernels
        for d in ("cpu:0", "opencl:0")
        for s in (100000, 200000, 400000)
        for r in range(RANKS)
    }
    assert {(r["kernel"], r["device_id"], r["size"], r["rank"]) for r in rows} == planned
    assert len(rows) == len(planned), stderr[-3000:]
    assert all(r["status"] == "ok" for r in rows if r["rank"] != 1)
    lost = [r for r in rows if r["rank"] == 1 and r["status"] == "error"]
    assert lost, stderr[-3000:]
    assert all(
        r["reason"].startswith("rank 1 on ") and "nothing heard from it for 3 s" in r["reason"]
        for r in lost
    ), lost[0]["reason"]
    # Its rows before the kill were measured; those after it are all errors.
    order = [r["status"] for r in rows if r["rank"] == 1]
    assert order == sorted(order, key=lambda status: status == "error")
    assert (folder / results.SUMMARY).exists()


def _start_stream_job(tmp_path: Path, *launcher: str) -> tuple[subprocess.Popen, Path, dict]:
    """An MPI job of Stream rows on the CPU backend, once its journal has six rows:
    the job, its run folder and each rank's process id."""
    mpi = mpirun()
    command = [
        mpi, *launcher, "-n", str(RANKS), "--oversubscribe", sys.executable, "-m",
        "harness", "run", "-k", "Stream", "-b", "cpu", "--sizes", "1000,2000,4000",
        "--reps", "1", "--lost-after", "3", "--out", str(tmp_path),
    ]  # fmt: skip
    job = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mpi_env()
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        journal = next(tmp_path.glob("run-*/journal.jsonl"), None)
        if journal and len(journal.read_text().splitlines()) >= 6:
            break
        assert job.poll() is None, job.communicate()[1][-3000:]
        time.sleep(0.05)
    folder = run_folder(tmp_path)
    return job, folder, {r["rank"]: r["pid"] for r in results.read_metadata(folder)["ranks"]}


def _finish(job: subprocess.Popen, pids: dict) -> str:
    """The job's stderr once it ended by itself; the test fails where it did not."""
    try:
        return job.communicate(timeout=120)[1]
    except subprocess.TimeoutExpired:
        for pid in pids.values():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        job.kill()
        raise AssertionError("the job did not end with a stopped rank") from None


def test_a_stopped_rank_ends_the_job_with_failure_under_recovery(tmp_path: Path) -> None:
    """Rank 1 stopped (SIGSTOP) sends no heartbeat and never exits: rank 0 names it
    in its rows, and the job still ends, non-zero although mpirun's recovery mode
    reports success whatever its ranks return."""
    job, folder, pids = _start_stream_job(tmp_path, "--enable-recovery")
    os.kill(pids[1], signal.SIGSTOP)
    stderr = _finish(job, pids)
    assert job.returncode != 0, stderr[-3000:]
    assert "ending the job through its launcher" in stderr
    rows = results.read_journal(folder)
    assert len(rows) == 15 * RANKS, stderr[-3000:]
    lost = [r for r in rows if r["status"] != "ok"]
    assert lost and {r["rank"] for r in lost} == {1}
    assert all("nothing heard from it for 3 s" in r["reason"] for r in lost), lost[0]["reason"]


def test_a_stopped_rank_0_ends_the_job_and_an_mpi_resume_finishes_it(tmp_path: Path) -> None:
    """Rank 0 stopped: the other ranks say so and end the job; a resume without
    mpirun refuses in one line saying how, and one under mpirun keeps every rank's rows."""
    job, folder, pids = _start_stream_job(tmp_path)
    os.kill(pids[0], signal.SIGSTOP)
    stderr = _finish(job, pids)
    assert job.returncode != 0, stderr[-3000:]
    assert (
        f"rank 0, which writes the run folder, was lost (nothing heard from it for 3 s); the "
        f"rows it wrote are in {folder}: finish the run with: mpirun -n {RANKS} harness run "
        f"--resume {folder}"
    ) in stderr
    alone = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--resume", str(folder)],
        capture_output=True,
        text=True,
        env=mpi_env(),
    )
    assert alone.returncode == 2
    assert alone.stderr.strip() == (
        f"harness: error: --resume: {folder} is a run of {RANKS} MPI ranks; resume it with "
        f"them all: mpirun -n {RANKS} harness run --resume {folder}"
    )
    resumed = harness_mpi("run", "--resume", str(folder), ranks=RANKS, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    rows = results.read_journal(folder)
    assert len(rows) == 15 * RANKS
    assert {(r["kernel"], r["size"], r["rank"]) for r in rows} == {
        (k, s, r)
        for k in ("Stream_COPY", "Stream_MUL", "Stream_ADD", "Stream_TRIAD", "Stream_DOT")
        for s in (1000, 2000, 4000)
        for r in range(RANKS)
    }
    assert all(r["status"] == "ok" for r in rows)


def test_a_sigterm_to_one_rank_ends_the_run_interrupted(tmp_path: Path) -> None:
    """SIGTERM to rank 1 alone: it said 'interrupted' and hung, and rank 0 recorded
    its rows from then on as errors of a lost rank, the run not interrupted."""
    job, folder, pids = _start_stream_job(tmp_path)
    os.kill(pids[1], signal.SIGTERM)
    stderr = _finish(job, pids)
    assert job.returncode != 0, stderr[-3000:]
    meta = results.read_metadata(folder)
    assert meta["interrupted"] is True, stderr[-3000:]
    rows = results.read_journal(folder)
    assert all(r["status"] == "ok" for r in rows), [r["reason"] for r in rows]
    assert f"mpirun -n {RANKS} harness run --resume {folder}" in stderr


def test_compare_of_mpi_runs_judges_every_rank(tmp_path: Path) -> None:
    """Of a case's rank rows only the last was compared: a 100x slowdown on rank 0
    was 'noise' and the gate passed."""
    mpi = mpirun()
    suite = tmp_path / "suite"
    shutil.copytree(Path(__file__).parents[1] / "examples" / "my_kernels", suite)
    kernels = suite / "kernels.py"
    # Rank 0's numpy SAXPY sleeps 10 ms a repetition where SLOW_RANK0 is set (2 ms
    # was within the noise of a loaded machine).
    kernels.write_text(
        kernels.read_text().replace(
            "    y[:n] += a * x[:n]\n",
            "    import os, time\n"
            "    if os.environ.get('SLOW_RANK0') and os.environ['OMPI_COMM_WORLD_RANK'] == '0':\n"
            "        time.sleep(0.01)\n"
            "    y[:n] += a * x[:n]\n",
        )
    )
    runs = {}
    for name, slow in (("base", {}), ("new", {"SLOW_RANK0": "1"})):
        command = [
            mpi, "-n", "2", "--oversubscribe", sys.executable, "-m", "harness", "run",
            "--suite", str(kernels), "-k", "My_SAXPY", "-b", "cpu", "--size", "1000",
            "--reps", "5", "--out", str(tmp_path / name),
        ]  # fmt: skip
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=300, env={**mpi_env(), **slow}
        )
        assert done.returncode == 0, done.stderr[-3000:]
        # Progress lines name each row's rank, as the table does.
        assert "My_SAXPY on cpu:0 r0" in done.stderr and "My_SAXPY on cpu:0 r1" in done.stderr
        runs[name] = run_folder(tmp_path / name)
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "compare", str(runs["base"]), str(runs["new"])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rows = {
        line[:20].split(None, 1)[1].strip(): line.split() for line in proc.stdout.splitlines()[1:3]
    }
    assert rows["cpu:0 r0"][-1] == "regression" and float(rows["cpu:0 r0"][-2]) > 20
    assert rows["cpu:0 r1"][-1] == "noise"
    assert "rows are matched rank by rank" in proc.stdout + proc.stderr


def _small_job(out: Path) -> subprocess.Popen:
    """A job of two ranks, one Stream_TRIAD row each, a rank lost after 3 s of silence."""
    command = [
        mpirun(), "-n", "2", "--oversubscribe", sys.executable, "-m", "harness", "run",
        "-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--reps", "2",
        "--lost-after", "3", "--out", str(out),
    ]  # fmt: skip
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mpi_env()
    )


def test_a_rank_0_stopped_after_the_run_ended_does_not_hold_the_job(tmp_path: Path) -> None:
    """Rank 0 stopped once it had written the summary: the other ranks waited in
    MPI_Finalize for it for ever, and so did the job."""
    job = _small_job(tmp_path)
    deadline = time.monotonic() + 300
    while not list(tmp_path.glob("run-*/summary.txt")):
        assert time.monotonic() < deadline and job.poll() is None, job.communicate()[1][-3000:]
        time.sleep(0.005)
    pids = {r["rank"]: r["pid"] for r in results.read_metadata(run_folder(tmp_path))["ranks"]}
    os.kill(pids[0], signal.SIGSTOP)
    try:
        _finish(job, pids)
    finally:
        with contextlib.suppress(OSError):
            os.kill(pids[0], signal.SIGKILL)
    assert job.returncode != 0
    assert results.read_metadata(run_folder(tmp_path))["interrupted"] is False


def test_a_rank_stopped_while_mpi_starts_does_not_hold_the_job(tmp_path: Path) -> None:
    """A rank stopped before MPI_Init was done held the other in it, before any
    heartbeat, for ever."""
    job = _small_job(tmp_path)
    deadline = time.monotonic() + 60
    pid = None
    while pid is None:
        assert time.monotonic() < deadline and job.poll() is None, job.communicate()[1][-3000:]
        pid = rank_pid(1, tmp_path)
    os.kill(pid, signal.SIGSTOP)
    try:
        _finish(job, {1: pid})
    finally:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert job.returncode != 0


def test_report_and_thicket_export_keep_every_rank(tmp_path: Path) -> None:
    """Two ranks on the one CPU device were one RAJAPerf variant (the last rank's
    times, the first's dropped) and one Caliper profile recording each region twice."""
    job = _small_job(tmp_path / "runs")
    _, err = job.communicate(timeout=300)
    assert job.returncode == 0, err[-3000:]
    run = run_folder(tmp_path / "runs")
    rows = {r["rank"]: r for r in results.read_journal(run)}
    assert sorted(rows) == [0, 1]
    proc = harness("report", str(run), "--out", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    timing = (tmp_path / "report" / "RAJAPerf-timing-Average.csv").read_text().splitlines()
    assert [cell.strip() for cell in timing[1].split(",")] == ["Variant", "cpu:0.r0", "cpu:0.r1"]
    totals = [float(cell) for cell in timing[3].split(",")[1:]]
    assert timing[3].startswith("Stream_TRIAD")
    assert totals == [round(rows[r]["time_mean_s"] * rows[r]["reps"], 6) for r in (0, 1)]
    proc = harness("export", str(run), "--thicket", "--out", str(tmp_path / "cali"))
    assert proc.returncode == 0, proc.stderr
    profiles = sorted((tmp_path / "cali").glob("*.cali"))
    assert [p.name for p in profiles] == [f"r{r}-cpu_0-f64-n1000-default.cali" for r in (0, 1)]
    for rank, profile in enumerate(profiles):
        text = profile.read_text()
        # One record for the kernel, the group and the root: no region twice.
        assert text.count("__rec=ctx") == 3
        assert f"{rows[rank]['time_median_s']!r}=" in text
        assert "data=mpi.rank" in text

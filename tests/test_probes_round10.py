"""Hostile-user probes, tenth round: an export stopped short into an earlier export's
folder, run folders whose lock is no file, the Python API given values of the wrong
type, and user suites whose kernels misbehave."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import finished_run, harness, mpi_env, mpirun, one_error, run_folder

from harness.execution import results
from harness.reporting import thicket_export

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]


@pytest.fixture(scope="module")
def two_precisions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of one kernel at two precisions: two profiles to export."""
    out = tmp_path_factory.mktemp("two")
    return finished_run(out, *QUICK[:2], *QUICK[3:], "--precision", "f64", "f32", "--reps", "3")


def test_an_export_stopped_short_leaves_no_earlier_profile_of_its_names(
    two_precisions: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export interrupted into an earlier export's folder left the earlier
    profiles it had not yet replaced beside its own, of the same names: a mix of two
    exports read as one."""
    out = tmp_path / "thicket"
    first = thicket_export.write(two_precisions, out)
    assert len(first) == 2
    earlier = {path: path.stat().st_ino for path in first}
    real = results.write_text
    done: list[Path] = []

    def write_once(path: Path, text: str) -> None:
        if done:
            raise KeyboardInterrupt
        real(path, text)
        done.append(path)

    monkeypatch.setattr(results, "write_text", write_once)
    with pytest.raises(KeyboardInterrupt):
        thicket_export.write(two_precisions, out)
    assert sorted(out.iterdir()) == done
    assert done[0].stat().st_ino != earlier[done[0]]


def test_resume_where_the_lock_is_a_folder_says_remove_it(run: Path) -> None:
    """A run folder whose .lock was a folder was 'cannot write to run folder ...: Is a
    directory; ... make it writable', which is not the fix."""
    (run / ".lock").unlink(missing_ok=True)
    (run / ".lock").mkdir()
    before = sorted(p.name for p in run.iterdir())
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{run / '.lock'} is a folder, not the lock file a run makes; remove it, then try again"
    )
    assert sorted(p.name for p in run.iterdir()) == before
    assert json.loads((run / "metadata.json").read_text()).get("interrupted") is not True


@pytest.mark.full  # a job of MPI ranks
def test_sigterm_to_rank_0_as_its_last_row_is_written_is_no_interruption(
    tmp_path: Path,
) -> None:
    """SIGTERM to an MPI job's rank 0 as it wrote its last row (in the journal's fsync)
    marked a run whose journal held every row 'interrupted: 1 of 2 rows run', exit 130."""
    command = [mpirun(), "-n", "2", "--oversubscribe", sys.executable, "-m", "harness", "run"]
    command += [*QUICK[:2], *QUICK[3:], "--reps", "3", "--out", str(tmp_path)]
    job = subprocess.Popen(
        command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=mpi_env()
    )
    owner = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = list(tmp_path.glob("run-*/.lock.owner"))
        if owner is None and found:
            owner = found[0]
            pid = json.loads(owner.read_text())["pid"]
        journal = owner.parent / "journal.jsonl" if owner else None
        if journal and journal.exists() and journal.read_text().count("\n") >= 2:
            break
        time.sleep(0.002)
    assert owner is not None
    os.kill(pid, signal.SIGTERM)
    _, err = job.communicate(timeout=120)
    meta = json.loads((owner.parent / "metadata.json").read_text())
    # A signal this process was slow to send reaches rank 0 once the job has ended, on
    # its way out of the command, which then exits 130 as any command stopped there
    # does: the run is whole all the same, and not marked interrupted.
    assert job.returncode in (0, 130), err.decode()
    assert "rows run; continue with" not in err.decode()
    assert meta["interrupted"] is False and meta["end"]
    assert (owner.parent / "results.csv").read_text().count("\n") == 3


#: A user's suite of one SAXPY, ``{extra}`` replacing its description's fields.
SUITE = """
import dataclasses, time
import numpy as np
from harness.model.spec import Array, KernelSpec, Launch, Scalar, Tolerance, Traffic

def cpu(grid, x, y, a, n):
    y[:n] += a * x[:n]

def forever(*args):
    time.sleep(10**6)

OK = KernelSpec(
    name="Mine_OK", group="Mine", summary="y = a x + y",
    arrays=(Array("x", "real", lambda n: n), Array("y", "real", lambda n: n, "inout")),
    scalars=(Scalar("a", "real"), Scalar("n", "u32")),
    plan=lambda n: [Launch("saxpy", n, 256, ("x", "y", "a", "n"), {{"n": n}})],
    init=lambda n, seed, p: {{"x": np.ones(n), "y": np.ones(n), "a": 2.0}},
    reference=lambda x: {{"y": float(x["a"]) * np.float64(x["x"]) + np.float64(x["y"])}},
    cpu={{"saxpy": cpu}},
    traffic=lambda n, b: Traffic(read=n * b, modify_write=n * b),
    flops=lambda n: 2 * n,
    tolerance=Tolerance(1e-13, 1e-5),
)
KERNELS = (OK, dataclasses.replace(OK, name="Mine_BAD", {extra}))
"""


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (
            "traffic=lambda n, b: 'x'",
            "its traffic at its default size 1000000 returned 'x': expected a Traffic of byte "
            "counts, each a finite number, 0 or more",
        ),
        (
            "traffic=lambda n, b: Traffic(read=-n)",
            "its traffic at its default size 1000000 returned Traffic(read=-1000000, write=0, "
            "modify_write=0, atomic_modify_write=0): expected a Traffic of byte counts, each a "
            "finite number, 0 or more",
        ),
        (
            "flops=lambda n: float('nan')",
            "its flops at its default size 1000000 returned nan: expected a finite number, 0 "
            "or more",
        ),
        (
            "flops=lambda n: None",
            "its flops at its default size 1000000 returned None: expected a finite number, 0 "
            "or more",
        ),
    ],
)
def test_a_suite_whose_counts_are_no_numbers_is_named(
    extra: str, said: str, tmp_path: Path
) -> None:
    """A user kernel whose traffic returned no Traffic, or whose FLOPs were NaN or None,
    was taken: `harness list` then ended in a traceback ('str' object has no
    attribute 'moved'), and runs recorded NaN or negative rates."""
    path = tmp_path / "mine.py"
    path.write_text(SUITE.format(extra=extra))
    proc = harness("list", "--suite", str(path), "-k", "Mine")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--suite {path}: kernel Mine_BAD: {said}"


@pytest.mark.parametrize("field", ["init", "reference"])
def test_a_user_kernel_that_never_makes_its_data_times_out_as_its_row(
    field: str, tmp_path: Path
) -> None:
    """A user kernel whose init or reference never returned hung the whole run, past
    --timeout: they are made in the run's own process, where no worker's timeout
    reached; SIGTERM then only said 'stopping after the current row'."""
    path = tmp_path / "mine.py"
    path.write_text(SUITE.format(extra=f"{field}=forever"))
    out = tmp_path / "out"
    args = ["run", "--suite", str(path), "-k", "Mine", "-b", "cpu", "--size", "1000"]
    proc = harness(*args, "--reps", "3", "--timeout", "1", "--out", str(out), timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = [json.loads(line) for line in (run_folder(out) / "journal.jsonl").open()]
    assert [(r["kernel"], r["status"]) for r in rows] == [("Mine_OK", "ok"), ("Mine_BAD", "error")]
    assert rows[1]["reason"] == "timed out after 1 s during Mine_BAD on cpu:0"

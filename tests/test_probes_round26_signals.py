"""Hostile probes, round 26: signals and two commands at once, on every command:
SIGHUP (a closed terminal) beside Ctrl-C and SIGTERM, once and twice, to a command
and to its process group."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import FIXTURES, ROOT, finished_run, need_backend, wait_rows

from harness.execution import results

#: Six rows, the fourth Stream_TRIAD on OpenCL, which hangs until its --timeout.
HANGING = ["-k", "Stream_COPY", "Stream_TRIAD", "Stream_DOT", "-b", "cpu", "opencl"]
HANGING += ["--size", "1000", "--reps", "1", "--sources", str(FIXTURES / "hang")]


def _start_group(
    args: list[str], hangup: bool = True, env: dict[str, str] | None = None
) -> subprocess.Popen:
    """``harness ARGS`` as the leader of a process group of its own (``env`` added
    to its environment); with SIGHUP ignored as ``nohup`` starts it, unless
    ``hangup``."""
    return subprocess.Popen(
        [sys.executable, "-m", "harness", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp"),
            **(env or {}),
        },
        start_new_session=True,
        preexec_fn=None if hangup else lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),
    )


def _rows(folder: Path) -> list[dict]:
    with (folder / results.RESULTS).open() as f:
        return list(csv.DictReader(f))


def test_a_closed_terminal_stops_a_run_as_sigterm_does(tmp_path: Path) -> None:
    """SIGHUP, which a closed terminal sends the foreground process group, killed the
    run and its workers: no summary, no end, not marked interrupted. It stops the
    run after the row in hand, which its worker finishes, and exits 130."""
    need_backend("opencl")
    proc = _start_group(["run", *HANGING, "--timeout", "4", "--out", str(tmp_path)])
    folder = wait_rows(tmp_path, 3)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGHUP)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "SIGHUP: stopping after the current row (SIGHUP again to stop now)" in err
    assert "signal 1" not in err
    rows = _rows(folder)
    assert [r["status"] for r in rows] == ["ok", "ok", "ok", "error"], err
    assert rows[-1]["reason"] == "timed out after 4 s during Stream_TRIAD on opencl:0"
    assert results.read_metadata(folder)["interrupted"] is True
    assert "3 ok, 0 fail, 1 error" in (folder / results.SUMMARY).read_text()


def test_a_run_started_under_nohup_runs_on_through_a_hangup(tmp_path: Path) -> None:
    """A run started with SIGHUP ignored (``nohup``) asks to outlive its terminal:
    the stop signals' handlers must not take SIGHUP over from it."""
    args = ["run", "-k", "Stream_COPY", "Stream_ADD", "-b", "cpu", "--sizes", "100,1000"]
    proc = _start_group([*args, "--reps", "1", "--out", str(tmp_path)], hangup=False)
    wait_rows(tmp_path, 1)
    os.killpg(proc.pid, signal.SIGHUP)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert [r["status"] for r in _rows(next(tmp_path.iterdir()))] == ["ok"] * 4


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started that still run."""
    return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def test_a_closed_terminal_stops_a_script_and_the_harness_it_started(tmp_path: Path) -> None:
    """SIGHUP killed a benchmark script at once, silent, and left the harness process
    it had started (in a session of its own, which the terminal's SIGHUP does not
    reach) running on. The script passes it on, as it does Ctrl-C, and exits 130."""
    script = ROOT / "benchmarks" / "cpu_triad_vs_numpy.py"
    proc = subprocess.Popen(
        [sys.executable, str(script), "--size", "4194304", "--launches", "50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not _children(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    children = _children(proc.pid)
    assert children, "the script started no child within a minute"
    os.killpg(proc.pid, signal.SIGHUP)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == "interrupted: stopped before its results were printed"
    time.sleep(0.5)
    assert not [c for c in children if Path(f"/proc/{c}").exists()]


def test_a_run_suspended_with_a_row_in_hand_records_no_timeout(tmp_path: Path) -> None:
    """A job stopped (Ctrl-Z, a scheduler's suspend) and continued later than the
    row's --timeout had the row in hand recorded as 'timed out', a fault of its
    kernel, and the run exit 1: the time stopped ran out its timeout. The row gets
    its whole timeout again once continued."""
    args = ["run", "-k", "Stream_COPY", "-b", "cpu", "--size", "4194304", "--reps", "400"]
    # The row takes about 2 s on an idle machine and several times that on a loaded
    # one, so its timeout leaves it room; the stop outlasts the timeout.
    proc = _start_group([*args, "--timeout", "12", "--out", str(tmp_path)])
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("run-*/metadata.json")) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGSTOP)
    time.sleep(13)
    os.killpg(proc.pid, signal.SIGCONT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert [r["status"] for r in _rows(next(tmp_path.iterdir()))] == ["ok"], err


#: A sitecustomize that makes matplotlib save each figure a second late.
SLOW_SAVES = """import time
import matplotlib.figure
_save = matplotlib.figure.Figure.savefig
def _late(self, *args, **kwargs):
    time.sleep(1)
    return _save(self, *args, **kwargs)
matplotlib.figure.Figure.savefig = _late
"""


def test_a_closed_terminal_stops_a_plot_with_one_line(tmp_path: Path) -> None:
    """A reader of run folders (`plot`) was killed by SIGHUP, silent, exit status
    -1; it stops as at Ctrl-C, with one line, exit 130."""
    run = finished_run(tmp_path / "runs", "-k", "Stream", "-b", "cpu", "--sizes", "100,1000")
    # Each figure is saved a second late, so that the hang-up comes while the plot
    # is drawing, however busy the machine (it finished all eleven first once).
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "sitecustomize.py").write_text(SLOW_SAVES)
    path = os.pathsep.join(filter(None, [str(slow), os.environ.get("PYTHONPATH")]))
    proc = _start_group(
        ["plot", str(run), "--out", str(tmp_path / "plots")], env={"PYTHONPATH": path}
    )
    assert proc.stderr is not None
    seen = ""
    while "[1/" not in seen:
        line = proc.stderr.readline()
        assert line, seen
        seen += line
    os.killpg(proc.pid, signal.SIGHUP)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, seen + err
    said = "harness plot: interrupted; what it was writing may be incomplete"
    assert err.splitlines()[-1] == said

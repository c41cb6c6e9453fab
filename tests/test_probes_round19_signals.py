"""Round 19 probes of interrupts, gates and the Python API: signals at each phase
of the commands that do work, `harness mutants`' gates, MPI jobs, and what
`harness.run` raises."""

from __future__ import annotations

import importlib.util
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, finished_run, need_backend

from harness.execution import merge, results

# Each test here runs the harness end to end on an edge case, seconds of
# subprocesses apiece: the full tier's, so that the fast tier keeps to its minutes.
pytestmark = pytest.mark.full

ENV = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}


def _read_until(proc: subprocess.Popen, seen: str, err: bytes = b"") -> bytes:
    """What ``proc`` wrote on stderr up to and including ``seen``."""
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    while seen.encode() not in err:
        assert time.monotonic() < deadline and proc.poll() is None, err.decode()
        if select.select([proc.stderr], [], [], 0.05)[0]:
            err += os.read(proc.stderr.fileno(), 65536)
    return err


def _grown(run: Path, copies: int) -> Path:
    """The run folder ``run`` with its rows repeated ``copies`` times, each copy at
    sizes one larger (so that no row repeats another), as a long run leaves it."""
    journal = run / results.JOURNAL
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    grown = [dict(row, size=row["size"] + i) for i in range(copies) for row in rows]
    journal.write_text("".join(json.dumps(row) + "\n" for row in grown))
    meta = json.loads((run / results.METADATA).read_text())
    meta["journal_rows"] = len(grown)
    (run / results.METADATA).write_text(json.dumps(meta, indent=2))
    return run


def test_a_signal_while_merge_prints_its_table_names_the_whole_merged_run(
    tmp_path: Path,
) -> None:
    """A merge of long runs writes its folder whole, then prints the table of its
    thousands of rows; a SIGTERM while it printed said 'what it was writing may be
    incomplete' and never named the merged run, which was whole: merging again made
    the same run twice. It now names the folder and says it is whole (exit 130)."""
    quick = ["-k", "Stream_COPY", "Stream_DOT", "-b", "cpu", "--size", "1000", "--reps", "3"]
    first = _grown(finished_run(tmp_path / "a", *quick), 400)
    second = _grown(finished_run(tmp_path / "b", *quick), 400)
    out = tmp_path / "merged"
    out.mkdir()
    # stdout is not read: the table (over 64 KiB) fills the pipe and the merge
    # waits there, its folder written, until the signal comes.
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "merge", str(first), str(second), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    deadline = time.monotonic() + 120
    while not [p for p in out.iterdir() if p.name.startswith("run-")]:
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    (merged,) = [p for p in out.iterdir() if p.name.startswith("run-")]
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    err = err.decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert f"run folder: {merged} (written whole" in err, err
    assert "may be incomplete" not in err
    assert len(results.read_journal(merged)) == 1600
    assert results.read_metadata(merged)["interrupted"] is False


_API_RUN = """
import sys, harness
try:
    harness.run("Stream_TRIAD", "opencl", out=sys.argv[1], size=1000, reps=1,
                timeout=100, sources=sys.argv[2], progress=False)
except BaseException as exc:
    print(type(exc).__name__, exc)
else:
    print("returned")
"""


def test_an_interrupted_api_run_raises_keyboard_interrupt_naming_its_folder(
    tmp_path: Path,
) -> None:
    """Ctrl-C in harness.run swallowed the interrupt: a script running one
    harness.run after another went on to the next, and one stopped before its
    first row raised RunFolderError, a usage error, from loading no rows. It now
    raises KeyboardInterrupt, as Ctrl-C does in any Python code, once the run
    folder is written, naming it and how to continue it."""
    need_backend("opencl")
    proc = subprocess.Popen(
        [sys.executable, "-c", _API_RUN, str(tmp_path), str(FIXTURES / "hang")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    _read_until(proc, "run folder:")
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    (folder,) = [p for p in tmp_path.iterdir() if p.name.startswith("run-")]
    assert out.decode().strip() == (
        f"KeyboardInterrupt harness.run: interrupted; the rows measured so far are kept in "
        f"{folder}; continue with harness.run(resume={str(folder)!r})"
    ), err.decode()
    assert results.read_metadata(folder)["interrupted"] is True


def _cut_short(run: Path) -> Path:
    """The run folder ``run`` as a run interrupted at its second row leaves it where
    the stop signal killed that row's worker: the row an error naming the signal."""
    journal = run / results.JOURNAL
    first, second = [json.loads(line) for line in journal.read_text().splitlines()][:2]
    named = {"kernel", "group", "backend", "device_id", "device", "precision", "size", "cache"}
    named |= {"transfers", "work_group", "partition", "wgsl_checks", "device_api"}
    named |= {"device_driver", "timer", "queue"}
    second = {k: (v if k in named else None) for k, v in second.items()}
    second.update(status="error", reason="worker crashed: signal 15 (SIGTERM) during Stream_MUL")
    journal.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    meta = json.loads((run / results.METADATA).read_text())
    meta.update(interrupted=True, journal_rows=2)
    (run / results.METADATA).write_text(json.dumps(meta, indent=2))
    return run


def test_a_resume_that_runs_a_cut_row_again_keeps_its_count_true(tmp_path: Path) -> None:
    """A resume blanks the journal line of a row the stop signal cut short, but kept
    the metadata's count of rows until its first row: it warned of its own doing
    ('1 row(s) fewer than metadata.json counts ...: rows were removed from it'),
    and one stopped or killed before that first row left a run read as damaged.
    The count is now written with the journal."""
    quick = ["-k", "Stream_COPY", "Stream_MUL", "Stream_ADD", "-b", "cpu", "--size", "1000"]
    run = _cut_short(finished_run(tmp_path / "a", *quick, "--reps", "3"))
    done = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--resume", str(run)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "note: 1 row(s) that the interruption cut short run again" in done.stderr
    assert "rows were removed" not in done.stderr, done.stderr
    rows = results.read_journal(run)
    assert [(r["kernel"], r["status"]) for r in rows] == [
        ("Stream_COPY", "ok"),
        ("Stream_MUL", "ok"),
        ("Stream_ADD", "ok"),
    ]
    assert results.losses(run) is None


def test_a_second_sigterm_as_the_workers_close_ends_with_143(tmp_path: Path) -> None:
    """A run stopped by a SIGTERM chose its status (130) before closing its workers;
    a second SIGTERM then, as a batch system insists, said 'SIGTERM: stopping now'
    and the run still ended with 130, where the second SIGTERM ends with 143."""
    need_backend("opencl")
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "run", "-k", "Stream_COPY", "Stream_TRIAD",
         "Stream_DOT", "-b", "cpu", "opencl", "--size", "1000", "--reps", "1",
         "--out", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )  # fmt: skip
    err = _read_until(proc, "[2/")
    proc.send_signal(signal.SIGTERM)
    err = _read_until(proc, "interrupted:", err)
    proc.send_signal(signal.SIGTERM)
    err += proc.communicate(timeout=60)[1]
    assert "SIGTERM: stopping now" in err.decode()
    assert proc.returncode == 143, err.decode()


def test_a_signal_during_the_last_mutant_is_not_lost(tmp_path: Path) -> None:
    """A SIGTERM while the last mutant was checked said 'stopping after the current
    mutant', which then finished the table: the command exited 0 and passed its
    --fail-under, as if never stopped. It now ends with 130, as a run stopped in
    its last row does."""
    need_backend("opencl")
    suite = tmp_path / "suite"
    shutil.copytree(ROOT / "examples" / "my_kernels", suite)
    text = (suite / "kernels.py").read_text()
    # A check too loose to kill a mutant of My_SAXPY, and slow enough (its inputs
    # take 0.3 s a row) for the signal to come while the last mutant is checked.
    text = text.replace("Tolerance(1e-13, 1e-5, floor=0.05)", "Tolerance(1e6, 1e6, floor=0.05)")
    init = "def _saxpy_init(size: int, seed: int, precision: str) -> dict:\n"
    text = text.replace(init, init + "    __import__('time').sleep(0.3)\n")
    (suite / "kernels.py").write_text(text)
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "mutants", "--suite", str(suite / "kernels.py"),
         "-k", "My_SAXPY", "-b", "opencl", "--sample", "2", "--precision", "f64", "-v",
         "--no-simulator", "--fail-under", "0", "--out", str(tmp_path / "out")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )  # fmt: skip
    seen = _read_until(proc, "  survived")
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    err = (seen + proc.communicate(timeout=120)[1]).decode()
    assert "SIGTERM: stopping after the current mutant" in err
    assert err.count("  survived ") == 2, err
    assert "stopped after the last mutant: every chosen mutant was checked" in err
    assert proc.returncode == 130, err
    (folder,) = (tmp_path / "out").iterdir()
    assert (folder / "mutants.csv").read_text().count(",survived,") == 2


def test_an_interrupted_peak_prints_the_json_of_the_devices_it_measured(
    tmp_path: Path,
) -> None:
    """`harness peak --json` stopped while it measured its second device printed
    no JSON at all: the first device's figures, measured and shown as a line,
    were lost to a script reading the JSON (a peak refused under load has no other
    record). It now prints the JSON of the devices measured before the signal."""
    need_backend("opencl")
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "peak", "--device", "cpu:0", "--device", "opencl:0",
         "--span", "0.5", "--bandwidth-size", "65536", "--fma-size", "1024",
         "--max-time", "0.3", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**ENV, "HARNESS_PEAKS": str(tmp_path / "peaks.json")},
    )  # fmt: skip
    _read_until(proc, "measuring opencl:0")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err.decode()
    assert "interrupted: no peak of opencl:0 kept" in err.decode()
    text = out.decode()
    measured = json.loads(text[text.index("[") :])
    assert [peak["device"]["id"] for peak in measured] == ["cpu:0"]
    assert measured[0]["copy_gbytes_per_s"] > 0


def test_mutants_names_a_chosen_kernel_without_the_backends_source(tmp_path: Path) -> None:
    """A user's kernel without a WGSL source, chosen beside one with it, was left out
    of `harness mutants -b wgpu` unsaid: the table and its passed --fail-under read
    as if both had been checked. (Chosen alone it is refused.) It is now named."""
    need_backend("wgpu")
    suite = tmp_path / "suite"
    shutil.copytree(ROOT / "examples" / "my_kernels", suite)
    (suite / "wgsl" / "My_STENCIL2D.wgsl").unlink()
    done = subprocess.run(
        [sys.executable, "-m", "harness", "mutants", "--suite", str(suite / "kernels.py"),
         "-k", "My_SAXPY", "My_STENCIL2D", "-b", "wgpu", "--sample", "1", "--precision",
         "f32", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "note: My_STENCIL2D has no wgsl source: no mutant of it on wgpu:0" in done.stderr
    assert "My_STENCIL2D" not in done.stdout


def test_an_api_run_stopped_in_its_last_row_says_every_row_is_in(tmp_path: Path) -> None:
    """A signal during the last row lets it finish: the run is whole, and
    harness.run's KeyboardInterrupt says so instead of sending the user to resume
    a run that has nothing left to run."""
    need_backend("opencl")
    proc = subprocess.Popen(
        [sys.executable, "-c", _API_RUN.replace("timeout=100", "timeout=2"), str(tmp_path),
         str(FIXTURES / "hang")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )  # fmt: skip
    _read_until(proc, "run folder:")
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    (folder,) = [p for p in tmp_path.iterdir() if p.name.startswith("run-")]
    assert out.decode().strip() == (
        f"KeyboardInterrupt harness.run: interrupted; stopped after its last row: every row "
        f"is in {folder}"
    ), err.decode()
    assert [r["status"] for r in results.read_journal(folder)] == ["error"]


def _rank_pid(rank: int, out: Path) -> int | None:
    """The process id of MPI rank ``rank`` of a job writing to ``out`` (not one of
    its workers, forked from it with its command line), once it runs."""
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes().split(b"\0")
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            above = Path(f"/proc/{parent}/cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        ours = str(out).encode() in command and b"mpirun" not in command
        if ours and above != command and f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ:
            return int(entry.name)
    return None


@pytest.mark.full
def test_a_rank_interrupted_while_the_ranks_plan_leaves_no_empty_run_folder(
    tmp_path: Path,
) -> None:
    """Ctrl-C to one rank of an MPI job after rank 0 made the run folder, while the
    ranks gathered their plans, left that folder empty: no journal, no metadata,
    nothing measured, yet named as a run, which `harness report results/run-*`
    then refused. It is now removed, as for a rank lost while the ranks plan."""
    mpirun = shutil.which("mpirun")
    if mpirun is None or importlib.util.find_spec("mpi4py") is None:
        pytest.skip("mpirun or mpi4py is not installed (Debian: openmpi-bin; pip: mpi4py)")
    job = subprocess.Popen(
        [mpirun, "-n", "2", "--oversubscribe", sys.executable, "-m", "harness", "run",
         "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "1",
         "--out", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**ENV, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"},
    )  # fmt: skip
    deadline = time.monotonic() + 120
    rank = None
    while rank is None or not any(tmp_path.glob("run-*")):
        assert time.monotonic() < deadline and job.poll() is None, job.communicate()[1]
        rank = rank or _rank_pid(1, tmp_path)
        time.sleep(0.001)
    assert not any(tmp_path.glob("run-*/journal.jsonl")), "the plan was gathered already"
    os.kill(rank, signal.SIGINT)
    err = job.communicate(timeout=120)[1].decode()
    assert job.returncode != 0, err
    assert "Traceback" not in err
    assert [p.name for p in tmp_path.iterdir()] == [], err


def test_a_second_ctrl_c_as_the_run_folder_is_made_leaves_no_empty_folder(
    tmp_path: Path,
) -> None:
    """The run folder was made before the run's metadata was gathered (a git call,
    the libraries' versions); two Ctrl-C there stopped the run 'before any row ran;
    nothing was measured' and left the folder empty, named as a run, which
    `harness report results/run-*` then refused. It is now made last, and any
    folder there is a run that can be resumed."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "run", "-k", "Stream_COPY", "-b", "cpu",
         "--size", "1000", "--reps", "1", "--out", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not any(tmp_path.glob("run-*")):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()[1]
        time.sleep(0.0005)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.002)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=60)[1].decode()
    assert proc.returncode == 130, err
    for folder in tmp_path.iterdir():
        assert (folder / results.JOURNAL).is_file(), (sorted(folder.iterdir()), err)
        assert results.read_metadata(folder)["interrupted"] is True


def test_a_signal_as_a_merged_run_is_named_leaves_no_empty_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merge (or import) writes its run in a hidden folder, then makes the run
    folder's name and moves it there; a Ctrl-C between the two left the named
    folder empty, a run of nothing beside the others. It is now removed."""
    quick = ["-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3"]
    first = finished_run(tmp_path / "a", *quick)
    second = finished_run(tmp_path / "b", *quick)

    class SignalledMove:
        """The operating system, but a signal comes as the staged run is moved."""

        def __getattr__(self, name: str) -> object:
            return getattr(os, name)

        def replace(self, source: Path, target: Path) -> None:
            if Path(source).is_dir():
                raise KeyboardInterrupt
            os.replace(source, target)

    monkeypatch.setattr(results, "os", SignalledMove())
    out = tmp_path / "merged"
    with pytest.raises(KeyboardInterrupt):
        merge.merge([first, second], out, lambda rows: "")
    assert list(out.iterdir()) == []


def test_an_interrupted_report_leaves_no_empty_size_folder(tmp_path: Path) -> None:
    """A report of several sizes writes a folder per size; one stopped after making
    a size's folder and before its first file removed the files it had written,
    but left that folder, empty, in the output folder."""
    planned = [tmp_path / f"SIZE_{n:09d}" / "RAJAPerf-checksum.txt" for n in (1000, 2000)]
    with (
        pytest.raises(KeyboardInterrupt),
        results.no_earlier_left(tmp_path, planned, "report", keep_own=False),
    ):
        planned[0].parent.mkdir()
        planned[0].write_text("checksums\n")
        planned[1].parent.mkdir()
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []

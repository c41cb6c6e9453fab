"""Hostile-user probes, ninth round: run folders and peak stores whose JSON nests past
what Python's parser recurses into, paths holding a NUL given from Python, and
plots cut short by a signal while a file is being saved."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import (
    harness,
    harness_mpi,
    interrupted,
    mpi_env,
    mpirun,
    need_backend,
    one_error,
    run_folder,
    shifted,
    wait_rows,
)

# Each test here runs the harness end to end on an edge case, seconds of
# subprocesses apiece: the full tier's, so that the fast tier keeps to its minutes.
pytestmark = pytest.mark.full

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]

RAJAPERF = Path(__file__).resolve().parent / "fixtures" / "rajaperf_output"

#: Brackets nested far past Python's recursion limit.
DEEP = "[" * 100_000 + "]" * 100_000


def _nest_in_metadata(run: Path, depth: int) -> int:
    """Put a list nested ``depth`` levels into a run's metadata.json, on a line of its
    own; the number of that line."""
    path = run / "metadata.json"
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(1, f'  "nested": {"[" * depth}{"]" * depth},\n')
    path.write_text("".join(lines))
    return 2


@pytest.mark.parametrize(
    ("command", "depth"),
    [
        ("show", 100_000),
        ("merge", 100_000),
        ("resume", 100_000),
        ("report", 600),
        ("compare", 600),
        ("export", 600),
    ],
)
def test_metadata_nested_too_deeply_is_named_by_its_line(
    command: str, depth: int, quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """A metadata.json nested 100000 levels raised RecursionError as it was parsed;
    one of 600 levels parsed, and raised it in pandas' copy of the metadata (report,
    compare, export)."""
    line = _nest_in_metadata(run, depth)
    out = tmp_path / "out"
    args = {
        "show": ["show", str(run)],
        "report": ["report", str(run), "--out", str(out)],
        "compare": ["compare", str(quick_run), str(run)],
        "merge": ["merge", str(run), str(quick_run), "--out", str(out)],
        "export": ["export", str(run), "--thicket", "--out", str(out)],
        "resume": ["run", "--resume", str(run)],
    }[command]
    proc = harness(*args)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{run / 'metadata.json'}:{line}: not valid JSON (nested deeper than 64 levels)"
    )
    assert not out.exists()


def test_a_journal_line_nested_too_deeply_is_skipped_and_named(run: Path) -> None:
    """The journal's reader raised RecursionError: every command reading the run
    ended in a traceback, the rows before the line lost with it."""
    journal = run / "journal.jsonl"
    journal.write_text(journal.read_text() + '{"kernel": ' + DEEP + "}\n")
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert (
        f"warning: {journal}:3: skipped a torn or corrupt line: not JSON (nested deeper than "
        "64 levels)"
    ) in proc.stderr.splitlines()
    assert [x.split()[0] for x in proc.stdout.splitlines()[1:3]] == ["Stream_TRIAD", "Basic_DAXPY"]


def test_a_peaks_store_nested_too_deeply_is_refused_and_left(tmp_path: Path) -> None:
    store = tmp_path / "peaks.json"
    store.write_text(DEEP)
    proc = harness("peak", "-b", "cpu", env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr).startswith(
        f"peaks store {store}: damaged at line 1, column 65 (nested deeper than 64 levels); "
    )
    assert store.read_text() == DEEP


@pytest.mark.parametrize("option", ["out", "suite", "resume", "sources"])
def test_the_api_refuses_a_path_holding_a_nul(
    option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """out="a\\0b" raised ValueError ('embedded null byte') from the middle of the run."""
    import harness as api
    from harness.errors import UsageError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as raised:
        api.run("Stream_TRIAD", "cpu", size=1000, reps=2, progress=False, **{option: "a\0b"})
    assert "'a\\x00b' is no path: it holds a NUL character, which no file name can" in str(
        raised.value
    )
    assert list(tmp_path.iterdir()) == []


def test_a_file_cut_short_by_an_interrupt_is_never_left(tmp_path: Path) -> None:
    """A plot interrupted while matplotlib saved it left a PNG or SVG cut short under
    its own name, looking whole; a text file so interrupted left its .tmp beside it."""
    from harness.execution import results

    path = tmp_path / "time_by_kernel.svg"
    path.write_text("<svg>an earlier plot</svg>\n")

    def cut_short(tmp: Path) -> None:
        tmp.write_text("<svg>half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        results.write_whole(path, cut_short)
    assert path.read_text() == "<svg>an earlier plot</svg>\n"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


@pytest.mark.full  # two plots: seconds of matplotlib each
def test_a_plot_interrupted_leaves_no_earlier_plot_beside_its_own(
    quick_run: Path, tmp_path: Path
) -> None:
    """A plot into the folder of an earlier one, stopped after its first figure, left
    the earlier plot's other figures beside the new one, as if this plot's."""
    out = tmp_path / "plots"
    assert harness("plot", str(quick_run), "--out", str(out)).returncode == 0
    earlier = sorted(p.name for p in out.iterdir())
    proc = interrupted(["plot", str(quick_run), "--out", str(out)], "[2/")
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    kept = sorted(p.name for p in out.iterdir())
    assert kept == ["time_by_kernel.png", "time_by_kernel.svg"], (earlier, kept)
    assert (
        f"note: plot interrupted: removed {len(earlier) - 2} file(s) of an earlier plot from "
        f"{out} that this one had not yet replaced"
    ) in proc.stderr.splitlines()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_after_the_command_is_over_leaves_its_status(signum: int) -> None:
    """A signal in the moments Python takes to exit after a command that wrote
    everything killed the process by it: status -15 (143) for SIGTERM, or a
    KeyboardInterrupt raised as it shut down (-2)."""
    code = (
        "import os, sys\n"
        "sys.argv = ['harness', 'list', '-k', 'Stream_TRIAD']\n"
        "from harness.__main__ import entry\n"
        "status = entry()\n"
        f"os.kill(os.getpid(), {int(signum)})\n"
        "sys.exit(status)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split()[0] == "kernel"
    assert proc.stderr == ""


def test_a_report_of_a_run_being_written_says_so_not_interrupted(run: Path, tmp_path: Path) -> None:
    """A report of a run still running said 'the run was interrupted; 2 rows were
    kept', of a run that was neither."""
    from harness.execution import results

    meta = json.loads((run / "metadata.json").read_text())
    del meta["end"]
    (run / "metadata.json").write_text(json.dumps(meta))
    with results.lock(run):
        proc = harness("report", str(run), "--out", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    notes = [x for x in proc.stderr.splitlines() if x.startswith("note: ")]
    assert len(notes) == 1, proc.stderr
    assert notes[0].startswith(f"note: {run.name}: still being written (pid ")
    assert notes[0].endswith("); its 2 rows so far")
    assert "interrupted" not in (tmp_path / "report" / "report.md").read_text()


def test_show_of_an_interrupted_run_says_it_stopped_short(run: Path) -> None:
    """show printed an interrupted run's table as a whole run's, not a word of the
    rows it never ran."""
    meta = json.loads((run / "metadata.json").read_text())
    meta["interrupted"] = True
    (run / "metadata.json").write_text(json.dumps(meta))
    proc = harness("show", str(run))
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"note: {run} was interrupted: the rows it kept are shown; continue it with: harness "
        f"run --resume {run}"
    )


def test_a_resume_into_a_summary_that_is_a_folder_is_refused_before_any_row(run: Path) -> None:
    """A summary.txt that is a folder was found after the resume ran its rows: exit 2
    with 'Is a directory', naming no file, and a --resume that could never finish."""
    journal = run / "journal.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[0])
    (run / "summary.txt").unlink()
    (run / "summary.txt").mkdir()
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{run / 'summary.txt'}: not a regular file (a folder, a device or a pipe); a run "
        "folder's summary.txt is a file harness run writes"
    )
    assert len(journal.read_text().splitlines()) == 1


@pytest.mark.parametrize("command", ["report", "plot", "export"])
def test_an_output_folder_being_written_by_another_command_is_refused(
    command: str, quick_run: Path, tmp_path: Path
) -> None:
    """Two plots of different runs into one folder at once left each file as
    whichever wrote it last: a mix of two runs passing for one plot."""
    from harness.execution import results

    out = tmp_path / "out"
    out.mkdir()
    args = [command, str(quick_run), "--out", str(out)]
    with results.hold_output(out):
        proc = harness(*args, *(["--thicket"] if command == "export" else []))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"output folder {out}: another harness command is writing into it now; wait for it "
        "to end, or give another --out"
    )
    assert list(out.iterdir()) == []


def test_an_opencl_row_runs_where_the_cache_folder_is_a_file(tmp_path: Path) -> None:
    """XDG_CACHE_HOME naming a file made every OpenCL row an error: pyopencl's caches
    could not be made there, and raised KeyError: 'PYOPENCL_CACHE_FAILURE_FATAL'."""
    need_backend("opencl")
    cache = tmp_path / "cache"
    cache.write_text("a file, not a folder\n")
    args = ["-k", "Stream_TRIAD", "-b", "opencl", "--size", "1000", "--reps", "2"]
    proc = harness("run", *args, "--out", str(tmp_path / "out"), env={"XDG_CACHE_HOME": str(cache)})
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = [json.loads(x) for x in (run_folder(tmp_path / "out") / "journal.jsonl").open()]
    assert [r["status"] for r in rows] == ["ok"], rows


def test_the_api_refuses_a_bad_harness_form_before_any_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """harness.run with HARNESS_FORM=bogus made a run folder whose OpenCL row was an
    error naming it; the command line refuses it before anything."""
    import harness as api
    from harness.errors import UsageError

    monkeypatch.setenv("HARNESS_FORM", "bogus")
    with pytest.raises(UsageError) as raised:
        api.run("Stream_TRIAD", "cpu", size=1000, reps=2, progress=False, out=tmp_path / "out")
    assert str(raised.value) == "HARNESS_FORM='bogus': expected cpu or gpu (or unset)"
    assert not (tmp_path / "out").exists()


@pytest.mark.full  # a job of MPI ranks
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_mpi_run_is_marked_interrupted_and_resumes(
    signum: int, tmp_path: Path
) -> None:
    """SIGTERM or Ctrl-C to an MPI job's process group left its run folder without an
    end, a results.csv or a summary, its metadata not saying it was interrupted."""
    command = [mpirun(), "-n", "2", "--oversubscribe", sys.executable, "-m", "harness", "run"]
    command += ["-k", "Stream", "-b", "cpu", "--size", "1000", "--max-time", "1"]
    job = subprocess.Popen(
        [*command, "--out", str(tmp_path)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env=mpi_env(),
        start_new_session=True,
    )
    folder = wait_rows(tmp_path, 2)
    os.killpg(job.pid, signum)
    _, err = job.communicate(timeout=120)
    meta = json.loads((folder / "metadata.json").read_text())
    assert meta["interrupted"] is True and meta["end"], err
    kept = (folder / "journal.jsonl").read_text().count("\n")
    assert 2 <= kept < 10
    assert (folder / "results.csv").read_text().count("\n") == kept + 1
    assert f"rows run; continue with: mpirun -n 2 harness run --resume {folder}" in err.decode()
    resumed = harness_mpi("run", "--resume", str(folder), timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert (folder / "journal.jsonl").read_text().count("\n") == 10


def test_a_report_stopped_by_a_full_disk_leaves_no_earlier_report_md(
    quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """A report whose report.md met a full disk left the earlier report's report.md
    (of another run) beside its own RAJAPerf files, as if of this run."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    out = tmp_path / "report"
    assert harness("report", str(quick_run), "--out", str(out)).returncode == 0
    earlier = {p.name: p.stat().st_ino for p in out.iterdir()}
    meta = json.loads((run / "metadata.json").read_text())
    another = {"start": shifted(meta["start"]), "run_id": "0" + meta["run_id"]}
    (run / "metadata.json").write_text(json.dumps({**meta, **another}))
    # report.md is written last, through its temporary file: here that is /dev/full.
    (out / "report.md.tmp").symlink_to("/dev/full")
    proc = harness("report", str(run), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"output folder {out}: writing stopped (No space left on device); none of its files "
        "was kept (a report is whole or not at all); free some space and run it again"
    )
    # Neither the earlier report's files nor the RAJAPerf files this one wrote first.
    assert earlier and not list(out.iterdir())


def test_a_backend_named_twice_lets_the_run_end(tmp_path: Path) -> None:
    """-b cpu cpu ran its row, wrote its folder and then never ended: a second worker
    listing cpu's devices was left waiting for work, and the process for it."""
    args = ["-k", "Stream_TRIAD", "-b", "cpu", "cpu", "--size", "1000", "--reps", "2"]
    proc = harness("run", *args, "--out", str(tmp_path), timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(x) for x in (run_folder(tmp_path) / "journal.jsonl").open()]
    assert [(r["kernel"], r["device_id"]) for r in rows] == [("Stream_TRIAD", "cpu:0")]


def test_a_journal_that_is_a_link_to_itself_is_named_as_such(run: Path) -> None:
    """A journal.jsonl linked to itself was 'not a run folder (no journal.jsonl in
    it)', of a folder with one."""
    journal = run / "journal.jsonl"
    journal.unlink()
    journal.symlink_to(journal)
    proc = harness("show", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{journal}: a link to nothing or to itself ({journal}); a run folder's journal.jsonl "
        "is a file harness run writes"
    )


def test_a_merge_that_would_nest_past_what_readers_take_is_refused(
    quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """A run whose metadata nested 63 levels (readable) was merged into a run of 65,
    which every command then refused: merge wrote it, and failed reading it back."""
    nested: list = []
    for _ in range(61):
        nested = [nested]
    meta = json.loads((run / "metadata.json").read_text())
    meta.update(start=shifted(meta["start"]), run_id="0" + meta["run_id"], nested=nested)
    (run / "metadata.json").write_text(json.dumps(meta))
    assert harness("show", str(run)).returncode == 0
    out = tmp_path / "merged"
    proc = harness("merge", str(run), str(quick_run), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"merge: {run / 'metadata.json'} nests 63 levels, which in the merged run's would "
        "pass the 64 a run folder may hold; merge its sources instead"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("RAJAPerf-kernel-run-data.csv", lambda path: path.symlink_to("/dev/zero")),
        ("RAJAPerf-kernel-details.csv", lambda path: path.mkdir()),
        ("RAJAPerf-checksum.txt", lambda path: os.mkfifo(path)),
    ],
)
def test_a_rajaperf_file_that_is_no_file_is_named(
    name: str, make: Callable[[Path], None], tmp_path: Path
) -> None:
    """A run-data file linked to /dev/zero was 'no RAJAPerf-kernel-run-data.csv'; a
    checksum file that is a pipe was skipped without a word, every checksum lost."""
    folder = shutil.copytree(RAJAPERF, tmp_path / "rajaperf")
    (folder / name).unlink()
    make(folder / name)
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{folder / name}: not a regular file (a folder, a device, a pipe or a link to "
        "nothing); give the file raja-perf.exe wrote"
    )
    assert not (tmp_path / "out").exists()


def test_an_export_of_an_interrupted_run_says_so(run: Path, tmp_path: Path) -> None:
    """export wrote an interrupted run's profiles as a whole run's, without a word."""
    meta = json.loads((run / "metadata.json").read_text())
    meta["interrupted"] = True
    (run / "metadata.json").write_text(json.dumps(meta))
    proc = harness("export", str(run), "--thicket", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        f"note: {run} was interrupted: the rows it kept are exported; continue it with: "
        f"harness run --resume {run}"
    ]


@pytest.mark.full  # a plot: seconds of matplotlib
def test_a_plot_of_an_interrupted_run_says_so(run: Path, tmp_path: Path) -> None:
    """plot drew an interrupted run's rows as a whole run's, without a word."""
    meta = json.loads((run / "metadata.json").read_text())
    meta["interrupted"] = True
    (run / "metadata.json").write_text(json.dumps(meta))
    proc = harness("plot", str(run), "--out", str(tmp_path / "plots"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"note: {run} was interrupted: the rows it kept are plotted; continue it with: "
        f"harness run --resume {run}"
    )


#: Arabic-Indic digits: three, one, five and eighty.
THREE, ONE, FIVE, EIGHTY = "\u0663", "\u0661", "\u0665", "\u0668\u0660"


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["run", "--reps", THREE], f"argument --reps: '{THREE}' is not a whole number"),
        (["run", "--reps", "1_000"], "argument --reps: '1_000' is not a whole number"),
        (["run", "--budget", "1_0"], "argument --budget: '1_0' is not a number of seconds"),
        (["run", "--sizes", f"2^{ONE}"], f"argument --sizes: '2^{ONE}' is not a size, 2^K"),
        (["cuda-compile", "--arch", EIGHTY], f"argument --arch: '{EIGHTY}' is not a compute"),
        (["compare", "a", "b", "--threshold", FIVE], f"argument --threshold: '{FIVE}' is not"),
    ],
)
def test_numbers_are_ascii_digits_as_every_other_tool_reads_them(
    args: list[str], shown: str, tmp_path: Path
) -> None:
    """Python's int() and float() take other scripts' digits and underscores, which a
    shell script or RAJAPerf given the same value would not: refused, as --group and
    --device refuse them, before any work."""
    out = ["--out", str(tmp_path)] if args[0] == "run" else []
    proc = harness(*args, *out)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr).startswith(shown), proc.stderr
    assert not any(tmp_path.iterdir())

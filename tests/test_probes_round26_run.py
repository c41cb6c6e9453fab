"""Hostile probes, round 26: `harness run`'s options, resumes and signals, the Python
API that goes through it, and its MPI jobs. Each test says what was wrong before."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import cut_journal, harness, harness_mpi, need_backend, one_error, run_folder

QUICK = ("-k", "Stream_COPY", "-b", "cpu", "--size", "100", "--reps", "1")


def test_an_in_process_resume_of_a_run_with_a_timeout_says_it_changes_nothing(
    tmp_path: Path,
) -> None:
    """`--resume RUN --in-process` of a run begun with --timeout ran its rows in this
    process, where none can be stopped, and nothing said the run's timeout no longer
    held, as a new --in-process run with --timeout says."""
    out = tmp_path / "runs"
    proc = harness("run", "-k", "Stream_COPY", "Stream_ADD", "-b", "cpu", "--size", "100",
                   "--reps", "1", "--timeout", "30", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    cut_journal(run, 1)
    note = (
        "note: --in-process runs the rows left in this process, where no row can be "
        "stopped: the run's --timeout 30 changes nothing for them\n"
    )
    proc = harness("run", "--resume", str(run), "--in-process")
    assert proc.returncode == 0, proc.stderr
    assert note in proc.stderr
    assert len(json.loads((run / "metadata.json").read_text())["resumed_in_process"]) == 1


@pytest.mark.parametrize(("line", "said"), [("KERNELS = 5", "int 5"), ("KERNELS = []", "empty []")])
def test_a_suite_whose_kernels_are_no_tuple_of_descriptions_names_what_they_are(
    tmp_path: Path, line: str, said: str
) -> None:
    """A suite file with ``KERNELS = 5`` (or an empty list) was said to define no
    KERNELS at all, which it does: the message names what KERNELS is."""
    path = tmp_path / "kernels.py"
    path.write_text(line + "\n")
    out = tmp_path / "out"
    proc = harness("run", "--suite", str(path), *QUICK, "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {path}: KERNELS is {said}; give a tuple of one or more "
        "harness.model.spec.KernelSpec"
    )
    assert not out.exists()


def test_a_check_of_rows_with_transfers_verifies_the_transfers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--check --transfers per-rep` verified each row on the resident path alone and
    passed it as a per-rep row: transfers that lost the results passed the check."""
    from harness.api import run as api_run
    from harness.execution import transfers

    moved = transfers.Mover.rep

    def lossy(self: transfers.Mover) -> float:
        took = moved(self)
        for array in self.host.values():
            array[...] = 0
        return took

    monkeypatch.setattr(transfers.Mover, "rep", lossy)
    rows = api_run("Stream_COPY", "cpu", out=tmp_path, size=100, check=True,
                   transfers=["resident", "per-rep"], in_process=True, progress=False)  # fmt: skip
    assert rows.attrs["exit_status"] == 1
    got = dict(zip(rows["transfers"], rows["status"], strict=True))
    assert got == {"resident": "ok", "per-rep": "fail"}
    (reason,) = rows.loc[rows["transfers"] == "per-rep", "reason"]
    assert reason.startswith("with per-rep transfers: c: 100 of 100 elements off")


def test_a_check_runs_no_cold_row_and_says_cache_and_hold_change_nothing(tmp_path: Path) -> None:
    """`--check --cache hot cold` verified every case twice, once in a row labelled cold
    though nothing was flushed before its one untimed repetition, and --no-hold was
    taken without a word: neither changes a check. One hot row each, and a note."""
    out = tmp_path / "out"
    proc = harness("run", *QUICK[:-2], "--check", "--cache", "hot", "cold", "--no-hold",
                   "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        "note: --check verifies and times nothing: --cache --no-hold change nothing\n"
        in proc.stderr
    )
    rows = [json.loads(line) for line in (run_folder(out) / "journal.jsonl").open()]
    assert [(r["cache"], r["status"]) for r in rows] == [("hot", "ok")]


@pytest.mark.parametrize(("backends", "noted"), [(["cpu"], True), (["cpu", "opencl"], False)])
def test_no_hold_where_no_device_holds_a_queue_is_said_to_change_nothing(
    tmp_path: Path, backends: list[str], noted: bool
) -> None:
    """--no-hold on the cpu backend alone (or wgpu), whose repetitions no queue holds,
    was taken without a word, as an option that changes nothing should not be."""
    if "opencl" in backends:
        need_backend("opencl")
    proc = harness("run", "-k", "Stream_COPY", "-b", *backends, "--size", "100", "--reps",
                   "1", "--no-hold", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    note = (
        "note: --no-hold is for devices whose queue a repetition's launches are held in "
        "(OpenCL, CUDA); none is selected, so it changes nothing\n"
    )
    assert (note in proc.stderr) is noted


def test_a_lost_after_within_a_heartbeat_is_refused(tmp_path: Path) -> None:
    """--lost-after 0.1, under the half second between a rank's heartbeats, was taken:
    under mpirun each rank then took the other for lost as they planned ('rank 1 fell
    silent ... stopped, killed or hung'), none of them was, and the job ended 1."""
    from harness.api import run as api_run
    from harness.errors import UsageError

    said = (
        "argument --lost-after: '0.1' is out of range: give at least 1 (two of a rank's "
        "heartbeats, 0.5 s apart) and at most 604800 seconds (one week)"
    )
    proc = harness("run", *QUICK, "--lost-after", "0.1", "--out", str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"{said} (see 'harness run --help')"
    with pytest.raises(UsageError, match=re.escape(said)):
        api_run("Stream_COPY", "cpu", out=tmp_path, size=100, lost_after=0.1, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_a_note_every_rank_finds_as_it_plans_is_said_once(tmp_path: Path) -> None:
    """Under mpirun each rank printed its notes on the options (a value given twice,
    an option that changes nothing, a device without a peak), so a job of N ranks said
    each N times, their lines run together. Rank 0 says each once."""
    need_backend("opencl")
    out = tmp_path / "out"
    proc = harness_mpi("run", "-k", "Stream_COPY", "-b", "opencl", "--size", "100", "--reps", "1",
                "--precision", "f64", "f64", "--flush-bytes", "1MiB", "--out", str(out),
                ranks=3)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "note:" in line]
    assert notes[:2] == [
        "note: --precision f64 given more than once; each value runs once",
        "note: --flush-bytes is for cold rows (--cache cold); it is ignored",
    ]
    assert len(notes) == len(set(notes)), proc.stderr
    rows = [json.loads(line) for line in (run_folder(out) / "journal.jsonl").open()]
    assert sorted(r["rank"] for r in rows) == [0, 1, 2]


def test_an_mpi_resume_notes_the_options_it_ignores_and_names_damage_once(
    tmp_path: Path,
) -> None:
    """`mpirun harness run --resume RUN --reps 5` ignored --reps without a word (a resume
    in one process says so), and named the journal's damage (rows removed by hand)
    twice, as it read the journal twice."""
    need_backend("opencl")
    out = tmp_path / "out"
    proc = harness_mpi("run", "-k", "Stream_COPY", "Stream_ADD", "-b", "opencl", "--size", "100",
                "--reps", "1", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    journal = run / "journal.jsonl"
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:2]))
    meta = json.loads((run / "metadata.json").read_text())
    meta["interrupted"] = True
    (run / "metadata.json").write_text(json.dumps(meta))
    proc = harness_mpi("run", "--resume", str(run), "--reps", "5")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert "note: --resume runs with the run's own options; ignored here: --reps" in lines
    damage = [line for line in lines if "row(s) fewer than metadata.json counts" in line]
    assert len(damage) == 1, proc.stderr
    rows = [json.loads(line) for line in journal.open()]
    assert sorted((r["kernel"], r["rank"]) for r in rows) == [
        ("Stream_ADD", 0), ("Stream_ADD", 1), ("Stream_COPY", 0), ("Stream_COPY", 1)
    ]  # fmt: skip
    assert {r["reps"] for r in rows} == {1}


def test_an_mpi_run_that_meets_a_full_disk_names_a_resume_under_mpirun(tmp_path: Path) -> None:
    """An MPI run whose disk filled said to continue with ``harness run --resume RUN``,
    which refuses a run of MPI ranks; it names ``mpirun -n 2 harness run --resume``."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    need_backend("opencl")
    out = tmp_path / "out"
    proc = harness_mpi("run", "-k", "Stream_COPY", "Stream_ADD", "-b", "opencl", "--size", "100",
                "--reps", "1", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    cut_journal(run, 2)
    meta = json.loads((run / "metadata.json").read_text())
    meta.update(end=None, interrupted=True)
    (run / "metadata.json").write_text(json.dumps(meta))
    (run / "summary.txt").unlink()
    (run / "summary.txt.tmp").symlink_to("/dev/full")
    proc = harness_mpi("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert (
        f"harness: error: cannot write to run folder {run}: No space left on device; the rows "
        "finished so far are kept; free some space, then continue with: mpirun -n 2 harness "
        f"run --resume {run}"
    ) in proc.stderr.splitlines()
    proc = harness_mpi("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert len([line for line in (run / "journal.jsonl").open() if line.strip()]) == 4
    assert (run / "summary.txt").is_file()


def test_the_api_takes_a_numpy_boolean_as_the_bool_it_is(tmp_path: Path) -> None:
    """harness.run(in_process=np.True_), a value read from a DataFrame or an array, was
    refused with 'in_process=np.True_: expected True or False'; check=np.True_ was
    'invalid choice: True'. A numpy boolean of no dimension is that bool."""
    import numpy as np

    from harness.api import run as api_run
    from harness.api import run_arguments

    assert run_arguments({"in_process": np.True_, "hold": np.False_, "check": np.True_}) == [
        "--in-process", "--no-hold", "--check"
    ]  # fmt: skip
    rows = api_run("Stream_COPY", "cpu", out=tmp_path, size=100, reps=1,
                   in_process=np.True_, progress=np.False_)  # fmt: skip
    assert rows.attrs["exit_status"] == 0
    assert list(rows["status"]) == ["ok"]


def test_a_run_folder_given_as_out_is_refused(tmp_path: Path) -> None:
    """--out RUN, a run folder (for --resume RUN), made the new run inside it, where
    `harness show` of the folder of runs listed only the outer run: the new one was
    hidden. It is refused before any row, naming the folder of runs and the resume."""
    out = tmp_path / "runs"
    proc = harness("run", *QUICK, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    proc = harness("run", *QUICK, "--out", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--out {str(run)!r}: a run folder, in which a new run "
        f"would be hidden from its readers; give the folder that holds runs ({str(out)!r}), "
        f"or continue it with --resume {run}"
    )
    assert sorted(p.name for p in run.iterdir() if p.is_dir()) == []


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("2^63", "'2^63' is out of range: give 1 to 1e+18"),
        ("3^2", "'3^2' is not a size: give a whole number or 2^K"),
    ],
)
def test_size_takes_a_power_of_two_as_sizes_does(tmp_path: Path, given: str, said: str) -> None:
    """--sizes 2^10 ran, --size 2^10 was refused as 'not a whole number', and so was
    --size 2^63, a whole number past the largest size. --size takes 2^K; one too large
    is out of range, and other powers are named as no size."""
    out = tmp_path / "out"
    proc = harness("run", *QUICK[:4], "--size", "2^7", "--reps", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    (row,) = (json.loads(line) for line in (run_folder(out) / "journal.jsonl").open())
    assert row["size"] == 128
    proc = harness("run", *QUICK[:4], "--size", given, "--out", str(tmp_path / "other"))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"argument --size: {said} (see 'harness run --help')"


def _suite_with(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the example suite with ``old`` made ``new`` in its descriptions."""
    folder = tmp_path / "suite"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / "my_kernels", folder)
    path = folder / "kernels.py"
    path.write_text(path.read_text().replace(old, new))
    return path


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ('name="My_SAXPY"', 'name="Stream"', "kernel Stream: the suite has a group 'Stream', "
         "which -k would choose with it; give the kernel another name"),
        ('group="My",', 'group="Stream_COPY",', "kernel My_SAXPY: group 'Stream_COPY': the "
         "suite has a kernel 'Stream_COPY', which -k would choose with it; give the group "
         "another name"),
    ],
)  # fmt: skip
def test_a_user_kernel_or_group_named_as_the_other_of_another_is_refused(
    tmp_path: Path, old: str, new: str, said: str
) -> None:
    """A user kernel named Stream, or a user group named Stream_COPY, was taken: then
    `-k Stream_COPY` ran the user's group beside the kernel asked for, and `-k Stream`
    the user's kernel beside the group, mixed in one run. Each is refused."""
    path = _suite_with(tmp_path, old, new)
    out = tmp_path / "out"
    proc = harness("run", "--suite", str(path), *QUICK, "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--suite {path}: {said}"
    assert not out.exists()


def test_an_exclusion_that_leaves_out_nothing_selected_is_said_to_change_nothing(
    tmp_path: Path,
) -> None:
    """`-k Stream_COPY -x Basic_DAXPY` left out a kernel -k never chose, without a word,
    as if the run had been narrowed by it. The value that changes nothing is named."""
    proc = harness("run", *QUICK, "-x", "Basic_DAXPY", "Stream", "--out", str(tmp_path))
    assert proc.returncode == 2, proc.stderr  # -x Stream leaves nothing
    proc = harness("run", "-k", "Stream_COPY", "Stream_ADD", *QUICK[2:], "-x", "Basic_DAXPY",
                   "Stream_ADD", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        "note: -x Basic_DAXPY leaves out no kernel -k selects, so it changes nothing\n"
        in proc.stderr
    )
    rows = [json.loads(line) for line in (run_folder(tmp_path) / "journal.jsonl").open()]
    assert [r["kernel"] for r in rows] == ["Stream_COPY"]

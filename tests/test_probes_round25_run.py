"""Hostile probes, round 25: `harness run`'s counts and resumes, its signals, and the
Python API that goes through it (`harness.api`). Each test says what was wrong before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import cut_journal, harness, need_backend, one_error, one_quick_run, run_folder

from harness.api import run as api_run
from harness.errors import UsageError
from harness.execution.runner import Task, default_timeout

QUICK = ("-k", "Stream_COPY", "-b", "cpu", "--size", "100")


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--warmup", "1000000000000000000", "give 0 to 1000000 (repetitions of one row)"),
        ("--warmup", "-1", "give 0 to 1000000 (repetitions of one row)"),
        ("--reps", "1000000000000000000", "give 1 to 1000000 (repetitions of one row)"),
        ("--reps", "9" * 30, "give 1 to 1000000 (repetitions of one row)"),
        ("--min-samples", "10001", "give 1 to 10000 (the most samples a row takes)"),
    ],
)
def test_a_count_no_row_can_take_is_refused_before_any_work(
    tmp_path: Path, option: str, value: str, said: str
) -> None:
    """--warmup 10^18 ran for ever (under --in-process, where no timeout acts, and in a
    worker until its timeout made the row an error), and --reps 10^18 filled the
    host's memory with samples as it did; --min-samples over the 10000 samples a row
    takes was taken and never met, every row's noise left unjudged. Each is refused."""
    out = tmp_path / "out"
    proc = harness("run", *QUICK, option, value, "--in-process", "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"argument {option}: {value!r} is out of range: {said} (see 'harness run --help')"
    )
    assert not out.exists()


def test_the_api_refuses_a_count_no_row_can_take(tmp_path: Path) -> None:
    """harness.run(warmup=10**18) ran for ever as the command line did."""
    with pytest.raises(UsageError, match=r"argument --warmup: '1000000000000000000' is out"):
        api_run("Stream_COPY", "cpu", size=100, warmup=10**18, out=tmp_path, in_process=True)
    assert list(tmp_path.iterdir()) == []


def test_a_resume_keeps_a_damaged_count_out(tmp_path: Path) -> None:
    """A run whose metadata held warmup 10^18 (damage: no run writes it now) was
    resumed with it, and its rows ran for ever."""
    run = one_quick_run(tmp_path / "runs")
    cut_journal(run, 0)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["options"]["warmup"] = 10**18
    meta["interrupted"] = True
    path.write_text(json.dumps(meta))
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--resume: {path}: options.warmup is {10**18}; a whole number from 0 to 1000000 "
        "is accepted"
    )


def test_an_in_process_resume_of_a_run_of_workers_says_so_in_its_metadata(
    tmp_path: Path,
) -> None:
    """`--resume RUN --in-process` ran the rows left in this process, but the run's
    metadata came out as a worker resume's would: nothing said that some of its rows
    ran in-process. The resume is named in ``resumed_in_process``, while the run's own
    options stay its own."""
    out = tmp_path / "runs"
    proc = harness("run", "-k", "Stream_COPY", "Stream_ADD", "-b", "cpu", "--size", "100",
                   "--reps", "2", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    workers = shutil.copytree(run, tmp_path / "workers")
    for folder in (run, workers):
        cut_journal(folder, 1)
        path = folder / "metadata.json"
        meta = json.loads(path.read_text())
        meta["interrupted"] = True
        path.write_text(json.dumps(meta))
    proc = harness("run", "--resume", str(run), "--in-process")
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((run / "metadata.json").read_text())
    assert meta["resumed_in_process"] == meta["resumed"]
    assert meta["options"]["in_process"] is False
    proc = harness("run", "--resume", str(workers))
    assert proc.returncode == 0, proc.stderr
    assert "resumed_in_process" not in json.loads((workers / "metadata.json").read_text())


@pytest.mark.parametrize("name", ["resumed", "resumed_in_process"])
def test_a_resume_names_a_damaged_list_of_resumes(tmp_path: Path, name: str) -> None:
    """A run whose metadata held 'resumed': "x" (text where a resume appends its
    time) ended its resume in a traceback, AttributeError: 'str' object has no
    attribute 'append'. The field is named, before any row."""
    run = one_quick_run(tmp_path / "runs")
    cut_journal(run, 0)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta.update({name: "x", "interrupted": True})
    path.write_text(json.dumps(meta))
    proc = harness("run", "--resume", str(run), "--in-process")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--resume: {path}: {name!r} is 'x'; a list of times as 2026-01-31T12:00:00+0000 "
        "(when each resume began) is accepted"
    )


@pytest.mark.parametrize(
    "args", [["--max-time", "10", "--timeout", "5"], ["--max-time", "5", "--timeout", "5"]]
)
def test_a_timeout_within_the_row_s_timing_is_refused(tmp_path: Path, args: list[str]) -> None:
    """--max-time 10 --timeout 5 ran, and every row whose noise was not met in 5 s was
    killed as an error row, 'timed out after 5 s': no row could use the time asked
    for. Refused before any work."""
    out = tmp_path / "out"
    proc = harness("run", *QUICK, *args, "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--max-time {args[1]} with --timeout {args[3]}: a row still timing when its timeout "
        "ends is killed, and is an error row; give a --timeout above --max-time (a row "
        "compiles, warms up and verifies besides)"
    )
    assert not out.exists()


def test_the_default_timeout_covers_the_row_s_timing() -> None:
    """A row's default timeout was 120 s whatever its --max-time: under --max-time 300 a
    row whose noise stayed above its target was killed at 2 minutes, an error row."""
    task = Task(kernel="Stream_COPY", backend="cpu", device=0, size=1_000_000, precision="f64")
    assert default_timeout(task) == 130
    assert default_timeout(task, "cpu", 300.0) == 430
    assert default_timeout(task, "simulator", 300.0) == 1600


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            {"sizes": [[100, 200]]},
            "sizes=[[100, 200]]: [100, 200] is a collection within it; give its values as one "
            "flat collection",
        ),
        (
            {"kernels": [None]},
            "kernels=[None]: None among its values; give each value, or None alone for the default",
        ),
    ],
)
def test_the_api_names_a_value_inside_a_collection_that_is_none_or_another(
    tmp_path: Path, options: dict, said: str
) -> None:
    """harness.run(sizes=[[100, 200]]) was refused as "argument --sizes: '[100' is not a
    size", a fragment of the list's text, and kernels=[None] as "no kernel matches
    'None'": neither is what the caller gave. Each names the item."""
    with pytest.raises(UsageError) as raised:
        api_run(**{"kernels": "Stream_COPY", "backends": "cpu", **options}, out=tmp_path)
    assert str(raised.value) == said
    assert list(tmp_path.iterdir()) == []


def test_a_warm_up_under_fixed_reps_is_not_said_to_change_nothing(tmp_path: Path) -> None:
    """--reps 2 --warmup 50 said 'note: --reps 2 sets each row's repetitions: --warmup
    changes nothing', though the 50 warm-up repetitions ran before the 2 timed ones
    (the row's warmup column says 50). Only the options --reps overrules are named."""
    out = tmp_path / "out"
    proc = harness("run", *QUICK, "--reps", "2", "--warmup", "50", "--max-time", "1",
                   "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "note: --reps 2 sets each row's repetitions: --max-time changes nothing\n" in (
        proc.stderr
    )
    assert "--warmup changes" not in proc.stderr
    (row,) = (json.loads(line) for line in (run_folder(out) / "journal.jsonl").open())
    assert (row["warmup"], row["reps"]) == (50, 2)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--max-time", "0.2", "--budget", "10"],
            "note: --max-time 0.2 sets each row's time: --budget 10 changes nothing",
        ),
        (
            ["--max-time", "0.2", "--lost-after", "5"],
            "note: --lost-after 5 is for the ranks of a run under mpirun; this run has none, "
            "so it changes nothing",
        ),
    ],
)
def test_an_option_the_run_has_no_use_for_is_said_to_change_nothing(
    tmp_path: Path, args: list[str], said: str
) -> None:
    """--budget beside --max-time, and --lost-after outside mpirun, were taken without a
    word, though neither changed anything: a user tuning them saw no effect, unexplained."""
    proc = harness("run", *QUICK, *args, "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert said in proc.stderr.splitlines()


def test_a_resume_names_a_damaged_journal_line_once_before_and_once_at_its_end(
    tmp_path: Path,
) -> None:
    """A resume of a run whose journal held a damaged line named it four times: twice
    before its first row (the cut rows sought, then the rows done) and twice at its end
    (the summary's rows, then results.csv's). Once each now."""
    run = one_quick_run(tmp_path / "runs")
    journal = cut_journal(run, 1)
    with journal.open("a") as lines:
        lines.write("garbage\n")
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["interrupted"] = True
    path.write_text(json.dumps(meta))
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    warning = f"warning: {journal}:2: skipped a torn or corrupt line: not JSON (Expecting value)"
    before, after = proc.stderr.split("\nrun folder: ", 1)
    assert before.splitlines().count(warning) == 1, proc.stderr
    assert after.splitlines().count(warning) == 1, proc.stderr


def test_a_run_of_a_flush_past_the_device_s_memory_can_be_resumed(tmp_path: Path) -> None:
    """--flush-bytes takes up to 2^128 (a cold row flushes what its device holds, and
    says so), but a resume refused the run's own metadata holding it as damage:
    'options.flush_bytes is 1267650600228229401496703205376; null or a whole number
    from 1 to 1e+18 is accepted'. The run could not be finished."""
    out = tmp_path / "runs"
    proc = harness("run", *QUICK, "--check", "--cache", "cold", "--flush-bytes", "2^100",
                   "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    cut_journal(run, 0)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    assert meta["options"]["flush_bytes"] == 2**100
    meta["interrupted"] = True
    path.write_text(json.dumps(meta))
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    (row,) = (json.loads(line) for line in (run / "journal.jsonl").open())
    # A check's rows are hot: its one repetition has no flush before it.
    assert (row["kernel"], row["status"], row["cache"]) == ("Stream_COPY", "ok", "hot")


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"size": [100, 200]}, "size=[100, 200]: --size takes one value; give one, not 2"),
        ({"reps": [1, 2]}, "reps=[1, 2]: --reps takes one value; give one, not 2"),
    ],
)
def test_the_api_refuses_several_values_for_an_option_of_one(
    tmp_path: Path, options: dict, said: str
) -> None:
    """harness.run(size=[100, 200]) joined the list with a comma, as for sizes=, and
    was refused as "argument --size: '100,200' is not a whole number", a value the
    caller never gave; a sweep of several sizes is what sizes= is for."""
    with pytest.raises(UsageError) as raised:
        api_run("Stream_COPY", "cpu", **options, out=tmp_path)
    assert str(raised.value) == said
    assert list(tmp_path.iterdir()) == []


def test_a_long_sample_time_keeps_a_row_within_its_max_time(tmp_path: Path) -> None:
    """--sample-time 10 --max-time 0.5 batched 512 repetitions of 7 ms into each sample
    and timed the row for 24 s, though the plan said 'each timed for 0.25 to 0.5 s'. A
    sample now holds few enough repetitions that the three a row takes fit its budget."""
    out = tmp_path / "out"
    proc = harness("run", "-k", "Basic_DAXPY", "-b", "cpu", "--size", "1000000",
                   "--sample-time", "10", "--max-time", "0.4", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = (json.loads(line) for line in (run_folder(out) / "journal.jsonl").open())
    assert row["batch"] > 1
    assert row["batch"] * row["time_median_s"] <= 0.4, row
    assert row["timed_wall_s"] < 4.0, row


def test_a_resume_keeps_what_its_run_built_ahead(tmp_path: Path) -> None:
    """A resume that built nothing ahead (one row left) wrote 'built_ahead': null over
    its run's record of the kernels it built first and the host time that took."""
    need_backend("opencl")
    out = tmp_path / "runs"
    proc = harness("run", "-k", "Stream_COPY", "Stream_ADD", "-b", "opencl", "--max-time",
                   "0.2", "--min-time", "0.05", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    cut_journal(run, 1)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    built = meta["built_ahead"]
    assert (built["kernels"], built["built"]) == (2, 2)
    meta["interrupted"] = True
    path.write_text(json.dumps(meta))
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(path.read_text())["built_ahead"] == built

"""Hostile probes, round 32: a description whose reference is NaN throughout, and
a backend whose driver found no device but whose simulator is listed."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import (
    copy_run,
    cut_journal,
    finished_run,
    harness,
    mpi_env,
    mpirun,
    need_backend,
    rank_pid,
    run_folder,
)

from harness.cli import run

QUICK = ("-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--reps", "3")
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "my_kernels"


def _variant(tmp_path: Path, lines: str) -> Path:
    """A copy of the example suite whose My_SAXPY is changed by ``lines`` (S: the
    kernel, built from SAXPY)."""
    folder = shutil.copytree(EXAMPLE, tmp_path / "suite")
    kernels = folder / "kernels.py"
    head, _ = kernels.read_text().split("\nKERNELS", 1)
    kernels.write_text(f"{head}\nimport dataclasses\n{lines}\nKERNELS = (S,)\n")
    return kernels


def _error_row(kernels: Path, out: Path) -> dict:
    """The one row of My_SAXPY from ``kernels`` run on the cpu at 1000 elements,
    which must be an error row (and the run's status 1)."""
    proc = harness(
        "run", "--suite", str(kernels), "-k", "My_SAXPY", "-b", "cpu", "--size", "1000",
        "--reps", "3", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    row = json.loads((run_folder(out) / "journal.jsonl").read_text())
    assert row["status"] == "error"
    return row


def test_a_reference_of_nans_throughout_is_an_error_row_not_a_verified_one(
    tmp_path: Path,
) -> None:
    """Inputs all NaN gave a reference all NaN, which a NaN written anywhere
    matched: the row was ok, and verified nothing. It is an error row now."""
    kernels = _variant(
        tmp_path,
        "def _nans(size, seed, precision):\n"
        "    return {'x': np.full(size, np.nan), 'y': np.full(size, np.nan), 'a': 2.5}\n"
        "S = dataclasses.replace(SAXPY, init=_nans)",
    )
    row = _error_row(kernels, tmp_path / "out")
    assert (
        "My_SAXPY: reference gives NaN for every element of 'y', so nothing in it would "
        "be verified; give inputs from which it computes numbers"
    ) in row["reason"]


def test_a_backend_left_with_its_simulator_alone_names_it_and_how_to_choose_it(
    tmp_path: Path,
) -> None:
    """With PoCL finding no device, `-b opencl` said only "no backend is available",
    though `harness devices` listed the simulator. The one line now names the
    device that is there, why it does not run by default, and --device."""
    need_backend("opencl")
    listed = harness("devices", "--json", env={"POCL_DEVICES": "none-such"})
    devices = {d["id"] for b in json.loads(listed.stdout) if b["backend"] == "opencl"
               for d in b["devices"]}  # fmt: skip
    if devices != {"opencl:0"}:
        pytest.skip(f"this machine's OpenCL lists {sorted(devices)} with PoCL off")
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "opencl", "--size", "1000", "--out", str(tmp_path),
        env={"POCL_DEVICES": "none-such"},
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "harness: error: no device runs by default here: opencl:0 (Oclgrind Simulator) is "
        "not used by default: a simulator that reports data races and out-of-bounds "
        "accesses, far slower than any device; name one with --device (see 'harness devices')"
    )
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("cases", "said"),
    [
        ("[1, 2]", "check_cases[0] is 1: give CheckCase(name, init, why) items"),
        ("(CheckCase('timed', _ok, 'w'),)",
         "check_cases[0] is named 'timed': give each check case a name of its own, "
         "other than 'timed' and 'stale'"),
        ("(CheckCase('a', _ok, 'w'), CheckCase('a', _ok, 'w'))",
         "check_cases[1] is named 'a': give each check case a name of its own"),
        ("(CheckCase('a', 5, 'w'),)",
         "check_cases[0] (a) has init 5: give a function of (size, seed, precision) "
         "returning the inputs"),
    ],
    ids=["not-cases", "timed", "twice", "no-init"],
)  # fmt: skip
def test_check_cases_a_timed_run_never_reads_are_refused_as_the_suite_loads(
    tmp_path: Path, cases: str, said: str
) -> None:
    """Check cases of the wrong kind were found only by a --check run; a timed run
    of the same description passed. They are refused as the suite loads now,
    with the item named, before any row."""
    kernels = _variant(
        tmp_path,
        "from harness.model.spec import CheckCase\n"
        f"_ok = SAXPY.init\nS = dataclasses.replace(SAXPY, check_cases={cases})",
    )
    proc = harness(
        "run", "--suite", str(kernels), "-k", "My_SAXPY", "-b", "cpu", "--size", "1000",
        "--reps", "3", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"harness: error: --suite {kernels}: kernel My_SAXPY: {said}")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_rank_0_stopped_as_it_starts_ends_the_job_at_once(tmp_path: Path) -> None:
    """Rank 0 took Ctrl-C as it started and exited 130; rank 1, by then waiting
    in MPI_Init for it, took the launcher's SIGTERM only when the wait returned,
    which an alarm ended 31 s later (status 142, by SIGALRM). The stop now ends
    the waiting rank at once, and the job exits 130."""
    command = [
        mpirun(), "-n", "2", "--oversubscribe", sys.executable, "-m", "harness", "run",
        "-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--reps", "2",
        "--out", str(tmp_path),
    ]  # fmt: skip
    job = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mpi_env()
    )
    deadline = time.monotonic() + 60
    pids = [None, None]
    while None in pids:
        assert time.monotonic() < deadline and job.poll() is None, job.communicate()[1][-3000:]
        pids = [rank_pid(0, tmp_path), rank_pid(1, tmp_path)]
    # Rank 1 held, so that rank 0 waits for it in MPI_Init, and is stopped there.
    os.kill(pids[1], signal.SIGSTOP)
    time.sleep(3)
    os.kill(pids[0], signal.SIGINT)
    time.sleep(0.5)
    os.kill(pids[1], signal.SIGCONT)
    sent = time.monotonic()
    try:
        _, err = job.communicate(timeout=120)
    finally:
        job.kill()
    assert time.monotonic() - sent < 20, err[-3000:]
    assert job.returncode == 130, err[-3000:]
    assert "Traceback" not in err and "signal 14" not in err


def test_a_damaged_second_row_of_a_case_in_the_new_run_fails_compare(tmp_path: Path) -> None:
    """A new run holding a second row of a case, damaged (its GB/s not its bytes
    over its time), was compared on its first row and passed: the damaged line is
    skipped, and may be a failed second measurement. compare now fails on it, as
    on a clean second row of a case."""
    base = finished_run(tmp_path / "base", *QUICK)
    new = copy_run(base, tmp_path / "new")
    journal = new / "journal.jsonl"
    row = json.loads(journal.read_text().splitlines()[0])
    row["time_median_s"] *= 1.01
    with journal.open("a") as out:
        out.write(json.dumps(row) + "\n")
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 1, proc.stderr
    assert (
        f"fail: {journal} has 1 damaged line(s) (2): each may be a row of a case it also "
        "holds, so the comparison cannot pass"
    ) in proc.stderr
    assert f"{journal}:2: skipped a torn or corrupt line: 'gbytes_per_s'" in proc.stderr


@pytest.mark.parametrize(
    ("reference", "said"),
    [
        ("def _ref(x):\n    x['x'][:] = 0\n    return {'y': np.float64(x['y']).copy()}",
         "My_SAXPY: reference writes into its inputs (assignment destination is read-only); "
         "it computes its outputs into arrays of its own (copy an input it updates)"),
        ("def _ref(x):\n    y = x['y']\n    y += float(x['a']) * x['x']\n    return {'y': y}",
         "My_SAXPY: reference writes into its inputs (output array is read-only)"),
        ("def _ref(x):\n    return {'y': np.zeros(3)}",
         "My_SAXPY: reference gives 3 elements for 'y', which holds 1000 at this size"),
        ("def _ref(x):\n    return {'y': (x['a'] * x['x'] + x['y']).astype(np.int64)}",
         "My_SAXPY: reference gives int64 values for 'y'; give floating-point numbers"),
        ("def _ref(x):\n    return {'y': np.array(['a'] * 1000, dtype=object)}",
         "My_SAXPY: reference gives object values for 'y'; give floating-point numbers"),
    ],
    ids=["changes-x", "in-place", "shape", "integers", "objects"],
)  # fmt: skip
def test_a_reference_that_is_wrong_in_form_is_a_description_error_not_a_kernel_failure(
    tmp_path: Path, reference: str, said: str
) -> None:
    """A reference that zeroed x in place had the kernel timed and checked on
    x = 0, and a wrong reference passed; one written in place (y += a x) failed
    the kernel; one of the wrong length or of integers failed the kernel too, and
    an object array gave numpy's own error. Each is a description error now."""
    kernels = _variant(tmp_path, f"{reference}\nS = dataclasses.replace(SAXPY, reference=_ref)")
    row = _error_row(kernels, tmp_path / "out")
    assert row["reason"].startswith(f"description error: {said}")


def test_samples_whose_median_is_not_their_rows_are_damage(tmp_path: Path) -> None:
    """A samples line of one-second samples beside a row whose median was 3 µs
    was merged and plotted as the row's: only its kernel, device and count were
    checked. Its median must be the row's now, or the line is skipped as damage."""
    first = finished_run(tmp_path / "run", *QUICK)
    run = copy_run(first, tmp_path / "copy")
    path = run / "samples.jsonl"
    line = json.loads(path.read_text())
    line["samples_ns"] = [10**9] * len(line["samples_ns"])
    path.write_text(json.dumps(line) + "\n")
    proc = harness("merge", str(first), str(run), "--out", str(tmp_path / "merged"))
    assert proc.returncode == 0, proc.stderr
    median = json.loads((run / "journal.jsonl").read_text())["time_median_s"]
    assert (
        f"warning: {path}:1: skipped a damaged line: its samples' median is 1 s, but line 1 "
        f"of the journal has a median of {median:.4g} s"
    ) in proc.stderr
    kept = (run_folder(tmp_path / "merged") / "samples.jsonl").read_text().splitlines()
    assert [json.loads(k)["row"] for k in kept] == [1]


def test_a_device_name_in_a_report_heading_is_inert_markdown(tmp_path: Path) -> None:
    """The table cells of report.md escaped a device's name, but the heading of its
    across-APIs table held it raw: '<script>' and '|' went into the Markdown."""
    need_backend("opencl")
    run = copy_run(
        finished_run(tmp_path / "run", "-k", "Stream_TRIAD", "-b", "cpu", "opencl",
                     "--size", "1000", "--reps", "3"),
        tmp_path / "copy",
    )  # fmt: skip
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        row["device"] = "<b>x</b>|y"
    journal.write_text("".join(json.dumps(row) + "\n" for row in rows))
    proc = harness("report", str(run), "--out", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert any("Across APIs" in line for line in headings), headings
    assert not any(re.search(r"(?<!\\)[<|]", line) for line in headings), headings
    assert "## Across APIs: host CPU (\\<b>x\\</b>\\|y)" in text


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--fma-size", "2^9", "--fma-size 512: too small to measure a peak at; give at least 1024"),
        ("--bandwidth-size", "2^3",
         "--bandwidth-size 8: too small to measure a peak at; give at least 65536"),
        ("--fma-size", "2^x",
         "argument --fma-size: '2^x' is not a size: give a whole number or 2^K"),
    ],
)  # fmt: skip
def test_peak_sizes_take_the_power_of_two_form_its_help_gives(
    tmp_path: Path, option: str, value: str, said: str
) -> None:
    """peak's help gives its default sizes as 2^20 and 2^25, but refused
    '--fma-size 2^20' as not a whole number; it takes 2^K as run's --size does."""
    proc = harness(
        "peak", option, value, "--device", "cpu:0", env={"XDG_CACHE_HOME": str(tmp_path)}
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"harness: error: {said}"), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_resume_by_other_code_says_so_and_records_it(tmp_path: Path) -> None:
    """A run resumed after the harness changed kept the first version and commit in
    its metadata for every row, without a word: rows of two codes under one label.
    The resume now warns, naming both, and records the code it ran the rest with."""
    run = finished_run(
        tmp_path, "-k", "Stream_TRIAD", "Stream_COPY", "-b", "cpu", "--size", "1000",
        "--reps", "3",
    )  # fmt: skip
    cut_journal(run, 1)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta.update(harness_version="0.0.1", interrupted=True)
    path.write_text(json.dumps(meta, indent=2))
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    now = json.loads(path.read_text())
    assert now["harness_version"] == "0.0.1"
    (entry,) = now["resumed_with"]
    assert entry["harness_version"] != "0.0.1" and entry["at"] == now["resumed"][-1]
    assert (
        f"warning: --resume: {run} began with harness_version '0.0.1', now "
        f"'{entry['harness_version']}': the rows left are measured by this code, and the "
        "run says so (resumed_with)"
    ) in proc.stderr
    assert len((run / "journal.jsonl").read_text().splitlines()) == 2


def test_an_imported_line_repeated_with_other_values_names_them(tmp_path: Path) -> None:
    """A run-data or details line repeated with another time or count said only
    "repeats ... skipped", as for a line copied whole: the user was not told that
    the two disagree, nor which one the import kept."""
    folder = shutil.copytree(EXAMPLE.parent.parent / "tests" / "fixtures" / "rajaperf_output",
                             tmp_path / "raja")  # fmt: skip
    data = folder / "RAJAPerf-kernel-run-data.csv"
    lines = data.read_text().splitlines(keepends=True)
    data.write_text("".join([*lines, lines[2], lines[2].replace("2.00000e-05", "9.00000e-05")]))
    details = folder / "RAJAPerf-kernel-details.csv"
    counts = details.read_text().splitlines(keepends=True)
    details.write_text("".join([*counts, counts[2].replace(" 1600000 ,", " 1700000 ,", 1)]))
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    warnings = proc.stderr.splitlines()
    assert (
        f"warning: {details}:{len(counts) + 1}: repeats Stream_COPY of line 3 with other "
        "values ('BytesMoved/rep'): skipped; the first is kept"
    ) in warnings, proc.stderr
    assert (
        f"warning: {data}:{len(lines) + 1}: repeats Stream_COPY Base_Seq default of line 3: skipped"
    ) in warnings, proc.stderr
    assert (
        f"warning: {data}:{len(lines) + 2}: repeats Stream_COPY Base_Seq default of line 3 with "
        "other values ('Mean time per rep (sec.)'): skipped; the first is kept"
    ) in warnings, proc.stderr
    rows = [json.loads(line) for line in
            (run_folder(tmp_path / "out") / "journal.jsonl").read_text().splitlines()]  # fmt: skip
    copy = [r for r in rows if r["kernel"] == "Stream_COPY" and r["device"] == "Base_Seq default"]
    assert [r["time_median_s"] for r in copy] == [2e-05]
    assert copy[0]["bytes_per_rep"] == 1600000


def test_a_suite_that_sets_the_standard_streams_to_none_leaves_the_command_its_own(
    tmp_path: Path,
) -> None:
    """A suite file that set sys.stdout to None as it was imported ended list and
    run in a traceback (status 1) when they wrote their table: the streams are the
    command's again once the file is read, as its working folder is."""
    kernels = _variant(tmp_path, "import sys\nsys.stdout = sys.stderr = None\nS = SAXPY")
    listed = harness("list", "--suite", str(kernels))
    assert listed.returncode == 0, listed.stderr
    assert "My_SAXPY" in listed.stdout and "Traceback" not in listed.stderr
    proc = harness(
        "run", "--suite", str(kernels), "-k", "My_SAXPY", "-b", "cpu", "--size", "1000",
        "--reps", "3", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "1 ok, 0 fail, 0 error" in proc.stdout
    assert f"run folder: {run_folder(tmp_path / 'out')}" in proc.stderr


def _signalled(stop: run._RankStop, signum: int = signal.SIGTERM) -> None:
    """Send this process ``signum`` and give ``stop``, its handler, the moment to run."""
    before = len(stop.received)
    os.kill(os.getpid(), signum)
    deadline = time.monotonic() + 5
    while len(stop.received) == before and time.monotonic() < deadline:
        time.sleep(0.001)


def test_an_mpi_ranks_stop_signals_keep_one_handler_to_the_runs_end(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Rank 0 swapped handlers once its last row was counted, and a SIGTERM in between
    ended the job 'rank 0 interrupted' with the run's end unwritten (metadata with no
    'interrupted'). One handler now holds the run from its first row to its end: each
    signal while a row is measured raises, one while a row is written is taken once it
    is counted, and any once every row is in is noted, and said once, with nothing
    raised."""
    writing = run._RankStop()
    with run._handling(writing):
        writing.cuttable = False
        _signalled(writing)
        with pytest.raises(KeyboardInterrupt):
            writing.written()
        assert writing.cuttable is False
        _signalled(writing, signal.SIGINT)
    assert writing.received == [signal.SIGTERM, signal.SIGINT]

    measuring = run._RankStop()
    with run._handling(measuring):
        for _ in range(2):
            with pytest.raises(KeyboardInterrupt):
                _signalled(measuring)

    ending = run._RankStop()
    with run._handling(ending):
        ending.cuttable = False
        _signalled(ending)
        ending.end()
        _signalled(ending, signal.SIGINT)
        _signalled(ending)
    assert ending.received == [signal.SIGTERM, signal.SIGINT, signal.SIGTERM]
    assert capsys.readouterr().err.count("SIGTERM: every row has run; ending the run") == 1

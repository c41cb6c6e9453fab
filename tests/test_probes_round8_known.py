"""Hostile-user probes, eighth round, the ones the seventh left open: a user suite
that exits or raises where the harness calls it, a standard output on a full
disk at the end of a finished run, a journal that measures one case twice, a
samples line that names another row's kernel, and a peaks store that is some
other JSON file."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import copy_run, finished_run, harness, need_backend, one_error

from harness.execution import peaks, results

QUICK = ["-k", "Stream_TRIAD", "Stream_COPY", "-b", "cpu", "--size", "1000"]
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "my_kernels"
SAXPY_BODY = "    y[:n] += a * x[:n]\n"
SAXPY_PLAN = '    return [Launch("saxpy", size, 256, ("x", "y", "a", "n"), {"n": size})]\n'


def _suite(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the example suite with ``old`` (once in kernels.py) made ``new``."""
    folder = tmp_path / "suite"
    shutil.copytree(EXAMPLE, folder)
    path = folder / "kernels.py"
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    return path


def test_a_suite_given_as_a_folder_is_named_as_one(tmp_path: Path) -> None:
    """--suite FOLDER said 'no such file', of a folder that is there."""
    proc = harness("list", "--suite", str(tmp_path))
    assert proc.returncode == 2
    assert one_error(proc.stderr) == (
        f"--suite {tmp_path}: is a folder; give the Python file that defines KERNELS"
    )


def test_a_suite_whose_plan_raises_is_one_line_naming_the_kernel_and_line(
    tmp_path: Path,
) -> None:
    """A plan that raised as the suite was checked was a traceback."""
    path = _suite(tmp_path, SAXPY_PLAN, '    raise ValueError("no plan yet")\n')
    line = path.read_text().splitlines().index('    raise ValueError("no plan yet")') + 1
    proc = harness("list", "--suite", str(path))
    assert proc.returncode == 2
    assert one_error(proc.stderr) == (
        f"--suite {path}: kernel My_SAXPY: line {line}: ValueError: no plan yet"
    )


@pytest.mark.parametrize("where", ["worker", "in-process"])
def test_a_suite_function_that_exits_is_its_rows_error(where: str, tmp_path: Path) -> None:
    """sys.exit in a kernel's numpy function crashed its worker ('worker crashed:
    exit code 3'), and with --in-process ended the whole run without a table."""
    path = _suite(tmp_path, SAXPY_BODY, "    raise SystemExit(3)\n")
    line = path.read_text().splitlines().index("    raise SystemExit(3)") + 1
    args = ["--suite", str(path), "-k", "My_SAXPY", "My_STENCIL2D", "-b", "cpu"]
    args += ["--size", "1000", "--reps", "3", "--out", str(tmp_path / "out")]
    proc = harness("run", *args, *(["--in-process"] if where == "in-process" else []))
    assert proc.returncode == 1, proc.stderr
    (folder,) = (tmp_path / "out").iterdir()
    rows = {r["kernel"]: r for r in results.read_journal(folder)}
    assert rows["My_SAXPY"]["status"] == "error"
    assert rows["My_SAXPY"]["reason"] == f"SystemExit: 3 (kernels.py:{line})"
    assert rows["My_STENCIL2D"]["status"] == "ok"
    assert "1 ok, 0 fail, 1 error" in proc.stdout


def test_a_finished_run_whose_table_cannot_be_printed_keeps_its_rows_status(
    tmp_path: Path,
) -> None:
    """harness run > /dev/full ran every row, then exited 2 as if the input were bad."""
    out = tmp_path / "out"
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "harness", "run", *QUICK, "--reps", "3", "--out", str(out)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "XDG_RUNTIME_DIR": "/tmp"},
            timeout=300,
        )
    assert proc.returncode == 0, proc.stderr
    (folder,) = out.iterdir()
    assert proc.stderr.splitlines()[-1] == (
        "harness: warning: cannot write the standard output (No space left on device); "
        f"the run is complete, its table in {folder / results.SUMMARY}"
    )
    assert "2 ok, 0 fail, 0 error" in (folder / results.SUMMARY).read_text()
    with (folder / results.RESULTS).open() as f:
        assert [r["status"] for r in csv.DictReader(f)] == ["ok", "ok"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two finished runs of QUICK (a run to damage, one to merge it with)."""
    one = finished_run(tmp_path_factory.mktemp("one"), *QUICK, "--reps", "3")
    other = finished_run(tmp_path_factory.mktemp("other"), *QUICK, "--reps", "3")
    return one, other


def test_a_journal_that_measures_a_case_twice_is_read_once_and_named(
    two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """A row appended for a case the journal already has (a journal joined or
    edited by hand): compare kept the last, export summed both."""
    run = copy_run(two_runs[0], tmp_path)
    journal = run / results.JOURNAL
    lines = journal.read_text().splitlines()
    first = json.loads(lines[0])
    # Another measurement of the same case: every time three times the first's.
    again = {k: v * 3 if k.startswith("time_") else v for k, v in first.items()}
    again.update({k: first[k] / 3 for k in ("gbytes_per_s", "gflops_per_s") if k in first})
    journal.write_text("\n".join([*lines, json.dumps(again)]) + "\n")
    warning = (
        f"warning: {journal}:3: skipped a row that measures the case of line 1 again "
        f"({again['kernel']} f64 n=1000 on cpu:0): a run measures each case once, so its "
        "first row is the one read"
    )
    proc = harness("compare", str(run), str(two_runs[1]))
    assert warning in proc.stderr.splitlines()
    assert proc.stdout.count(again["kernel"]) == 1
    frame_rows = results.read_journal(run)
    assert len(frame_rows) == 2
    assert frame_rows[0]["time_median_s"] == first["time_median_s"]
    proc = harness("export", str(run), "--thicket", "--out", str(tmp_path / "x"))
    assert proc.returncode == 0, proc.stderr
    assert warning in proc.stderr.splitlines()


def test_a_samples_line_of_another_kernel_is_not_given_to_its_row(
    two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """samples.jsonl's line for row 1 naming another kernel gave that kernel's
    times to row 1 when runs were merged."""
    run = copy_run(two_runs[0], tmp_path)
    samples = run / results.SAMPLES
    lines = samples.read_text().splitlines()
    first = json.loads(lines[0])
    other = next(k for k in ("Stream_TRIAD", "Stream_COPY") if k != first["kernel"])
    lines[0] = json.dumps({**first, "kernel": other})
    samples.write_text("\n".join(lines) + "\n")
    proc = harness("merge", str(run), str(two_runs[1]), "--out", str(tmp_path / "m"))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"warning: {samples}:1: skipped a damaged line: it holds samples of {other} on "
        f"cpu:0, but line 1 of the journal is {first['kernel']} on cpu:0"
    ) in proc.stderr.splitlines()
    (merged,) = (tmp_path / "m").iterdir()
    assert sorted(results.read_samples(merged)) == [2, 3, 4]


def test_a_peaks_store_that_is_a_runs_metadata_is_refused_and_left_alone(
    two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """HARNESS_PEAKS naming a run's metadata.json: peak measured, then wrote its
    entry into the run's metadata."""
    store = copy_run(two_runs[0], tmp_path) / results.METADATA
    before = store.read_bytes()
    proc = harness("peak", "--device", "cpu:0", env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 2
    assert one_error(proc.stderr) == (
        f"peaks store {store}: 'harness_version' is not a device's peaks (a key "
        "'host | backend | name | driver | api' and an object); not the file harness peak "
        "writes, so it is left as it is: repair or remove it, or point HARNESS_PEAKS at "
        "another file"
    )
    assert store.read_bytes() == before


def test_keeping_a_peak_leaves_only_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """keep left peaks.json.lock beside the store, in whatever folder
    HARNESS_PEAKS named."""
    monkeypatch.setenv("HARNESS_PEAKS", str(tmp_path / "peaks.json"))
    device = {"backend": "cpu", "name": "a CPU", "driver": "numpy", "api": "Python"}
    peak = {"copy_gbytes_per_s": 10.0}
    peaks.keep(device, peak)
    assert [p.name for p in tmp_path.iterdir()] == ["peaks.json"]
    assert peaks.lookup(device, peaks.read_store()) == peak


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        (
            'name="My_SAXPY"',
            'name="My/SAXPY"',
            "kernel name 'My/SAXPY': give letters, digits and underscores, from a letter "
            "(it names files, plots and -k choices)",
        ),
        (
            'name="My_SAXPY"',
            'name=""',
            "kernel name '': give letters, digits and underscores, from a letter "
            "(it names files, plots and -k choices)",
        ),
        (
            'name="My_SAXPY",\n    group="My"',
            'name="My_SAXPY",\n    group="My group"',
            "kernel My_SAXPY: group 'My group': give letters, digits and underscores, from a "
            "letter (-k chooses groups by it)",
        ),
    ],
)
def test_a_user_kernel_named_what_no_file_or_choice_can_name_is_refused(
    old: str, new: str, error: str, tmp_path: Path
) -> None:
    """A kernel named '', 'My/SAXPY' or in group 'My group' was taken into the suite."""
    path = _suite(tmp_path, old, new)
    proc = harness("list", "--suite", str(path))
    assert proc.returncode == 2
    assert one_error(proc.stderr) == f"--suite {path}: {error}"


@pytest.mark.parametrize("command", ["list", "devices"])
def test_a_closed_standard_output_is_one_line(command: str) -> None:
    """harness list >&- raised AttributeError: Python gives a closed stdout as None."""
    proc = subprocess.run(
        [sys.executable, "-m", "harness", command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_RUNTIME_DIR": "/tmp"},
        timeout=300,
        # The child's fd 1 closed before Python starts (the shell's >&-).
        preexec_fn=lambda: os.close(1),
    )
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "cannot write the standard output (it is closed); give the command one (a file, a "
        "pipe or the terminal)"
    )


def test_a_device_index_of_other_digits_is_compared_without_a_traceback(
    two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """A journal's device_id 'cpu:²' passed str.isdigit, then int() raised."""
    run = copy_run(two_runs[0], tmp_path)
    journal = run / results.JOURNAL
    journal.write_text(journal.read_text().replace('"device_id": "cpu:0"', '"device_id": "cpu:²"'))
    path = run / results.METADATA
    path.write_text(path.read_text().replace('"id": "cpu:0"', '"id": "cpu:²"'))
    proc = harness("compare", str(two_runs[1]), str(run))
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0, proc.stderr
    # Matched by the device itself, whatever its id.
    assert proc.stdout.count("cpu:0->cpu:²") == 2


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (
            ("flops=lambda n: 2 * n,", "flops=lambda n: 1 // 0,"),
            "kernel My_SAXPY: its flops at its default size 1000000: line {line}: "
            "ZeroDivisionError: integer division or modulo by zero",
        ),
        (None, "kernel My_SAXPY: My_SAXPY.c:1: not UTF-8 text"),
    ],
)
def test_a_user_kernel_whose_counts_raise_or_whose_source_is_not_text_is_one_line(
    edit: tuple[str, str] | None, error: str, tmp_path: Path
) -> None:
    """A flops that raises ended run in a traceback and mutants in a crashed worker;
    a source with a byte that is not UTF-8 was named as line ? of kernels.py."""
    if edit is None:
        path = _suite(tmp_path, "KERNELS = (SAXPY, STENCIL2D)", "KERNELS = (SAXPY, STENCIL2D)")
        source = path.parent / "c" / "My_SAXPY.c"
        source.write_bytes(b"// caf\xe9\n" + source.read_bytes())
        line = 0
    else:
        path = _suite(tmp_path, *edit)
        line = path.read_text().splitlines().index("    flops=lambda n: 1 // 0,") + 1
    for command in ("list", "run"):
        proc = harness(command, "--suite", str(path), *(["-b", "cpu"] * (command == "run")))
        assert proc.returncode == 2
        assert one_error(proc.stderr) == f"--suite {path}: {error.format(line=line)}"


def test_a_suite_that_is_no_regular_file_is_named_so() -> None:
    proc = harness("list", "--suite", os.devnull)
    assert proc.returncode == 2
    assert one_error(proc.stderr) == (
        f"--suite {os.devnull}: not a regular file; give the Python file that defines KERNELS"
    )


def test_a_library_sort_of_one_key_is_skipped_where_no_library_sorts(tmp_path: Path) -> None:
    """At n=1 the library strategy launched nothing, so its row on OpenCL passed
    where every other size was skipped: mutants then counted survivors of code no
    row ran."""
    need_backend("opencl")
    args = ["-k", "Bitonic_U32", "-b", "opencl", "cpu", "--strategy", "library"]
    folder = finished_run(tmp_path, *args, "--sizes", "1,3", "--reps", "3")
    rows = {(r["device_id"], r["size"]): r for r in results.read_journal(folder)}
    for size in (1, 3):
        assert rows["opencl:0", size]["status"] == "skipped"
        assert rows["opencl:0", size]["reason"] == (
            "the OpenCL backend calls no library routine 'sort'"
        )
        assert rows["cpu:0", size]["status"] == "ok"


def test_compare_writing_a_csv_as_several_mpi_ranks_is_refused(
    two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """Each rank of mpirun -n 2 harness compare ... --csv X wrote X."""
    args = [*map(str, two_runs), "--csv", str(tmp_path / "c.csv")]
    proc = harness("compare", *args, env={"OMPI_COMM_WORLD_SIZE": "2"})
    assert proc.returncode == 2
    assert one_error(proc.stderr).startswith("harness compare was started as 2 MPI ranks")
    assert not (tmp_path / "c.csv").exists()


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("device_id", "", "'device_id' is empty"),
        ("max_rel_error", -1, "'max_rel_error' is -1; an error from 0 is accepted"),
        ("time_min_s", 1.0, "'time_min_s' (1) is above 'time_median_s'"),
    ],
)
def test_a_journal_line_no_run_writes_is_skipped_and_named(
    field: str, value: object, why: str, two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    run = copy_run(two_runs[0], tmp_path)
    journal = run / results.JOURNAL
    lines = journal.read_text().splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), field: value})
    journal.write_text("\n".join(lines) + "\n")
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    (warning,) = [w for w in proc.stderr.splitlines() if w.startswith(f"warning: {journal}:2:")]
    assert why in warning
    assert "1 ok, 0 fail, 0 error" in proc.stdout


def test_a_baseline_id_of_two_hosts_devices_is_refused_and_one_named_is_taken(
    two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """--baseline cpu:0 on a merge of two runs took the first host's cpu:0 without
    a word."""
    out = tmp_path / "merged"
    assert harness("merge", *map(str, two_runs), "--out", str(out)).returncode == 0
    (merged,) = out.iterdir()
    proc = harness("report", str(merged), "--baseline", "cpu:0", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    error = one_error(proc.stderr)
    assert error.startswith("--baseline 'cpu:0': names 2 devices in these runs (")
    first = error.split("(", 1)[1].split("; ")[0]
    proc = harness("report", str(merged), "--baseline", first, "--out", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stderr
    assert first in (tmp_path / "r" / "report.md").read_text()

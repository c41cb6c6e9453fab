"""Hostile-user probes, seventh round: a resumed run's damaged options, a RAJAPerf
output imported twice, what the Python API took for paths, a run folder given
twice by name, the rows of a merged run told apart on screen, and outputs that
cannot be written found before anything is shown."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cut_journal, harness, one_error, shifted

# Each test here runs the harness end to end on an edge case, seconds of
# subprocesses apiece: the full tier's, so that the fast tier keeps to its minutes.
pytestmark = pytest.mark.full

QUICK = ["-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000"]


def _damage_options(run: Path, name: str, value: object) -> None:
    """Set one saved option of a run's metadata and empty its journal, so that a
    resume has rows left to run with it."""
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["options"][name] = value
    path.write_text(json.dumps(meta))
    cut_journal(run, 0)


@pytest.mark.parametrize(
    ("name", "value", "accepted"),
    [
        ("reps", "x", "null or a whole number from 1"),
        ("caches", ["lukewarm"], "a list of one or more of hot, cold is accepted"),
        ("kernels", "Stream_TRIAD", "a list of kernel names is accepted"),
        ("params", {"strategy": ["bogus"]}, "a list of global, local, fused"),
        ("suites", [5], "a list of file names is accepted"),
    ],
)
def test_a_resumed_runs_damaged_option_is_named_before_any_row(
    run: Path, name: str, value: object, accepted: str
) -> None:
    _damage_options(run, name, value)
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    field = f"options.{name}" + (".strategy" if name == "params" else "")
    message = one_error(proc.stderr)
    assert f"--resume: {run / 'metadata.json'}: {field} is " in message
    assert accepted in message
    assert (run / "journal.jsonl").read_text() == ""


RAJAPERF = Path(__file__).resolve().parent / "fixtures" / "rajaperf_output"


@pytest.mark.parametrize("command", ["report", "merge"])
def test_one_rajaperf_output_imported_twice_is_not_counted_twice(
    command: str, tmp_path: Path
) -> None:
    for _ in range(2):
        assert harness("import-rajaperf", str(RAJAPERF), "--out", str(tmp_path)).returncode == 0
    first, second = sorted(p for p in tmp_path.iterdir() if p.is_dir())
    proc = harness(command, str(first), str(second), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert f"{first} and {second} are imports of the same RAJAPerf output" in one_error(proc.stderr)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"out": 5}, "out=5 is no path: give a file or folder name as text or a Path"),
        ({"suite": [None]}, "suite=[None]: None among its values; give each value"),
        ({"sources": b"kernels"}, "sources=b'kernels' is no path"),
        ({"resume": True}, "resume=True is no path"),
        ({"out": ["a", "b"]}, "out=['a', 'b']: give one file or folder name"),
    ],
)
def test_the_api_takes_no_number_or_bytes_for_a_path(
    options: dict[str, object], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import harness
    from harness.errors import UsageError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as raised:
        harness.run("Stream_TRIAD", "cpu", size=1000, reps=2, progress=False, **options)
    assert message in str(raised.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["report", "plot", "merge"])
def test_a_run_folder_given_twice_is_named(command: str, quick_run: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(quick_run)
    proc = harness(command, str(quick_run), str(link), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert f"a run folder is given twice: {quick_run} (as {link}); its rows would count twice" in (
        one_error(proc.stderr)
    )
    assert not (tmp_path / "out").exists()


def test_the_rows_of_a_merged_run_are_told_apart_by_host(
    quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """Two runs of one machine merged: their rows of one device looked the same on screen."""
    second = tmp_path / "second" / quick_run.name
    second.parent.mkdir()
    # A copy of the run, made another run: another start and id.
    meta = json.loads((run / "metadata.json").read_text())
    meta.update(start=shifted(meta["start"]), run_id=f"0{meta['run_id']}")
    (run / "metadata.json").write_text(json.dumps(meta))
    run.rename(second)
    merged = harness("merge", str(quick_run), str(second), "--out", str(tmp_path / "m"))
    assert merged.returncode == 0, merged.stderr
    shown = harness("show", *[str(p) for p in (tmp_path / "m").iterdir()])
    assert shown.returncode == 0, shown.stderr
    first, other = shown.stdout.splitlines()[1:3]
    assert "cpu:0 @" in first and f" ({quick_run.parent.name}/{quick_run.name})" in first
    assert "cpu:0 @" in other and f" (second/{quick_run.name})" in other


def test_compare_to_a_full_csv_is_the_one_line_and_no_table(quick_run: Path, run: Path) -> None:
    proc = harness("compare", str(quick_run), str(run), "--csv", "/dev/full")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == "--csv '/dev/full': cannot write it (No space left on device)"
    assert proc.stdout == ""


@pytest.mark.parametrize("name", ["journal.jsonl", "summary.txt"])
def test_compare_writes_no_csv_over_a_runs_own_file(quick_run: Path, run: Path, name: str) -> None:
    """--csv RUN/journal.jsonl replaced the run's measured rows by the comparison table,
    and --csv RUN/summary.txt the table the run printed."""
    own = run / name
    kept = own.read_bytes()
    proc = harness("compare", str(quick_run), str(run), "--csv", str(own))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--csv '{own}': is a run folder's own file; give a file outside the run folders"
    )
    assert own.read_bytes() == kept


def test_a_run_out_that_is_a_file_or_a_dead_link_says_what_to_give(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    (tmp_path / "dead").symlink_to(tmp_path / "nowhere")
    for name, why in (("file", "it is a file, not a folder"), ("dead", "a link to nothing")):
        proc = harness("run", *QUICK, "--reps", "2", "--out", str(tmp_path / name))
        assert proc.returncode == 2, proc.stderr
        assert one_error(proc.stderr) == (
            f"--out '{tmp_path / name}': cannot make a run folder there ({why}); give --out a "
            "folder this user can write, on a disk with free space"
        )
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("command", ["report", "export", "import-rajaperf"])
def test_an_out_that_is_a_link_to_nothing_is_named(
    command: str, quick_run: Path, tmp_path: Path
) -> None:
    dead = tmp_path / "dead"
    dead.symlink_to(tmp_path / "nowhere")
    given = {"export": ["--thicket", str(quick_run)], "import-rajaperf": [str(RAJAPERF)]}
    proc = harness(command, *given.get(command, [str(quick_run)]), "--out", str(dead))
    assert proc.returncode == 2, proc.stderr
    assert f"{dead}: a link to nothing ({tmp_path / 'nowhere'}); give --out a folder" in one_error(
        proc.stderr
    )


@pytest.mark.parametrize(
    "command",
    [["list"], ["mutants", "-k", "Stream_COPY", "-b", "opencl", "--fail-under", "90", "--out"]],
)
def test_a_suite_file_that_exits_is_a_usage_error_not_a_pass(
    command: list[str], tmp_path: Path
) -> None:
    """A --suite file calling sys.exit(0) ended the command with status 0, a gate passed."""
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(0)\n")
    out = [str(tmp_path)] if command[-1] == "--out" else []
    proc = harness(*command, *out, "--suite", str(exits))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {exits}: it exits as it is loaded (SystemExit(0)); give a file that defines "
        "KERNELS"
    )
    assert list(tmp_path.iterdir()) == [exits]


def test_a_resumed_runs_device_that_is_gone_is_named_as_the_runs(run: Path) -> None:
    """The line named a --device nobody gave: the resumed run's own."""
    _damage_options(run, "devices", ["cpu:9"])
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["devices"] = [dict(meta["devices"][0], id="cpu:9", index=9)]
    path.write_text(json.dumps(meta))
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "--resume: the run's devices are not all here: --device 'cpu:9': no such device; cpu "
        "has cpu:0"
    )


def test_a_resumed_runs_suite_that_exits_is_a_usage_error(run: Path, tmp_path: Path) -> None:
    exits = tmp_path / "exits.py"
    exits.write_text("raise SystemExit(0)\n")
    _damage_options(run, "suites", [str(exits)])
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert f"--suite {exits}: it exits as it is loaded (SystemExit(0))" in one_error(proc.stderr)
    assert (run / "journal.jsonl").read_text() == ""


@pytest.mark.parametrize(
    ("name", "value", "shape"),
    [
        ("merged_from", 5, "a list of objects (the merged runs' metadata)"),
        ("interrupted", "yes", "true or false"),
        ("imported_sha256", 5, "text (a hash)"),
        (
            "kernels",
            {"Stream_TRIAD": {"params": {}, "tolerance": {"f64": "x"}}},
            "a list of kernel names, or an object of each kernel's facts (objects: params an "
            "object, tolerance one of numbers, group and items text)",
        ),
    ],
)
def test_metadata_entries_of_the_wrong_type_are_named(
    run: Path, name: str, value: object, shape: str
) -> None:
    """A merged_from, interrupted or import hash of the wrong type was read as if right;
    a kernel's params or tolerance of the wrong type raised a traceback."""
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta[name] = value
    path.write_text(json.dumps(meta, indent=2))
    lines = path.read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text.startswith(f'  "{name}": '))
    proc = harness("compare", str(run), str(run))
    assert proc.returncode == 2, proc.stderr
    shown = json.dumps(value) if len(json.dumps(value)) <= 40 else "an object"
    assert one_error(proc.stderr) == f"{path}:{line}: {name!r} is {shown}; {shape} is accepted"


@pytest.mark.parametrize("command", ["merge", "report"])
def test_a_writing_command_started_as_several_mpi_ranks_is_refused(
    command: str, quick_run: Path, tmp_path: Path
) -> None:
    """Under mpirun -n 2, merge made two merged folders, report two writers of one file."""
    out = tmp_path / "out"
    proc = harness(command, str(quick_run), "--out", str(out), env={"OMPI_COMM_WORLD_SIZE": "2"})
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"harness {command} was started as 2 MPI ranks, each of which would write its output: "
        "run it once, without mpirun or srun (harness run alone runs as ranks)"
    )
    assert not out.exists()


def test_peak_started_as_several_mpi_ranks_of_one_node_is_refused() -> None:
    """Two ranks of one node measured its devices at once, each under the other's load."""
    env = {"OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}
    proc = harness("peak", "--device", "cpu:0", env=env)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "harness peak was started as 2 MPI ranks on this node, which would measure its "
        "devices at once, each under the others' load: run one rank per node"
    )


def test_a_key_given_twice_in_a_journal_line_is_named_and_its_row_skipped(run: Path) -> None:
    """json reads the last of two values without a word: a time 999 s shadowed by a right one."""
    journal = run / "journal.jsonl"
    journal.write_text(
        journal.read_text().replace('{"kernel": ', '{"time_median_s": 999.0, "kernel": ', 1)
    )
    proc = harness("show", str(run))
    assert proc.returncode == 2, proc.stderr
    warning, error = proc.stderr.splitlines()
    assert warning == (
        f"warning: {journal}:1: skipped a torn or corrupt line: 'time_median_s' is given twice"
    )
    assert error == f"harness: error: {run}: the journal has no readable rows (every line corrupt)"


def test_a_key_given_twice_in_the_metadata_is_named_with_its_line(run: Path) -> None:
    """An "end": null before the real one: which the run's end is cannot be told."""
    path = run / "metadata.json"
    text = path.read_text()
    path.write_text(text.replace("{\n", '{\n  "end": null,\n', 1))
    line = (
        path.read_text()
        .splitlines()
        .index(next(x for x in text.splitlines() if x.startswith('  "end": "')))
        + 1
    )
    proc = harness("compare", str(run), str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{path}:{line}: 'end' is given twice; which is meant cannot be told"
    )


def test_a_pipe_in_place_of_a_run_folders_file_is_named_not_read_for_ever(
    quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """A FIFO as samples.jsonl hung merge; /dev/zero as metadata.json filled the memory."""
    (run / "samples.jsonl").unlink()
    os.mkfifo(run / "samples.jsonl")
    proc = harness("merge", str(quick_run), str(run), "--out", str(tmp_path / "m"), timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{run / 'samples.jsonl'}: not a regular file (a folder, a device or a pipe); a run "
        "folder's samples.jsonl is a file harness run writes"
    )
    assert not (tmp_path / "m").exists()


def test_an_import_reads_no_pipe_in_place_of_the_checksums(tmp_path: Path) -> None:
    """The import's hash of its files read a FIFO as RAJAPerf-checksum.txt for ever;
    now the pipe is named, at once, as no file raja-perf.exe wrote."""
    folder = tmp_path / "rajaperf"
    shutil.copytree(RAJAPERF, folder)
    (folder / "RAJAPerf-checksum.txt").unlink()
    os.mkfifo(folder / "RAJAPerf-checksum.txt")
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "o"), timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr).endswith(
        "RAJAPerf-checksum.txt: not a regular file (a folder, a device, a pipe or a link to "
        "nothing); give the file raja-perf.exe wrote"
    )


def test_export_into_a_folder_of_another_runs_profiles_is_refused(
    quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """Thicket reads a folder's profiles as one set: another run's were read with these."""
    out = tmp_path / "profiles"
    out.mkdir()
    (out / "opencl_0-f64-n1000-default.cali").write_text("another run's profile\n")
    proc = harness("export", "--thicket", str(quick_run), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"output folder {out}: holds 1 profile(s) this run has none of "
        "(opencl_0-f64-n1000-default.cali), of another export: its profiles and these would "
        "be read as one; give an empty --out"
    )
    assert [p.name for p in out.iterdir()] == ["opencl_0-f64-n1000-default.cali"]
    # The same run exported again into its own profiles' folder is no other export.
    (run / "thicket").mkdir()
    (run / "thicket" / "cpu_0-f64-n1000-default.cali").write_text("an earlier export\n")
    again = harness("export", "--thicket", str(run))
    assert again.returncode == 0, again.stderr


def test_a_device_id_outside_the_backends_given_is_refused(tmp_path: Path) -> None:
    """-b cpu --device opencl:0 ran opencl:0 beside cpu:0, where a name is looked for
    among the -b backends only, as the help says."""
    proc = harness(
        "run", *QUICK, "--reps", "2", "--device", "opencl:0", "--out", str(tmp_path / "o")
    )
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "--device 'opencl:0': opencl is not among -b cpu; add it to -b, or leave -b out"
    )
    assert not (tmp_path / "o").exists()


def test_the_plot_functions_name_what_they_were_given(quick_run: Path) -> None:
    """A frame without the rows' columns raised KeyError, peaks of text a TypeError."""
    import pandas as pd

    import harness
    from harness.errors import UsageError
    from harness.reporting import plot

    with pytest.raises(UsageError, match=r"^a plot of list: give a run's rows as harness\.load"):
        plot.plot_times([1, 2])
    with pytest.raises(UsageError, match=r"^a plot of rows without the column\(s\) kernel, group"):
        plot.plot_times(pd.DataFrame({"a": [1]}))
    rows = harness.load(quick_run)
    with pytest.raises(UsageError, match=r"^peaks\['cpu:0'\] is 'fast': a peak is a finite GB/s"):
        plot.plot_bandwidth(rows, {"cpu:0": "fast"})
    with pytest.raises(UsageError, match=r"^no timed rows"):
        plot.plot_times(rows.iloc[0:0])


def test_a_device_given_twice_in_the_peaks_store_is_damage(tmp_path: Path) -> None:
    """Two entries under one device key: json kept the last, and a run placed rows against it."""
    store = tmp_path / "peaks.json"
    store.write_text('{"a | cpu": {"copy_gbytes_per_s": 1}, "a | cpu": {"copy_gbytes_per_s": 9}}')
    proc = harness("peak", "--device", "cpu:0", env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"peaks store {store}: cannot be read ('a | cpu' is given twice); it is left as it is: "
        "repair or remove it, or point HARNESS_PEAKS at another file"
    )


@pytest.mark.parametrize("arch", ["abc", "0"])
def test_an_arch_that_is_no_compute_capability_says_what_is(arch: str) -> None:
    """--arch abc said only 'invalid int value'."""
    proc = harness("cuda-compile", "--arch", arch)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"argument --arch: {arch!r} is not a compute capability; give numbers such as 80 or 90 "
        "(see 'harness cuda-compile --help')"
    )


def test_a_line_break_in_a_value_leaves_the_error_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "no\nsuch"
    proc = harness("show", str(folder))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"{tmp_path}/no\\nsuch: no such run folder"


def test_two_mpi_runs_of_one_machine_merged_keep_their_rows_apart(
    run: Path, tmp_path: Path
) -> None:
    """An MPI run's rows carry their rank's host, which merge kept as it was: two such
    runs of one machine gave rows of one host, device and rank, told apart by nothing."""
    runs = []
    for name in ("a", "b"):
        copy = shutil.copytree(run, tmp_path / name / run.name)
        journal = copy / "journal.jsonl"
        rows = [json.loads(line) for line in journal.read_text().splitlines()]
        journal.write_text(
            "".join(json.dumps({**r, "rank": 0, "host": "node1"}) + "\n" for r in rows)
        )
        meta = json.loads((copy / "metadata.json").read_text())
        meta.update(start=shifted(meta["start"]), run_id=f"{name}{meta['run_id']}")
        (copy / "metadata.json").write_text(json.dumps(meta))
        runs.append(copy)
    proc = harness("merge", *map(str, runs), "--out", str(tmp_path / "m"))
    assert proc.returncode == 0, proc.stderr
    (merged,) = (tmp_path / "m").iterdir()
    hosts = [
        json.loads(line)["host"] for line in (merged / "journal.jsonl").read_text().splitlines()
    ]
    assert hosts == [f"node1 (a/{run.name})", f"node1 (b/{run.name})"]


def test_a_peaks_store_under_the_home_folder_is_found_there(tmp_path: Path) -> None:
    """HARNESS_PEAKS='~/peaks.json' (quoted, so unexpanded) made a folder named ~ in the
    current one; a relative XDG_CACHE_HOME, which the XDG spec ignores, was taken."""
    (tmp_path / "peaks.json").write_text("{damaged")
    env = {"HOME": str(tmp_path), "HARNESS_PEAKS": "~/peaks.json"}
    proc = harness("peak", "--device", "cpu:0", env=env)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr).startswith(f"peaks store {tmp_path / 'peaks.json'}: damaged")
    (tmp_path / ".cache" / "harness").mkdir(parents=True)
    (tmp_path / ".cache" / "harness" / "peaks.json").write_text("[]")
    env = {"HOME": str(tmp_path), "HARNESS_PEAKS": " ", "XDG_CACHE_HOME": "relative"}
    proc = harness("peak", "--device", "cpu:0", env=env)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr).startswith(
        f"peaks store {tmp_path / '.cache' / 'harness' / 'peaks.json'}: holds a JSON array"
    )


def test_an_out_given_as_home_relative_text_goes_to_the_home_folder(tmp_path: Path) -> None:
    """--out=~/runs, which no shell expands, made a folder named ~ in the current one."""
    home = tmp_path / "home"
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "run", *QUICK, "--reps", "2", "--out=~/runs"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "HOME": str(home), "XDG_RUNTIME_DIR": "/tmp"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
    assert (home / "runs").is_dir()
    listed = harness("list", "--suite=~/k.py", env={"HOME": str(home)})
    assert listed.returncode == 2
    assert one_error(listed.stderr) == f"--suite {home / 'k.py'}: no such file"


def test_a_row_of_no_known_precision_is_named_and_skipped(run: Path, tmp_path: Path) -> None:
    """A row at precision 'f16' was read, and report --html and plot raised a KeyError."""
    journal = run / "journal.jsonl"
    journal.write_text(journal.read_text().replace('"precision": "f64"', '"precision": "f16"', 1))
    proc = harness("plot", str(run), "--out", str(tmp_path / "plots"))
    assert proc.returncode == 2, proc.stderr
    warning, error = proc.stderr.splitlines()
    assert warning == (
        f"warning: {journal}:1: skipped a torn or corrupt line: 'precision' is 'f16'; one of "
        "f64, f32 is accepted"
    )
    assert error.startswith(f"harness: error: {run}: the journal has no readable rows")


@pytest.mark.parametrize("command", ["list", "report"])
def test_a_standard_output_that_cannot_be_written_is_one_line(
    command: str, quick_run: Path, tmp_path: Path
) -> None:
    """harness list > /dev/full raised a traceback; report blamed its output folder."""
    args = [command, *([str(quick_run), "--out", str(tmp_path / "r")] * (command == "report"))]
    proc = _to_a_full_disk(args)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "cannot write the standard output (No space left on device); send it to a file on a "
        "disk with free space"
    )


def test_a_run_folder_named_with_a_leading_dash_is_named_with_how_to_give_it(
    quick_run: Path, tmp_path: Path
) -> None:
    """show -run said only that RUN_DIR was missing: the name was read as an option."""
    shutil.copytree(quick_run, tmp_path / "-run")
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "show", "-run"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "XDG_RUNTIME_DIR": "/tmp"},
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "the following arguments are required: RUN_DIR (see 'harness show --help'); '-run' is "
        "a file or folder here, read as an option: give it after --"
    )


def test_load_takes_a_leading_tilde_as_the_home_folder(
    quick_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """harness.load('~/...') looked for a folder named ~ in the current one."""
    import harness

    home = tmp_path / "home"
    shutil.copytree(quick_run, home / "runs" / "one")
    monkeypatch.setenv("HOME", str(home))
    frame = harness.load("~/runs/one")
    assert list(frame["kernel"]) == ["Stream_TRIAD"]
    assert frame["run"].iloc[0] == "one"


def test_list_files_with_kernels_is_one_line_naming_how_to_give_them() -> None:
    """list --files X -k Y listed X's files and ignored -k without a word."""
    proc = harness("list", "--files", "Stream_TRIAD", "-k", "Stream_COPY")
    assert proc.returncode == 2 and proc.stdout == ""
    assert one_error(proc.stderr) == (
        "-k Stream_COPY with --files: --files takes the kernels whose files to list "
        "itself (harness list --files Stream_COPY)"
    )


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["--version"]])
def test_help_to_a_standard_output_that_cannot_be_written_is_one_line(args: list[str]) -> None:
    """harness --help > /dev/full exited 0 without a word: argparse swallows the
    failure of its own write."""
    proc = _to_a_full_disk(args)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr).startswith("cannot write the standard output (No space left")


def _to_a_full_disk(args: list[str]) -> subprocess.CompletedProcess[str]:
    """``harness ARGS > /dev/full``."""
    with open("/dev/full", "w") as full:
        return subprocess.run(
            [sys.executable, "-m", "harness", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "XDG_RUNTIME_DIR": "/tmp"},
            timeout=300,
        )

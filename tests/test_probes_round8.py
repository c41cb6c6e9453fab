"""Hostile-user probes, eighth round: a merged run whose sources stopped short
judged by compare, runs of one name merged, kernels whose names are no file names
plotted, outputs of an earlier report or plot left beside new ones, compare's
--csv through a link, a run folder being written shown, a machine name of the
wrong type, damaged RAJAPerf output (a row without its size, counts unknown, a
kernel's checksum header gone), --device indexes int() cannot read, --suite
descriptions that raise as they are listed, cuda-compile of nothing or of an
architecture given twice, and mutants whose check launches nothing."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import harness, need_backend, one_error, run_folder, shifted, source_names

from harness.backends import cuda_compile

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]
RAJAPERF = Path(__file__).resolve().parent / "fixtures" / "rajaperf_output"


def _another_run(run: Path) -> None:
    """Make a copy of a run another run: another start and id."""
    meta = json.loads((run / "metadata.json").read_text())
    _edit_metadata(run, start=shifted(meta["start"]), run_id="0" + meta["run_id"])


def _edit_metadata(run: Path, **changes: object) -> None:
    """Set (or, given None, remove) entries of a run's metadata.json."""
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    path.write_text(json.dumps(meta, indent=2))


def _killed_copy(run: Path, parent: Path) -> Path:
    """A copy of ``run`` as a run killed after its first row: no end, one row, and a
    start and name of its own (so that it is no copy of ``run``)."""
    copy = shutil.copytree(run, parent / "run-killed")
    meta = json.loads((copy / "metadata.json").read_text())
    _edit_metadata(copy, end=None, start=shifted(meta["start"]), run_id="0" + meta["run_id"])
    journal = copy / "journal.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[0])
    return copy


def _other_run(tmp_path: Path) -> Path:
    """A finished run of a kernel the quick run lacks, to merge beside another."""
    out = tmp_path / "other"
    args = ["run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3"]
    assert harness(*args, "--out", str(out)).returncode == 0
    return run_folder(out)


def test_compare_fails_where_the_new_run_merges_a_run_that_never_ended(
    run: Path, tmp_path: Path
) -> None:
    """A merged run has an end of its own: a source killed before its rows passed the
    gate (exit 0), the rows it never ran 'only in base'."""
    killed = _killed_copy(run, tmp_path / "killed")
    merged = harness("merge", str(killed), str(_other_run(tmp_path)), "--out", str(tmp_path / "m"))
    assert merged.returncode == 0, merged.stderr
    new = run_folder(tmp_path / "m")
    assert json.loads((new / "metadata.json").read_text())["interrupted"] is True
    proc = harness("compare", str(run), str(new))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "only in base" in proc.stdout
    killed_name = source_names(new)[0]
    assert (
        f"fail: {new} merges {killed_name}, which had not ended (its metadata has no end) when "
        # One base row the killed run lacks, and both of the other run's host (it ran
        # another kernel on the device).
        f"merged, and 3 row(s) of the base are not in {new}: they may be work that run did "
        "not do"
    ) in proc.stderr
    report = harness("report", str(new), "--out", str(tmp_path / "r"))
    assert f"note: {new.name}: merges {killed_name}, interrupted; 2 rows were kept" in (
        report.stderr
    )


def test_compare_fails_where_the_new_run_merges_a_journal_with_damaged_lines(
    run: Path, tmp_path: Path
) -> None:
    journal = run / "journal.jsonl"
    first, second = journal.read_text().splitlines(keepends=True)
    journal.write_text(first + second[: len(second) // 2] + "\n")
    merged = harness("merge", str(run), str(_other_run(tmp_path)), "--out", str(tmp_path / "m"))
    assert merged.returncode == 0, merged.stderr
    new = run_folder(tmp_path / "m")
    base = tmp_path / "base"
    shutil.copytree(run, base)
    journal_base = base / "journal.jsonl"
    journal_base.write_text(first + second)
    _another_run(base)
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        f"fail: {new} merges {source_names(new)[0]}, which had 1 damaged journal line(s) when "
        "merged, and "
        # The lost row, and both of the other run's host (another kernel on the device).
        f"3 row(s) of the base are not in {new}"
    ) in proc.stderr


@pytest.mark.full  # plots and reports: seconds of matplotlib each
def test_kernels_whose_names_are_no_file_names_get_a_plot_each(tmp_path: Path) -> None:
    """Sweeps of My.A and My.B were both saved as sweep_My.png, one over the other; a
    kernel named with a '/' stopped the plots with 'free some space'."""
    names = ("My.A", "My.B", "../../evil")
    for size in (1000, 2000):
        folder = tmp_path / f"rajaperf-{size}"
        folder.mkdir()
        (folder / "RAJAPerf-kernel-run-data.csv").write_text(
            "Kernel, Variant, Tuning, Problem size, Checksum, Mean time per rep (sec.)\n"
            + "".join(f"{n}, Base_Seq, default, {size}, PASSED, {size * 1e-8}\n" for n in names)
        )
        (folder / "RAJAPerf-kernel-details.csv").write_text(
            "Kernel, Problem size, Reps, BytesMoved/rep, FLOPS/rep\n"
            + "".join(f"{n}, {size}, 10, {8 * size}, {size}\n" for n in names)
        )
        proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "runs" / str(size)))
        assert proc.returncode == 0, proc.stderr
    runs = [str(run_folder(tmp_path / "runs" / str(size))) for size in (1000, 2000)]
    proc = harness("plot", *runs, "--out", str(tmp_path / "plots"))
    assert proc.returncode == 0, proc.stderr
    made = {p.name for p in (tmp_path / "plots").iterdir()}
    assert {"sweep_My.A.png", "sweep_My.B.png", "sweep_.._.._evil.png"} <= made
    assert not (tmp_path / "evil.png").exists()


def test_a_machine_name_that_is_no_text_is_named(run: Path, tmp_path: Path) -> None:
    """A hostname of ['a'] raised a pandas ValueError from report, plot, compare and
    export; merge took it as the text "['a']"."""
    _edit_metadata(run, host={"hostname": ["a"]})
    expected = f"{run / 'metadata.json'}: 'host.hostname' is ['a']; text (the machine's name) is "
    for args in (["report", str(run)], ["merge", str(run), str(_other_run(tmp_path))]):
        proc = harness(*args, "--out", str(tmp_path / "out"))
        assert proc.returncode == 2, proc.stderr
        assert one_error(proc.stderr) == expected + "accepted"
        assert not (tmp_path / "out").exists()


def test_a_rajaperf_file_given_for_its_folder_is_named_as_a_file() -> None:
    """The line said 'no such folder' of a file that is there."""
    given = RAJAPERF / "RAJAPerf-kernel-run-data.csv"
    proc = harness("import-rajaperf", str(given))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{given}: is a file, not a folder (give raja-perf.exe's --outdir)"
    )


def test_a_damaged_import_row_shows_no_size_as_a_dash(tmp_path: Path) -> None:
    """An error row read from a damaged line showed its size and precision as None."""
    folder = shutil.copytree(RAJAPERF, tmp_path / "rajaperf")
    data = folder / "RAJAPerf-kernel-run-data.csv"
    data.write_text(data.read_text().replace("2.00000e-05", "1e-300"))
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("Stream_COPY   rajaperf:0"))
    assert line.split()[2:5] == ["f64", "-", "error"]
    assert "None" not in proc.stdout


def test_cuda_compile_of_a_sources_folder_without_cuda_sources_is_no_pass(
    tmp_path: Path,
) -> None:
    """--sources naming a folder of no kernel's source compiled nothing and exited 0
    ('0 of 0 compiled'): a gate passed on work not done. A source there that names
    no kernel is itself named (round 24)."""
    (tmp_path / "c").mkdir()
    proc = harness("cuda-compile", "--sources", str(tmp_path), "--arch", "80")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--sources {str(tmp_path)!r}: holds no kernel's CUDA source (cuda/NAME.cu or c/NAME.c, "
        "NAME a kernel of the suite); give a sources folder laid out as the shipped kernels/"
    )
    (tmp_path / "c" / "NotAKernel.c").write_text("int x;\n")
    proc = harness("cuda-compile", "--sources", str(tmp_path), "--arch", "80")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--sources {str(tmp_path)!r}: c/NotAKernel.c is no kernel's source, so it would not "
        "be compiled; name it as its kernel (see 'harness list'), or give the --suite file "
        "that describes it"
    )


def test_cuda_compile_counts_an_architecture_given_twice_once(tmp_path: Path) -> None:
    """--arch 80 80 compiled every source twice and counted each twice."""
    shipped = Path(__file__).resolve().parent.parent / "kernels" / "c" / "Stream_COPY.c"
    (tmp_path / "c").mkdir()
    shutil.copy(shipped, tmp_path / "c")
    args = ["--sources", str(tmp_path), "--precision", "f64", "f64"]
    if not cuda_compile.available():
        pytest.skip(cuda_compile.no_compiler_reason())
    proc = harness("cuda-compile", *args, "--arch", "80", "80")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["Stream_COPY.c sm_80 f64: ok"]
    assert proc.stderr.splitlines()[-1] == "1 of 1 compiled"


def _report_of_import(tmp_path: Path, name: str, edit: Callable[[str], str]) -> Path:
    """The report folder of an import of RAJAPerf's output with file ``name`` edited."""
    folder = shutil.copytree(RAJAPERF, tmp_path / "rajaperf")
    (folder / name).write_text(edit((folder / name).read_text()))
    assert harness("import-rajaperf", str(folder), "--out", str(tmp_path / "o")).returncode == 0
    out = tmp_path / "report"
    proc = harness("report", str(run_folder(tmp_path / "o")), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def test_a_report_of_an_import_with_a_damaged_row_is_written(tmp_path: Path) -> None:
    """An error row without a size (read from a damaged line) raised ValueError from
    the report's cross-API table and its RAJAPerf files."""
    data = "RAJAPerf-kernel-run-data.csv"
    out = _report_of_import(tmp_path, data, lambda text: text.replace("2.00000e-05", "1e-300"))
    lines = (out / "RAJAPerf-kernel-run-data.csv").read_text().splitlines()
    damaged = next(x for x in lines if x.startswith("Stream_COPY    , rajaperf:0"))
    assert [c.strip() for c in damaged.split(",")][3:5] == ["Unknown", "Not run"]
    details = (out / "RAJAPerf-kernel-details.csv").read_text().splitlines()
    copy = next(x for x in details if x.startswith("Stream_COPY"))
    assert [c.strip() for c in copy.split(",")][1] == "100000"


def test_rajaperf_files_write_unknown_counts_as_unknown_not_zero(tmp_path: Path) -> None:
    """A row without bytes, FLOPs or repetitions (an import without its kernel's
    details) was written at 0 GiB/s and 0 GFLOP/s, and a total runtime of 0."""
    out = _report_of_import(
        tmp_path,
        "RAJAPerf-kernel-details.csv",
        lambda text: "".join(x for x in text.splitlines(keepends=True) if "Basic_DAXPY" not in x),
    )
    run_data = (out / "RAJAPerf-kernel-run-data.csv").read_text().splitlines()
    daxpy = next(x for x in run_data if x.startswith("Basic_DAXPY    , rajaperf:0"))
    assert [c.strip() for c in daxpy.split(",")][5:] == ["3.00000e-05", "Unknown", "Unknown"]
    timing = (out / "RAJAPerf-timing-Average.csv").read_text().splitlines()
    assert [c.strip() for c in next(x for x in timing if x.startswith("Basic_DAXPY")).split(",")][
        1:
    ] == ["Unknown", "Not run"]


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "my_kernels"


def test_list_files_of_a_suite_files_kernel_names_that_file() -> None:
    """list --files My_SAXPY --suite ... raised LookupError: 'no kernel of the suite'."""
    proc = harness("list", "--suite", str(EXAMPLE / "kernels.py"), "--files", "My_SAXPY")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == [
        "My_SAXPY",
        f"  description   {EXAMPLE / 'kernels.py'}",
    ]


def test_show_of_a_run_being_written_leaves_its_results_csv_to_the_run(run: Path) -> None:
    """show rebuilt results.csv from the rows so far in a folder a run was writing:
    one written just after the run's own would hold fewer rows than the run."""
    from harness.execution import results

    (run / "results.csv").unlink()
    with results.lock(run):
        proc = harness("show", str(run))
        assert not (run / "results.csv").exists()
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(f"note: {run} is being written (pid ")
    assert proc.stderr.endswith("): its rows so far; results.csv is left to that run\n")
    assert proc.stdout.splitlines()[1].startswith("Stream_TRIAD")
    assert harness("show", str(run)).returncode == 0
    assert (run / "results.csv").exists()


@pytest.mark.full  # plots and reports: seconds of matplotlib each
def test_a_report_into_a_folder_of_an_earlier_reports_other_files_is_refused(
    quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """A report of one run into the folder of an earlier report of two sizes left the
    earlier size folders (and its report.html) beside the new files, as if this
    report's."""
    sized = run / "journal.jsonl"
    sized.write_text(sized.read_text().replace('"size": 1000,', '"size": 2000,'))
    _another_run(run)
    out = tmp_path / "report"
    both = harness("report", str(quick_run), str(run), "--out", str(out), "--html")
    assert both.returncode == 0, both.stderr
    assert (out / "SIZE_000002000" / "RAJAPerf-kernel-run-data.csv").is_file()
    kept = sorted(p.relative_to(out) for p in out.rglob("*"))
    proc = harness("report", str(quick_run), "--out", str(out), "--html")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"output folder {out}: holds 10 file(s) of an earlier report that this one does not "
        "write (SIZE_000001000/RAJAPerf-checksum.txt, SIZE_000001000/RAJAPerf-kernel-details"
        ".csv, SIZE_000001000/RAJAPerf-kernel-run-data.csv, ...), which would pass for this "
        "report's; remove them, or give an empty --out"
    )
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == kept
    again = harness("report", str(quick_run), str(run), "--out", str(out))
    assert again.returncode == 2, again.stderr
    assert "holds 1 file(s) of an earlier report that this one does not write (report.html)" in (
        one_error(again.stderr)
    )
    assert harness("report", str(quick_run), str(run), "--out", str(out), "--html").returncode == 0


@pytest.mark.full  # plots and reports: seconds of matplotlib each
def test_plots_of_an_earlier_plot_are_never_left_as_these_runs(
    quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """A plot of one run into the folder of an earlier plot of a size sweep left the
    sweeps beside the new plots; a plot these rows do not make (cross_api) stayed as
    the earlier one."""
    sized = run / "journal.jsonl"
    sized.write_text(sized.read_text().replace('"size": 1000,', '"size": 2000,'))
    _another_run(run)
    out = tmp_path / "plots"
    assert harness("plot", str(quick_run), str(run), "--out", str(out)).returncode == 0
    made = sorted(p.name for p in out.iterdir())
    proc = harness("plot", str(quick_run), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"output folder {out}: holds 6 plot file(s) of an earlier plot that these runs do not "
        "make (saturation.png, saturation.svg, sweep_Basic_DAXPY.png, ...), which would pass "
        "for theirs; remove them, or give an empty --out"
    )
    assert sorted(p.name for p in out.iterdir()) == made
    other = tmp_path / "other"
    other.mkdir()
    (other / "cross_api.png").write_bytes(b"an earlier plot")
    (other / "notes.txt").write_text("mine\n")
    proc = harness("plot", str(quick_run), "--out", str(other))
    assert proc.returncode == 0, proc.stderr
    assert f"note: removed the earlier cross_api plot from {other}: these rows make none" in (
        proc.stderr.splitlines()
    )
    assert not (other / "cross_api.png").exists() and (other / "notes.txt").exists()


def test_runs_of_one_name_under_folders_of_one_name_are_merged_apart(
    run: Path, tmp_path: Path
) -> None:
    """a/x/run-1 and b/x/run-1 were both named x/run-1: their rows of one device came
    out alike, and the second run's were dropped as repeats of the first's."""
    runs = []
    for parent in ("a", "b"):
        copy = shutil.copytree(run, tmp_path / parent / "x" / "run-1")
        meta = json.loads((copy / "metadata.json").read_text())
        _edit_metadata(copy, start=shifted(meta["start"]), run_id=parent + meta["run_id"])
        runs.append(str(copy))
    proc = harness("merge", *runs, "--out", str(tmp_path / "m"))
    assert proc.returncode == 0, proc.stderr
    assert "repeats line" not in proc.stderr
    merged = run_folder(tmp_path / "m")
    rows = [json.loads(x) for x in (merged / "journal.jsonl").read_text().splitlines()]
    assert [r["source_run"] for r in rows] == ["a/x/run-1"] * 2 + ["b/x/run-1"] * 2


def test_compare_writes_no_csv_through_a_link_to_a_runs_own_file(
    quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """--csv LINK, a link to a run's journal, replaced the measured rows by the table;
    a link that loops was found only after comparing."""
    journal = run / "journal.jsonl"
    kept = journal.read_bytes()
    link = tmp_path / "table.csv"
    link.symlink_to(journal)
    proc = harness("compare", str(quick_run), str(run), "--csv", str(link))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--csv '{link}': is a run folder's own file ({journal}); give a file outside the run "
        "folders"
    )
    assert journal.read_bytes() == kept
    loop = tmp_path / "loop.csv"
    loop.symlink_to(loop)
    proc = harness("compare", str(quick_run), str(run), "--csv", str(loop))
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert one_error(proc.stderr) == (
        f"argument --csv: '{loop}': a loop of symbolic links, which names no file or folder; give "
        "the path of a real one (see 'harness compare --help')"
    )


@pytest.mark.parametrize("peak", ["1e300", "1e-100"])
def test_a_peak_no_device_reaches_is_refused(quick_run: Path, tmp_path: Path, peak: str) -> None:
    """--peak-gbs 1e300 drew every row at 0% of a line no device reaches, and 1e-100
    every row at 1e100 times its peak, on axes matplotlib collapsed."""
    proc = harness("plot", str(quick_run), "--peak-gbs", f"cpu:0={peak}", "--out", str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"argument --peak-gbs: 'cpu:0={peak}': the peak must be a finite GB/s from 1e-06 up to "
        "1e+15 (see 'harness plot --help')"
    )
    assert list(tmp_path.iterdir()) == []


def test_checksums_under_a_missing_kernel_name_are_not_given_to_the_kernel_before(
    tmp_path: Path,
) -> None:
    """With Stream_TRIAD's name line gone from RAJAPerf-checksum.txt, its checksums
    were read as Stream_COPY's, silently."""
    folder = shutil.copytree(RAJAPERF, tmp_path / "rajaperf")
    checksums = folder / "RAJAPerf-checksum.txt"
    lines = checksums.read_text().splitlines(keepends=True)
    gone = next(i for i, x in enumerate(lines) if x.strip() == "Stream_TRIAD")
    checksums.write_text("".join(lines[:gone] + lines[gone + 1 :]))
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    data = folder / "RAJAPerf-kernel-run-data.csv"
    assert proc.stderr.splitlines() == [
        *(
            f"warning: {checksums}:{n}: a checksum with no kernel's name before it: left out"
            for n in (gone + 2, gone + 3)
        ),
        *(
            f"warning: {data}:{n}: RAJAPerf-checksum.txt has no checksum of Stream_TRIAD "
            f"{variant}-default: its row has none"
            for n, variant in ((5, "Base_Seq"), (6, "Base_OpenMP"))
        ),
    ]
    rows = [
        json.loads(x)
        for x in (run_folder(tmp_path / "o") / "journal.jsonl").read_text().splitlines()
    ]
    sums = {(r["kernel"], r["device_id"]): r.get("checksum") for r in rows}
    assert (
        sums[("Stream_COPY", "rajaperf:0")]
        == sums[("Stream_COPY", "rajaperf:1")]
        == (19998.626827262827)
    )
    assert sums[("Stream_TRIAD", "rajaperf:0")] is None


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["run", *QUICK, "--device", "cpu:²"],
            "--device 'cpu:²': expected BACKEND:INDEX such as opencl:0",
        ),
        (
            ["mutants", "-k", "Stream_COPY", "-b", "opencl", "--device", "opencl:²"],
            "--device 'opencl:²': expected BACKEND:INDEX with a backend given to -b",
        ),
    ],
)
def test_a_device_index_of_a_digit_int_cannot_read_is_one_line(
    args: list[str], expected: str, tmp_path: Path
) -> None:
    """'²' is a digit to str.isdigit and none to int(): cpu:² raised ValueError."""
    if args[0] == "mutants":
        need_backend("opencl")
    proc = harness(*args, "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == expected
    assert not (tmp_path / "out").exists()


def test_mutants_checked_by_rows_that_launch_nothing_are_not_survivors(tmp_path: Path) -> None:
    """A check whose only ok rows launch nothing (a sort of one key under the library
    strategy did, on OpenCL): every mutant 'survived' a check that ran none of its
    code. Here a kernel of one's own whose plan launches nothing at its check sizes."""
    need_backend("opencl")
    folder = shutil.copytree(EXAMPLE, tmp_path / "mine")
    kernels = folder / "kernels.py"
    text = kernels.read_text()
    for old, new in (
        (
            '    return [Launch("saxpy", size, 256, ("x", "y", "a", "n"), {"n": size})]\n',
            '    return [Launch("saxpy", size, 256, ("x", "y", "a", "n"), {"n": size})] '
            "if size > 10**8 else []\n",
        ),
        (
            'reference=lambda x: {"y": float(x["a"]) * np.float64(x["x"]) + np.float64(x["y"])},',
            'reference=lambda x: {"y": np.float64(x["y"])},',
        ),
    ):
        assert text.count(old) == 1
        text = text.replace(old, new)
    kernels.write_text(text)
    args = ["--suite", str(kernels), "-k", "My_SAXPY", "-b", "opencl", "--sample", "2"]
    args += ["--precision", "f64", "--fail-under", "0", "--out", str(tmp_path / "out")]
    proc = harness("mutants", *args)
    assert proc.returncode == 1, proc.stderr
    problem = (
        "unmutated: no row of its check launches a kernel here (2 ok row(s) launch none), "
        "so no mutant could be told from the kernel"
    )
    assert f"  {problem}" in proc.stderr.splitlines()
    assert "survivors" not in proc.stdout
    assert "opencl:0: no mutant was counted" in proc.stderr

"""Hostile probes, round 19: the commands that read run folders (show, report,
plot, compare, export, merge, import-rajaperf) given damaged rows, their own
output as input, and options they would not use."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, copy_run, finished_run, first_row_edited, harness, one_error

from harness.execution import results
from harness.reporting import frames, plot

# Each test here runs the harness end to end on an edge case, seconds of
# subprocesses apiece: the full tier's, so that the fast tier keeps to its minutes.
pytestmark = pytest.mark.full

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]


def _rajaperf_copy(tmp_path: Path) -> Path:
    """A copy of the RAJAPerf output fixture, to edit."""
    return Path(shutil.copytree(FIXTURES / "rajaperf_output", tmp_path / "rajaperf"))


def test_a_negative_share_of_the_peak_is_damage(run: Path, tmp_path: Path) -> None:
    """A row's pct_peak_bw of -50 was read as good: the report's '% peak BW' column
    showed '-50%' for it."""
    first_row_edited(run, pct_peak_bw=-50.0)
    out = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"{results.JOURNAL}:1: skipped" in proc.stderr
    assert "'pct_peak_bw' is -50.0; a percentage from 0" in proc.stderr
    assert "-50%" not in (out / "report.md").read_text()


def test_a_row_that_ran_at_size_zero_is_damage(run: Path) -> None:
    """No run times a problem of no elements, yet a row of size 0 was read as a
    measurement: a sweep's log axis drew it nowhere, without a word."""
    first_row_edited(run, size=0)
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert f"{results.JOURNAL}:1: skipped" in proc.stderr
    assert "'size' is 0, where the row ran ('status' ok)" in proc.stderr
    assert "Stream_TRIAD" not in proc.stdout


def test_rajaperf_rows_of_problem_size_zero_are_not_imported_as_timed(tmp_path: Path) -> None:
    """A run-data row of Problem size 0 became an ok row of size 0, which the
    imported run's own journal then held as damage."""
    folder = _rajaperf_copy(tmp_path)
    data = folder / "RAJAPerf-kernel-run-data.csv"
    lines = data.read_text().splitlines()
    lines[2] = lines[2].replace("         100000 ,", "              0 ,", 1)
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    proc = harness("import-rajaperf", str(folder), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "RAJAPerf-kernel-run-data.csv:3: 'Problem size' is '0'; a whole number from 1" in (
        proc.stderr
    )
    run = next(out.iterdir())
    shown = harness("show", str(run))
    assert "skipped" not in shown.stderr, shown.stderr
    rows = results.read_journal(run)
    assert next(r["status"] for r in rows if r["device_id"] == "rajaperf:0") == "error"
    assert all(r.get("size") != 0 for r in rows)


def test_a_report_of_our_runs_is_not_imported_as_raja_perf_output(
    quick_run: Path, tmp_path: Path
) -> None:
    """A report's folder holds RAJAPerf-format files of this harness's rows:
    import-rajaperf took them for raja-perf.exe's, and cpu:0's times became
    'rajaperf:0', to be reported beside the very rows they came from."""
    report = tmp_path / "report"
    proc = harness("report", str(quick_run), "--out", str(report))
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "imported"
    proc = harness("import-rajaperf", str(report), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert "its RAJAPerf files are those 'harness report' wrote beside" in one_error(proc.stderr)
    assert not out.exists()


def test_a_sweep_report_s_size_folder_is_not_imported(sweep_run: Path, tmp_path: Path) -> None:
    """A report of a sweep at two precisions writes its RAJAPerf files into
    f64/SIZE_000001000 and the like, with report.md two folders up: importing one of
    them made this harness's cpu:0 a device of RAJAPerf's."""
    report = tmp_path / "report"
    proc = harness("report", str(sweep_run), "--out", str(report))
    assert proc.returncode == 0, proc.stderr
    folder = report / "f64" / "SIZE_000001000"
    assert (folder / "RAJAPerf-kernel-run-data.csv").is_file()
    out = tmp_path / "imported"
    proc = harness("import-rajaperf", str(folder), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert f"wrote beside {report.absolute() / 'report.md'}" in one_error(proc.stderr)
    assert not out.exists()


def test_report_refuses_a_peak_it_would_not_draw(quick_run: Path, tmp_path: Path) -> None:
    """report --peak-gbs without --html wrote a report that no peak touched (only
    the bandwidth plot of --html draws it), as if the option had not been given."""
    out = tmp_path / "report"
    proc = harness("report", str(quick_run), "--peak-gbs", "5", "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert "--peak-gbs draws the peak line of the bandwidth plot" in one_error(proc.stderr)
    assert not out.exists()
    proc = harness("report", str(quick_run), "--peak-gbs", "5", "--html", "--out", str(out))
    assert proc.returncode == 0, proc.stderr


def test_a_row_timed_at_zero_does_not_end_the_report(run: Path, tmp_path: Path) -> None:
    """An ok row whose times are 0 (which a row may hold) ended report in a
    ZeroDivisionError traceback: RAJAPerf's speedup file divided by its time."""
    first = json.loads((run / results.JOURNAL).read_text().splitlines()[0])
    times = {k: 0.0 for k in first if k.startswith("time_") or k == "kernel_s"}
    first_row_edited(run, **times, gbytes_per_s=None, gflops_per_s=None)
    out = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    speedups = (out / "RAJAPerf-speedup-Average.csv").read_text().splitlines()
    triad = next(line for line in speedups if line.startswith("Stream_TRIAD"))
    assert triad.split(",")[1].strip() == "Not run"


@pytest.fixture(scope="module")
def sweep_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cpu run of Stream_TRIAD at two sizes and both precisions: two sweep lines."""
    return finished_run(
        tmp_path_factory.mktemp("sweep"), "-k", "Stream_TRIAD", "-b", "cpu",
        "--precision", "f64", "f32", "--sizes", "1000,4000", "--reps", "3",
    )  # fmt: skip


def _sweep_without(sweep_run: Path, tmp_path: Path, columns: tuple[str, ...], **where: Any) -> Path:
    """A copy of the sweep run whose rows matching ``where`` lack ``columns``."""
    run = copy_run(sweep_run, tmp_path)
    journal = run / results.JOURNAL
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        if all(row[k] == v for k, v in where.items()):
            for column in columns:
                del row[column]
    journal.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return run


def test_a_sweep_draws_every_line_in_the_unit_its_axis_names(
    sweep_run: Path, tmp_path: Path
) -> None:
    """The sweep plot chose GB/s, GFLOP/s or elements/s a line at a time and named
    the axis after the last: a line whose rows lack bytes (an imported run's) was
    drawn in GFLOP/s on an axis of GB/s, ten times below its device's speed."""
    run = _sweep_without(sweep_run, tmp_path, ("bytes_per_rep", "gbytes_per_s"), precision="f32")
    rows = results.read_journal(run)
    frame, _ = frames.load_runs([run])
    _, rate_ax = plot.plot_sweep(frame, "Stream_TRIAD").axes
    assert rate_ax.get_ylabel() == "Throughput (GFLOP/s)"
    gflops = {(r["precision"], r["size"]): r["gflops_per_s"] for r in rows}
    for line in rate_ax.get_lines():
        precision = line.get_label()[-3:]
        expected = [gflops[(precision, size)] for size in line.get_xdata()]
        assert list(line.get_ydata()) == pytest.approx(expected)


def test_a_sweep_without_rates_is_not_called_no_sweep(sweep_run: Path, tmp_path: Path) -> None:
    """Rows swept over sizes that count neither bytes nor FLOPs have no throughput to
    saturate, but the saturation plot was skipped as 'no kernel was timed at several
    sizes (no size sweep)' beside the sweep plot it had just drawn."""
    work = ("bytes_per_rep", "gbytes_per_s", "flops_per_rep", "gflops_per_s")
    run = _sweep_without(sweep_run, tmp_path, work)
    out = tmp_path / "plots"
    proc = harness("plot", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "sweep_Stream_TRIAD.png").is_file()
    assert "skipped saturation: no swept kernel has a GB/s or GFLOP/s at two sizes" in proc.stderr
    assert "no size sweep" not in proc.stderr


def test_a_row_without_a_group_is_read_in_its_kernel_s_group(run: Path, tmp_path: Path) -> None:
    """A row whose group is null (which a row may hold) was exported in a Caliper
    region named 'None', a group of its own beside its kernel's, and the time plot
    titled its panel 'nan, Basic'."""
    first_row_edited(run, group=None)
    out = tmp_path / "thicket"
    proc = harness("export", str(run), "--thicket", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = "".join(path.read_text() for path in out.glob("*.cali"))
    assert "data=None" not in text and "data=nan" not in text
    assert text.count(",data=Stream,") == 1
    frame, _ = frames.load_runs([run])
    assert plot.plot_times(frame).axes[0].get_title(loc="left") == "Stream, Basic"


def test_a_kernel_name_with_a_line_break_is_damage(run: Path) -> None:
    """A row of a run without metadata.json (whose kernels nothing lists) named
    'Stream\\nTRIAD' was read as good: show printed it as a row split over two lines."""
    (run / results.METADATA).unlink()
    first_row_edited(run, kernel="Stream\nTRIAD")
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert f"{results.JOURNAL}:1: skipped a torn or corrupt line: 'kernel' holds '\\n'" in (
        proc.stderr
    )
    table = proc.stdout.split("\n\n")[0].splitlines()
    assert len(table) == 2 and table[1].startswith("Basic_DAXPY")


def test_rajaperf_rows_of_names_that_print_as_nothing_are_not_imported(tmp_path: Path) -> None:
    """A run-data row whose kernel held a zero-width space was imported as a row
    that the imported run's own journal then read as damage."""
    folder = _rajaperf_copy(tmp_path)
    data = folder / "RAJAPerf-kernel-run-data.csv"
    lines = data.read_text().splitlines()
    lines[2] = lines[2].replace("Stream_COPY", "Stream_\u200bCOPY", 1)
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    proc = harness("import-rajaperf", str(folder), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "RAJAPerf-kernel-run-data.csv:3: kernel, variant or tuning holds a character" in (
        proc.stderr
    )
    shown = harness("show", str(next(out.iterdir())))
    assert "skipped" not in shown.stderr, shown.stderr


def test_a_host_name_with_a_line_break_is_refused(quick_run: Path, tmp_path: Path) -> None:
    """A metadata.json whose host name held a line break was merged: every row of
    that run carried it in its host column, and show printed each over two lines."""
    run = copy_run(quick_run, tmp_path / "damaged")
    path = run / results.METADATA
    meta = json.loads(path.read_text())
    meta["host"]["hostname"] = "node1\nnode2"
    path.write_text(json.dumps(meta))
    out = tmp_path / "merged"
    proc = harness("merge", str(run), str(quick_run), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert f"{path}: 'host.hostname' is 'node1\\nnode2'" in one_error(proc.stderr)
    assert not out.exists()

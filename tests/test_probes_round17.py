"""Hostile probes, round 17: bugs planted outside the mutation operators' set that
the check let through, and outputs an interrupt left looking like someone else's."""

from __future__ import annotations

import gc
import json
import os
import shutil
import signal
import weakref
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    FIXTURES,
    copy_run,
    cut_journal,
    harness,
    interrupted,
    need_backend,
    one_error,
    one_quick_run,
    plant,
    run_folder,
    source_names,
)

from harness import suite
from harness.execution import results
from harness.execution.runner import Task, make_data
from harness.model.spec import STALE, Array, stale_inputs

# Each test here runs the harness end to end on an edge case, seconds of
# subprocesses apiece: the full tier's, so that the fast tier keeps to its minutes.
pytestmark = pytest.mark.full

SPECS = {k.name: k for k in suite.ALL}
LANGUAGES = {"opencl": ("c", ".c"), "wgpu": ("wgsl", ".wgsl")}

#: Bugs RAJAPerf's inputs and the earlier checks let through: (kernel, backend, line
#: as shipped, planted bug, the check case that now sees it).
PLANTED = [
    # Outputs that start at 0: setting one that should be added to, and the reverse.
    ("Basic_DAXPY", "opencl", "y[i] += a * x[i];", "y[i] = a * x[i];", STALE),
    ("Basic_DAXPY", "wgpu", "y[i] += s.a * x[i];", "y[i] = s.a * x[i];", STALE),
    ("Stream_COPY", "opencl", "c[i] = a[i];", "c[i] += a[i];", STALE),
    (
        "Stream_TRIAD",
        "wgpu",
        "a[i] = b[i] + s.alpha * c[i];",
        "a[i] += b[i] + s.alpha * c[i];",
        STALE,
    ),
    ("Apps_LTIMES", "opencl", "REAL acc = phi[t];", "REAL acc = 0;", STALE),
    ("Basic_PI_ATOMIC", "opencl", "pi_final[0] = 4 * pi[0];", "pi_final[0] += 4 * pi[0];", STALE),
    # RAJAPerf's first index is always 1.
    (
        "Basic_INIT_VIEW1D_OFFSET",
        "opencl",
        "a[i - ibegin] = (REAL)i * v;",
        "a[i - 1] = (REAL)i * v;",
        "offset",
    ),
    # Half the stencil's coefficients equal one another, the rest equal x.
    (
        "Apps_MATVEC_3D_STENCIL",
        "opencl",
        "b[i] = dbl[i] * x[d - jp - 1]",
        "b[i] = dbr[i] * x[d - jp - 1]",
        "random",
    ),
    # A group's count of exactly num_bins dropped.
    (
        "Algorithm_HISTOGRAM",
        "opencl",
        "local_counts[lid] != 0",
        "local_counts[lid] != num_bins",
        "random",
    ),
    ("Algorithm_HISTOGRAM", "wgpu", "if (c != 0u) {", "if (c != s.num_bins) {", "random"),
    # The default sums every array, so a kernel that ignores the count matched.
    (
        "Basic_ARRAY_OF_PTRS",
        "opencl",
        "for (uint a = 0; a < array_size; ++a) {",
        "for (uint a = 0; a < MAX_ARRAY_SIZE; ++a) {",
        "random",
    ),
    # Ties within one work-item's items: the later one taken.
    (
        "Lcals_FIRST_MIN",
        "opencl",
        "if (better(x[i], (int)i, val, loc)) {",
        "if (better(x[i], initloc, val, loc)) {",
        "ties",
    ),
    # A max begun at 0 where every value is negative.
    (
        "Basic_REDUCE_STRUCT",
        "wgpu",
        "s.n);\n    var r = Reduced(REAL(0), REAL(0), s.init_min, s.init_max, s.init_min, "
        "s.init_max);",
        "s.n);\n    var r = Reduced(REAL(0), REAL(0), s.init_min, s.init_max, s.init_min, "
        "REAL(0));",
        "one_sign",
    ),
]


@pytest.mark.parametrize(("kernel", "backend", "line", "bug", "case"), PLANTED)
def test_a_planted_bug_the_check_let_through_fails(
    kernel: str, backend: str, line: str, bug: str, case: str, tmp_path: Path
) -> None:
    need_backend(backend)
    language, extension = LANGUAGES[backend]
    plant(tmp_path, language, f"{kernel}{extension}", line, bug)
    proc = harness(
        "run", "-k", kernel, "-b", backend, "--check", "--precision", "f64",
        "--sources", str(tmp_path), "--out", str(tmp_path / "runs"),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = [
        r for r in results.read_journal(run_folder(tmp_path / "runs")) if r["status"] == "fail"
    ]
    assert failed and all(r["source"].startswith(str(tmp_path)) for r in failed)
    assert any(r["reason"].startswith(f"check case '{case}': ") for r in failed), failed


def test_the_stale_case_varies_only_outputs_that_start_constant() -> None:
    arrays = (
        Array("x", "real", len),
        Array("y", "real", len, "inout"),
        Array("z", "real", len, "out"),
        Array("counts", "u32", len, "out"),
        Array("w", "real", len, "out"),
    )
    inputs = {
        "x": np.zeros(8),
        "y": np.zeros(8),
        "z": np.arange(8.0),
        "counts": np.zeros(8, dtype=np.uint32),
        "w": np.zeros(8),
        "n": 8,
    }
    # w is varied by one of the description's own check cases already.
    stale = stale_inputs(arrays, inputs, seed=1, varied=[{**inputs, "w": np.arange(8.0)}])
    assert stale is not None
    assert stale["x"] is inputs["x"] and stale["z"] is inputs["z"] and stale["w"] is inputs["w"]
    assert stale["n"] == 8
    assert stale["y"].dtype == np.float64 and len(set(stale["y"])) == 8
    assert ((stale["y"] >= 0.5) & (stale["y"] <= 1.5)).all()
    assert stale["counts"].dtype == np.uint32 and len(set(stale["counts"])) > 1
    again = stale_inputs(arrays, inputs, seed=1)
    assert again is not None and np.array_equal(again["y"], stale["y"])
    varied = {"y": np.arange(8.0), "counts": np.arange(8), "w": np.arange(8.0)}
    assert stale_inputs(arrays, {**inputs, **varied}, seed=1) is None


def test_only_kernels_with_a_constant_output_get_the_stale_case() -> None:
    def names(kernel: str) -> list[str]:
        task = Task(kernel, "cpu", 0, 1000, "f64")
        return [case.name for case in make_data(SPECS[kernel], task, seed=1)]

    assert names("Basic_DAXPY") == ["timed", STALE]
    # Its own random case already starts every array varied.
    assert STALE not in names("Polybench_ADI")
    # Keys to sort start varied (where there are two or more).
    assert STALE not in names("Algorithm_SORT")
    # Timed rows (no check) leave every check case to --check.
    spec = SPECS["Basic_DAXPY"]
    task = Task("Basic_DAXPY", "cpu", 0, 1000, "f64")
    assert [c.name for c in make_data(spec, task, seed=1, check=False)] == ["timed"]


@pytest.mark.full  # a report with plots: seconds of matplotlib
def test_an_interrupted_report_leaves_nothing_a_rerun_refuses(tmp_path: Path) -> None:
    """A report stopped while drawing its HTML's plots left its RAJAPerf files without
    report.md, and the same command again refused the folder as raja-perf.exe's own
    output: one Ctrl-C locked a run's default report folder for good."""
    proc = harness(
        "run", "-k", "Stream_TRIAD", "-b", "cpu", "--sizes", "1000,2000", "--reps", "2",
        "--out", str(tmp_path / "runs"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(tmp_path / "runs")
    out = run / "report"
    for earlier in (False, True):
        if earlier:
            assert harness("report", str(run), "--html").returncode == 0
        stopped = interrupted(["report", str(run), "--html"], "[2/")
        assert stopped.returncode == 130, stopped.stderr
        assert "Traceback" not in stopped.stderr
        left = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
        assert not [name for name in left if "RAJAPerf" in name or name.startswith("report")]
        if earlier:
            # It wrote nothing before its plots were drawn: the earlier report goes whole.
            assert "file(s) of an earlier report" in stopped.stderr, stopped.stderr
        again = harness("report", str(run), "--html")
        assert again.returncode == 0, again.stderr
        assert (out / "report.md").is_file() and (out / "SIZE_000002000").is_dir()


def test_a_check_that_verified_nothing_does_not_pass(tmp_path: Path) -> None:
    """--check of rows a device can only skip exited 0, a gate passed on no work;
    a check with some row verified still passes beside its skipped ones."""
    need_backend("wgpu")
    proc = harness(
        "run", "-k", "Demo_SGEMV", "--impl", "library", "-b", "wgpu", "--check",
        "--out", str(tmp_path / "none"),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "nothing was verified: all 2 rows were skipped (the reasons are above); a check "
        "that verifies nothing does not pass"
    )
    # Its resume, which has nothing to run, does not pass it either.
    resumed = harness("run", "--resume", str(run_folder(tmp_path / "none")))
    assert resumed.returncode == 1, resumed.stderr
    assert "nothing was verified" in resumed.stderr
    proc = harness(
        "run", "-k", "Demo_SGEMV", "-b", "wgpu", "--check", "--out", str(tmp_path / "some")
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "2 ok, 0 fail, 0 error, 2 skipped" in proc.stdout


def test_a_run_that_ended_while_read_is_not_sent_to_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plot begun while a run was writing, which ended before the plot's note,
    said the run had not ended and to resume it (with nothing left to do)."""
    from harness.cli import reports

    run = one_quick_run(tmp_path)
    ended = results.read_metadata(run)
    as_read = {k: v for k, v in ended.items() if k != "end"}
    reports._note_short(run, as_read, "plotted")
    assert capsys.readouterr().err == (
        f"note: {run} ended while its rows were read: those it had then are plotted; run "
        "this again for all of them\n"
    )
    # Still without an end on disk: the note sends it to be resumed.
    results.write_json(run / "metadata.json", as_read)
    reports._note_short(run, as_read, "plotted")
    assert "continue it with: harness run --resume" in capsys.readouterr().err


def _command_with(
    monkeypatch: pytest.MonkeyPatch, trigger: Callable[[], None], step: str, *args: str
) -> int:
    """``harness ARGS`` in this process, ``trigger`` called as it enters
    ``results.STEP``."""
    from harness.cli import main

    original = getattr(results, step)

    def entered(*given: object, **named: object) -> object:
        trigger()
        return original(*given, **named)

    monkeypatch.setattr(results, step, entered)
    return main(list(args))


def _signal_in_a_finalizer(signum: int) -> Callable[[], None]:
    """What sends ``signum`` from inside a weakref callback, as garbage collection
    runs matplotlib's all through a plot."""

    class Held:
        pass

    def trigger() -> None:
        held = Held()
        weakref.finalize(held, os.kill, os.getpid(), signum)
        del held
        gc.collect()

    return trigger


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_swallowed_in_a_finalizer_still_stops_the_command(
    signum: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A signal whose KeyboardInterrupt is raised inside a weakref callback (which
    matplotlib's transforms use all through a plot) was only reported by Python,
    with a traceback: the plot ran on to its end and exited 0, a cancelled job
    reported success. It now stops at the next file, or ends with 130 after the
    last."""
    run = one_quick_run(tmp_path)
    trigger = _signal_in_a_finalizer(signum)
    out = tmp_path / "profiles"
    status = _command_with(
        monkeypatch, trigger, "check_out", "export", str(run), "--thicket", "--out", str(out)
    )
    assert status == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert err.endswith("harness export: interrupted; what it was writing may be incomplete\n")
    assert not list(out.glob("*.cali"))
    # show writes nothing after it reads the rows: it ends, and says the signal came.
    monkeypatch.undo()
    assert _command_with(monkeypatch, trigger, "ensure_csv", "show", str(run)) == 130
    assert capsys.readouterr().err.endswith(
        "harness show: stopped by a signal, which reached it only once its work was done: "
        "its output is whole\n"
    )


def test_an_error_in_cleanup_after_a_signal_is_the_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A signal inside matplotlib's savefig left its figure half-adjusted, whose
    cleanup then raised AttributeError: a traceback and exit 1, not 130."""
    run = one_quick_run(tmp_path)

    def signal_then_a_failing_cleanup() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        finally:
            raise AttributeError("'Axes' object has no attribute 'apply_aspect'")

    assert (
        _command_with(monkeypatch, signal_then_a_failing_cleanup, "ensure_csv", "show", str(run))
        == 130
    )
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.endswith("harness show: interrupted; what it was writing may be incomplete\n")


def test_two_sigterms_end_a_command_with_143(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """report, plot and peak gave 130 for a batch system's SIGTERM and its second,
    where the README (and run, merge, mutants) give 143."""
    run = one_quick_run(tmp_path)

    def twice() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)

    assert _command_with(monkeypatch, twice, "ensure_csv", "show", str(run)) == 143
    assert "Traceback" not in capsys.readouterr().err


def test_compare_fails_where_a_merged_node_stopped_short(tmp_path: Path) -> None:
    """compare BASE MERGE(stopped, whole) judged each base row against the hosts that
    held it only: the node whose job was cancelled lacked half the base's rows,
    and the gate passed ('12 noise', exit 0)."""
    need_backend("opencl")
    # Two devices: the stopped node ran its cpu row only, none on opencl, which it
    # planned all the same (its metadata lists it).
    proc = harness(
        "run", "-k", "Stream_TRIAD", "-b", "cpu", "opencl", "--size", "1000",
        "--reps", "2", "--out", str(tmp_path / "a"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    base = run_folder(tmp_path / "a")
    whole = copy_run(base, tmp_path / "whole")
    stopped = copy_run(base, tmp_path / "stopped")
    cut_journal(stopped, 1)
    meta = json.loads((stopped / "metadata.json").read_text())
    (stopped / "metadata.json").write_text(json.dumps({**meta, "interrupted": True}))
    out = tmp_path / "merged"
    assert harness("merge", str(stopped), str(whole), "--out", str(out)).returncode == 0
    merged = run_folder(out)
    proc = harness("compare", str(base), str(merged))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # Each host's copy of the base's rows: the stopped one lacks one of the two.
    assert proc.stdout.splitlines()[-1] == "3 noise, 1 only in base"
    name = source_names(merged)[0]
    assert (
        f"fail: {merged} merges {name}, which was interrupted when merged, and 1 row(s) of "
        f"the base are not in {merged}"
    ) in proc.stderr


@pytest.mark.parametrize(
    ("values", "said"),
    [
        (
            {"journal_rows": None},
            "'journal_rows' is null; a whole number (the rows the journal held at the run's "
            "end) is accepted",
        ),
        (
            {"format": None},
            "'format' is null; a whole number from 1 (the run folder's format: this harness "
            "reads up to 2) is accepted",
        ),
        (
            {"format": 3},
            "'format' is 3, newer than this harness reads (up to 2): read it with the harness "
            "that wrote it",
        ),
        ({"devices": None}, "'devices' is null; a list of objects is accepted"),
        (
            {"unread_lines": {"file": "RAJAPerf-kernel-run-data.csv", "lines": ["5"]}},
            "'unread_lines' is an object; an object naming the imported file and its unread "
            'lines ({"file": text, "lines": a list of line numbers}) is accepted',
        ),
    ],
)
def test_metadata_a_run_never_writes_is_refused(values: dict, said: str, tmp_path: Path) -> None:
    """'journal_rows': null turned off the check for rows removed since the run counted
    them (compare then passed on a row deleted by hand); a format 3 was read as 2."""
    base = one_quick_run(tmp_path / "base")
    run = copy_run(base, tmp_path / "damaged")
    meta = json.loads((run / "metadata.json").read_text())
    (run / "metadata.json").write_text(json.dumps({**meta, **values}, indent=2))
    for args in (["show", str(run)], ["compare", str(base), str(run)]):
        proc = harness(*args)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        error = one_error(proc.stderr)
        assert error.startswith(f"{run / 'metadata.json'}:")
        assert error.endswith(said)


def test_rows_of_a_run_that_lists_no_device_are_damaged(tmp_path: Path) -> None:
    """'devices': [] turned off the check that a row's device is one the run lists."""
    run = one_quick_run(tmp_path)
    meta = json.loads((run / "metadata.json").read_text())
    (run / "metadata.json").write_text(json.dumps({**meta, "devices": []}, indent=2))
    proc = harness("show", str(run))
    assert "'device_id' is 'cpu:0', a device metadata.json does not list; it lists none" in (
        proc.stderr
    )
    assert proc.returncode == 2 and "the journal has no readable rows" in proc.stderr


def test_a_resume_of_a_whole_run_leaves_it_as_it_was(tmp_path: Path) -> None:
    """--resume of a run that had ended rewrote its end (minutes after its start for
    a run of a second) and added a resume that ran nothing."""
    run = one_quick_run(tmp_path)
    before = (run / "metadata.json").read_bytes()
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"nothing to resume: {run} ran to its end (1 row); it is left as it was"
    )
    assert (run / "metadata.json").read_bytes() == before


def test_an_import_of_a_cut_short_run_data_file_says_so_where_it_is_used(
    tmp_path: Path,
) -> None:
    """raja-perf.exe killed mid-write: the import warned once of the cut line, then
    the run folder looked whole, and compare passed on the rows it lacked."""
    source = tmp_path / "cut"
    shutil.copytree(FIXTURES / "rajaperf_output", source)
    data = source / "RAJAPerf-kernel-run-data.csv"
    text = data.read_bytes()
    data.write_bytes(text[: len(text) // 2])
    for folder, out in ((FIXTURES / "rajaperf_output", "whole"), (source, "imported")):
        proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / out))
        assert proc.returncode == 0, proc.stderr
    whole, imported = run_folder(tmp_path / "whole"), run_folder(tmp_path / "imported")
    unread = json.loads((imported / "metadata.json").read_text())["unread_lines"]
    assert unread["file"] == "RAJAPerf-kernel-run-data.csv" and len(unread["lines"]) == 1
    assert "unread_lines" not in json.loads((whole / "metadata.json").read_text())
    said = "was imported from a RAJAPerf-kernel-run-data.csv with 1 line(s) it could not read"
    proc = harness("compare", str(whole), str(imported))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"fail: {imported} {said}, and " in proc.stderr
    proc = harness("show", str(imported))
    assert f"note: {imported} {said}: the rows it kept are shown; import it again from " in (
        proc.stderr
    )


def test_a_peaks_store_that_is_a_link_is_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store linked to a file shared between machines was replaced by a file of its
    own at the link's place: the shared file never saw the peaks."""
    from harness.backends import get as get_backend
    from harness.execution import peaks

    shared = tmp_path / "shared" / "peaks.json"
    shared.parent.mkdir()
    shared.write_text("{}\n")
    link = tmp_path / "peaks.json"
    link.symlink_to(shared)
    monkeypatch.setenv("HARNESS_PEAKS", str(link))
    device = get_backend("cpu").default_devices()[0].as_dict()
    peak = {"device": device, "measured": "2026-11-29T10:00:00+0000", "notes": []}
    peak.update(copy_gbytes_per_s=10.0, warnings=[], fma_gflops_per_s={"f64": 1.0})
    assert peaks.keep(device, peak) == shared
    assert link.is_symlink()
    assert json.loads(shared.read_text()) == {peaks.device_key(device): peak}


def test_a_flush_count_rounded_to_whole_words_is_not_called_a_cap(tmp_path: Path) -> None:
    """--flush-bytes 4095 said it was 'more than a quarter of cpu:0's memory'."""
    proc = harness(
        "run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--reps", "3", "--cache",
        "cold", "--flush-bytes", "4095", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "more than a quarter" not in proc.stderr
    (row,) = results.read_journal(run_folder(tmp_path))
    assert row["flush_bytes"] == 4092

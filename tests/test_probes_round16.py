"""Hostile probes, round 16: what a user reads off a run must tell its rows apart."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, cut_journal, harness, need_backend, one_error, run_folder

pytest.importorskip("matplotlib")

from harness.execution import results
from harness.reporting import plot
from harness.reporting.frames import load_runs

# Each test here runs the harness end to end on an edge case, seconds of
# subprocesses apiece: the full tier's, so that the fast tier keeps to its minutes.
pytestmark = pytest.mark.full


def _quick(out: Path, *kernels: str) -> Path:
    """A finished run of ``kernels`` (Stream_TRIAD) on numpy at 1000, two repetitions."""
    proc = harness("run", "-k", *(kernels or ("Stream_TRIAD",)), "-b", "cpu", "--size", "1000",
                   "--reps", "2", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def _edit_meta(run: Path, **values: object) -> dict:
    """The run's metadata with ``values`` set, written back."""
    meta = json.loads((run / "metadata.json").read_text())
    meta.update(values)
    (run / "metadata.json").write_text(json.dumps(meta, indent=2))
    return meta


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run of one kernel at two sizes, two precisions, two cache states and
    two transfer modes: sixteen rows that differ in one thing or more."""
    need_backend("opencl")
    out = tmp_path_factory.mktemp("variants")
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "opencl", "--sizes", "1000,4000", "--reps", "2",
        "--cache", "hot", "cold", "--transfers", "resident", "per-rep",
        "--precision", "f64", "f32", "--out", str(out),
        env={"HARNESS_PEAKS": str(out / "no-peaks.json")},  # no measured peak here
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def test_every_transfers_bar_has_a_label_of_its_own(variants: Path) -> None:
    frame, _ = load_runs([variants])
    fig = plot.plot_transfers(frame)
    (ax,) = [a for a in fig.axes if a.get_title(loc="left") == "Stream_COPY"]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    # Bars are drawn bottom up: the first label read is the last drawn.
    assert labels[::-1] == [
        f"opencl:0 · {p}{cold} · {mode}"
        for p in ("f32", "f64")
        for cold in ("", " · cold cache")
        for mode in ("resident", "per-rep")
    ]


def test_every_sweep_line_has_a_style_of_its_own(variants: Path) -> None:
    frame, _ = load_runs([variants])
    fig = plot.plot_sweep(frame, "Stream_COPY")
    time_ax, _ = fig.axes
    lines = time_ax.get_lines()
    assert len(lines) == 8  # two precisions, two cache states, two transfer modes
    looks = {
        (ln.get_color(), ln.get_marker(), ln.get_linestyle(), ln.get_fillstyle()) for ln in lines
    }
    assert len(looks) == len(lines)
    # The variant without options (hot cache, resident), at each precision.
    plain = {ln.get_label()[-3:]: ln for ln in lines if "·" not in ln.get_label()}
    f64, f32 = plain["f64"], plain["f32"]
    assert (f64.get_color(), f64.get_marker()) == (f32.get_color(), f32.get_marker())
    assert (f64.get_fillstyle(), f32.get_fillstyle()) == ("full", "none")
    # The sizes measured are the ticks (a round tick between them named neither).
    assert list(time_ax.get_xticks()) == [1000.0, 4000.0]
    assert [t.get_text() for t in time_ax.get_xticklabels()] == ["1k", "4k"]


def test_the_saturation_plot_speaks_of_peaks_only_where_it_draws_them(variants: Path) -> None:
    frame, _ = load_runs([variants])
    fig = plot.plot_saturation(frame)
    said = " ".join(t.get_text() for t in fig.findobj(lambda o: hasattr(o, "get_text")))
    assert "ringed: the smallest size" in said
    assert "dashed" not in said  # the run's device has no measured peak


def test_rows_removed_with_their_count_fail_compare(tmp_path: Path) -> None:
    """A run counts its rows at its end; removing a row and the count as well passed
    compare ("1 only in base"), as a run of a version that counted none would."""
    base, new = (_quick(tmp_path / n, "Stream_TRIAD", "Basic_DAXPY") for n in ("base", "new"))
    meta = json.loads((new / "metadata.json").read_text())
    assert (meta["format"], meta["journal_rows"]) == (2, 2)
    del meta["journal_rows"]
    (new / "metadata.json").write_text(json.dumps(meta))
    journal = new / "journal.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[1])
    proc = harness("compare", "--threshold", "99", str(base), str(new))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        f"{new / 'metadata.json'} has an 'end' but no 'journal_rows', which a run of its "
        "format counts at its end: rows removed from journal.jsonl cannot be told"
    ) in proc.stdout + proc.stderr
    # A run of the format before counts no rows: compare reads it as it is.
    del meta["format"]
    (new / "metadata.json").write_text(json.dumps(meta))
    proc = harness("compare", "--threshold", "99", str(base), str(new))
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("end", "why"),
    [
        ("garbage", "'end' is \"garbage\"; a time as 2026-01-31T12:00:00+0000 is accepted"),
        (
            "2020-01-01T00:00:00+0000",
            "'end' is \"2020-01-01T00:00:00+0000\", before its 'start' ({start}); a run ends "
            "after it starts",
        ),
    ],
)
def test_an_end_that_is_no_time_of_the_run_is_named(tmp_path: Path, end: str, why: str) -> None:
    """An 'end' no run writes was read as the end of a run: compare took the run
    as finished."""
    run = _quick(tmp_path / "out")
    meta = _edit_meta(run, end=end)
    line = next(
        i for i, x in enumerate((run / "metadata.json").read_text().splitlines(), 1) if '"end"' in x
    )
    proc = harness("show", str(run))
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"harness: error: {run / 'metadata.json'}:{line}: "
        + why.format(start=json.dumps(meta["start"]))
    )


def test_a_resume_takes_a_sized_down_row_as_done(tmp_path: Path) -> None:
    """A row sized down to fit its device has the size it ran at, not the planned
    one: a resume measured it again, and the journal then held its case twice."""
    run = _quick(tmp_path / "out", "Stream_TRIAD", "Basic_DAXPY")
    first = json.loads((run / "journal.jsonl").read_text().splitlines()[0])
    first.update(size=500, sized_from=1000)
    (run / "journal.jsonl").write_text(json.dumps(first) + "\n")
    _edit_meta(run, interrupted=True, journal_rows=1)
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert f"resuming {run}: 1 rows done" in proc.stderr
    rows = [json.loads(line) for line in (run / "journal.jsonl").read_text().splitlines()]
    assert [(r["kernel"], r["size"]) for r in rows] == [
        (first["kernel"], 500),
        ("Basic_DAXPY" if first["kernel"] == "Stream_TRIAD" else "Stream_TRIAD", 1000),
    ]


def test_the_resume_command_given_is_one_a_shell_runs_as_it_is(tmp_path: Path) -> None:
    """A folder with a space (or a `$(...)`) made the printed command, pasted, resume
    nothing, or run what the path held."""
    run = _quick(tmp_path / "my runs $(touch x)", "Stream_TRIAD", "Basic_DAXPY")
    cut_journal(run, 1)
    _edit_meta(run, interrupted=True)
    proc = harness("show", str(run))
    # An interrupted run's show exits as the run did.
    assert proc.returncode == 130, proc.stderr
    (said,) = [x for x in proc.stderr.splitlines() if "continue it with: " in x]
    command = said.split("continue it with: ")[1]
    assert shlex.split(command) == ["harness", "run", "--resume", str(run)]


def test_a_run_stopped_before_its_first_row_says_so_and_how_to_finish_it(
    tmp_path: Path,
) -> None:
    """`show` of it said its journal was corrupt."""
    run = _quick(tmp_path / "out")
    cut_journal(run, 0)
    _edit_meta(run, interrupted=True)
    for command in ("show", "report", "plot"):
        proc = harness(
            command, str(run), *(["--out", str(tmp_path / command)] * (command != "show"))
        )
        assert proc.returncode == 2
        assert proc.stderr.splitlines()[-1] == (
            f"harness: error: {run}: no row: the run was interrupted before its first row; "
            f"continue it with: harness run --resume {run}"
        )


def test_rows_queued_one_by_one_are_a_variant_of_their_own(tmp_path: Path) -> None:
    """A --no-hold run and a held one were compared as one case: the host's queueing,
    timed in the first, was called a regression of the kernel."""
    need_backend("opencl")
    runs = []
    for name, more in (("held", ()), ("direct", ("--no-hold",))):
        proc = harness("run", "-k", "Stream_TRIAD", "-b", "opencl", "--size", "1000", "--reps",
                       "2", *more, "--out", str(tmp_path / name))  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        runs.append(run_folder(tmp_path / name))
    frame, _ = load_runs(runs)
    variants = dict(zip(frame["run"], frame["variant_params"], strict=True))
    # Two runs started within one second share a folder name; the frame then
    # names each by its parent too.
    labels = [r.name if runs[0].name != runs[1].name else f"{r.parent.name}/{r.name}" for r in runs]
    assert variants == {labels[0]: "", labels[1]: "direct queue"}
    proc = harness("compare", *map(str, runs))
    assert proc.returncode == 2
    assert "have no row in common" in proc.stderr


def test_a_checksum_file_cut_short_is_named_and_its_rows_left_without(tmp_path: Path) -> None:
    """A RAJAPerf-checksum.txt cut mid-number gave Stream_TRIAD the checksum 11957.0
    (of 11957.43...), and the rows its lost lines held none, without a word."""
    source = tmp_path / "src"
    shutil.copytree(FIXTURES / "rajaperf_output", source)
    checksums = source / "RAJAPerf-checksum.txt"
    text = checksums.read_text()
    checksums.write_text(text[: text.index("11957.43") + 5])
    line = text[: text.index("11957.43")].count("\n") + 1
    proc = harness("import-rajaperf", str(source), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    data = source / "RAJAPerf-kernel-run-data.csv"
    assert [x for x in proc.stderr.splitlines() if x.startswith("warning")] == [
        f"warning: {checksums}:{line}: cut short: 4 of a checksum line's 5 cells: left out",
        *(
            f"warning: {data}:{n}: RAJAPerf-checksum.txt has no checksum of {k}: its row has none"
            for n, k in (
                (5, "Stream_TRIAD Base_Seq-default"),
                (6, "Stream_TRIAD Base_OpenMP-default"),
                (7, "Basic_DAXPY Base_Seq-default"),
            )
        ),
    ]
    rows = [json.loads(x) for x in (run_folder(tmp_path / "out") / "journal.jsonl").open()]
    assert [r["checksum"] for r in rows if r["kernel"] == "Stream_TRIAD"] == [None, None]


def test_rajaperf_speedups_have_one_reference_a_kernel(tmp_path: Path) -> None:
    """Each tuning of the reference variant was divided by itself: a partition 2x
    slower than the other read 1.000."""
    need_backend("opencl")
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "opencl", "--size", "100000", "--reps", "3",
                   "--partition", "item", "chunk", "--out", str(tmp_path / "run"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(tmp_path / "run")
    proc = harness("report", str(run), "--baseline", "opencl:0", "--out", str(tmp_path / "rep"))
    assert proc.returncode == 0, proc.stderr
    lines = (tmp_path / "rep" / "RAJAPerf-speedup-Average.csv").read_text().splitlines()
    assert lines[0].startswith(
        "Mean Speedup Report (T_ref/T_var): ref var = opencl:0 item_partition"
    )
    tunings = [c.strip() for c in lines[2].split(",")[1:]]
    cells = dict(zip(tunings, (c.strip() for c in lines[3].split(",")[1:]), strict=True))
    mean = {
        r["partition"]: r["time_mean_s"] for r in map(json.loads, (run / "journal.jsonl").open())
    }
    assert cells == {
        "item_partition": "1.000",
        "chunk_partition": f"{mean['item'] / mean['chunk']:.3f}",
    }


def test_the_resume_command_of_an_mpi_run_starts_its_ranks(tmp_path: Path) -> None:
    """show gave 'harness run --resume' for a run of two ranks, which refuses it."""
    meta = {"ranks": [{"rank": 0}, {"rank": 1}]}
    assert results.resume_command(tmp_path / "a b", meta) == (
        f"mpirun -n 2 harness run --resume '{tmp_path / 'a b'}'"
    )
    assert results.resume_command(tmp_path, {}) == f"harness run --resume {tmp_path}"


def test_a_merged_run_against_a_single_one_is_judged_host_by_host(tmp_path: Path) -> None:
    """Of the merged run's two hosts' rows of a case only the last was compared: a
    regression on the other host passed."""
    runs = {name: _quick(tmp_path / name) for name in ("base", "a", "b")}
    proc = harness("merge", str(runs["a"]), str(runs["b"]), "--out", str(tmp_path / "m"))
    assert proc.returncode == 0, proc.stderr
    merged = run_folder(tmp_path / "m")
    for base, new, several, one in ((runs["base"], merged, "new", "base"),
                                    (merged, runs["base"], "base", "new")):  # fmt: skip
        proc = harness("compare", "--threshold", "99", str(base), str(new))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        table = [line for line in proc.stdout.splitlines() if line.startswith("Stream_TRIAD")]
        # One row a host, each labelled with its own (both runs are of this machine,
        # told apart by their runs' names).
        hosts = {re.search(r"@(.+?)\s{2}", line)[1] for line in table}
        assert len(table) == len(hosts) == 2
        assert (
            f"note: the {several} run holds rows of 2 hosts: each host's row of a case "
            f"is judged against the {one} run's"
        ) in proc.stdout + proc.stderr


def test_an_imported_run_reports_beside_ours_as_the_same_problems(tmp_path: Path) -> None:
    """Imported rows (no cache, no transfers) were other problems than ours: each
    kernel twice in the portability table, each half 'did not run' on the other;
    RAJA_CUDA was a CPU, and the importing host's."""
    source = shutil.copytree(FIXTURES / "rajaperf_output", tmp_path / "src")
    for name in ("RAJAPerf-kernel-run-data.csv", "RAJAPerf-checksum.txt"):
        path = source / name
        path.write_text(path.read_text().replace("Base_OpenMP", "RAJA_CUDA  "))
    proc = harness("import-rajaperf", str(source), "--out", str(tmp_path / "imp"))
    assert proc.returncode == 0, proc.stderr
    imported = run_folder(tmp_path / "imp")
    devices = json.loads((imported / "metadata.json").read_text())["devices"]
    assert [(d["name"], d["kind"]) for d in devices] == [
        ("Base_Seq default", "cpu"),
        ("RAJA_CUDA default", "gpu"),
    ]
    proc = harness("run", "-k", "Stream_COPY", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu",
                   "--size", "100000", "--reps", "2", "--out", str(tmp_path / "ours"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    proc = harness("report", str(run_folder(tmp_path / "ours")), str(imported),
                   "--out", str(tmp_path / "rep"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "## Across APIs" not in text  # no device of the import is this host's CPU
    table = text.split("## Performance portability")[1].split("| Suite")[0]
    kernels = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ")]
    assert kernels[2:] == ["Stream_COPY", "Stream_TRIAD", "Basic_DAXPY"]


def test_a_report_refuses_to_overwrite_raja_perf_exes_own_output(tmp_path: Path) -> None:
    """report --out into raja-perf.exe's output folder replaced its measurements
    with ours, which an import then presented as a RAJAPerf variant."""
    source = shutil.copytree(FIXTURES / "rajaperf_output", tmp_path / "rajaperf-out")
    before = {p.name: p.read_bytes() for p in source.iterdir()}
    proc = harness("report", str(_quick(tmp_path / "ours")), "--out", str(source))
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith(
        f"harness: error: output folder {source}: holds RAJAPerf files (RAJAPerf-checksum.txt, "
    )
    assert "raja-perf.exe's own output, which this report would overwrite" in proc.stderr
    assert {p.name: p.read_bytes() for p in source.iterdir()} == before


def test_a_merged_run_keeps_each_sources_peaks(tmp_path: Path) -> None:
    """A merged run dropped its sources' measured peaks: no roofline ('run harness
    peak before the run'), and a report whose '% peak' pointed at no Peaks table."""
    runs = []
    for name in ("a", "b"):
        env = {"HARNESS_PEAKS": str(tmp_path / f"{name}.json")}
        proc = harness("peak", "-b", "cpu", "--span", "0.5", "--max-time", "0.3",
                       "--bandwidth-size", "1000000", "--fma-size", "65536", "--force",
                       env=env)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "100000", "--reps",
                       "2", "--out", str(tmp_path / name), env=env)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        runs.append(run_folder(tmp_path / name))
    proc = harness("merge", *map(str, runs), "--out", str(tmp_path / "m"))
    assert proc.returncode == 0, proc.stderr
    merged = run_folder(tmp_path / "m")
    own = [json.loads((r / "metadata.json").read_text())["peaks"]["cpu:0"] for r in runs]
    frame, _ = load_runs([merged])
    by_source = dict(zip(frame["source_run"], frame["peak_gbytes_per_s"], strict=True))
    assert by_source == {
        r.name: max(p["copy_gbytes_per_s"], p["triad_gbytes_per_s"])
        for r, p in zip(runs, own, strict=True)
    }
    proc = harness("report", str(merged), "--out", str(tmp_path / "rep"))
    assert proc.returncode == 0, proc.stderr
    peaks = (tmp_path / "rep" / "report.md").read_text().split("## Peaks")[1].split("\n## ")[0]
    assert sum(": cpu:0 |" in line for line in peaks.splitlines()) == 2  # one a host


def test_a_run_made_inside_another_says_so(tmp_path: Path) -> None:
    """--out naming a run folder nested a new run in it without a word; it is refused,
    also where the folder has lost its metadata.json and holds its journal alone."""
    run = _quick(tmp_path / "first")
    (run / "metadata.json").unlink()
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--reps", "2",
                   "--out", str(run))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr).startswith(f"--out {str(run)!r}: a run folder, in which")
    assert [p for p in run.iterdir() if p.is_dir()] == []

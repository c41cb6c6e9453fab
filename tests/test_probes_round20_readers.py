"""Hostile probes, round 20: the readers and writers of run folders (report, plot,
export, merge, import-rajaperf) given journal fields of the wrong type, damaged or
unusual folders, outputs that are their inputs, RAJAPerf output of other layouts,
and kernels with very long names."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, copy_run, first_row_edited, harness, one_error, run_folder
from matplotlib.text import Text

from harness.execution import results

# Each test here runs the harness end to end on an edge case, seconds of
# subprocesses apiece: the full tier's, so that the fast tier keeps to its minutes.
pytestmark = pytest.mark.full

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"bytes_read_per_rep": "x"}, "'bytes_read_per_rep' is a string, not a number"),
        ({"iterations_per_rep": True}, "'iterations_per_rep' is a boolean, not a number"),
        ({"bytes_allocated": 1.5}, "'bytes_allocated' is 1.5; a whole number from 0"),
        ({"power_w": "12 W"}, "'power_w' is a string, not a number"),
    ],
)
def test_work_counts_and_energy_of_the_wrong_type_are_damage(
    run: Path, tmp_path: Path, change: dict[str, Any], said: str
) -> None:
    """A row's byte and iteration counts were read whatever their type: text in one
    ended `report` in a traceback (int('x') writing RAJAPerf's kernel-details file), a
    boolean became a count of 1, a fraction was cut to a whole number, text in an
    energy column was shown as a figure."""
    first_row_edited(run, **change)
    out = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{results.JOURNAL}:1: skipped" in proc.stderr
    assert said in proc.stderr
    details = (out / "RAJAPerf-kernel-details.csv").read_text()
    assert "Stream_TRIAD" not in details and "Basic_DAXPY" in details


#: Kernel names a suite of one's own may give: one long word, and many short parts.
LONG_NAMES = {
    "Stream_TRIAD": "Stream_" + "TRIADWITHAVERYLONGNAMETHATHASNOBREAKS" * 3,
    "Basic_DAXPY": "Basic_daxpy_" + "_".join(f"segment{i}" for i in range(12)),
}


def _renamed(run: Path, names: dict[str, str]) -> Path:
    """``run`` (a copy) with its kernels renamed as ``names`` says, in its metadata,
    journal and samples alike, as a run of kernels of those names writes them."""
    meta = json.loads((run / results.METADATA).read_text())
    meta["kernels"] = {names.get(k, k): facts for k, facts in meta["kernels"].items()}
    meta["options"]["kernels"] = [names.get(k, k) for k in meta["options"]["kernels"]]
    (run / results.METADATA).write_text(json.dumps(meta, indent=2))
    for file in (results.JOURNAL, results.SAMPLES):
        rows = [json.loads(line) for line in (run / file).read_text().splitlines()]
        for row in rows:
            row["kernel"] = names.get(row["kernel"], row["kernel"])
        (run / file).write_text("".join(json.dumps(row) + "\n" for row in rows))
    (run / results.RESULTS).unlink()
    return run


def test_very_long_kernel_names_are_shortened_on_axes_and_named_in_full(
    run: Path, tmp_path: Path
) -> None:
    """A long kernel name was drawn whole: on the time plot's axis it ran over its
    neighbour's label (a name without underscores on one line, 120 characters
    wide), and the heat map and bandwidth plots grew wider than a screen for it.
    Now an axis shows it cut in its middle, and the figure names it in full below."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from harness.reporting import plot
    from harness.reporting.frames import load_runs

    frame, _ = load_runs([_renamed(run, LONG_NAMES)])
    # A run of one device draws no speedup map (of itself over itself).
    for make in (plot.plot_times, plot.plot_bandwidth):
        fig = make(frame)
        FigureCanvasAgg(fig).draw()
        assert fig.get_figwidth() <= 20, make.__name__
        axes = [ax for ax in fig.findobj() if hasattr(ax, "get_xticklabels")]
        ticks = [t for ax in axes for t in (*ax.get_xticklabels(), *ax.get_yticklabels())]
        shown = [t.get_text() for t in ticks]
        assert not any(name in text for name in LONG_NAMES.values() for text in shown)
        # A bandwidth row's label ends with its size ("  n=1k").
        lines = [line for text in shown for line in text.split("\n")]
        assert all(len(line) <= plot.LABEL_CHARS + 8 for line in lines), make.__name__
        texts = " ".join(t.get_text().replace("\n    ", "") for t in fig.findobj(Text))
        assert all(name in texts for name in LONG_NAMES.values()), make.__name__
        if make is plot.plot_times:
            renderer = fig.canvas.get_renderer()
            boxes = sorted(
                (t.get_window_extent(renderer) for t in fig.axes[0].get_xticklabels()),
                key=lambda b: b.x0,
            )
            assert all(a.x1 < b.x0 for a, b in itertools.pairwise(boxes)), boxes
    out = tmp_path / "plots"
    proc = harness("plot", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    svg = (out / "time_by_kernel.svg").read_text()
    assert "names shortened above, in full:" in svg
    assert LONG_NAMES["Basic_DAXPY"][:60] in svg


def test_rajaperf_rows_with_no_problem_size_anywhere_are_error_rows(tmp_path: Path) -> None:
    """A run-data file without the Problem size column (as an older layout or a hand
    edit leaves it), of a kernel the details file lacks, was imported as ok rows of
    no size: the imported run's own journal then held them as damage, so that every
    reader of it warned of torn lines, naming a temporary folder of the import."""
    folder = Path(shutil.copytree(FIXTURES / "rajaperf_output", tmp_path / "rajaperf"))
    data = folder / "RAJAPerf-kernel-run-data.csv"
    lines = data.read_text().splitlines()
    at = [c.strip() for c in lines[1].split(",")].index("Problem size")
    data.write_text(
        "\n".join(
            [
                lines[0],
                *(
                    ",".join(c for i, c in enumerate(line.split(",")) if i != at)
                    for line in lines[1:]
                ),
            ]
        )
        + "\n"
    )
    details = folder / "RAJAPerf-kernel-details.csv"
    kept = [
        line for line in details.read_text().splitlines() if not line.startswith("Stream_TRIAD")
    ]
    details.write_text("\n".join(kept) + "\n")
    out = tmp_path / "out"
    proc = harness("import-rajaperf", str(folder), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "skipped a torn or corrupt line" not in proc.stderr
    assert "no 'Problem size' in the row, nor in RAJAPerf-kernel-details.csv" in proc.stderr
    run = run_folder(out)
    shown = harness("show", str(run))
    assert "skipped" not in shown.stderr, shown.stderr
    triad = [r for r in results.read_journal(run) if r["kernel"] == "Stream_TRIAD"]
    assert triad and all(r["status"] == "error" and r.get("size") is None for r in triad)
    copy = [r for r in results.read_journal(run) if r["kernel"] == "Stream_COPY"]
    assert any(r["status"] == "ok" and r["size"] == 100000 for r in copy)


def test_export_of_a_merged_run_of_long_folder_names_writes_its_profiles(
    quick_run: Path, tmp_path: Path
) -> None:
    """Two runs of one machine merged are told apart by their folders' names, which
    export put whole into each profile's file name: folders of 240 characters made
    names too long for the disk, and the export failed ("File name too long"),
    writing none. Now the name is cut and the profile's 'cluster' keeps it whole."""
    runs = [copy_run(quick_run, tmp_path / side) for side in ("a", "b")]
    runs = [
        run.rename(run.parent / (side + "r" * 240)) for run, side in zip(runs, "AB", strict=True)
    ]
    proc = harness("merge", *map(str, runs), "--out", str(tmp_path / "merged"))
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "thicket"
    proc = harness("export", "--thicket", str(run_folder(tmp_path / "merged")), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    names = sorted(path.name for path in out.iterdir())
    assert len(names) == 2 and all(name.endswith("-cpu_0-f64-n1000-default.cali") for name in names)
    for path, run in zip(sorted(out.iterdir()), runs, strict=True):
        assert run.name in path.read_text()


def test_a_report_of_a_journal_with_a_torn_line_says_rows_were_lost(
    run: Path, tmp_path: Path
) -> None:
    """A finished run whose journal's last line was cut short (a disk that filled, a
    copy stopped) was reported as whole: report.md counted the rows left, "1 rows,
    1 ok", and said nothing of the row lost, which only a warning on stderr named."""
    journal = run / results.JOURNAL
    journal.write_bytes(journal.read_bytes()[:-40])
    out = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = (out / "report.md").read_text()
    assert f"{results.JOURNAL} has 1 damaged line(s) (2)" in text
    assert "the report holds the 1 rows it could read" in text


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("name", [1, 2], "'name' [1, 2]; text is accepted"),
        ("kind", True, "'kind' true; text is accepted"),
        ("memory_bytes", "lots", "'memory_bytes' \"lots\"; a whole number from 0"),
        ("id", None, "'id' null; text is accepted"),
    ],
)
def test_a_device_field_of_the_wrong_type_is_metadata_damage(
    run: Path, tmp_path: Path, key: str, value: Any, said: str
) -> None:
    """A device in the metadata was read whatever its fields held: the report's table
    of devices named one '[1, 2]' and gave another the kind 'True', without a word."""
    path = run / results.METADATA
    meta = json.loads(path.read_text())
    meta["devices"][0][key] = value
    path.write_text(json.dumps(meta, indent=2))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if f'"{key}"' in text)
    proc = harness("report", str(run), "--out", str(tmp_path / "report"))
    assert proc.returncode == 2
    assert one_error(proc.stderr) == (
        f"{path}:{line}: device 1 of 'devices' has {said}"
        + ("" if said.endswith("accepted") else " to 1e+18 is accepted")
    )
    assert not (tmp_path / "report").exists()


def test_eight_devices_of_one_backend_are_plotted_each_in_a_colour(
    quick_run: Path, tmp_path: Path
) -> None:
    """Each further device of a backend was drawn a fixed step darker or lighter: the
    eighth (a node's cuda:7, or eight runs of one machine side by side) stepped past
    black, no colour at all, and `plot` ended in a traceback."""
    runs = [str(copy_run(quick_run, tmp_path / f"copy{i}")) for i in range(8)]
    out = tmp_path / "plots"
    proc = harness("plot", *runs, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert (out / "time_by_kernel.png").is_file()
    from harness.reporting import plot

    shades = [plot._shade(plot.BACKEND_COLOURS["cpu"], k) for k in range(12)]
    assert len(set(shades)) == 12
    assert all(0 <= c <= 1 for shade in shades for c in shade)

"""Plots of real runs: files written, titles and labels, fixed colours, sweeps, sorts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

import numpy as np
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.image import imread

import harness as harness_package
from harness.execution import results
from harness.reporting import plot
from harness.reporting.frames import load_runs

KERNELS = ("Stream_COPY", "Stream_TRIAD", "Basic_DAXPY")


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two real runs of the same kernels and devices at two sizes."""
    need_backend("opencl")
    base = tmp_path_factory.mktemp("sweep")
    folders = []
    for size in ("20000", "80000"):
        out = base / size
        proc = harness(
            "run",
            "-k",
            *KERNELS,
            "-b",
            "cpu",
            "opencl",
            "--size",
            size,
            "--reps",
            "5",
            "--out",
            str(out),
        )
        assert proc.returncode == 0, proc.stderr
        folders.append(run_folder(out))
    return folders


def _not_blank(png: Path) -> None:
    image = imread(png)
    assert image.shape[0] > 300 and image.shape[1] > 500
    assert float(np.std(image[..., :3])) > 0.05  # more than a white page


def test_plot_writes_png_and_svg_into_the_run_folder(sweep: list[Path]) -> None:
    run = sweep[0]
    proc = harness("plot", str(run))
    assert proc.returncode == 0, proc.stderr
    folder = run / "plots"
    for stem in ("time_by_kernel", "speedup_heatmap", "bandwidth"):
        _not_blank(folder / f"{stem}.png")
        svg = (folder / f"{stem}.svg").read_text()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert plot.TIME_TITLE in (folder / "time_by_kernel.svg").read_text()
    assert "skipped sweep: no kernel was timed at several sizes" in proc.stderr
    assert "skipped throughput: no timed kernel whose size counts items" in proc.stderr


def _legend_texts(fig: Figure) -> list[str]:
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def test_figures_carry_the_titles_and_labels_the_code_says(sweep: list[Path]) -> None:
    frame, _ = load_runs(sweep[:1])
    times = plot.plot_times(frame)
    assert isinstance(times, Figure)
    ax = times.axes[0]
    assert times.get_suptitle() == plot.TIME_TITLE
    assert ax.get_title(loc="left") == "Stream, Basic"  # the kernel groups in this row of bars
    assert ax.get_ylabel() == plot.TIME_YLABEL
    assert ax.get_yscale() == "log"
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == list(KERNELS)
    labels = _legend_texts(times)
    assert [label.split()[0] for label in labels] == ["cpu:0", "opencl:0"]

    heat = plot.plot_speedup(frame)
    ax = heat.axes[0]
    cpu = frame.loc[frame["device_id"] == "cpu:0", "series"].iat[0]
    assert ax.get_title(loc="left") == plot.SPEEDUP_TITLE.format(baseline=cpu)
    assert (ax.get_xlabel(), ax.get_ylabel()) == (plot.SPEEDUP_XLABEL, plot.SPEEDUP_YLABEL)
    assert heat.axes[1].get_ylabel() == plot.SPEEDUP_CBAR
    medians = frame.set_index(["kernel", "device_id"])["time_median_s"]
    cells = [t.get_text() for t in ax.texts]
    for kernel in KERNELS:
        value = medians[(kernel, "cpu:0")] / medians[(kernel, "opencl:0")]
        assert plot._speedup_text(value) in cells

    bandwidth = plot.plot_bandwidth(frame)
    assert bandwidth.get_suptitle() == plot.BANDWIDTH_TITLE
    assert [a.get_xlabel() for a in bandwidth.axes] == [plot.BANDWIDTH_XLABEL] * 2
    copy = frame[frame["kernel"] == "Stream_COPY"].set_index("device_id")["gbytes_per_s"]
    for ax, device in zip(bandwidth.axes, ("cpu:0", "opencl:0"), strict=True):
        assert ax.get_title(loc="left").startswith(device)
        peak = [line.get_xdata()[0] for line in ax.get_lines()]
        assert peak == [pytest.approx(copy[device])]
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend == [f"best Stream_COPY: {copy[device]:.3g} GB/s"]


def test_plots_take_the_frame_harness_load_returns(sweep: list[Path]) -> None:
    frame = harness_package.load(sweep[0])
    fig = plot.plot_times(frame)
    assert isinstance(fig, Figure) and fig.get_suptitle() == plot.TIME_TITLE
    assert len(fig.axes[0].patches) == 2 * len(KERNELS)


def test_colours_are_fixed_per_backend_in_every_plot(sweep: list[Path]) -> None:
    frame, _ = load_runs(sweep)
    times = plot.plot_times(frame)
    bars = {
        c.get_label(): to_hex(c.patches[0].get_facecolor())
        for c in times.axes[0].containers
        if hasattr(c, "patches")
    }
    lines = {
        line.get_label(): to_hex(line.get_color())
        for line in plot.plot_sweep(frame, "Stream_TRIAD").axes[0].get_lines()
    }
    for colours in (bars, lines):
        assert len(colours) == 2
        for label, colour in colours.items():
            backend = label.split(":")[0]
            assert colour == plot.BACKEND_COLOURS[backend].lower()


def test_size_sweep_over_two_runs_is_one_line_per_device(sweep: list[Path], tmp_path: Path) -> None:
    proc = harness("plot", *map(str, sweep), "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    for kernel in KERNELS:
        _not_blank(tmp_path / f"sweep_{kernel}.png")
    assert "[5/7] sweep_Stream_COPY" in proc.stderr  # progress: a line per figure
    frame, _ = load_runs(sweep)
    fig = plot.plot_sweep(frame, "Stream_COPY")
    assert fig.get_suptitle() == plot.SWEEP_TITLE.format(kernel="Stream_COPY")
    time_ax, rate_ax = fig.axes
    for ax in (time_ax, rate_ax):
        assert ax.get_xlabel() == plot.SWEEP_XLABEL
        assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
        assert len(ax.get_lines()) == 2
        for line in ax.get_lines():
            assert list(line.get_xdata()) == [20000, 80000]
    assert time_ax.get_ylabel() == plot.SWEEP_TIME_YLABEL
    assert rate_ax.get_ylabel() == "Throughput (GB/s)"


def test_two_machines_put_their_devices_side_by_side(sweep: list[Path], tmp_path: Path) -> None:
    other = tmp_path / "other-host-run"
    shutil.copytree(sweep[0], other)
    meta = json.loads((other / results.METADATA).read_text())
    meta["host"]["hostname"] = "otherhost"
    (other / results.METADATA).write_text(json.dumps(meta))
    frame, _ = load_runs([sweep[0], other])
    labels = _legend_texts(plot.plot_times(frame))
    assert len(labels) == 4
    assert sum(label.startswith("otherhost: ") for label in labels) == 2


def test_peak_gbs_replaces_the_measured_peak(sweep: list[Path], tmp_path: Path) -> None:
    frame, _ = load_runs(sweep[:1])
    fig = plot.plot_bandwidth(frame, {"opencl:0": 123.0, "*": 456.0})
    peaks = [ax.get_lines()[0].get_xdata()[0] for ax in fig.axes]
    assert peaks == [456.0, 123.0]
    ok = harness("plot", str(sweep[0]), "--peak-gbs", "opencl:0=123", "--out", str(tmp_path))
    assert ok.returncode == 0, ok.stderr
    bad = harness("plot", str(sweep[0]), "--peak-gbs", "fast")
    assert bad.returncode == 2 and "expected GB/s such as 900" in bad.stderr


#: What a sort's description tells reports, as its run's metadata records it.
SORT_FACTS = {
    "group": "Sort",
    "params": {"strategy": "variant", "order": "case", "dist": "case"},
    "items": "keys",
    "peak_bandwidth": False,
}


def _sort_run(folder: Path) -> Path:
    """A run folder of sort rows as a sort kernel's run writes them (strategy, order, dist),
    of a kernel the suite does not have: reports learn about it from the metadata."""
    folder.mkdir()
    results.write_json(folder / results.METADATA, {"kernels": {"Bitonic_SORT": SORT_FACTS}})
    rows = []
    for dist in ("uniform", "sorted"):
        for device, backend, strategies, per_key in (
            ("cpu:0", "cpu", ("numpy",), 60e-9),
            ("opencl:0", "opencl", ("global", "local"), 20e-9),
        ):
            for strategy in strategies:
                for k in (10, 14, 18):
                    n = 2**k
                    t = per_key * n * (0.5 if strategy == "local" else 1.0)
                    rows.append(
                        {
                            "kernel": "Bitonic_SORT",
                            "group": "Sort",
                            "backend": backend,
                            "device_id": device,
                            "device": backend.upper(),
                            "precision": "f32",
                            "size": n,
                            "reps": 5,
                            "status": "ok",
                            "time_min_s": t,
                            "time_median_s": t,
                            "time_mean_s": t,
                            "time_std_s": 0.0,
                            "strategy": strategy,
                            "order": "asc",
                            "dist": dist,
                        }
                    )
    (folder / results.JOURNAL).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return folder


def test_sort_throughput_per_device_and_strategy(tmp_path: Path) -> None:
    run = _sort_run(tmp_path / "sort-run")
    frame, _ = load_runs([run])
    fig = plot.plot_rate(frame, "keys")
    assert fig.get_suptitle() == plot.RATE_TITLE.format(items="keys")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title(loc="left") for ax in panels] == [
        "Bitonic_SORT (asc, uniform)",
        "Bitonic_SORT (asc, sorted)",
    ]
    assert panels[0].get_ylabel() == "Throughput (Mkeys/s)"
    assert panels[0].get_xlabel() == "Number of keys n"
    lines = {line.get_label(): line for line in panels[0].get_lines()}
    assert sorted(label.split(" ")[0] + label.split("·")[-1] for label in lines) == [
        "cpu:0 numpy",
        "opencl:0 global",
        "opencl:0 local",
    ]
    local = next(line for label, line in lines.items() if label.endswith("local"))
    assert list(local.get_ydata()) == pytest.approx([1 / (0.5 * 20e-9) / 1e6] * 3)
    proc = harness("plot", str(run))
    assert proc.returncode == 0, proc.stderr
    _not_blank(run / "plots" / "throughput_keys.png")
    assert "skipped bandwidth: no row moves memory" in proc.stderr

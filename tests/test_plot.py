"""Plots of real runs: files written, titles and labels, fixed colours, sweeps, sorts."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import harness, need_backend, run_folder

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.image import imread
from matplotlib.legend import Legend
from matplotlib.text import Text

import harness as harness_package
from harness.execution import results
from harness.reporting import plot, report
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
    assert "skipped saturation: no kernel was timed at several sizes" in proc.stderr
    _not_blank(folder / "cross_api.png")  # numpy and PoCL are the one host CPU
    assert "skipped throughput: no timed kernel whose size counts items" in proc.stderr


def _legend_texts(fig: Figure) -> list[str]:
    """The texts of the figure's own legends (not its panels'), wherever in its layout."""
    legends = [legend for legend in fig.findobj(Legend) if legend.axes is None]
    return [t.get_text() for legend in legends for t in legend.get_texts()]


def test_figures_carry_the_titles_and_labels_the_code_says(sweep: list[Path]) -> None:
    frame, _ = load_runs(sweep[:1])
    times = plot.plot_times(frame)
    assert isinstance(times, Figure)
    ax = times.axes[0]
    assert times.get_suptitle() == plot.TIME_TITLE
    assert ax.get_title(loc="left") == "Stream, Basic"  # the kernel groups in this row of bars
    assert plot.TIME_YLABEL in _texts(times)  # one label for the axis the rows of bars share
    assert ax.get_yscale() == "log"
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == list(KERNELS)
    labels = _legend_texts(times)
    assert [label.split()[0] for label in labels] == ["cpu:0", "opencl:0"]

    heat = plot.plot_speedup(frame, "cpu")
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
    assert "[6/9] sweep_Stream_COPY" in proc.stderr  # progress: a line per figure
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


def test_saturation_of_a_real_sweep(sweep: list[Path], tmp_path: Path) -> None:
    proc = harness("plot", *map(str, sweep), "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    _not_blank(tmp_path / "saturation.png")
    frame, _ = load_runs(sweep)
    fig = plot.plot_saturation(frame)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title(loc="left") for ax in axes] == list(KERNELS)
    rows = [r for run in sweep for r in results.read_journal(run)]
    for ax, kernel in zip(axes, KERNELS, strict=True):
        # Streams and DAXPY do at most 2 FLOPs per 24 bytes: GB/s.
        assert ax.get_ylabel() == "Throughput (GB/s, log scale)"
        for line in ax.get_lines():
            device = line.get_label().split(" ")[0]
            rates = {
                r["size"]: r["gbytes_per_s"]
                for r in rows
                if r["kernel"] == kernel and r["device_id"] == device
            }
            assert list(line.get_xdata()) == [20000, 80000]
            assert list(line.get_ydata()) == pytest.approx([rates[20000], rates[80000]])
    # Saturates at: the smaller size where it reaches 90% of the better one.
    found = report.saturation(frame)
    assert len(found) == 2 * len(KERNELS)
    for _, line in found.iterrows():
        rates = {
            r["size"]: r["gbytes_per_s"]
            for r in rows
            if r["kernel"] == line["case"] and line["variant"].startswith(r["device_id"] + " ")
        }
        best = max(rates.values())
        expected = 20000 if rates[20000] >= 0.9 * best else 80000
        assert (line["column"], line["best"]) == ("gbytes_per_s", best)
        assert line["saturates_at"] == expected


def _swept_run(folder: Path) -> Path:
    """A swept run with peaks: a streaming kernel on two devices and a compute-bound
    one on one, at four sizes chosen so that the saturation sizes are known:
    Stream_TRIAD on cpu:0 passes 90 (90% of its best 100 GB/s) at 100k (92), on
    opencl:0 passes 9 at 10k (9.5); Basic_MAT_MAT_SHARED passes 450 GFLOP/s at
    100k (460)."""
    folder.mkdir(parents=True)
    sizes = (1_000, 10_000, 100_000, 1_000_000)
    lines = []
    curves = (
        ("Stream_TRIAD", "cpu:0", "cpu", "AMD EPYC", (10.0, 50.0, 92.0, 100.0), 1 / 12),
        ("Stream_TRIAD", "opencl:0", "opencl", "pthread-AMD EPYC", (5.0, 9.5, 10.0, 9.0), 1 / 12),
        ("Basic_MAT_MAT_SHARED", "cpu:0", "cpu", "AMD EPYC", (50.0, 200.0, 460.0, 500.0), 40),
    )
    for kernel, device, backend, name, rates, intensity in curves:
        for size, rate in zip(sizes, rates, strict=True):
            moved = 24 * size
            flops = moved * intensity
            # The rate is GB/s for the stream, GFLOP/s for the compute-bound kernel.
            t = (moved if intensity < 1 else flops) / (rate * 1e9)
            lines.append(
                {
                    "kernel": kernel,
                    "group": kernel.split("_")[0],
                    "backend": backend,
                    "device_id": device,
                    "device": name,
                    "precision": "f64",
                    "size": size,
                    "reps": 3,
                    "status": "ok",
                    "bytes_per_rep": moved,
                    "flops_per_rep": flops,
                    "time_median_s": t,
                    "time_std_s": 0.0,
                    "gbytes_per_s": moved / t / 1e9,
                    "gflops_per_s": flops / t / 1e9,
                }
            )
    peaks = {
        "cpu:0": {"copy_gbytes_per_s": 120.0, "fma_gflops_per_s": {"f64": 800.0}},
        "opencl:0": {"copy_gbytes_per_s": 12.0, "fma_gflops_per_s": {"f64": 800.0}},
    }
    results.write_json(folder / results.METADATA, {"host": {"hostname": "bench"}, "peaks": peaks})
    (folder / results.JOURNAL).write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    return folder


def test_saturation_sizes_peaks_and_units(tmp_path: Path) -> None:
    run = _swept_run(tmp_path / "run")
    frame, _ = load_runs([run])
    found = report.saturation(frame).set_index(["case", "variant"])
    assert found["saturates_at"].to_dict() == {
        ("Stream_TRIAD", "cpu:0 (AMD EPYC)"): 100_000,
        ("Stream_TRIAD", "opencl:0 (pthread-AMD EPYC)"): 10_000,
        ("Basic_MAT_MAT_SHARED", "cpu:0 (AMD EPYC)"): 100_000,
    }
    assert found["best"].tolist() == pytest.approx([100.0, 10.0, 500.0])
    # 40 FLOP per byte passes cpu:0's ridge (800 / 120 = 6.7): GFLOP/s.
    assert found["column"].tolist() == ["gbytes_per_s", "gbytes_per_s", "gflops_per_s"]
    fig = plot.plot_saturation(frame)
    triad, mat = (ax for ax in fig.axes if ax.get_visible())
    assert mat.get_ylabel() == "Throughput (GFLOP/s, log scale)"
    texts = [t.get_text() for t in triad.texts]
    assert texts == ["peak 120 GB/s", "peak 12 GB/s"]
    assert [t.get_text() for t in mat.texts] == ["peak 800 GFLOP/s"]
    dashed = [line.get_ydata()[0] for line in triad.get_lines() if line.get_linestyle() == "--"]
    assert dashed == [120.0, 12.0]
    # The ringed points sit at the saturation sizes.
    rings = [c.get_offsets()[0].tolist() for c in triad.collections]
    assert rings == [[100_000, 92.0], [10_000, 9.5]]
    fig.savefig(tmp_path / "saturation.png")
    _not_blank(tmp_path / "saturation.png")
    proc = harness("report", str(run))
    assert proc.returncode == 0, proc.stderr
    text = (run / "report" / "report.md").read_text()
    assert (
        "| Stream_TRIAD | f64 | opencl:0 (pthread-AMD EPYC) | GB/s | 10 | 100000 | 10000 |" in text
    )
    assert (
        "| Basic_MAT_MAT_SHARED | f64 | cpu:0 (AMD EPYC) | GFLOP/s | 500 | 1000000 | 100000 |"
        in text
    )


def test_two_machines_put_their_devices_side_by_side(sweep: list[Path], tmp_path: Path) -> None:
    other = tmp_path / "other-host-run"
    shutil.copytree(sweep[0], other)
    meta = json.loads((other / results.METADATA).read_text())
    meta["host"]["hostname"] = "otherhost"
    meta["run_id"] = f"other-{meta['run_id']}"
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


#: Devices of a synthetic run: id, backend, name, bandwidth (GB/s) and FMA peak (GFLOP/s);
#: the last is a hundred times slower than the first, as a software renderer is.
DEVICES = (
    ("cpu:0", "cpu", "AMD EPYC", 20.0, 40.0),
    ("opencl:0", "opencl", "pthread-haswell-AMD EPYC", 12.0, 30.0),
    ("wgpu:0", "wgpu", "llvmpipe (LLVM 15.0.6, 256 bits)", 0.2, 0.5),
)


def synthetic_run(folder: Path, rows: int, devices: int = 3) -> Path:
    """A run folder of ``rows`` timed rows, shaped as a real run writes them: the
    suite's kernels in order, each on ``devices`` devices, with peaks measured."""
    from harness import suite

    folder.mkdir(parents=True)
    rng = np.random.default_rng(rows)
    kernels = [spec for spec in suite.ALL if spec.group != "Sort"]
    lines = []
    for i in range(rows):
        spec = kernels[(i // devices) % len(kernels)]
        device, backend, name, gbs, _ = DEVICES[i % devices]
        size = 1_000_000
        moved = int(size * 8 * rng.integers(1, 4))
        flops = int(size * rng.choice([0, 1, 2, 8, 40]))
        t = moved / (gbs * 1e9 * rng.uniform(0.3, 1.0))
        lines.append(
            {
                "kernel": spec.name,
                "group": spec.group,
                "backend": backend,
                "device_id": device,
                "device": name,
                "precision": "f64",
                "size": size,
                "reps": 3,
                "status": "ok",
                "bytes_per_rep": moved,
                "flops_per_rep": flops,
                "transfers": "resident",
                "time_min_s": 0.9 * t,
                "time_median_s": t,
                "time_mean_s": t,
                "time_std_s": 0.05 * t,
                "h2d_s": 0.0,
                "kernel_s": t,
                "d2h_s": 0.0,
                "gbytes_per_s": moved / t / 1e9,
                "gflops_per_s": flops / t / 1e9,
            }
        )
    peaks = {
        device: {
            "copy_gbytes_per_s": gbs,
            "triad_gbytes_per_s": gbs * 1.05,
            "fma_gflops_per_s": {"f64": gflops},
        }
        for device, _, _, gbs, gflops in DEVICES[:devices]
    }
    meta = {"host": {"hostname": "bench"}, "peaks": peaks}
    results.write_json(folder / results.METADATA, meta)
    (folder / results.JOURNAL).write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    return folder


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text)]


def _draw(fig: Figure) -> None:
    """Lay the figure out and draw it, as saving it does, so extents are final."""
    FigureCanvasAgg(fig).draw()


def _boxes(fig: Figure, start: str) -> list[Any]:
    """Window extents of the figure's visible texts that start with ``start``."""
    renderer = fig.canvas.get_renderer()
    found = [
        t.get_window_extent(renderer)
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip().startswith(start)
    ]
    assert found, f"no text starting {start!r}"
    return found


def _apart(fig: Figure, one: str, other: str) -> None:
    for a in _boxes(fig, one):
        for b in _boxes(fig, other):
            assert not a.overlaps(b), f"{one!r} at {a} runs over {other!r} at {b}"


def test_roofline_titles_and_labels_keep_clear_of_each_other(tmp_path: Path) -> None:
    """One device makes the narrowest roofline: the title, the subtitle, the
    panel's title and the ridge and ceiling labels each keep their own room."""
    frame, _ = load_runs([synthetic_run(tmp_path / "run", 10, devices=1)])
    fig = plot.plot_roofline(frame)
    _draw(fig)
    title, subtitle, device = plot.ROOFLINE_TITLE, plot.ROOFLINE_NOTE[:20], "cpu:0 (AMD EPYC)"
    for one, other in ((title, subtitle), (title, device), (subtitle, device)):
        _apart(fig, one, other)
    _apart(fig, "ridge ", "40 GFLOP/s")
    _apart(fig, "ridge ", "21 GB/s")


def test_bandwidth_panels_each_fill_their_own_scale(tmp_path: Path) -> None:
    """A device a hundred times slower than the others still gets bars that span
    its panel, not slivers, and the title and subtitle keep apart."""
    frame, _ = load_runs([synthetic_run(tmp_path / "run", 40)])
    fig = plot.plot_bandwidth(frame)
    assert [ax.get_title(loc="left").split()[0] for ax in fig.axes] == [d[0] for d in DEVICES]
    for ax in fig.axes:
        longest = max(bar.get_width() for bar in ax.patches)
        peak = ax.get_lines()[0].get_xdata()[0]
        assert 0.5 < max(longest, peak) / ax.get_xlim()[1] < 0.9
    _draw(fig)
    _apart(fig, plot.BANDWIDTH_TITLE, plot.BANDWIDTH_NOTE)
    for ax in fig.axes:  # the peak's legend sits above the bars
        legend = ax.get_legend().get_window_extent()
        for bar in ax.patches:
            assert not legend.overlaps(bar.get_window_extent())


@pytest.mark.parametrize(("rows", "devices"), [(150, 3), (151, 2)])
def test_time_plot_of_many_rows_fits_a_screen(tmp_path: Path, rows: int, devices: int) -> None:
    """At 150 rows the time plot is still about a screen in size, with every
    kernel in it and the legend at the top, above every row of bars."""
    frame, _ = load_runs([synthetic_run(tmp_path / "run", rows, devices)])
    fig = plot.plot_times(frame)
    (png, _) = plot.save(fig, tmp_path / "times")
    height, width = imread(png).shape[:2]
    _draw(fig)
    assert width <= 3100 and height <= 2200, (width, height)
    assert sum(len(ax.patches) for ax in fig.axes) == rows
    (legend,) = [legend for legend in fig.findobj(Legend) if legend.axes is None]
    top = max(ax.get_tightbbox().y1 for ax in fig.axes)
    assert legend.get_window_extent().y0 >= top
    _apart(fig, plot.TIME_TITLE, "lower is better")


#: Values no measurement gives, put into the first rows of a run: (column, value).
SPOILT = (
    ("time_median_s", math.nan),
    ("time_median_s", math.inf),
    ("time_median_s", 1e308),
    ("time_std_s", 1e308),
    ("gbytes_per_s", math.inf),
    ("size", math.nan),
)


def test_unusable_values_are_left_out_with_a_note(tmp_path: Path) -> None:
    """Rows whose plotted values are NaN, infinite or 1e308 are left out of each
    plot that draws those values, named in its note and in write_plots' notes."""
    frame, _ = load_runs([synthetic_run(tmp_path / "run", 12, devices=2)])
    for i, (column, value) in enumerate(SPOILT):
        frame.loc[i, column] = value
    fig = plot.plot_times(frame)
    assert sum(len(ax.patches) for ax in fig.axes) == 12 - 5
    note = next(t for t in _texts(fig) if "left out" in t)
    assert "Stream_COPY n=1M on cpu:0 (AMD EPYC) (time_median_s is nan)" in note
    assert "(time_median_s is inf)" in note and "and 2 more" in note
    fig = plot.plot_bandwidth(frame)
    assert sum(len(ax.patches) for ax in fig.axes) == 12 - 5  # the std. dev. is not drawn here

    written, notes = plot.write_plots(frame, tmp_path / "plots")
    assert {p.name for p in written} >= {f"{stem}.png" for stem in ("time_by_kernel", "roofline")}
    times = next(n for n in notes if n.startswith("time_by_kernel left out"))
    for why in ("time_median_s is nan", "time_median_s is inf", "time_median_s is 1e+308"):
        assert why in times
    assert "time_std_s is 1e+308" in times and "size is nan" in times
    assert "gbytes_per_s" not in times  # left out of the plots that draw GB/s only
    for stem in ("bandwidth", "roofline"):
        line = next(n for n in notes if n.startswith(f"{stem} left out"))
        assert "(gbytes_per_s is inf)" in line and "time_std_s" not in line
    heat = next(n for n in notes if n.startswith("speedup_heatmap left out"))
    assert heat.count(" on ") == 4


def test_plot_command_survives_unusable_journal_values(tmp_path: Path) -> None:
    run = synthetic_run(tmp_path / "run", 12, devices=2)
    path = run / results.JOURNAL
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row, (column, value) in zip(rows, SPOILT, strict=False):
        row[column] = value
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    proc = harness("plot", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    for stem in ("time_by_kernel", "speedup_heatmap", "bandwidth", "roofline"):
        _not_blank(run / "plots" / f"{stem}.png")


def test_rows_sized_down_on_one_device_are_no_sweep(sweep: list[Path]) -> None:
    """A default run sizes a slow device's rows down: each device has its one size,
    which is no sweep (a plot of a point a line); a device at two sizes is one."""
    frame, _ = load_runs(sweep)
    one_run = frame[frame["size"].eq(20000) | frame["device_id"].eq("opencl:0")]
    one_run = one_run[~(one_run["device_id"].eq("opencl:0") & one_run["size"].eq(20000))]
    assert sorted(one_run.groupby("device_id")["size"].unique().map(list).sum()) == [20000, 80000]
    assert plot.swept_kernels(one_run) == []
    assert plot.swept_kernels(frame) == list(KERNELS)


def test_a_device_whose_rows_were_sized_down_is_named_under_the_bar_charts(
    sweep: list[Path],
) -> None:
    """A bar chart shows each kernel at its largest size; a device that ran it only
    smaller (sized down to fit) has no bar there, and the figure says so by name."""
    frame, _ = load_runs(sweep)
    mixed = frame[frame["size"].eq(80000) != frame["device_id"].eq("opencl:0")]
    kept, smaller = plot._largest(plot.timed(mixed))
    assert set(kept["device_id"]) == {"cpu:0"}
    assert len(smaller) == len(KERNELS) and all("n=20k on opencl:0" in n for n in smaller)
    fig = plot.plot_times(mixed)
    texts = " ".join(t.get_text() for t in fig.findobj(Text))
    assert "left out, run only at a smaller size than their kernel's largest" in texts
    assert "Stream_COPY n=20k on opencl:0" in texts


def test_time_plot_gives_each_precision_its_own_kernels(tmp_path: Path) -> None:
    """A kernel of one precision only (Bitonic_F32) beside f64 kernels, as in the
    default suite: each precision's panel names its own kernels, and `harness
    plot` draws the run rather than failing on the f32 kernel in the f64 panel."""
    out = tmp_path / "run"
    proc = harness(
        "run", "-b", "cpu", "-k", "Stream_COPY", "Bitonic_F32", "--reps", "3", "--out", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(out)
    frame, _ = load_runs([folder])
    fig = plot.plot_times(frame)
    labels = {
        ax.get_title(loc="left"): [t.get_text().split("\n")[0] for t in ax.get_xticklabels()]
        for ax in fig.axes
    }
    assert labels == {"Stream (f64)": ["Stream_COPY"], "Sort (f32)": ["Bitonic_F32"]}
    proc = harness("plot", str(folder), "--out", str(tmp_path / "plots"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "plots" / "time_by_kernel.png").is_file()

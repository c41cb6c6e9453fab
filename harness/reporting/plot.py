"""Comparison plots of run folders, as matplotlib Figures (so they also work in notebooks).

Each ``plot_*`` function takes rows loaded by `harness.load` or
`harness.reporting.frames.load_runs` and returns a Figure, or raises `NothingToPlot`
saying why these rows make no such plot. `write_plots` saves every plot that
applies as PNG and SVG. Figures are made without pyplot, so nothing needs a
display and nothing global is kept.

Colours are fixed per backend (`BACKEND_COLOURS`) in every plot; a second
device of one backend gets a darker shade and another marker, a second sort
strategy another hatch or line style.

Every figure has its title, then a grey subtitle (what the marks mean, and the
rows left out), then any legend, each in the layout (`_canvas`), so no text runs
over another at any width. A row whose plotted value is NaN, infinite or absurd
(`LIMIT`) is left out of that plot with a note naming it (`usable`), so one bad
journal line never costs the whole plot.
"""

from __future__ import annotations

import contextvars
import functools
import math
import re
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib as mpl
import numpy as np
from matplotlib.colors import TwoSlopeNorm, to_rgb
from matplotlib.figure import Figure, SubFigure
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

from harness.errors import UsageError
from harness.execution import results
from harness.model.modes import TRANSFER_MODES
from harness.reporting import portability
from harness.reporting.frames import prepare, timed
from harness.reporting.report import (
    FASTEST_CPU,
    SATURATION,
    TIMES,
    UNITS,
    find_baseline,
    problem_label,
    saturation,
    speedups,
    throughput_columns,
)
from harness.reporting.table import format_time

if TYPE_CHECKING:
    import pandas as pd

#: One colour per backend, the same in every plot (Okabe-Ito, safe for colour blindness).
BACKEND_COLOURS = {
    "cpu": "#E69F00",
    "opencl": "#0072B2",
    "wgpu": "#009E73",
    "cuda": "#D55E00",
}
#: Colours for backends not listed above, in order of appearance.
OTHER_COLOURS = ("#CC79A7", "#56B4E9", "#8C6D31", "#444444")
HATCHES = ("", "//", "..", "xx", "\\\\", "++")
LINESTYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P")
#: How a sweep's lines of one variant at other precisions or cases fill their markers.
FILLS = ("full", "none", "left", "bottom", "right", "top")

TIME_TITLE = "Time per repetition by kernel and device"
TIME_YLABEL = "Median time per repetition (log scale)"
SPEEDUP_TITLE = "Speedup over {baseline}"
SPEEDUP_XLABEL = "Device"
SPEEDUP_YLABEL = "Kernel"
SPEEDUP_CBAR = "Speedup, log scale (blue: faster)"
BANDWIDTH_TITLE = "Achieved memory bandwidth per kernel"
BANDWIDTH_XLABEL = "Achieved bandwidth (GB/s)"
BANDWIDTH_NOTE = (
    "bar labels: % of the device's peak line; GB/s where the line is its best Stream_COPY, no peak"
)
SWEEP_TITLE = "{kernel}: time and throughput vs problem size"
SWEEP_XLABEL = "Problem size n (elements)"
SWEEP_TIME_YLABEL = "Median time per repetition (log scale)"
RATE_TITLE = "Throughput vs number of {items}"
RATE_XLABEL = "Number of {items} n"
RATE_BARS_TITLE = "Throughput by kernel and device ({items}/s)"
RATE_YLABEL = "Throughput ({unit}{items}/s)"
NO_PEAK = "no peak: no kernel here measures the device's bandwidth; run one or pass --peak-gbs"

STYLE = {
    # Text from runs (a device's name, a host's) is drawn as written: a '$' in it
    # would otherwise start a formula, which one that does not parse turns into an error.
    "text.parse_math": False,
    "font.size": 11,
    "axes.titlesize": 13,
    "axes.titleweight": "bold",
    "axes.labelsize": 11,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.alpha": 0.35,
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "legend.fontsize": 10,
    "figure.titlesize": 15,
    "figure.titleweight": "bold",
    "svg.fonttype": "none",
}
DPI = 150
#: Most kernels in one row of bars; more wrap onto further rows.
ROW_CASES = 12
#: Rows of bars a time plot aims at: beyond them rows hold more kernels, so the
#: figure stays about a screen high however many rows a run has.
TIME_PANELS = 6
#: Magnitude from which a measured value is taken as corrupt: no time, count or
#: rate comes near it, while 1e308 overflows as soon as a plot scales it.
LIMIT = 1e30
#: Rows named in a figure's note of rows left out; the rest are counted.
NAMED_LEFT_OUT = 3
SUBTITLE_STYLE = {
    "x": 0.01,
    "ha": "left",
    "fontsize": 9,
    "color": "#555555",
    "fontweight": "normal",
}


#: The longest kernel name (with its case) a plot shows whole: a longer one, which
#: ran over its neighbours' labels and widened the figure past a screen, is cut in its
#: middle, and the figure names it in full under the plots (`_full_names`).
LABEL_CHARS = 48
#: The names a figure being drawn has shortened: each full name with its label.
_SHORTENED: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "shortened", default=None
)


def _label(name: str) -> str:
    """``name`` as a plot shows it: whole up to `LABEL_CHARS`, else its start and end
    around an ellipsis, another in the figure than any other name's (a number added
    where two would read alike), and kept for the figure's key of full names."""
    name = str(name)
    if len(name) <= LABEL_CHARS:
        return name
    shortened = _SHORTENED.get()
    if shortened is None:
        shortened = {}
    if name not in shortened:
        head = LABEL_CHARS * 2 // 3
        cut = name[:head] + "…" + name[head - LABEL_CHARS + 1 :]
        label, n = cut, 1
        while label in shortened.values():
            n += 1
            label = f"{cut}~{n}"
        shortened[name] = label
    return shortened[name]


def _full_names(fig: Figure, shortened: Mapping[str, str]) -> None:
    """Under the plots, each name the figure shortened (`_label`) in full, wrapped to
    the figure's width, so that every label can still be read as the run names it."""
    if not shortened:
        return
    chars = max(40, int(fig.get_figwidth() * 72 / (SUBTITLE_STYLE["fontsize"] * 0.55)))
    lines = ["names shortened above, in full:"] + [
        textwrap.fill(f"{label} = {name}", chars, subsequent_indent="    ")
        for name, label in shortened.items()
    ]
    fig.supxlabel("\n".join(lines), **SUBTITLE_STYLE)


class NothingToPlot(UsageError, ValueError):
    """These rows make no such plot; the message says why."""


#: The columns of the rows `harness.load` gives (every results.csv column, and
#: each row's run and host), which the plots read.
ROW_COLUMNS = (*results.COLUMNS, "run", "host")


def _check_rows(frame: Any) -> None:
    """UsageError naming what a plot was given where it is no frame of a run's
    rows, or lacks their columns: a KeyError or TypeError deep in the plot said
    nothing of it."""
    import pandas as pd

    given = "give a run's rows as harness.load or harness.run returns them"
    if not isinstance(frame, pd.DataFrame):
        raise UsageError(f"a plot of {type(frame).__name__}: {given} (a pandas DataFrame)")
    missing = [column for column in ROW_COLUMNS if column not in frame]
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise UsageError(f"a plot of rows without the column(s) {shown}: {given}")


@dataclass(frozen=True)
class Style:
    """How one variant (device, plus strategy) is drawn."""

    colour: tuple[float, float, float]
    hatch: str
    linestyle: str
    marker: str


def _shade(colour: str, k: int) -> tuple[float, float, float]:
    """The k-th shade of a colour: itself, then darker and lighter in turn, each pair
    a step further towards black and white that never reaches them (a step of a
    fixed size passed them at the eighth device of a backend, no colour at all,
    which ended the plot of a node's eight GPUs in a traceback)."""
    r, g, b = to_rgb(colour)
    if k == 0:
        return (r, g, b)
    step = 1 - 0.7 ** ((k + 1) // 2)
    if k % 2:
        return (r * (1 - step), g * (1 - step), b * (1 - step))
    return (r + (1 - r) * step, g + (1 - g) * step, b + (1 - b) * step)


def styles(frame: pd.DataFrame) -> dict[str, Style]:
    """The drawing style of each variant in the rows, backends in `BACKEND_COLOURS` order.

    Colour: the backend's, in a further shade for each further device of it.
    Hatch and line style: one per sort strategy. Marker: per strategy where
    rows have one, else per device.
    """
    order = {b: i for i, b in enumerate(BACKEND_COLOURS)}
    seen = frame.drop_duplicates("variant")
    seen = seen.sort_values(
        "backend", key=lambda b: b.map(lambda x: order.get(x, len(order))), kind="stable"
    )
    others = [b for b in dict.fromkeys(seen["backend"]) if b not in BACKEND_COLOURS]
    strategies = _strategies(frame)
    devices: dict[str, list[str]] = {}
    result = {}
    for _, row in seen.iterrows():
        backend = str(row["backend"])
        base = (
            BACKEND_COLOURS.get(backend)
            or OTHER_COLOURS[others.index(backend) % len(OTHER_COLOURS)]
        )
        mine = devices.setdefault(backend, [])
        if row["series"] not in mine:
            mine.append(row["series"])
        k = mine.index(row["series"])
        s = strategies.index(_strategy(row)) if strategies else 0
        result[str(row["variant"])] = Style(
            _shade(base, k),
            HATCHES[s % len(HATCHES)],
            LINESTYLES[s % len(LINESTYLES)],
            MARKERS[(s if strategies else k) % len(MARKERS)],
        )
    return result


def _strategy(row: Any) -> str:
    return str(row["variant_params"])


def _strategies(frame: pd.DataFrame) -> list[str]:
    """No variant first (plain bars), then the variants (sort strategies) by name,
    so styles stay put."""
    names = set(frame["variant_params"].astype(str))
    if names <= {""}:
        return []
    return ["", *sorted(names - {""})]


def _styled(function: Callable[..., Figure]) -> Callable[..., Figure]:
    """Build the figure under the shared style, without touching global settings.

    The rows may come straight from ``harness.load``; they are prepared here.
    """

    @functools.wraps(function)
    def wrapper(frame: pd.DataFrame, *args: Any, **kwargs: Any) -> Figure:
        _check_rows(frame)
        if "variant" not in frame:
            frame = prepare(frame)
        shortened: dict[str, str] = {}
        token = _SHORTENED.set(shortened)
        try:
            with mpl.rc_context(STYLE):
                fig = function(frame, *args, **kwargs)
                _full_names(fig, shortened)
                return fig
        finally:
            _SHORTENED.reset(token)

    return wrapper


def _si(n: float) -> str:
    """1000000 -> '1M', 131072 -> '131k', 999936 -> '1M' (never '1e+03k')."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= 0.9995 * scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n:.3g}"


def _number(value: float) -> str:
    """Three significant digits without exponents: 0.0123, 45.6, 1,650."""
    return f"{value:,.0f}" if value >= 1000 else f"{value:.3g}"


def _speedup_text(value: float) -> str:
    """0.097x, 0.56x, 2.35x, 73.4x: two or three digits that matter."""
    if value < 0.1:
        return f"{value:.2g}{TIMES}"
    return f"{value:.2f}{TIMES}" if value < 10 else f"{value:.3g}{TIMES}"


def _wrap(label: str) -> str:
    """A device label over lines: id, then (name), then strategy."""
    return label.replace(" (", "\n(").replace(" · ", "\n")


def _binary(n: float) -> str:
    """1048576 -> '1Mi', 65536 -> '64Ki' (sort sizes are powers of two)."""
    for unit, scale in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if n >= 0.9995 * scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n:.3g}"


def _rate_unit(rates: Any) -> tuple[float, str]:
    """A scale and SI prefix that puts the largest rate below 1000."""
    largest = float(np.nanmax(np.asarray(rates, dtype=float)))
    for prefix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if largest >= scale:
            return scale, prefix
    return 1.0, ""


def _log_ticks(axis: Any, values: Any, text: Callable[[float], str] = "{:g}".format) -> None:
    """Label a log axis 10, 20, 50 (or only 1, 10, 100 over many decades), not 10^k."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    decades = math.log10(values.max() / values.min()) if values.size else 0.0
    subs = (1.0, 2.0, 5.0) if decades < 3.2 else (1.0,)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: text(v)))
    axis.set_minor_formatter(NullFormatter())


def _size_ticks(axis: Any, sizes: Any) -> None:
    """A sweep's size axis labelled at the sizes measured, where they are few enough
    to read (a round tick between two of them named none), else as `_log_ticks`."""
    measured = sorted({float(v) for v in np.asarray(sizes, dtype=float) if v > 0})
    if not 1 < len(measured) <= MAX_SIZE_TICKS:
        _log_ticks(axis, measured, _si)
        return
    axis.set_major_locator(FixedLocator(measured))
    axis.set_major_formatter(FuncFormatter(lambda v, _: _si(v)))
    axis.set_minor_formatter(NullFormatter())


#: The most sizes a sweep's axis names one by one.
MAX_SIZE_TICKS = 8


def _largest(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Each case's rows at its largest size (bar charts show one size per kernel),
    and a note naming each device (series) left without a row there: one whose
    rows were sized down to fit it (a slow device's), at its largest size."""
    biggest = frame.groupby(["case", "precision"])["size"].transform("max")
    kept = frame[frame["size"] == biggest]
    shown = set(zip(kept["case"], kept["precision"], kept["series_key"], strict=True))
    keys = zip(frame["case"], frame["precision"], frame["series_key"], strict=True)
    gone = frame[[key not in shown for key in keys]]
    gone = gone[
        gone["size"] == gone.groupby(["case", "precision", "series_key"])["size"].transform("max")
    ]
    return kept, [_row_name(row) for _, row in gone.iterrows()]


def usable(frame: pd.DataFrame, columns: tuple[str, ...] = ()) -> tuple[pd.DataFrame, list[str]]:
    """The rows a plot can draw, and a note naming each timed row it must leave out.

    A timed row (ok, repetitions run) needs a positive, finite ``time_median_s``
    and a finite ``size``; the plot's other ``columns`` may be missing (NaN: not
    measured, such as GB/s of a kernel that moves no memory) but not infinite.
    Values beyond `LIMIT` count as infinite.
    """
    ran = (frame["status"] == "ok") & ((frame["reps"] > 0) | frame["time_median_s"].notna())
    bad = {}
    for column in ("time_median_s", "size", *columns):
        if column not in frame:
            continue
        values = frame[column].astype(float)
        wrong = ~np.isfinite(values) | (values.abs() >= LIMIT)
        if column == "time_median_s":
            wrong |= values <= 0
        elif column != "size":
            wrong &= values.notna()
        for index in frame.index[ran & wrong]:
            bad.setdefault(index, f"{column} is {values[index]:g}")
    notes = [f"{_row_name(frame.loc[i])} ({why})" for i, why in bad.items()]
    return frame.drop(index=list(bad)), notes


def _row_name(row: Any) -> str:
    """A row as a note names it: Stream_COPY n=1M on cpu:0."""
    size = float(row["size"])
    shown = _si(size) if math.isfinite(size) and size < LIMIT else f"{size:g}"
    return f"{row.get('case', row['kernel'])} n={shown} on {row.get('series', row['device_id'])}"


def _failed_name(row: Any) -> str:
    """A failed row as a note names it (`_row_name`); without its size where it has
    none (a damaged row, read as an error, keeps none)."""
    try:
        return _row_name(row)
    except (TypeError, ValueError):
        return f"{row.get('case', row['kernel'])} on {row.get('series', row['device_id'])}"


def _needs_timings(frame: pd.DataFrame) -> pd.DataFrame:
    done = timed(frame)
    if done.empty:
        raise NothingToPlot("no timed rows (a check-only run, or nothing ran ok)")
    return done


def _canvas(
    size: tuple[float, float],
    title: str,
    subtitle: str = "",
    left_out: list[str] | None = None,
    smaller: list[str] | None = None,
) -> tuple[Figure, SubFigure]:
    """A figure with its title, then a subtitle and the rows left out (for their
    values, or for a ``smaller`` size than their kernel's largest), and the
    subfigure to draw in below them.

    Each level is a figure of its own in the constrained layout, so the title,
    the subtitle and a legend at the top (`_legend`) take their own room and
    never run over one another or the plots, however narrow the figure.
    """
    fig = Figure(figsize=size, layout="constrained")
    if title:
        fig.suptitle(title, x=0.01, ha="left")
    head = fig.subfigures(1, 1)
    lines = [subtitle] if subtitle else []
    if left_out:
        named = "; ".join(left_out[:NAMED_LEFT_OUT])
        more = len(left_out) - NAMED_LEFT_OUT
        lines.append(
            f"left out, unusable values: {named}" + (f"; and {more} more" if more > 0 else "")
        )
    if smaller:
        named = "; ".join(smaller[:NAMED_LEFT_OUT])
        more = len(smaller) - NAMED_LEFT_OUT
        lines.append(
            "left out, run only at a smaller size than their kernel's largest (sized down "
            f"to fit the device; see the table): {named}"
            + (f"; and {more} more" if more > 0 else "")
        )
    if lines:
        chars = max(40, int(size[0] * 72 / (SUBTITLE_STYLE["fontsize"] * 0.55)))
        head.suptitle("\n".join(textwrap.fill(line, chars) for line in lines), **SUBTITLE_STYLE)
    return fig, head.subfigures(1, 1)


def _legend(panel: SubFigure, handles: list[Any], labels: list[str]) -> None:
    """The figure's legend at its top, under the subtitle, where it is seen first."""
    panel.legend(handles, labels, loc="outside upper left", ncol=min(len(labels), 3))


def _row_label(case: str, size: float) -> str:
    """A kernel's tick label: its group, then the rest of its name broken at
    underscores (and within longer parts) into lines of about 15 characters (or its
    case), then its size."""
    case = _label(case)
    if len(case) > 15 and " (" in case:
        case = case.replace(" (", "\n(", 1)
    elif len(case) > 15 and "_" in case:
        group, rest = case.split("_", 1)
        lines = [f"{group}_", ""]
        parts = rest.replace("_", "_\n").split("\n")
        for part in (p[i : i + 15] for p in parts for i in range(0, len(p), 15)):
            if lines[-1] and len(lines[-1]) + len(part) > 15:
                lines.append("")
            lines[-1] += part
        case = "\n".join(lines)
    return f"{case}\nn={_si(size)}"


def _rows_of_cases(frame: pd.DataFrame, most: int = ROW_CASES) -> list[list[str]]:
    """Cases in order, ``most`` at most to a row of bars, breaking between groups if possible."""
    groups: dict[str, list[str]] = {}
    for case, group in dict.fromkeys(zip(frame["case"], frame["group"].astype(str), strict=True)):
        groups.setdefault(group, []).append(case)
    rows: list[list[str]] = [[]]
    for cases in groups.values():
        if rows[-1] and len(rows[-1]) + len(cases) > most:
            rows.append([])
        for case in cases:
            if len(rows[-1]) == most:
                rows.append([])
            rows[-1].append(case)
    return rows


def _items(frame: pd.DataFrame) -> pd.Series:
    """Case plus strategy: one row of a heat map or bandwidth panel."""
    return frame["case"].map(_label) + frame["variant_params"].map(lambda s: f" · {s}" if s else "")


def _bars(
    ax: Any,
    rows: pd.DataFrame,
    cases: list[str],
    style: Mapping[str, Style],
    per_case: int,
    handles: dict[str, Any],
    text: Callable[[float], str],
) -> None:
    """Grouped bars of ``_value`` (whiskers ``_error``): a group per case, a bar per variant.

    Each group holds only the variants that ran that case, side by side.
    """
    rank = {v: i for i, v in enumerate(style)}
    bar = 0.8 / per_case
    labelled = len(rows) <= 30
    for j, case in enumerate(cases):
        mine = rows[rows["case"] == case].drop_duplicates("variant", keep="last")
        mine = mine.sort_values("variant", key=lambda v: v.map(rank))
        for i, (_, row) in enumerate(mine.iterrows()):
            y = row["_value"]
            error = row["_error"] if row["_error"] > 0 else None
            s = style[row["variant"]]
            bars = ax.bar(
                [j + (i - (len(mine) - 1) / 2) * bar],
                [y],
                bar * 0.92,
                color=s.colour,
                hatch=s.hatch,
                edgecolor="white" if not s.hatch else "black",
                linewidth=0.5,
                label=row["variant"],
                yerr=None if error is None else [[min(error, y * 0.5)], [error]],
                error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#333333"},
            )
            handles.setdefault(row["variant"], bars)
            if labelled:
                ax.bar_label(bars, [text(y)], padding=2, fontsize=8)
    ax.set_xticks(range(len(cases)))
    sizes = rows.groupby("case")["size"].max()
    small = 9 if len(cases) <= ROW_CASES else 8
    ax.set_xticklabels([_row_label(c, sizes[c]) for c in cases], fontsize=small)
    ax.grid(axis="x", visible=False)


def _legend_by_rank(panel: SubFigure, style: Mapping[str, Style], handles: dict[str, Any]) -> None:
    ordered = [v for v in style if v in handles]
    _legend(panel, [handles[v] for v in ordered], ordered)


TIME_COLUMNS = ("time_std_s",)


@_styled
def plot_times(frame: pd.DataFrame) -> Figure:
    """(a) Median time per kernel, grouped bars per device on a log axis (one size per kernel).

    Many kernels wrap onto several rows of bars, broken between kernel groups.
    The figure stays about one screen in size at any number of rows: the
    legend is at the top, where it is seen first; rows of bars grow lower as
    they grow more, down to a readable floor, under one shared axis label; and
    rather than pass `TIME_PANELS` rows of bars, each row holds more kernels
    (up to twice `ROW_CASES`), so the height grows far slower than the rows.
    """
    frame, left_out = usable(frame, TIME_COLUMNS)
    done, smaller = _largest(_needs_timings(frame))
    style = styles(frame)
    precisions = list(dict.fromkeys(done["precision"]))
    # Each precision's own cases: a kernel of one precision only (Bitonic_F32 beside
    # f64 kernels) has no bar in the others' panels.
    for most in range(ROW_CASES, 2 * ROW_CASES + 1):
        panels = [
            (p, chunk)
            for p in precisions
            for chunk in _rows_of_cases(done[done["precision"] == p], most)
        ]
        if len(panels) <= TIME_PANELS:
            break
    chunks = [chunk for _, chunk in panels]
    per_case = int(done.groupby(["precision", "case"])["variant"].nunique().max())
    span = max(len(chunk) for chunk in chunks)
    width = min(20.0, max(8.0, 1.6 + span * (0.3 * per_case + 0.8)))
    height = max(2.0, min(3.9, 11.0 / len(panels)))
    fig, panel = _canvas(
        (width, 1.6 + height * len(panels)),
        TIME_TITLE,
        "lower is better · whiskers: ±1 std. dev.",
        left_out,
        smaller,
    )
    axes = panel.subplots(len(panels), 1, squeeze=False, sharey=True)[:, 0]
    low = float(done["time_median_s"].min())
    high = float((done["time_median_s"] + done["time_std_s"].fillna(0)).max())
    handles: dict[str, Any] = {}
    for ax, (precision, chunk) in zip(axes, panels, strict=True):
        rows = done[(done["precision"] == precision) & done["case"].isin(chunk)]
        rows = rows.assign(_value=rows["time_median_s"], _error=rows["time_std_s"])
        _bars(ax, rows, chunk, style, per_case, handles, format_time)
        ax.set_yscale("log")
        ax.set_ylim(low / 2.5, high * 2.5)
        _log_ticks(ax.yaxis, [low / 2.5, high * 2.5], format_time)
        ax.set_xlim(-0.6, span - 0.4)
        groups = ", ".join(dict.fromkeys(rows["group"].astype(str)))
        ax.set_title(
            groups + (f" ({precision})" if len(precisions) > 1 else ""), loc="left", fontsize=11
        )
    panel.supylabel(TIME_YLABEL, fontsize=STYLE["axes.labelsize"])
    _legend_by_rank(panel, style, handles)
    return fig


@_styled
def plot_speedup(frame: pd.DataFrame, baseline: str | None = None) -> Figure:
    """(b) Speedup over the baseline device as a heat map, kernels x devices, log colours.

    Rows are lower when there are many, so that about fifty kernels fit a screen.
    """
    frame, left_out = usable(frame)
    _needs_timings(frame)
    key, label, missing = find_baseline(frame, baseline)
    if key is None:
        raise NothingToPlot(missing)
    data = frame.assign(speedup=speedups(frame, key))
    data = data[(data["series_key"] != key) & (data["status"] == "ok")]
    if not data.empty:
        data = _largest(data)[0]
    if data.empty:
        raise NothingToPlot("only the baseline device has timed rows; nothing to compare")
    if key == FASTEST_CPU and data["series"].nunique() < 2:
        # One device over itself: a map of 1.00x cells, where naming it as the
        # baseline gave the note above.
        raise NothingToPlot("only one device has timed rows; nothing to compare")
    columns = list(dict.fromkeys(data["series"]))
    several = data["precision"].nunique() > 1
    data = data.assign(row=_items(data) + (" (" + data["precision"] + ")" if several else ""))
    rows = list(dict.fromkeys(data["row"]))
    grid = np.full((len(rows), len(columns)), np.nan)
    for _, r in data.iterrows():
        grid[rows.index(r["row"]), columns.index(r["series"])] = r["speedup"]
    logs = np.log2(grid)
    reach = max(1.0, float(np.nanmax(np.abs(logs))) if np.isfinite(logs).any() else 1.0)
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-reach, vmax=reach)
    names = max(len(r) for r in rows)
    pitch = max(0.26, min(0.4, 10.0 / len(rows)))
    fig, panel = _canvas(
        (3.2 + 0.075 * names + 1.7 * len(columns), max(3.2, 1.9 + pitch * len(rows))),
        "",
        left_out=left_out,
    )
    ax = panel.subplots()
    cmap = mpl.colormaps["RdBu"].with_extremes(bad="#dddddd")
    image = ax.imshow(np.ma.masked_invalid(logs), cmap=cmap, norm=norm, aspect="auto")
    for (i, j), value in np.ndenumerate(grid):
        if math.isnan(value):
            ax.text(j, i, "n/a", ha="center", va="center", fontsize=9, color="#666666")
            continue
        dark = abs(norm(logs[i, j]) - 0.5) > 0.3
        ax.text(
            j,
            i,
            _speedup_text(value),
            ha="center",
            va="center",
            fontsize=10 if pitch > 0.3 else 9,
            color="white" if dark else "black",
        )
    ax.set_xticks(range(len(columns)))
    ax.set_xticklabels([_wrap(c) for c in columns], fontsize=10)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    ax.grid(visible=False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xlabel(SPEEDUP_XLABEL)
    ax.set_ylabel(SPEEDUP_YLABEL)
    ax.set_title(SPEEDUP_TITLE.format(baseline=label), loc="left")
    height = fig.get_figheight()
    bar = panel.colorbar(image, ax=ax, fraction=0.05, pad=0.03, aspect=max(20.0, 5 * height))
    step = max(1, math.ceil(reach / 4))
    ticks = [t for t in range(-math.ceil(reach), math.ceil(reach) + 1, 1) if t % step == 0]
    bar.ax.yaxis.set_major_locator(FixedLocator([t for t in ticks if abs(t) <= reach]))
    bar.ax.yaxis.set_major_formatter(
        FuncFormatter(lambda v, _: f"{2.0**v:g}{TIMES}" if v >= 0 else f"1/{2.0**-v:g}{TIMES}")
    )
    bar.ax.yaxis.set_minor_formatter(NullFormatter())
    bar.set_label(SPEEDUP_CBAR)
    return fig


def measured_peaks(frame: pd.DataFrame) -> dict[str, tuple[float, str]]:
    """Each device's best bandwidth in the rows of kernels whose description says
    they measure it (Stream_COPY), by series, with that kernel's name."""
    copies = timed(frame)
    copies = copies[copies["peak_bandwidth"].astype(bool) & (copies["gbytes_per_s"] > 0)]
    best = copies.loc[copies.groupby("series")["gbytes_per_s"].idxmax()]
    return {
        str(row["series"]): (float(row["gbytes_per_s"]), str(row["kernel"]))
        for _, row in best.iterrows()
    }


def _peak_for(
    row: Any, given: Mapping[str, float], measured: Mapping[str, tuple[float, str]]
) -> tuple[float | None, str]:
    for key in (str(row["device_id"]), str(row["backend"]), "*"):
        if key in given:
            return given[key], "given peak"
    measured_peak = row.get("peak_gbytes_per_s")
    if measured_peak is not None and measured_peak > 0:
        return float(measured_peak), "harness peak"
    if row["series"] in measured:
        value, kernel = measured[row["series"]]
        return value, f"best {kernel}"
    return None, ""


BANDWIDTH_COLUMNS = ("gbytes_per_s", "peak_gbytes_per_s")


def _peaks(peaks: Any) -> dict[str, float]:
    """The given peak lines by device, backend or ``*``; UsageError for what is no
    mapping of them to a finite GB/s above 0 (the plot compared text with numbers)."""
    if peaks is None:
        return {}
    if not isinstance(peaks, Mapping):
        raise UsageError(f"peaks={peaks!r}: give a mapping of device, backend or '*' to GB/s")
    for key, value in peaks.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            value = math.nan
        if not (math.isfinite(value) and value > 0):
            raise UsageError(f"peaks[{key!r}] is {peaks[key]!r}: a peak is a finite GB/s above 0")
    return dict(peaks)


@_styled
def plot_bandwidth(frame: pd.DataFrame, peaks: Mapping[str, float] | None = None) -> Figure:
    """(c) Achieved GB/s per kernel, one panel per device, against its peak line.

    The peak is ``peaks[device_id]`` (or ``peaks[backend]``, ``peaks["*"]``)
    where given, else the device's best bandwidth in the rows of a kernel that
    measures it (Stream_COPY). Each panel has its own GB/s scale, up to its
    device's peak or best bar: devices a hundred times apart (a GPU and a
    software renderer) would leave the slow one's bars slivers on a shared
    scale, and the bar labels give the percent of peak that compares them.
    The peak's legend sits in a row kept free above the bars.
    """
    frame, left_out = usable(frame, BANDWIDTH_COLUMNS)
    done, smaller = _largest(_needs_timings(frame))
    done = done[done["gbytes_per_s"] > 0]
    if done.empty:
        raise NothingToPlot("no row moves memory (no GB/s to show)")
    given = _peaks(peaks)
    measured = measured_peaks(frame)
    style = styles(frame.assign(variant=frame["series"]))
    style = {k: v for k, v in style.items() if k in set(done["series"])}
    panels = list(style)
    several = done["precision"].nunique() > 1
    precision = " " + done["precision"] if several else ""
    done = done.assign(row=_items(done) + precision + done["size"].map(lambda n: f"  n={_si(n)}"))
    rows = list(dict.fromkeys(done["row"]))
    fig, panel = _canvas(
        (min(24.0, 2.0 + 4.6 * len(panels)), max(3.4, 2.1 + 0.32 * (len(rows) + 1))),
        BANDWIDTH_TITLE,
        BANDWIDTH_NOTE,
        left_out,
        smaller,
    )
    axes = panel.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, series in zip(axes, panels, strict=True):
        mine = done[done["series"] == series].drop_duplicates("row", keep="last")
        at = [rows.index(r) for r in mine["row"]]
        values = mine["gbytes_per_s"].to_numpy()
        ax.barh(at, values, 0.7, color=style[series].colour, edgecolor="white", linewidth=0.5)
        peak, source = _peak_for(mine.iloc[0], given, measured)
        ax.set_xlim(0, max(float(values.max()), peak or 0.0) * 1.22)
        if peak:
            ax.axvline(
                peak,
                color="#222222",
                linestyle="--",
                linewidth=1.2,
                label=f"{source}: {peak:.3g} GB/s",
            )
            ax.legend(loc="upper right", fontsize=9, framealpha=0.9, frameon=True, edgecolor="none")
            # A percent of the best Stream_COPY here read as of a peak never measured
            # (1074% at a size the caches held).
            peaked = source in ("given peak", "harness peak")
            notes = [f"{100 * v / peak:.0f}%" if peaked else f"{v:.3g}" for v in values]
        else:
            ax.text(
                0.99,
                -1,
                textwrap.fill(NO_PEAK, 48),
                transform=ax.get_yaxis_transform(),
                ha="right",
                va="center",
                fontsize=8,
                color=SUBTITLE_STYLE["color"],
            )
            notes = [f"{v:.3g}" for v in values]
        for y, v, note in zip(at, values, notes, strict=True):
            ax.text(v, y, f" {note}", va="center", fontsize=9)
        ax.set_title(series, loc="left", fontsize=11)
        ax.set_xlabel(BANDWIDTH_XLABEL)
        ax.grid(axis="y", visible=False)
    axes[0].set_yticks(range(len(rows)))
    axes[0].set_yticklabels(rows)
    axes[0].set_ylim(len(rows) - 0.5, -1.5)
    return fig


ROOFLINE_TITLE = "Roofline: every kernel against its device's measured peaks"
ROOFLINE_XLABEL = "Arithmetic intensity (FLOP per byte moved, log scale)"
ROOFLINE_YLABEL = "Achieved GFLOP/s (log scale)"
ROOFLINE_STRIP = "Kernels without FLOPs: % of peak bandwidth"
ROOFLINE_NOTE = (
    "peaks from 'harness peak' (memory past the caches): points above them run from cache"
)


ROOFLINE_COLUMNS = (
    "gbytes_per_s",
    "gflops_per_s",
    "bytes_per_rep",
    "flops_per_rep",
    "peak_gbytes_per_s",
    "peak_gflops_per_s",
)


@_styled
def plot_roofline(frame: pd.DataFrame) -> Figure:
    """(e) A roofline per device from the peaks `harness peak` measured (in the run's
    metadata): the bandwidth slope and the FMA ceiling at the run's precision, and
    every timed kernel as a numbered point at its intensity and GFLOP/s. Kernels
    that count no FLOPs (copies, sorts) sit in a strip below, at their percent of
    the bandwidth peak. The numbers are keyed to the kernels' names beside each,
    and the figure grows taller where a key is longer than a panel. The ridge
    point's label stands along its line at the foot of the panel, clear of the
    ceiling's label at the top."""
    frame, left_out = usable(frame, ROOFLINE_COLUMNS)
    done, smaller = _largest(_needs_timings(frame))
    done = done[(done["peak_gbytes_per_s"] > 0) & (done["peak_gflops_per_s"] > 0)]
    if done.empty:
        raise NothingToPlot(
            "no measured peaks for these devices: run 'harness peak' before the run"
        )
    panels = list(dict.fromkeys(done["series"]))
    keys = int(
        done.drop_duplicates(["series", "kernel", "variant_params"])["series"].value_counts().max()
    )
    fig, panel = _canvas(
        (7.5 * len(panels), max(9.0, 2.8 + 0.16 * keys)),
        ROOFLINE_TITLE,
        ROOFLINE_NOTE,
        left_out,
        smaller,
    )
    grid = panel.subplots(2, len(panels), squeeze=False, gridspec_kw={"height_ratios": [3, 1]})
    style = styles(frame.assign(variant=frame["series"]))
    for column, series in enumerate(panels):
        mine = done[done["series"] == series].drop_duplicates(["kernel", "variant_params"])
        mine = mine.assign(
            name=[
                _label(f"{k} ({v})" if v else str(k))
                for k, v in zip(mine["kernel"], mine["variant_params"], strict=True)
            ]
        ).sort_values("name")
        mine = mine.assign(number=range(1, len(mine) + 1))
        bw = float(mine["peak_gbytes_per_s"].iloc[0])
        flops = float(mine["peak_gflops_per_s"].iloc[0])
        colour = style[series].colour
        roof, strip = grid[0][column], grid[1][column]
        counted = mine[(mine["flops_per_rep"] > 0) & (mine["bytes_per_rep"] > 0)]
        intensity = counted["flops_per_rep"] / counted["bytes_per_rep"]
        ridge = flops / bw
        low = min(float(intensity.min()) if len(counted) else ridge, ridge) / 4
        high = max(float(intensity.max()) if len(counted) else ridge, ridge) * 4
        xs = np.geomspace(low, high, 200)
        roof.plot(xs, np.minimum(xs * bw, flops), color="#222222", linewidth=1.5)
        roof.axvline(ridge, color="#999999", linestyle=":", linewidth=1)
        roof.text(
            ridge,
            0.02,
            f"ridge {ridge:.3g} FLOP/B ",
            transform=roof.get_xaxis_transform(),
            fontsize=9,
            rotation=90,
            ha="right",
            va="bottom",
        )
        roof.text(low, low * bw, f" {bw:.3g} GB/s", fontsize=9, rotation=0, va="bottom")
        roof.text(high, flops, f"{flops:.3g} GFLOP/s ", fontsize=9, ha="right", va="bottom")
        roof.scatter(intensity, counted["gflops_per_s"], color=colour, s=28, zorder=3)
        for x, y, number in zip(intensity, counted["gflops_per_s"], counted["number"], strict=True):
            roof.annotate(
                str(number), (x, y), xytext=(3, 3), textcoords="offset points", fontsize=8
            )
        roof.set_xscale("log")
        roof.set_yscale("log")
        roof.set_xlabel(ROOFLINE_XLABEL)
        roof.set_ylabel(ROOFLINE_YLABEL)
        roof.set_title(series, loc="left", fontsize=11)
        rest = mine[~mine.index.isin(counted.index)]
        share = 100 * rest["gbytes_per_s"].fillna(0) / bw
        strip.scatter(share, np.zeros(len(rest)), color=colour, s=28)
        for x, number, k in zip(share, rest["number"], range(len(rest)), strict=True):
            strip.annotate(
                str(number),
                (x, 0),
                xytext=(0, 6 + 8 * (k % 3)),
                textcoords="offset points",
                fontsize=8,
                ha="center",
            )
        strip.axvline(100, color="#222222", linestyle="--", linewidth=1)
        strip.set_xlim(0, max(110.0, float(share.max()) * 1.1 if len(rest) else 110.0))
        strip.set_ylim(-0.5, 1.5)
        strip.set_yticks([])
        strip.set_xlabel(ROOFLINE_STRIP)
        key = "\n".join(
            f"{n}  {name}" for n, name in zip(mine["number"], mine["name"], strict=True)
        )
        roof.text(
            1.01, 1.0, key, transform=roof.transAxes, fontsize=7, va="top", family="monospace"
        )
    return fig


def _throughput(rows: pd.DataFrame) -> tuple[np.ndarray, str]:
    """GB/s where the kernel moves memory, else GFLOP/s, else elements per second."""
    t = rows["time_median_s"].to_numpy()
    if (rows["bytes_per_rep"] > 0).all():
        return rows["bytes_per_rep"].to_numpy() / t / 1e9, "Throughput (GB/s)"
    if (rows["flops_per_rep"] > 0).all():
        return rows["flops_per_rep"].to_numpy() / t / 1e9, "Throughput (GFLOP/s)"
    return rows["size"].to_numpy() / t / 1e9, "Throughput (G elements/s)"


def swept_kernels(frame: pd.DataFrame) -> list[str]:
    """Kernels timed at more than one size on one device: a size sweep. A default
    run whose rows were sized down to fit a slow device (a size each device) has
    none: its 'sweeps' were a point a line."""
    done = timed(frame)
    counts = done.groupby(["kernel", "device_id"])["size"].nunique()
    swept = {kernel for (kernel, _), sizes in counts.items() if sizes > 1}
    return [k for k in dict.fromkeys(done["kernel"]) if k in swept]


SWEEP_COLUMNS = ("bytes_per_rep", "flops_per_rep")


@_styled
def plot_sweep(frame: pd.DataFrame, kernel: str) -> Figure:
    """(d) One kernel's time and throughput vs problem size, a line per device, log-log."""
    mine, left_out = usable(frame[frame["kernel"] == kernel], SWEEP_COLUMNS)
    done = _needs_timings(mine)
    if done["size"].nunique() < 2:
        raise NothingToPlot(f"{kernel} was timed at fewer than two sizes")
    style = styles(frame)
    fig, panel = _canvas((13, 5.6), SWEEP_TITLE.format(kernel=_label(kernel)), left_out=left_out)
    left, right = panel.subplots(1, 2)
    several = done["precision"].nunique() > 1 or done["case"].nunique() > 1
    # A variant's lines of other precisions or cases share its style; each fills
    # its markers its own way (full, hollow, half), so that lines stay told apart.
    kinds = list(dict.fromkeys(zip(done["precision"], done["case"], strict=True)))
    # One unit for every line of the panel: chosen a line at a time, a device whose
    # rows lack bytes (an imported run's) was drawn in GFLOP/s on an axis of GB/s.
    rate, ylabel = _throughput(done)
    done = done.assign(_rate=rate)
    groups = done.groupby(["variant", "precision", "case"], sort=False)
    for (variant, precision, case), rows in groups:
        rows = rows.sort_values("size")
        s = style[variant]
        k = kinds.index((precision, case))
        label = variant + (f", {_label(case)}, {precision}" if several else "")
        kw = {
            "color": s.colour,
            "marker": s.marker,
            "fillstyle": FILLS[k % len(FILLS)],
            "linestyle": s.linestyle,
            "label": label,
            "linewidth": 2,
            "markersize": 6,
        }
        left.plot(rows["size"], rows["time_median_s"], **kw)
        right.plot(rows["size"], rows["_rate"], **kw)
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(SWEEP_XLABEL)
        _size_ticks(ax.xaxis, done["size"])
    _log_ticks(left.yaxis, done["time_median_s"], format_time)
    _log_ticks(right.yaxis, done["_rate"])
    left.set_ylabel(SWEEP_TIME_YLABEL)
    left.set_title("Time (lower is better)", loc="left", fontsize=12)
    right.set_ylabel(ylabel)
    right.set_title("Throughput (higher is better)", loc="left", fontsize=12)
    _legend(panel, *left.get_legend_handles_labels())
    return fig


CROSS_API_TITLE = "One device through several APIs: time over the fastest API's"
CROSS_API_NOTE = (
    "per kernel, each API's median time over the fastest API's on that device (1{x}: fastest)"
)
CROSS_API_CBAR = "Time over the fastest API's, log scale (red: slower)"


@_styled
def plot_cross_api(frame: pd.DataFrame) -> Figure:
    """Each physical device reached through several APIs (`portability.cross_api`) as a
    heat map, kernels x APIs, of each API's median time over the fastest API's."""
    frame, left_out = usable(frame)
    _needs_timings(frame)
    platforms = portability.add_platforms(frame)
    cross = portability.cross_api(platforms)
    if cross.empty:
        raise NothingToPlot("no device was reached through more than one API")
    keys = portability.problem_columns(platforms)
    devices = list(dict.fromkeys(cross["physical"]))
    names = platforms.drop_duplicates("physical").set_index("physical")["physical_name"]
    grids = []
    for physical in devices:
        rows = cross[cross["physical"] == physical]
        grid = rows.pivot_table(index=keys, columns="api", values="ratio", sort=False)
        labels = [
            f"{_label(problem_label(dict(zip(keys, problem, strict=True))))} "
            f"{problem[keys.index('precision')]} n={_si(float(problem[keys.index('size')]))}"
            for problem in grid.index
        ]
        grids.append((physical, labels, grid[list(dict.fromkeys(rows["api"]))]))
    longest = max(len(label) for _, labels, _ in grids for label in labels)
    tallest = max(len(labels) for _, labels, _ in grids)
    widest = max(grid.shape[1] for *_, grid in grids)
    pitch = max(0.26, min(0.4, 10.0 / tallest))
    fig, panel = _canvas(
        (2.8 + 0.075 * longest + 1.3 * widest, 1.4 + (1.2 + pitch * tallest) * len(grids)),
        CROSS_API_TITLE,
        CROSS_API_NOTE.format(x=TIMES),
        left_out,
    )
    axes = panel.subplots(len(grids), 1, squeeze=False)[:, 0]
    logs = np.log2(cross["ratio"].to_numpy(float))
    reach = max(1.0, float(np.nanmax(logs)))
    cmap = mpl.colormaps["Reds"].with_extremes(bad="#dddddd")
    for ax, (physical, labels, grid) in zip(axes, grids, strict=True):
        values = grid.to_numpy(float)
        image = ax.imshow(
            np.ma.masked_invalid(np.log2(values)), cmap=cmap, vmin=0, vmax=reach, aspect="auto"
        )
        for (i, j), value in np.ndenumerate(values):
            dark = math.isfinite(value) and math.log2(value) > 0.6 * reach
            ax.text(
                j,
                i,
                _speedup_text(value) if math.isfinite(value) else "n/a",
                ha="center",
                va="center",
                fontsize=10 if pitch > 0.3 else 9,
                color="white" if dark else "black",
            )
        ax.set_xticks(range(grid.shape[1]), list(grid.columns))
        ax.set_yticks(range(len(labels)), labels)
        ax.grid(visible=False)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title(str(names[physical]), loc="left", fontsize=12)
        bar = panel.colorbar(image, ax=ax, fraction=0.05, pad=0.03)
        bar.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{2.0**v:.3g}{TIMES}"))
        bar.set_label(CROSS_API_CBAR, fontsize=9)
    return fig


SATURATION_TITLE = "Throughput vs problem size: where each device saturates"
#: Why the sweep and saturation plots are skipped where no kernel was swept.
NO_SWEEP = "no kernel was timed at several sizes (no size sweep)"
SATURATION_NOTE = (
    "a line per device and API; {peak}ringed: the smallest size reaching {share:.0%} of "
    "the best throughput (no ring: reached only at the largest size swept, still rising)"
)
SATURATION_PEAK = "dashed: the device's measured peak; "


@_styled
def plot_saturation(frame: pd.DataFrame) -> Figure:
    """GB/s (GFLOP/s for compute-bound kernels, `report.throughput_columns`) against
    problem size, a panel per swept kernel, a line per device and API, the device's
    measured peak as a dashed line where the run's metadata has it, and the size
    where each line saturates (`report.saturation`) ringed."""
    frame, left_out = usable(frame, SWEEP_COLUMNS)
    done = _needs_timings(frame)
    found = saturation(done)
    if found.empty and swept_kernels(done):
        raise NothingToPlot(
            "no swept kernel has a GB/s or GFLOP/s at two sizes on one device (its rows "
            "count neither bytes nor FLOPs)"
        )
    if found.empty:
        raise NothingToPlot(NO_SWEEP)
    columns = throughput_columns(done)
    style = styles(frame)
    panels = list(dict.fromkeys(zip(found["case"], found["precision"], strict=True)))
    peaks = [
        c for c in ("peak_gflops_per_s", "peak_gbytes_per_s") if c in done and (done[c] > 0).any()
    ]
    several = found["precision"].nunique() > 1
    cols = min(3, len(panels))
    lines = math.ceil(len(panels) / cols)
    fig, panel = _canvas(
        (1.5 + 5.2 * cols, 1.8 + 4.2 * lines),
        SATURATION_TITLE,
        SATURATION_NOTE.format(share=SATURATION, peak=SATURATION_PEAK if peaks else ""),
        left_out,
    )
    axes = panel.subplots(lines, cols, squeeze=False).ravel()
    labelled: dict[str, Any] = {}
    for ax, (case, precision) in zip(axes, panels, strict=False):
        column = columns[str(case)]
        peak_column = "peak_gflops_per_s" if column == "gflops_per_s" else "peak_gbytes_per_s"
        mine = done[(done["case"] == case) & (done["precision"] == precision)]
        drawn = []
        for _, line in found[
            (found["case"] == case) & (found["precision"] == precision)
        ].iterrows():
            rows = mine[mine["variant"] == line["variant"]]
            rates = rows[rows[column] > 0].groupby("size")[column].max().sort_index()
            s = style[line["variant"]]
            (handle,) = ax.plot(
                rates.index,
                rates.to_numpy(),
                color=s.colour,
                marker=s.marker,
                linestyle=s.linestyle,
                linewidth=2,
                label=line["variant"],
            )
            labelled.setdefault(line["variant"], handle)
            at = line["saturates_at"]
            if at != line["largest"]:
                # A ring at the largest size read as saturation a larger size might pass.
                ax.scatter(
                    [at], [rates[at]], s=160, facecolors="none", edgecolors=s.colour, zorder=3
                )
            drawn += list(rates)
            peak = rows[peak_column].max()
            if peak > 0:
                ax.axhline(peak, color=s.colour, linestyle="--", linewidth=1.2)
                ax.annotate(
                    f"peak {peak:.3g} {UNITS[column]}",
                    (0.01, peak),
                    xycoords=("axes fraction", "data"),
                    xytext=(0, 2),
                    textcoords="offset points",
                    fontsize=8,
                    color=s.colour,
                )
                drawn.append(peak)
        ax.set_xscale("log")
        ax.set_yscale("log")
        _size_ticks(ax.xaxis, mine["size"])
        _log_ticks(ax.yaxis, drawn)
        ax.set_title(_label(case) + (f" ({precision})" if several else ""), loc="left", fontsize=12)
        ax.set_xlabel(SWEEP_XLABEL)
        ax.set_ylabel(f"Throughput ({UNITS[column]}, log scale)")
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    _legend(panel, list(labelled.values()), list(labelled))
    return fig


def rate_rows(frame: pd.DataFrame, items: str) -> pd.DataFrame:
    """Timed rows of kernels whose size counts ``items`` (keys, for the sorts), with
    ``rate`` in items per second."""
    done = timed(frame)
    done = done[done["items"] == items]
    rate = done["size"] / done["time_median_s"]
    column = f"{items}_per_s"
    if column in done:
        rate = done[column].where(done[column] > 0, rate)
    return done.assign(rate=rate)


def counted_items(frame: pd.DataFrame) -> list[str]:
    """What the sizes of the timed rows count, where a description says (``keys``)."""
    return [i for i in dict.fromkeys(timed(frame)["items"].astype(str)) if i]


@_styled
def plot_rate(frame: pd.DataFrame, items: str) -> Figure:
    """(e) Throughput in items/s (keys/s for the sorts) vs size, a line per device and
    variant, a panel per case.

    Where every kernel ran at one size only, bars of items/s per kernel instead.
    """
    counting, left_out = usable(frame[frame["items"] == items], (f"{items}_per_s",))
    rows = rate_rows(counting, items)
    if rows.empty:
        raise NothingToPlot(f"no timed rows of kernels that count {items}")
    style = styles(frame)
    cases = list(dict.fromkeys(rows["case"]))
    scale, prefix = _rate_unit(rows["rate"])
    ylabel = RATE_YLABEL.format(unit=prefix, items=items)
    if rows.groupby("case")["size"].nunique().max() < 2:
        return _rate_bars(rows, cases, style, scale, ylabel, items, left_out)
    cols = min(3, len(cases))
    lines = math.ceil(len(cases) / cols)
    fig, panel = _canvas(
        (1.5 + 5.2 * cols, 1.6 + 4.2 * lines), RATE_TITLE.format(items=items), left_out=left_out
    )
    axes = panel.subplots(lines, cols, squeeze=False, sharey=True).ravel()
    several = rows["precision"].nunique() > 1
    labelled: dict[str, Any] = {}
    for ax, case in zip(axes, cases, strict=False):
        mine = rows[rows["case"] == case]
        for (variant, precision), line in mine.groupby(["variant", "precision"], sort=False):
            line = line.sort_values("size")
            s = style[variant]
            label = variant + (f", {precision}" if several else "")
            (handle,) = ax.plot(
                line["size"],
                line["rate"] / scale,
                color=s.colour,
                marker=s.marker,
                linestyle=s.linestyle,
                linewidth=2,
                label=label,
            )
            labelled.setdefault(label, handle)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _binary(v)))
        ax.xaxis.set_minor_formatter(NullFormatter())
        _log_ticks(ax.yaxis, rows["rate"] / scale)
        ax.set_title(_label(case), loc="left", fontsize=12)
        ax.set_xlabel(RATE_XLABEL.format(items=items))
    for ax in axes[len(cases) :]:
        ax.set_visible(False)
    for ax in axes[::cols]:
        ax.set_ylabel(ylabel)
    _legend(panel, list(labelled.values()), list(labelled))
    return fig


TRANSFERS_TITLE = "Where the time of a repetition goes, by where the data lives"
TRANSFERS_XLABEL = "Median time per repetition, split into its parts"
#: The parts of a repetition, their columns and colours.
TRANSFER_PARTS = (
    ("upload (host to device)", "h2d_s", "#E69F00"),
    ("kernels", "kernel_s", "#0072B2"),
    ("download (device to host)", "d2h_s", "#009E73"),
)


@_styled
def plot_transfers(frame: pd.DataFrame) -> Figure:
    """Each kernel's repetition split into uploads, kernels and downloads, one
    stacked bar per device and transfer mode (``--transfers``); the device
    names are in the other plots' legends."""
    frame, left_out = usable(frame, tuple(column for _, column, _ in TRANSFER_PARTS))
    done, smaller = _largest(_needs_timings(frame))
    if done["transfers"].eq("resident").all():
        raise NothingToPlot("no row moved its data in the timed region (--transfers)")
    done = done[done["kernel"].isin(done.loc[done["transfers"] != "resident", "kernel"])]
    cases = list(dict.fromkeys(done["case"]))
    heights = [max(1, int((done["case"] == c).sum())) for c in cases]
    fig, panel = _canvas(
        (10.0, 1.4 + 0.3 * sum(heights) + 0.9 * len(cases)),
        TRANSFERS_TITLE,
        "shorter is better",
        left_out,
        smaller,
    )
    axes = panel.subplots(len(cases), 1, squeeze=False, height_ratios=heights)[:, 0]
    for ax, case in zip(axes, cases, strict=True):
        rows = done[done["case"] == case]
        order = rows["transfers"].map({m: i for i, m in enumerate(TRANSFER_MODES)})
        others = [
            ", ".join(p for p in str(v).split(", ") if p and p != f"{m} transfers")
            for v, m in zip(rows["variant_params"], rows["transfers"], strict=True)
        ]
        rows = rows.assign(_order=order, _others=others).sort_values(
            ["series_id", "precision", "_others", "_order"]
        )
        rows = rows.iloc[::-1]
        left = np.zeros(len(rows))
        for name, column, colour in TRANSFER_PARTS:
            value = rows[column].fillna(0).to_numpy(float)
            ax.barh(range(len(rows)), value, left=left, color=colour, label=name)
            left += value
        for y, total in enumerate(left):
            ax.text(total, y, " " + format_time(total), va="center", fontsize=9)
        labels = _transfer_labels(rows)
        ax.set_yticks(range(len(rows)), labels)
        ax.set_xlim(0, float(left.max()) * 1.25)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_time(v) if v else "0"))
        ax.set_title(_label(case), loc="left", fontsize=12)
    axes[-1].set_xlabel(TRANSFERS_XLABEL)
    handles, labels = axes[0].get_legend_handles_labels()
    _legend(panel, handles, labels)
    return fig


def _transfer_labels(rows: pd.DataFrame) -> list[str]:
    """Each bar's label: its device, its precision where the panel's rows differ in
    it, its variant but for the transfers (``_others``), and its transfer mode."""
    several = rows["precision"].nunique() > 1
    return [
        " · ".join(filter(None, (str(d), str(p) if several else "", o, str(m))))
        for d, p, o, m in zip(
            rows["series_id"], rows["precision"], rows["_others"], rows["transfers"], strict=True
        )
    ]


def _rate_bars(
    rows: pd.DataFrame,
    cases: list[str],
    style: Mapping[str, Style],
    scale: float,
    ylabel: str,
    items: str,
    left_out: list[str],
) -> Figure:
    """Throughput at one size per kernel: grouped bars of items/s."""
    per_case = int(rows.groupby("case")["variant"].nunique().max())
    width = min(20.0, max(8.0, 1.6 + len(cases) * (0.3 * per_case + 0.8)))
    fig, panel = _canvas(
        (width, 5.8), RATE_BARS_TITLE.format(items=items), "higher is better", left_out
    )
    ax = panel.subplots()
    handles: dict[str, Any] = {}
    rows = rows.assign(_value=rows["rate"] / scale, _error=math.nan)
    _bars(ax, rows, cases, style, per_case, handles, _number)
    ax.set_ylabel(ylabel)
    ax.set_xlim(-0.6, len(cases) - 0.4)
    _legend_by_rank(panel, style, handles)
    return fig


def _jobs(
    frame: pd.DataFrame, baseline: str | None, peaks: Mapping[str, float] | None
) -> list[tuple[str, Callable[[], Figure], str]]:
    """Every plot these rows may make, as (file stem, how to make it, the rows it
    leaves out), made by none of them yet."""

    def left_out(rows: pd.DataFrame, columns: tuple[str, ...] = ()) -> str:
        return "; ".join(usable(rows, columns)[1])

    jobs: list[tuple[str, Callable[[], Figure], str]] = [
        ("time_by_kernel", lambda: plot_times(frame), left_out(frame, TIME_COLUMNS)),
        ("speedup_heatmap", lambda: plot_speedup(frame, baseline), left_out(frame)),
        ("bandwidth", lambda: plot_bandwidth(frame, peaks), left_out(frame, BANDWIDTH_COLUMNS)),
        ("roofline", lambda: plot_roofline(frame), left_out(frame, ROOFLINE_COLUMNS)),
    ]
    jobs.append(("cross_api", lambda: plot_cross_api(frame), left_out(frame)))
    if "transfers" in frame and frame["transfers"].dropna().astype(str).ne("resident").any():
        parts = tuple(column for _, column, _ in TRANSFER_PARTS)
        jobs.append(("transfers", lambda: plot_transfers(frame), left_out(frame, parts)))
    sweeps = swept_kernels(frame)
    jobs += [
        (
            f"sweep_{k}",
            lambda k=k: plot_sweep(frame, k),
            left_out(frame[frame["kernel"] == k], SWEEP_COLUMNS),
        )
        for k in sweeps
    ]
    if sweeps:
        jobs.append(("saturation", lambda: plot_saturation(frame), left_out(frame, SWEEP_COLUMNS)))
    jobs += [
        (
            f"throughput_{i}",
            lambda i=i: plot_rate(frame, i),
            left_out(frame[frame["items"] == i], (f"{i}_per_s",)),
        )
        for i in counted_items(frame)
    ]
    return jobs


def figures(
    frame: pd.DataFrame,
    baseline: str | None = None,
    peaks: Mapping[str, float] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> Iterator[tuple[str, Figure | None, str]]:
    """Every plot for these rows as (file stem, Figure, the rows it left out), or
    (stem, None, why it was skipped).

    The rows left out (`usable`) are named as in the figure's own note, or "".
    ``progress(i, total, stem)`` is called as each plot starts (sweeps make many).
    """
    jobs = _jobs(frame, baseline, peaks)
    for i, (stem, make, dropped) in enumerate(jobs, 1):
        if progress is not None:
            progress(i, len(jobs), stem)
        try:
            yield stem, make(), dropped
        except NothingToPlot as exc:
            yield stem, None, str(exc)
    if not any(stem == "saturation" for stem, _, _ in jobs):
        for stem in ("sweep", "saturation"):
            yield stem, None, NO_SWEEP
    if not any(stem.startswith("throughput_") for stem, _, _ in jobs):
        yield "throughput", None, "no timed kernel whose size counts items (such as a sort's keys)"


def print_progress(i: int, total: int, stem: str) -> None:
    """One line per plot on stderr: ``[3/9] sweep_Stream_TRIAD``."""
    print(f"[{i}/{total}] {stem}", file=sys.stderr, flush=True)


def save(fig: Figure, stem: Path) -> list[Path]:
    """Write a figure as PNG and SVG next to each other (``stem`` plus the suffix:
    a stem holding a dot, as ``sweep_My.A``, keeps it), each whole or not at all."""
    paths = [stem.with_name(stem.name + ".png"), stem.with_name(stem.name + ".svg")]
    for path in paths:
        results.write_whole(
            path,
            lambda tmp, kind=path.suffix[1:]: fig.savefig(
                tmp, format=kind, dpi=DPI, facecolor="white", bbox_inches="tight"
            ),
        )
    return paths


def write_plots(
    frame: pd.DataFrame,
    out: Path,
    baseline: str | None = None,
    peaks: Mapping[str, float] | None = None,
) -> tuple[list[Path], list[str]]:
    """Save every plot that applies under ``out``; return the files, and notes of the
    plots skipped and the rows left out."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    notes: list[str] = []
    names = file_stems(frame)
    for stem, fig, why in figures(frame, baseline, peaks, print_progress):
        if fig is None:
            notes.append(f"skipped {stem}: {why}")
            # An earlier plot of this name, of other rows, would pass for this one's.
            earlier = [out / f"{names.get(stem, stem)}{ext}" for ext in SUFFIXES]
            if any(path.is_file() for path in earlier):
                for path in earlier:
                    path.unlink(missing_ok=True)
                notes.append(f"removed the earlier {stem} plot from {out}: these rows make none")
            continue
        if why:
            notes.append(f"{stem} left out rows with unusable values: {why}")
        written += save(fig, out / names[stem])
    bad = frame[frame["status"].isin(("fail", "error"))]
    if written and not bad.empty:
        # A failed row is a gap in the figures, which read as a kernel never run.
        shown = ", ".join(_failed_name(row) for _, row in bad.head(3).iterrows())
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        notes.append(
            f"{len(bad)} row(s) that failed or errored are in no plot (a gap where each "
            f"would be): {shown}{more}"
        )
    return written, notes


#: The files a plot is saved as, by suffix.
SUFFIXES = (".png", ".svg")
#: The plots whose names are their own, besides sweep_<KERNEL> and throughput_<ITEMS>.
STEMS = (
    "time_by_kernel",
    "speedup_heatmap",
    "bandwidth",
    "roofline",
    "cross_api",
    "transfers",
    "saturation",
)


def file_stems(frame: pd.DataFrame) -> dict[str, str]:
    """The file stem (`file_stem`) of each plot these rows may make, by its name."""
    used: set[str] = set()
    return {stem: file_stem(stem, used) for stem, _, _ in _jobs(frame, None, None)}


def earlier_plots(out: Path, frame: pd.DataFrame) -> list[str]:
    """The plot files in ``out`` (of an earlier plot) that these rows would neither
    replace nor remove: another run's sweep of a kernel this one lacks, say."""
    mine = set(file_stems(frame).values())
    return sorted(
        path.name
        for path in out.glob("*")
        if path.suffix in SUFFIXES
        and path.is_file()
        and (path.stem in STEMS or path.stem.startswith(("sweep_", "throughput_")))
        and path.stem not in mine
    )


#: The longest file stem a plot gets, in bytes (file names end at 255 on most disks).
MAX_STEM_BYTES = 200


def file_stem(stem: str, used: set[str]) -> str:
    """A plot's file name (without suffix) for ``stem``, unique among ``used`` (which
    it joins): a kernel's name is text of a run folder, and may hold a '/', which
    would name another folder, or be too long for a file name; such characters
    become '_', a long name is cut, and a name already given gets a number."""
    name = re.sub(r"[^\w.+-]", "_", stem)
    if len(name.encode()) > MAX_STEM_BYTES:
        name = name.encode()[:MAX_STEM_BYTES].decode(errors="ignore")
    unique, n = name, 1
    while unique in used:
        n += 1
        unique = f"{name}-{n}"
    used.add(unique)
    return unique

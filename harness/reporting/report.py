"""The run report: per kernel x device status, times, rates and speedup, then devices and versions.

`build` turns loaded rows (`harness.reporting.frames.load_runs`) into a `Report` of
formatted tables, which `to_markdown` and `harness.reporting.html.to_html` render. The
speedup of a row is its baseline's median time over the row's, for the same kernel,
precision and size (and sort input, where rows have one): by default the fastest CPU
row of that problem (`baselines`), else the one device ``--baseline`` names. Only the
run folders are read: their rows and metadata.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import UsageError
from harness.execution import merge, results
from harness.reporting import portability
from harness.reporting.frames import peak_bandwidth, timed
from harness.reporting.portability import POCL_CPU_NAMES
from harness.reporting.table import format_time, noise_summary

if TYPE_CHECKING:
    import pandas as pd

TIMES = "\N{MULTIPLICATION SIGN}"
#: `find_baseline`'s key for the default baseline: each kernel's fastest CPU row.
FASTEST_CPU = "fastest CPU row"
FASTEST_CPU_LABEL = "the fastest CPU row per kernel"
#: PoCL's platform name (its CPU devices' names begin with `POCL_CPU_NAMES`).
POCL = "Portable Computing Language"
#: The columns that make rows one problem, for speedups.
PROBLEM = ["kernel", "precision", "size", "case_params"]
#: Percent of a peak above which a row's data stayed in cache.
ABOVE_PEAK = "above peak (cache-resident)"
PEAK_COLUMN = "% peak BW"
#: Columns of numbers, in any table.
NUMERIC = {"Size", "Median", "Spread", "GB/s", "GFLOP/s", "Rows", "Memory", "Compute units"}
NUMERIC |= {PEAK_COLUMN, "Copy GB/s", "Triad GB/s", "Peak GB/s", "FMA f64", "FMA f32"}
NUMERIC |= {"PP (application)", "PP (architectural)", "Best", "At size", "Saturates at"}
#: The share of a kernel's best throughput at which it has saturated its device.
SATURATION = 0.9


@dataclass
class Table:
    """A titled table of already formatted cells."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""
    #: Further columns of numbers (right-aligned), such as one per API.
    numbers: tuple[str, ...] = ()


@dataclass
class Report:
    """Everything a report shows, formatted, independent of Markdown or HTML."""

    title: str
    notes: list[str]
    tables: list[Table]
    problems: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    #: The run in a few sentences, for the top: what ran where, what failed,
    #: which device was fastest, each device's speedup (`story`).
    story: list[str] = field(default_factory=list)


def is_cpu(backend: str, kind: str = "", name: str = "", api: str = "") -> bool:
    """Whether a device is a CPU that the default speedup baseline counts: the numpy
    backend, or an OpenCL device whose type is CPU (PoCL's, a vendor's CPU runtime).

    ``kind`` is the device's kind as the run's metadata records it (``cpu``,
    ``gpu``...); where the metadata has none, an OpenCL device is a CPU when it is
    PoCL's CPU device, told by its platform (``api``) and name. A wgpu adapter on
    the CPU (lavapipe) runs a GPU API in software: it is compared, not a baseline.
    """
    if backend == "cpu":
        return True
    if backend != "opencl":
        return False
    if kind:
        return kind == "cpu"
    return POCL in api and name.startswith(POCL_CPU_NAMES)


def cpu_rows(frame: pd.DataFrame) -> pd.Series:
    """Which rows ran on a CPU device (`is_cpu`), from their backend, ``device_kind``
    (`harness.reporting.frames.load` takes it from the metadata), name and API."""
    import pandas as pd

    def column(name: str) -> list[str]:
        if name not in frame:
            return [""] * len(frame)
        return frame[name].astype(object).where(frame[name].notna(), "").astype(str).tolist()

    flags = [
        is_cpu(*device)
        for device in zip(
            column("backend"),
            column("device_kind"),
            column("device"),
            column("device_api"),
            strict=True,
        )
    ]
    return pd.Series(flags, index=frame.index, dtype=bool)


def find_baseline(frame: pd.DataFrame, baseline: str | None) -> tuple[str | None, str, str]:
    """The baseline's series key and label, and a note when there is none.

    ``baseline`` is a backend (its first device in the rows is used), a
    device id such as ``opencl:0`` (where it names one device), or a device as
    the report names it (``series``). None means the fastest CPU row of each
    kernel (`FASTEST_CPU`, see `baselines`); a run without CPU rows then only
    gets a note, where a named baseline that is absent is an error.
    """
    if baseline is None:
        if cpu_rows(frame).any():
            return FASTEST_CPU, FASTEST_CPU_LABEL, ""
        return None, "", "no speedups: the runs have no CPU rows (choose a baseline: --baseline)"
    named = frame[frame["series"] == baseline]
    match = named if not named.empty else frame[frame["device_id"] == baseline]
    if match.empty:
        match = frame[frame["backend"] == baseline]
    if match.empty:
        # An id of several devices (runs of several machines) is refused below: their
        # names as the report gives them are what is accepted for each.
        devices = frame.drop_duplicates("series")
        counts = devices["device_id"].value_counts()
        shared = devices["device_id"].isin(counts[counts > 1].index)
        have = ", ".join(
            dict.fromkeys(
                [*frame["backend"], *devices["device_id"][~shared], *devices["series"][shared]]
            )
        )
        raise UsageError(f"--baseline {baseline!r}: not in these runs; they have {have}")
    devices = list(dict.fromkeys(match["series"]))
    if len(devices) > 1 and baseline in set(frame["device_id"]):
        # One id, several devices: a merged run's hosts, or runs of several machines.
        raise UsageError(
            f"--baseline {baseline!r}: names {len(devices)} devices in these runs "
            f"({'; '.join(devices)}); give one of them as it is named there"
        )
    done = match[match["series_key"].isin(timed(frame)["series_key"])]
    # Of a backend's several devices, the first that timed a row: its first device
    # alone gave no speedups where another of them had timed rows.
    first = (done if not done.empty else match).iloc[0]
    if not (timed(frame)["series_key"] == first["series_key"]).any():
        # Every speedup over it was blank (and the heat map a grid of nothing), as
        # if the option had not been read.
        return (
            None,
            "",
            f"no speedups: --baseline {baseline!r} ({first['series']}) timed no row ok "
            "(its rows failed, errored or were skipped); give a device that did",
        )
    return str(first["series_key"]), str(first["series"]), ""


def baseline_choice(frame: pd.DataFrame, baseline: str | None) -> str | None:
    """A note naming the device `find_baseline` took where ``baseline`` is a backend
    of several devices in these rows (a choice it made silently), else None."""
    if baseline is None or baseline in set(frame["series"]) or baseline in set(frame["device_id"]):
        return None
    devices = list(dict.fromkeys(frame.loc[frame["backend"] == baseline, "series"]))
    key, label, _ = find_baseline(frame, baseline)
    if len(devices) < 2 or key is None:
        return None
    others = "; ".join(d for d in devices if d != label)
    return (
        f"--baseline {baseline!r} is a backend of {len(devices)} devices in these runs: "
        f"the speedups are over {label}, not {others}; name a device to choose"
    )


def _problem(frame: pd.DataFrame) -> pd.DataFrame:
    """Each row's problem as text: kernel, precision, size, case options, and how it
    was measured (cache, transfers), the keys rows share with their baseline."""
    columns = [c for c in (*PROBLEM, "cache", "transfers") if c in frame]
    return frame[columns].astype(object).where(frame[columns].notna(), "").astype(str)


def baselines(frame: pd.DataFrame, baseline_key: str | None) -> pd.DataFrame:
    """Each row's baseline row: its median (``baseline_time``, NaN where there is
    none) and its device and variant (``baseline``).

    With `FASTEST_CPU` that is the fastest timed CPU row (`cpu_rows`, any variant)
    of the row's kernel, precision, size, case options, cache and transfers.
    With a device's key it is that device's same variant where it ran it, else
    its first row of that case.
    """
    import pandas as pd

    out = pd.DataFrame({"baseline_time": math.nan, "baseline": ""}, index=frame.index)
    if baseline_key is None:
        return out
    done = timed(frame)
    if baseline_key == FASTEST_CPU:
        cpu = done[cpu_rows(done)]
        rows = _problem(cpu).assign(_base=cpu["time_median_s"], _label=cpu["variant"])
        keys = list(_problem(frame).columns)
        fastest = rows.loc[rows.groupby(keys, sort=False)["_base"].idxmin()] if len(rows) else rows
        found = _problem(frame).merge(fastest, on=keys, how="left")
        out["baseline_time"] = found["_base"].to_numpy()
        out["baseline"] = found["_label"].fillna("").to_numpy()
        return out
    exact = [*PROBLEM, "variant_params"]
    base = done[done["series_key"] == baseline_key].rename(
        columns={"time_median_s": "_base", "variant": "_label"}
    )
    columns = ["_base", "_label"]
    same = frame[exact].merge(base[[*exact, *columns]].drop_duplicates(exact), on=exact, how="left")
    first = frame[PROBLEM].merge(
        base[[*PROBLEM, *columns]].drop_duplicates(PROBLEM), on=PROBLEM, how="left"
    )
    have = same["_base"].notna()
    out["baseline_time"] = same["_base"].where(have, first["_base"]).to_numpy()
    out["baseline"] = same["_label"].where(have, first["_label"]).fillna("").to_numpy()
    return out


def speedups(frame: pd.DataFrame, baseline_key: str | None) -> pd.Series:
    """Baseline median time / row median time, per row (NaN where either is missing
    or the row is not ok, or timed at 0: no time, whose ratio was a warning of a
    division by zero on stderr); the baseline row itself gets 1. See `baselines`."""
    import pandas as pd

    reference = baselines(frame, baseline_key)["baseline_time"].to_numpy(dtype=float)
    times = frame["time_median_s"].to_numpy(dtype=float)
    ok = (frame["status"] == "ok").to_numpy() & (times > 0)
    ratio = [r / t if k else math.nan for r, t, k in zip(reference, times, ok, strict=True)]
    return pd.Series(ratio, frame.index, dtype=float)


def has_timings(frame: pd.DataFrame) -> bool:
    """Whether any row carries a timing (a check-only run has none)."""
    return not timed(frame).empty


def _untimed(frame: pd.DataFrame) -> str:
    """Why rows without a single timing have none: verified only, or nothing ran."""
    if (frame["status"] == "ok").any():
        return (
            "check-only run (--check): results are verified but not timed, "
            "so there are no times, rates or speedups"
        )
    counts = frame["status"].value_counts()
    what = {"error": "errored", "fail": "failed verification", "skipped": "were skipped"}
    tally = ", ".join(f"{int(counts[s])} {w}" for s, w in what.items() if counts.get(s, 0))
    return (
        f"no row was timed: {tally} (see 'Rows that are not ok'), "
        "so there are no times, rates or speedups"
    )


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def _num(value: Any, fmt: str = ".3g") -> str:
    return format(float(value), fmt) if _finite(value) else "-"


def _size(value: Any) -> str:
    """A size as a cell; a size column with an empty cell (a damaged row's) is read
    as floats, and grouped as text ('100000.0') where rows are keyed by it."""
    return str(int(float(value))) if _finite(value) else "-"


def speedup_text(value: Any) -> str:
    """A speedup as a cell: two decimals, or two significant digits below 0.1."""
    if not _finite(value):
        return "-"
    return f"{float(value):{'.2f' if float(value) >= 0.1 else '.2g'}}{TIMES}"


def _reason(row: pd.Series) -> str:
    return row["reason"] if isinstance(row["reason"], str) else "no reason recorded"


def _spread(row: pd.Series) -> str:
    std, median = row["time_std_s"], row["time_median_s"]
    if not (_finite(std) and _finite(median)) or median <= 0:
        return "-"
    unstable = str(row.get("unstable")).lower() in ("true", "1")
    return f"±{100 * std / median:.1f}%" + (" unstable" if unstable else "")


def _writer(meta: dict[str, Any]) -> str | None:
    """Who writes a run now (`results.writer`), or None: a run being written was
    reported as interrupted, which it was not; so was one being resumed, whose
    metadata keeps the end and interruption of the session it continues."""
    if not meta.get("run_dir"):
        return None
    return results.writer(Path(meta["run_dir"]))


def build(frame: pd.DataFrame, metas: list[dict[str, Any]], baseline: str | None = None) -> Report:
    """The report of loaded rows (``frames.load_runs``) and their runs' metadata."""
    notes = []
    for meta in metas:
        if not meta.get("start"):
            notes.append(f"{meta['run']}: metadata.json is missing or unreadable")
        kept = int((frame["run"] == meta["run"]).sum())
        holder = _writer(meta)
        if holder:
            notes.append(f"{meta['run']}: still being written ({holder}); its {kept} rows so far")
        elif meta.get("interrupted") or (meta.get("start") and not meta.get("end")):
            cut = [
                str(m.get("run"))
                for m in merge.inside(meta)
                if m.get("interrupted") or (m.get("start") and not m.get("end"))
            ]
            which = f"merges {', '.join(cut)}, interrupted" if cut else "the run was interrupted"
            notes.append(f"{meta['run']}: {which}; {kept} rows were kept")
        else:
            unknown = [str(m.get("run")) for m in merge.inside(meta) if not m.get("end")]
            if unknown:
                # A run merged without its metadata.json: the merged run's end said it ended.
                notes.append(
                    f"{meta['run']}: merges {', '.join(unknown)}, with no metadata.json (or no "
                    "end in it) when merged: whether it ran to its end is unknown"
                )
        # Rows lost to damage (a torn line, rows removed, an import's unread lines) may
        # be any of the run's: a report that held its other rows alone read as whole.
        lost = results.losses(Path(meta["run_dir"])) if meta.get("run_dir") else None
        if lost:
            notes.append(f"{meta['run']}: {lost}; the report holds the {kept} rows it could read")
    timings = has_timings(frame)
    baseline_key, baseline_label, missing = find_baseline(frame, baseline)
    if not timings:
        notes.append(_untimed(frame))
    elif missing:
        notes.append(missing)
    frame = frame.assign(speedup=speedups(frame, baseline_key), pct_peak=pct_of_peak(frame))
    problems = [
        f"{row['kernel']} on {row['series']} ({row['precision']}, n={_size(row['size'])}):"
        f" {row['status']}: {_reason(row)}"
        for _, row in frame[frame["status"] != "ok"].iterrows()
    ]
    platforms = portability.add_platforms(frame)
    tables = [
        _results_table(frame, timings, baseline_key, baseline_label),
        _baselines_table(frame, baseline_key),
        *cross_api_tables(platforms),
        _portability_table(platforms),
        _saturation_table(frame),
        _best_groups_table(frame),
        _peaks_table(frame, metas),
        _runs_table(frame, metas),
        _devices_table(frame, metas),
        _software_table(metas),
    ]
    title = "Benchmark report: " + ", ".join(m["run"] for m in metas)
    told = story(frame, baseline_key, baseline_label) + portability_story(platforms)
    return Report(title, notes, [t for t in tables if t.rows], problems, story=told)


def _results_table(
    frame: pd.DataFrame, timings: bool, baseline_key: str | None, baseline_label: str
) -> Table:
    """Every row: status, times, rates, percent of peak and speedup."""
    extras = [c for c in ("variant_params",) if frame[c].any()]
    peaks = bool(frame["pct_peak"].notna().any())
    columns = ["Kernel", "Backend", "Device", *("Variant" for _ in extras)]
    columns += ["Precision", "Size", "Status"]
    if timings:
        columns += ["Median", "Spread", "GB/s", *([PEAK_COLUMN] if peaks else []), "GFLOP/s"]
        if baseline_key is not None:
            over = "fastest CPU" if baseline_key == FASTEST_CPU else baseline_label
            columns.append(f"Speedup vs {over}")
    rows = []
    fastest = set(best_groups(frame).index)
    for index, row in frame.iterrows():
        cells = [str(row["case"]), str(row["backend"]), str(row["series"])]
        cells += [str(row[c]) + (" (best group)" if index in fastest else "") for c in extras]
        cells += [str(row["precision"]), _size(row["size"]), str(row["status"])]
        if timings:
            # A row that did not pass has no rate (an imported one keeps its time).
            ok = row["status"] == "ok"
            cells += [format_time(row["time_median_s"]), _spread(row)]
            cells.append(_num(row["gbytes_per_s"] if ok else None))
            cells += [percent_of_peak(row["pct_peak"] if ok else None)] if peaks else []
            cells.append(_num(row["gflops_per_s"] if ok else None))
            if baseline_key is not None:
                cells.append(speedup_text(row["speedup"]))
        rows.append(cells)
    counts = frame["status"].value_counts()
    tally = ", ".join(f"{int(counts.get(s, 0))} {s}" for s in ("ok", "fail", "error", "skipped"))
    note = (
        f"{tally}. Median of the timed repetitions; spread is their standard deviation, "
        "'unstable' where the repetitions varied too much to trust (the run's own flag)."
    )
    if peaks:
        note += f" {PEAK_COLUMN}: GB/s over the device's measured peak (see Peaks)."
    return Table("Results", columns, rows, note)


def _baselines_table(frame: pd.DataFrame, baseline_key: str | None) -> Table:
    """Which row each kernel's speedups are over, and its median."""
    if baseline_key is None:
        return Table("Speedup baselines", [], [])
    found = baselines(frame, baseline_key)
    rows = frame.assign(_base=found["baseline"], _time=found["baseline_time"])
    rows = rows[rows["_time"].notna()]
    keys = ["case", "precision", "size", "_base"]
    table = [
        [
            str(r["case"]),
            str(r["precision"]),
            _size(r["size"]),
            str(r["_base"]),
            format_time(r["_time"]),
        ]
        for _, r in rows.drop_duplicates(keys).iterrows()
    ]
    if baseline_key == FASTEST_CPU:
        note = (
            "Each kernel's speedups are over its fastest CPU row (the numpy backend or an "
            "OpenCL CPU device such as PoCL; any variant) of the same precision, size, "
            "input, cache and transfers; that row's speedup is 1. --baseline names one "
            "device instead."
        )
    else:
        note = "Speedups are over this device's row of the same variant, else its first."
    columns = ["Kernel", "Precision", "Size", "Baseline", "Median"]
    return Table("Speedup baselines", columns, table, note)


def pct_of_peak(frame: pd.DataFrame) -> pd.Series:
    """Each row's GB/s as a percent of its device's bandwidth peak: the run's own
    ``pct_peak_bw``, else from the peak in the metadata (NaN where neither is)."""
    import pandas as pd

    def column(name: str) -> pd.Series:
        values = frame[name] if name in frame else pd.Series(math.nan, index=frame.index)
        return pd.to_numeric(values, errors="coerce").astype(float)

    peak = column("peak_gbytes_per_s")
    return column("pct_peak_bw").fillna(100 * column("gbytes_per_s") / peak.where(peak > 0))


def _by_host(meta: dict[str, Any]) -> bool:
    """Whether a run lists each host's devices under it, one id a device of each
    host: a merged run does (`harness.execution.merge`), and an MPI job over several
    hosts."""
    devices = meta.get("devices") if isinstance(meta.get("devices"), list) else []
    return bool(meta.get("merged_from")) or any(
        isinstance(d, dict) and d.get("host") for d in devices
    )


def _run_peaks(meta: dict[str, Any]) -> dict[str, Any]:
    """A run's peaks by device: by id, or, where it lists each host's devices (whose
    entries keep their own peaks), by "host: id"."""
    if not _by_host(meta):
        peaks = meta.get("peaks")
        return peaks if isinstance(peaks, dict) else {}
    return {
        f"{d.get('host') or '-'}: {d.get('id')}": d["peaks"]
        for d in meta.get("devices") or []
        if isinstance(d, dict) and isinstance(d.get("peaks"), dict)
    }


def _peaks_table(frame: pd.DataFrame, metas: list[dict[str, Any]]) -> Table:
    """Each device's peaks as its run's metadata holds them (`harness peak`): the
    figures, when and where they were measured, and what was noted then."""
    rows = []
    multi = len(metas) > 1
    if not any(_run_peaks(meta) for meta in metas):
        return Table("Peaks", [], [])
    for meta in metas:
        peaks = _run_peaks(meta)
        ran = frame[(frame["run"] == meta["run"]) & frame["time_median_s"].gt(0)]
        by_host = _by_host(meta)
        shown = (
            ran["host"].astype(str) + ": " + ran["device_id"].astype(str)
            if by_host
            else ran["device_id"].astype(str)
        )
        for device in dict.fromkeys([*peaks, *shown]):
            peak = peaks.get(device)
            host = (
                device.rsplit(": ", 1)[0]
                if by_host
                else str((meta.get("host") or {}).get("hostname") or "-")
            )
            cells = [meta["run"]] if multi else []
            if not isinstance(peak, dict):
                cells += [device, "-", "-", "-", "-", "-", "not measured"]
                # A device named "host: id" is measured on its host, by its id.
                command = f"harness peak --device {device.rsplit(': ', 1)[-1]}"
                cells.append(
                    f"no peak: measure one with {command}" + (f" on {host}" if by_host else "")
                )
                rows.append(cells)
                continue
            measured = peak.get("device") if isinstance(peak.get("device"), dict) else {}
            flops = peak.get("fma_gflops_per_s") or {}
            where = ", ".join(
                str(v) for v in (host, measured.get("name"), measured.get("driver")) if v
            )
            said = [*(peak.get("notes") or []), *(peak.get("warnings") or [])]
            cells += [
                device,
                _num(peak.get("copy_gbytes_per_s")),
                _num(peak.get("triad_gbytes_per_s")),
                _num(peak_bandwidth(peak)),
                _num(flops.get("f64")),
                _num(flops.get("f32")),
                f"{peak.get('measured') or '-'} on {where or '-'}",
                "; ".join(map(str, said)) or "-",
            ]
            rows.append(cells)
    columns = ["Device", "Copy GB/s", "Triad GB/s", "Peak GB/s", "FMA f64", "FMA f32"]
    columns += ["Measured", "Notes"]
    return Table(
        "Peaks",
        (["Run"] if multi else []) + columns,
        rows,
        f"{PEAK_COLUMN} is a row's GB/s over its device's Peak GB/s (the better of copy and "
        "triad, FMA in GFLOP/s): the peaks 'harness peak' measured, which the run found "
        "for its devices when it started. A row above 100% ran from cache.",
    )


def percent_of_peak(value: Any) -> str:
    """A percent of peak as a cell: above 100 the data was in cache, which no
    percentage of the memory's peak describes."""
    if not _finite(value):
        return "-"
    return ABOVE_PEAK if float(value) > 100 else f"{float(value):.0f}%"


def noise_story(frame: pd.DataFrame) -> list[str]:
    """How the timed rows met their noise target, in the terminal's words: how
    many met it and missed it (and why), and the unstable rows to rerun."""
    records = [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
        for r in frame.to_dict("records")
    ]
    told = []
    verdict = noise_summary(records)
    if verdict:
        told.append(verdict[0].upper() + verdict[1:] + ".")
    unstable = [
        f"{r['case']}{f' ({v})' if (v := r.get('variant_params')) else ''} "
        f"{r.get('precision')} n={_size(r['size'])} on {r['series_id']}"
        for r in records
        if r.get("status") == "ok" and str(r.get("unstable")).lower() in ("true", "1")
    ]
    if unstable:
        more = f" and {len(unstable) - 8} more" if len(unstable) > 8 else ""
        told.append(
            f"{len(unstable)} row(s) unstable, their repetitions spread more than 10% (or 2x "
            f"between fastest and slowest); rerun before trusting them: "
            f"{', '.join(unstable[:8])}{more}."
        )
    return told + _measured_otherwise(records)


def _measured_otherwise(records: list[dict[str, Any]]) -> list[str]:
    """The rows the terminal's table warns of, and the report was silent on: those
    timed while their device's clock fell, and those sized down to fit their time
    budget (a size the run was not asked for)."""

    def name(r: dict[str, Any]) -> str:
        return f"{r['case']} {r.get('precision')} n={_size(r['size'])} on {r['series_id']}"

    def some(names: list[str]) -> str:
        return ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")

    told = []
    dropped = [
        f"{name(r)} ({r.get('clocks_note') or 'clock fell'})"
        for r in records
        if r.get("status") == "ok" and str(r.get("clocks_dropped")).lower() in ("true", "1")
    ]
    if dropped:
        told.append(
            f"{len(dropped)} row(s) ran while their device's clock fell or it throttled; "
            f"rerun before trusting them: {some(dropped)}."
        )
    sized = [
        f"{name(r)}, from n={_size(r['sized_from'])}"
        for r in records
        if r.get("sized_from") not in (None, "")
    ]
    if sized:
        told.append(
            f"{len(sized)} row(s) sized down to fit their time budget (--max-time; --size "
            f"keeps a size): {some(sized)}."
        )
    return told


def story(frame: pd.DataFrame, baseline_key: str | None, baseline_label: str) -> list[str]:
    """The run in a few sentences: what ran on which devices and how it ended, how
    the rows met their noise target, the device that was fastest for the most
    kernels, each kernel's baseline and each device's geometric-mean speedup over
    it (``frame`` has ``speedup``), and the rows above their device's peak."""
    devices = list(dict.fromkeys(frame["series"].astype(str)))
    short = dict(zip(frame["series"].astype(str), frame["series_id"].astype(str), strict=True))
    counts = frame["status"].value_counts()
    ended = ", ".join(f"{int(counts.get(s, 0))} {s}" for s in ("ok", "fail", "error", "skipped"))
    told = [
        f"{frame['case'].nunique()} kernels on {len(devices)} devices "
        f"({'; '.join(devices)}): {len(frame)} rows, {ended}."
    ]
    told += noise_story(frame)
    bad = int(counts.get("fail", 0)) + int(counts.get("error", 0))
    if bad:
        told.append(f"{bad} row{'s' if bad > 1 else ''} failed or errored: listed first below.")
    done = timed(frame)
    if done.empty:
        return told
    cases = ["case", "precision", "size"]
    best = done.loc[done.groupby(cases, sort=False)["time_median_s"].idxmin()]
    wins = best["series_id"].astype(str).value_counts()
    ranked = ", ".join(f"{series} for {n}" for series, n in wins.items())
    told.append(f"Fastest device, kernel by kernel: {ranked} of {len(best)} timed cases.")
    if baseline_key is not None:
        told += _speedup_story(frame, done, baseline_key, baseline_label, short)
    above = done[done["pct_peak"] > 100] if "pct_peak" in done else done.iloc[0:0]
    if not above.empty:
        names = ", ".join(f"{r['case']} on {r['series_id']}" for _, r in above.iterrows())
        told.append(
            f"{len(above)} row(s) above their device's measured bandwidth peak, so their "
            f"data was in cache: {names}."
        )
    return told


def _speedup_story(
    frame: pd.DataFrame,
    done: pd.DataFrame,
    baseline_key: str,
    baseline_label: str,
    short: dict[str, str],
) -> list[str]:
    """Which device each kernel's baseline was, and each device's geometric-mean speedup."""
    told = []
    if baseline_key == FASTEST_CPU:
        found = baselines(done, baseline_key)
        chosen = done[
            (found["baseline"] == done["variant"])
            & (found["baseline_time"] == done["time_median_s"])
        ]
        chosen = chosen.drop_duplicates(_problem(chosen).columns.tolist())
        counts = chosen["series_id"].astype(str).value_counts()
        ranked = ", ".join(f"{series} for {n}" for series, n in counts.items())
        told.append(f"Speedup baseline, kernel by kernel: {ranked} of {len(chosen)} timed cases.")
        others = done[done["speedup"].gt(0)]
        over = FASTEST_CPU_LABEL
    else:
        others = done[(done["series_key"] != baseline_key) & done["speedup"].gt(0)]
        over = short.get(baseline_label, baseline_label)
    means = [
        f"{short[series]} {speedup_text(math.exp(rows['speedup'].map(math.log).mean()))} "
        f"({len(rows)} row{'s' if len(rows) > 1 else ''})"
        for series, rows in others.groupby("series", sort=False)
    ]
    if means:
        told.append(f"Geometric-mean speedup over {over}: {', '.join(means)}.")
    # Rows left out of those means, their '-' unexplained: the baseline failed there.
    alone = [
        f"{r['case']} {r['precision']} n={_size(r['size'])} on {short[str(r['series'])]}"
        for _, r in done[done["speedup"].isna()].iterrows()
    ]
    if alone:
        more = f" and {len(alone) - 8} more" if len(alone) > 8 else ""
        whose = "no CPU device has" if baseline_key == FASTEST_CPU else f"{over} has no"
        told.append(
            f"No speedup for {len(alone)} timed row(s): {whose} ok row of their case "
            f"(failed, errored, skipped or not run): {', '.join(alone[:8])}{more}."
        )
    return told


def best_groups(frame: pd.DataFrame) -> pd.DataFrame:
    """The ``--group`` rows that were fastest of their kernel, device and case: one
    per kernel, device, precision, size and other variant, with ``tried`` (every
    size's median, in order of size)."""
    done = timed(frame)
    if "work_group" not in done:
        return done.iloc[0:0]
    done = done[done["work_group"].notna()].copy()
    done["_rest"] = done["variant_params"].str.replace(r"(, )?group \d+", "", regex=True)
    keys = ["case", "series_key", "precision", "size", "_rest"]
    best = []
    for _, rows in done.groupby(keys, sort=False):
        rows = rows.sort_values("work_group")
        tried = ", ".join(
            f"{int(g)}: {format_time(t)}"
            for g, t in zip(rows["work_group"], rows["time_median_s"], strict=True)
        )
        best.append(rows.loc[rows["time_median_s"].idxmin()].copy())
        best[-1]["tried"] = tried
    import pandas as pd

    return pd.DataFrame(best)


def problem_label(problem: dict[str, Any]) -> str:
    """A problem as a table names it: the kernel, then its case options, and its
    cache and transfers where they are not the default."""
    detail = [
        str(problem.get("case_params") or ""),
        "cold cache" if problem.get("cache") == "cold" else "",
        f"{problem['transfers']} transfers"
        if problem.get("transfers") not in (None, "", "resident")
        else "",
    ]
    shown = ", ".join(d for d in detail if d)
    return f"{problem['kernel']} ({shown})" if shown else str(problem["kernel"])


def _ratio_cell(value: Any) -> str:
    return f"{float(value):.2f}{TIMES}" if _finite(value) else "-"


def cross_api_tables(frame: pd.DataFrame) -> list[Table]:
    """A table per physical device reached through several APIs (rows with
    `portability.add_platforms`' columns): per problem each API's median over the
    fastest API's, and the geometric mean per API."""
    cross = portability.cross_api(frame)
    keys = portability.problem_columns(frame)
    tables = []
    for physical, rows in cross.groupby("physical", sort=False):
        apis = list(dict.fromkeys(rows["api"]))
        grid = rows.pivot_table(index=keys, columns="api", values="ratio", sort=False)
        table = []
        for problem, ratios in grid.iterrows():
            named = dict(zip(keys, problem, strict=True))
            cells = [problem_label(named), str(named["precision"]), _size(named["size"])]
            table.append(cells + [_ratio_cell(ratios.get(api)) for api in apis])
        means = portability.geometric_means(rows).set_index("api")
        table.append(
            ["Geometric mean", "", ""]
            + [
                f"{_ratio_cell(means.at[api, 'ratio'])} ({means.at[api, 'problems']})"
                if api in means.index
                else "- (0)"
                for api in apis
            ]
        )
        devices = frame[frame["physical"] == physical]
        name = str(devices["physical_name"].iat[0])
        reached = ", ".join(
            f"{api} ({', '.join(dict.fromkeys(group['device'].dropna().astype(str)))})"
            for api, group in devices.groupby("api", sort=False)
        )
        note = (
            f"One device through {len(apis)} APIs: {reached}, matched by "
            f"{devices['matched_by'].iat[0]}. Each API's median time (its fastest variant) over "
            "the fastest API's for the same kernel, precision and size: 1.00"
            f"{TIMES} is the fastest, '-' has no ok row (it did not run, failed, errored or was "
            "skipped); a vendor library's rows are their own "
            f"kernel{portability.LIBRARY}. The geometric mean is over the kernels the API ran "
            "that another API ran too (their number in brackets)."
        )
        table_columns = ["Kernel", "Precision", "Size", *apis]
        tables.append(Table(f"Across APIs: {name}", table_columns, table, note, tuple(apis)))
    return tables


def _pp_cell(value: Any) -> str:
    return f"{float(value):.3f}" if _finite(value) else "-"


def _platform_names(frame: pd.DataFrame, efficiency: pd.DataFrame) -> str:
    names = frame.drop_duplicates("physical").set_index("physical")["physical_name"]
    return ", ".join(f"{api} on {names[physical]}" for physical, api in efficiency.columns)


def _portability_table(frame: pd.DataFrame) -> Table:
    """Pennycook's PP per problem and for the suite, over the run's platforms."""
    application = portability.application_efficiency(frame)
    if application.shape[1] < 2 or timed(frame).empty:
        return Table("Performance portability", [], [])
    architectural = portability.architectural_efficiency(frame)
    peaks = architectural.shape[1] > 0
    by_app = portability.portability(application)
    by_arch = portability.portability(architectural) if peaks else None
    keys = portability.problem_columns(frame)
    rows = []
    for problem, found in by_app.iterrows():
        named = dict(zip(keys, problem, strict=True))
        cells = [problem_label(named), str(named["precision"]), _size(named["size"])]
        cells += [_pp_cell(found["pp"]), f"{found['ran']} of {application.shape[1]}"]
        if by_arch is not None:
            arch = by_arch.loc[problem]
            cells += [_pp_cell(arch["pp"]), f"{arch['ran']} of {architectural.shape[1]}"]
        rows.append([*cells, str(found["missing"]) or "-"])
    everywhere = by_app["pp"] > 0
    suite = ["Suite", "", "", _pp_cell(portability.suite_pp(application))]
    suite.append(f"{int(everywhere.sum())} of {len(by_app)} kernels on all")
    if by_arch is not None:
        suite += [_pp_cell(portability.suite_pp(architectural)), ""]
    rows.append([*suite, "-"])
    columns = ["Kernel", "Precision", "Size", "PP (application)", "Ran on"]
    if by_arch is not None:
        columns += ["PP (architectural)", "Ran on (peaks)"]
    columns.append("No ok row on")
    note = (
        "Performance portability (Pennycook, Sewall and Lee 2016): the harmonic mean of a "
        "kernel's efficiency over a set of platforms, 0 if it has no ok row on one of them "
        "(it did not run, failed, errored or was skipped there). "
        f"Platforms: each device through each API ({_platform_names(frame, application)}). "
        "PP (application) uses application efficiency: the fastest time of the kernel on the "
        "same physical device through any API, over the platform's."
    )
    if by_arch is not None:
        note += (
            " PP (architectural) uses architectural efficiency, over the platforms with "
            f"measured peaks ({_platform_names(frame, architectural)}): the share of the "
            "device's FLOP peak for kernels whose FLOPs per byte pass its ridge point, else "
            "of its bandwidth peak, at most 1."
        )
    note += (
        " The suite's PP is the harmonic mean over the platforms of each platform's "
        "geometric-mean efficiency over the kernels (so 0 if any kernel missed a platform)."
    )
    return Table("Performance portability", columns, rows, note)


def portability_story(frame: pd.DataFrame) -> list[str]:
    """The suite's PP in a sentence, where the run has several platforms."""
    application = portability.application_efficiency(frame)
    if application.shape[1] < 2 or timed(frame).empty:
        return []
    told = (
        f"Performance portability over {application.shape[1]} platforms (device and API): "
        f"suite PP {_pp_cell(portability.suite_pp(application))} by application efficiency"
    )
    architectural = portability.architectural_efficiency(frame)
    if architectural.shape[1]:
        told += (
            f", {_pp_cell(portability.suite_pp(architectural))} by architectural efficiency "
            f"over the {architectural.shape[1]} with measured peaks"
        )
    return [told + "."]


def throughput_columns(frame: pd.DataFrame) -> dict[str, str]:
    """Each case's throughput column: ``gflops_per_s`` where the kernel is compute-bound
    (`portability.compute_bound`) on most of its devices, else ``gbytes_per_s``; cases
    that count neither bytes nor FLOPs have none."""
    done = timed(frame)
    done = done[(done["bytes_per_rep"] > 0) | (done["flops_per_rep"] > 0)]
    bound = done.assign(_bound=portability.compute_bound(done))
    votes = bound.groupby(["case", "series"], sort=False)["_bound"].mean() > 0.5
    share = votes.groupby(level="case", sort=False).mean()
    return {str(c): "gflops_per_s" if v > 0.5 else "gbytes_per_s" for c, v in share.items()}


#: Each throughput column's unit.
UNITS = {"gbytes_per_s": "GB/s", "gflops_per_s": "GFLOP/s"}


def saturation(frame: pd.DataFrame) -> pd.DataFrame:
    """Per case, precision and device (its variant) timed at several sizes: the
    throughput column (`throughput_columns`), the best throughput (``best``) and its
    size (``best_size``), the smallest size reaching `SATURATION` of it
    (``saturates_at``), and the largest size swept (``largest``)."""
    import pandas as pd

    columns = throughput_columns(frame)
    done = timed(frame)
    found = []
    for (case, precision, variant), rows in done.groupby(
        ["case", "precision", "variant"], sort=False
    ):
        column = columns.get(str(case))
        rates = rows.assign(_rate=rows[column] if column else math.nan)
        rates = rates[rates["_rate"] > 0].groupby("size")["_rate"].max().sort_index()
        if len(rates) < 2:
            continue
        best = float(rates.max())
        found.append(
            {
                "case": case,
                "precision": precision,
                "variant": variant,
                "column": column,
                "best": best,
                "best_size": rates.idxmax(),
                "saturates_at": rates[rates >= SATURATION * best].index.min(),
                "largest": rates.index.max(),
            }
        )
    return pd.DataFrame(found)


def _saturation_table(frame: pd.DataFrame) -> Table:
    found = saturation(frame)
    rows = [
        [
            str(r["case"]),
            str(r["precision"]),
            str(r["variant"]),
            UNITS[r["column"]],
            _num(r["best"]),
            _size(r["best_size"]),
            _size(r["saturates_at"])
            + (" (largest swept)" if r["saturates_at"] == r["largest"] else ""),
        ]
        for _, r in found.iterrows()
    ]
    return Table(
        "Saturation",
        ["Kernel", "Precision", "Device", "Unit", "Best", "At size", "Saturates at"],
        rows,
        f"For each kernel swept over sizes, the smallest size at which a device reaches "
        f"{SATURATION:.0%} of its best throughput for that kernel (GFLOP/s where the kernel's "
        "FLOPs per byte pass the device's ridge point, or 1 without measured peaks; else "
        "GB/s). At the largest size swept, the device may not have saturated yet.",
    )


def _best_groups_table(frame: pd.DataFrame) -> Table:
    best = best_groups(frame)
    rows = [
        [
            str(r["case"]),
            str(r["series"]),
            str(r["_rest"]),
            str(r["precision"]),
            _size(r["size"]),
            str(int(r["work_group"])),
            format_time(r["time_median_s"]),
            str(r["tried"]),
        ]
        for _, r in best.iterrows()
    ]
    return Table(
        "Best work-group size",
        ["Kernel", "Device", "Variant", "Precision", "Size", "Best group", "Median", "Tried"],
        rows,
        "The --group sweep's fastest work-group size per kernel and device (RAJAPerf's GPU "
        "block-size tunings); 'Tried' gives each size's median.",
    )


def _runs_table(frame: pd.DataFrame, metas: list[dict[str, Any]]) -> Table:
    rows = []
    for meta in metas:
        host = meta.get("host") or {}
        # A run resumed on another host (a node of the same devices) says so.
        elsewhere = sorted({e["host"] for e in meta.get("resumed_on") or []})
        rows.append(
            [
                meta["run"],
                str(host.get("hostname", "-"))
                + (f" (resumed on {', '.join(elsewhere)})" if elsewhere else ""),
                str(meta.get("start") or "-"),
                str(meta.get("end") or "-"),
                str(int((frame["run"] == meta["run"]).sum())),
                str(meta.get("harness_version") or "-"),
                str(meta.get("git_commit") or "-"),
                " ".join(meta.get("command") or []) or "-",
            ]
        )
    return Table(
        "Runs", ["Run", "Host", "Start", "End", "Rows", "Harness", "Git commit", "Command"], rows
    )


def _devices_table(frame: pd.DataFrame, metas: list[dict[str, Any]]) -> Table:
    rows = []
    multi = len(metas) > 1
    for meta in metas:
        devices = meta.get("devices") or []
        if not devices:
            seen = frame[frame["run"] == meta["run"]].drop_duplicates("device_id")
            devices = [
                {"id": d, "name": n} for d, n in zip(seen["device_id"], seen["device"], strict=True)
            ]
        by_host = _by_host(meta)
        for d in devices:
            memory = d.get("memory_bytes")
            rows.append(
                ([meta["run"]] if multi else [])
                + [
                    f"{d.get('host') or '-'}: {d.get('id', '-')}"
                    if by_host
                    else str(d.get("id", "-")),
                    str(d.get("name") or "-"),
                    str(d.get("kind") or "-"),
                    str(d.get("vendor") or "-"),
                    str(d.get("driver") or "-"),
                    str(d.get("api") or "-"),
                    f"{memory / 2**30:.1f} GiB" if _finite(memory) and memory else "-",
                    str(d.get("compute_units") or "-"),
                ]
            )
    columns = ["Id", "Name", "Kind", "Vendor", "Driver", "API", "Memory", "Compute units"]
    return Table("Devices", (["Run"] if multi else []) + columns, rows)


def _software_table(metas: list[dict[str, Any]]) -> Table:
    names = list(
        dict.fromkeys(["python", "os", *(k for m in metas for k in (m.get("libraries") or {}))])
    )
    rows = []
    for name in names:
        cells = []
        for meta in metas:
            if name in ("python", "os"):
                cells.append(str((meta.get("host") or {}).get(name) or "-"))
            else:
                cells.append(str((meta.get("libraries") or {}).get(name) or "-"))
        rows.append([name, *cells])
    if not any(m.get("libraries") for m in metas):
        return Table("Software", [], [])
    return Table("Software", ["Library", *(m["run"] for m in metas)], rows)


def numeric(column: str) -> bool:
    """Whether a column holds numbers (right-aligned)."""
    return column in NUMERIC or column.startswith("Speedup")


#: What would make text from a run Markdown: code, emphasis, strikethrough, an
#: entity, HTML, a table cell, a link, an image or a link's definition ('['), and an
#: underscore at a word's edge (one inside a word, as in kernel names, emphasises
#: nothing).
MARKDOWN_ACTIVE = re.compile(r"([\\`*~&<|\[]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")


def md_text(text: str) -> str:
    """Text from a run (an error, a device's name) made inert in Markdown: on one line,
    each of its `MARKDOWN_ACTIVE` characters escaped."""
    return MARKDOWN_ACTIVE.sub(r"\\\1", " ".join(str(text).split()))


def markdown_table(table: Table) -> str:
    """A GitHub-flavoured Markdown table; numeric-looking columns right-aligned."""
    align = ["---:" if numeric(c) or c in table.numbers else "---" for c in table.columns]
    lines = [
        "| " + " | ".join(md_text(c) for c in table.columns) + " |",
        "| " + " | ".join(align) + " |",
    ]
    lines += ["| " + " | ".join(md_text(c) for c in row) + " |" for row in table.rows]
    return "\n".join(lines)


def to_markdown(report: Report) -> str:
    """The report as Markdown."""
    parts = [f"# {md_text(report.title)}"]
    if report.notes:
        parts.append("\n".join(f"> **Note:** {md_text(n)}" for n in report.notes))
    if report.story:
        parts.append("## Summary\n\n" + "\n".join(f"- {md_text(line)}" for line in report.story))
    if report.problems:
        items = "\n".join(f"- {md_text(p)}" for p in report.problems)
        parts.append("### Rows that are not ok\n\n" + items)
    for table in report.tables:
        parts.append(f"## {md_text(table.title)}")
        parts.append(markdown_table(table))
        if table.note:
            parts.append(md_text(table.note))
    if report.files:
        parts.append("## Files\n\n" + "\n".join(f"- {md_text(f)}" for f in report.files))
    return "\n\n".join(parts) + "\n"

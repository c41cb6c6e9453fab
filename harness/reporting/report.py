"""The run report: per kernel x device status, times, rates and speedup, then devices and versions.

`build` turns loaded rows (`harness.reporting.frames.load_runs`) into a `Report` of
formatted tables, which `to_markdown` and `harness.reporting.html.to_html` render. The
speedup of a row is the baseline device's median time over the row's, for the
same kernel, precision and size (and sort input, where rows have one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.errors import UsageError
from harness.reporting.frames import timed
from harness.reporting.table import format_time

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_BASELINE = "cpu"
TIMES = "\N{MULTIPLICATION SIGN}"


@dataclass
class Table:
    """A titled table of already formatted cells."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""


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


def find_baseline(frame: pd.DataFrame, baseline: str | None) -> tuple[str | None, str, str]:
    """The baseline device's series key and label, and a note when there is none.

    ``baseline`` is a backend (its first device in the rows is used) or a
    device id such as ``opencl:0``; None means the default backend, ``cpu``,
    whose absence is only noted, where a named one that is absent is an error.
    """
    wanted = baseline or DEFAULT_BASELINE
    match = frame[(frame["backend"] == wanted) | (frame["device_id"] == wanted)]
    if match.empty:
        if baseline is not None:
            have = ", ".join(dict.fromkeys([*frame["backend"], *frame["device_id"]]))
            raise UsageError(f"--baseline {baseline!r}: not in these runs; they have {have}")
        return None, "", f"no speedups: the runs have no {wanted} rows (choose one: --baseline)"
    first = match.iloc[0]
    return str(first["series_key"]), str(first["series"]), ""


def speedups(frame: pd.DataFrame, baseline_key: str | None) -> pd.Series:
    """Baseline median time / row median time, per row (NaN where either is missing).

    A variant (a sort strategy) is compared with the baseline's same variant
    where the baseline ran it, else with the baseline's first row of that case.
    """
    import pandas as pd

    if baseline_key is None:
        return pd.Series(math.nan, index=frame.index)
    keys = ["kernel", "precision", "size", "case_params"]
    exact = [*keys, "variant_params"]
    done = timed(frame)
    base = done[done["series_key"] == baseline_key].rename(columns={"time_median_s": "_base"})
    same = frame[exact].merge(base[[*exact, "_base"]].drop_duplicates(exact), on=exact, how="left")
    first = frame[keys].merge(base[[*keys, "_base"]].drop_duplicates(keys), on=keys, how="left")
    reference = same["_base"].fillna(first["_base"]).to_numpy()
    ratio = reference / frame["time_median_s"].to_numpy()
    ok = (frame["status"] == "ok").to_numpy()
    return pd.Series([r if k else math.nan for r, k in zip(ratio, ok, strict=True)], frame.index)


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
    return str(int(value)) if _finite(value) else "-"


def _spread(row: pd.Series) -> str:
    std, median = row["time_std_s"], row["time_median_s"]
    if not (_finite(std) and _finite(median)) or median <= 0:
        return "-"
    unstable = str(row.get("unstable")).lower() in ("true", "1")
    return f"±{100 * std / median:.1f}%" + (" unstable" if unstable else "")


def build(frame: pd.DataFrame, metas: list[dict[str, Any]], baseline: str | None = None) -> Report:
    """The report of loaded rows (``frames.load_runs``) and their runs' metadata."""
    notes = []
    for meta in metas:
        if not meta.get("start"):
            notes.append(f"{meta['run']}: metadata.json is missing or unreadable")
        if meta.get("interrupted") or (meta.get("start") and not meta.get("end")):
            kept = int((frame["run"] == meta["run"]).sum())
            notes.append(f"{meta['run']}: the run was interrupted; {kept} rows were kept")
    timings = has_timings(frame)
    baseline_key, baseline_label, missing = find_baseline(frame, baseline)
    if not timings:
        notes.append(_untimed(frame))
    elif missing:
        notes.append(missing)
    frame = frame.assign(speedup=speedups(frame, baseline_key))

    extras = [c for c in ("variant_params",) if frame[c].any()]
    columns = ["Kernel", "Backend", "Device", *("Variant" for _ in extras)]
    columns += ["Precision", "Size", "Status"]
    if timings:
        columns += ["Median", "Spread", "GB/s", "GFLOP/s"]
        if baseline_key is not None:
            columns.append(f"Speedup vs {baseline_label}")
    rows = []
    problems = []
    fastest = set(best_groups(frame).index)
    for index, row in frame.iterrows():
        cells = [str(row["case"]), str(row["backend"]), str(row["series"])]
        cells += [str(row[c]) + (" (best group)" if index in fastest else "") for c in extras]
        cells += [str(row["precision"]), _size(row["size"]), str(row["status"])]
        if timings:
            cells += [
                format_time(row["time_median_s"]),
                _spread(row),
                _num(row["gbytes_per_s"]),
                _num(row["gflops_per_s"]),
            ]
            if baseline_key is not None:
                cells.append(f"{row['speedup']:.2f}{TIMES}" if _finite(row["speedup"]) else "-")
        rows.append(cells)
        if row["status"] != "ok":
            reason = row["reason"] if isinstance(row["reason"], str) else "no reason recorded"
            problems.append(
                f"{row['kernel']} on {row['series']} ({row['precision']}, n={_size(row['size'])}):"
                f" {row['status']}: {reason}"
            )
    counts = frame["status"].value_counts()
    tally = ", ".join(f"{int(counts.get(s, 0))} {s}" for s in ("ok", "fail", "error", "skipped"))
    tables = [
        Table(
            "Results",
            columns,
            rows,
            f"{tally}. Median of the timed repetitions; spread is their standard deviation, "
            "'unstable' where the repetitions varied too much to trust (the run's own flag).",
        ),
        _best_groups_table(frame),
        _runs_table(frame, metas),
        _devices_table(frame, metas),
        _software_table(metas),
    ]
    title = "Benchmark report: " + ", ".join(m["run"] for m in metas)
    told = story(frame, baseline_key, baseline_label)
    return Report(title, notes, [t for t in tables if t.rows], problems, story=told)


def story(frame: pd.DataFrame, baseline_key: str | None, baseline_label: str) -> list[str]:
    """The run in a few sentences: what ran on which devices and how it ended,
    the device that was fastest for the most kernels, and each device's
    geometric-mean speedup over the baseline (``frame`` has ``speedup``)."""
    devices = list(dict.fromkeys(frame["series"].astype(str)))
    short = dict(zip(frame["series"].astype(str), frame["series_id"].astype(str), strict=True))
    counts = frame["status"].value_counts()
    ended = ", ".join(f"{int(counts.get(s, 0))} {s}" for s in ("ok", "fail", "error", "skipped"))
    told = [
        f"{frame['case'].nunique()} kernels on {len(devices)} devices "
        f"({'; '.join(devices)}): {len(frame)} rows, {ended}."
    ]
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
        others = done[(done["series_key"] != baseline_key) & done["speedup"].gt(0)]
        means = [
            f"{short[series]} {math.exp(rows['speedup'].map(math.log).mean()):.2f}{TIMES} "
            f"({len(rows)} rows)"
            for series, rows in others.groupby("series", sort=False)
        ]
        if means:
            over = short.get(baseline_label, baseline_label)
            told.append(f"Geometric-mean speedup over {over}: {', '.join(means)}.")
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
        rows.append(
            [
                meta["run"],
                str(host.get("hostname", "-")),
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
        for d in devices:
            memory = d.get("memory_bytes")
            rows.append(
                ([meta["run"]] if multi else [])
                + [
                    str(d.get("id", "-")),
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


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(table: Table) -> str:
    """A GitHub-flavoured Markdown table; numeric-looking columns right-aligned."""
    right = {"Size", "Median", "Spread", "GB/s", "GFLOP/s", "Rows", "Memory", "Compute units"}
    align = ["---:" if c in right or c.startswith("Speedup") else "---" for c in table.columns]
    lines = [
        "| " + " | ".join(_md_cell(c) for c in table.columns) + " |",
        "| " + " | ".join(align) + " |",
    ]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
    return "\n".join(lines)


def to_markdown(report: Report) -> str:
    """The report as Markdown."""
    parts = [f"# {report.title}"]
    if report.notes:
        parts.append("\n".join(f"> **Note:** {n}" for n in report.notes))
    if report.story:
        parts.append("## Summary\n\n" + "\n".join(f"- {line}" for line in report.story))
    if report.problems:
        parts.append("### Rows that are not ok\n\n" + "\n".join(f"- {p}" for p in report.problems))
    for table in report.tables:
        parts.append(f"## {table.title}")
        parts.append(markdown_table(table))
        if table.note:
            parts.append(table.note)
    if report.files:
        parts.append("## Files\n\n" + "\n".join(f"- `{f}`" for f in report.files))
    return "\n\n".join(parts) + "\n"

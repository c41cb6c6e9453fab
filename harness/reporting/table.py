"""Plain-text tables of result rows, for the terminal and summary.txt."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from harness.execution import clocks, energy


def format_time(seconds: Any) -> str:
    """A duration with a unit that keeps three significant digits readable."""
    try:
        s = float(seconds)
    except (TypeError, ValueError):
        return "-"
    if not math.isfinite(s):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def _num(value: Any, fmt: str) -> str:
    return "-" if value in (None, "") else format(float(value), fmt)


def _text(value: Any) -> str:
    """A cell of text: '-' where the row has no value (a damaged row read as an error
    keeps no size), never the word None."""
    return "-" if value in (None, "") else str(value)


def label(row: dict[str, Any], params: Collection[str] = ()) -> str:
    """The kernel's name, with the values of its run options (``params``, the names of
    the suite's kernel options: a sort's strategy...) where the row has them,
    ``cold`` for a cold-cache row, the transfers of a row that moves its data
    in the timed region, ``checks off`` for WGSL without naga's runtime checks,
    the work-group size of a ``--group`` row, and a
    ``--partition`` other than one item per work-item (not a device's own choice)."""
    options = [str(row[name]) for name in params if row.get(name) not in (None, "")]
    if row.get("cache") not in (None, "", "hot"):
        options.append(str(row["cache"]))
    if row.get("transfers") not in (None, "", "resident"):
        options.append(str(row["transfers"]))
    if row.get("wgsl_checks") == "off":
        options.append("checks off")
    if row.get("work_group") not in (None, ""):
        options.append(f"group={int(float(row['work_group']))}")
    if row.get("partition") not in (None, "", "item") and not row.get("partition_trial"):
        options.append(str(row["partition"]))
    return f"{row.get('kernel')}[{','.join(options)}]" if options else str(row.get("kernel"))


def where(row: dict[str, Any], hosts: bool = False) -> str:
    """The row's device id, with its MPI rank where it has one (``cpu:0 r2``) and,
    with ``hosts``, its host (``cpu:0 @node1``): rows of several machines, as a
    merged run holds, share device ids."""
    rank = row.get("rank")
    text = str(row.get("device_id")) + (f" r{rank}" if rank not in (None, "") else "")
    return text + (f" @{row['host']}" if hosts and row.get("host") not in (None, "") else "")


def several_hosts(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether the rows come from more than one host (a merged run's)."""
    return len({str(r["host"]) for r in rows if r.get("host") not in (None, "")}) > 1


def format_rows(rows: Sequence[dict[str, Any]], params: Collection[str] = ()) -> str:
    """An aligned table: one line per row (labelled by `label` with ``params``),
    reasons for anything not ok below it."""
    header = ("kernel", "device", "prec", "size", "status", "median", "GB/s", "GFLOP/s", "max err")
    hosts = several_hosts(rows)
    lines = [header]
    notes = []
    for row in rows:
        # A row that did not pass (an imported one keeps raja-perf.exe's time) has no
        # rate: a GB/s of wrong results read as a device's.
        ok = row.get("status") == "ok"
        lines.append(
            (
                label(row, params),
                where(row, hosts),
                _text(row.get("precision")),
                _text(row.get("size")),
                _text(row.get("status")),
                format_time(row.get("time_median_s")),
                _num(row.get("gbytes_per_s") if ok else None, ".3g"),
                _num(row.get("gflops_per_s") if ok else None, ".3g"),
                _num(row.get("max_rel_error"), ".2g"),
            )
        )
        if row.get("status") != "ok" and row.get("reason"):
            notes.append(f"  {label(row, params)} on {where(row, hosts)}: {row.get('reason')}")
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    ]
    counts = Counter(str(row.get("status")) for row in rows)
    text.append("")
    text.append(", ".join(f"{counts[s]} {s}" for s in ("ok", "fail", "error", "skipped")))
    noise = noise_summary(rows)
    if noise:
        text.append(noise)
    host = host_summary(rows, params)
    if host:
        text.append(host)
    short = short_energy(rows)
    if short:
        text.append(short)
    unstable = [named(r, params, hosts) for r in rows if _true(r.get("unstable"))]
    if unstable:
        text.append(
            f"warning: {len(unstable)} row(s) unstable, their repetitions spread more than "
            f"10% (or 2x between fastest and slowest); rerun before trusting them: "
            + _some(unstable)
        )
    sized = [
        f"{label(r, params)} on {where(r, hosts)} from n={r.get('sized_from')} to n={r.get('size')}"
        for r in rows
        if r.get("sized_from") not in (None, "")
    ]
    if sized:
        text.append(
            f"note: {len(sized)} row(s) sized down to fit their time budget (--max-time; "
            "--size keeps a size): " + _some(sized)
        )
    dropped = [
        f"{named(r, params, hosts)} ({r.get('clocks_note')})"
        for r in rows
        if _true(r.get("clocks_dropped"))
    ]
    if dropped:
        text.append(
            f"warning: {len(dropped)} row(s) ran while their device's clock fell or it "
            "throttled: " + _some(dropped)
        )
    text.extend(clock_notes(rows, params))
    if notes:
        text.append("")
        text.extend(notes)
    return "\n".join(text)


def named(row: dict[str, Any], params: Collection[str], hosts: bool) -> str:
    """A row in a sentence: its kernel and options, precision (where it has one), size
    and device: rows of one kernel at two precisions are two rows."""
    precision = f" {row['precision']}" if row.get("precision") else ""
    return f"{label(row, params)}{precision} n={row.get('size')} on {where(row, hosts)}"


def noise_summary(rows: Sequence[dict[str, Any]]) -> str | None:
    """How many timed rows met their noise target and how many did not, by why
    their sampling stopped; None where no row was timed with a target."""
    judged = [
        r for r in rows if r.get("status") == "ok" and r.get("noise_target") not in (None, "")
    ]
    if not judged:
        return None
    met = sum(_true(r.get("noise_met")) for r in judged)
    missed = Counter(str(r.get("stop")) for r in judged if not _true(r.get("noise_met")))
    target = f"{100 * float(judged[0]['noise_target']):g}%"
    line = f"noise target {target}: {met} row(s) met it, {len(judged) - met} did not"
    if missed:
        why = {
            "settled": "noise settled above it",
            "budget": "time budget ran out",
            "samples": "sample limit reached",
            "reps": "fixed --reps",
            "noise": "too few samples",
        }
        line += " (" + ", ".join(f"{n} {why.get(s, s)}" for s, n in missed.most_common()) + ")"
    return line


def host_summary(rows: Sequence[dict[str, Any]], params: Collection[str] = ()) -> str | None:
    """The median and the largest ``host_s`` (a row's cost besides its timed
    repetitions), naming the row; None where no row has one."""
    costs = []
    for row in rows:
        try:
            costs.append((float(row["host_s"]), row))
        except (KeyError, TypeError, ValueError):
            continue
    if not costs:
        return None
    median = statistics.median(cost for cost, _ in costs)
    most, row = max(costs, key=lambda c: c[0])
    return (
        f"host cost per row (time besides the timed repetitions): median {format_time(median)}, "
        f"largest {format_time(most)} ({named(row, params, several_hosts(rows))})"
    )


def clock_notes(rows: Sequence[dict[str, Any]], params: Collection[str] = ()) -> list[str]:
    """Notes on the rows that waited for their device's clock to rise before they
    were timed, and a warning naming the rows timed still below their device's
    highest clock (``clock_max_mhz``, by `clocks.DROP`): their times are the
    device's at a lower clock (an idle one the ramp could not raise in time, or a
    power or thermal limit)."""
    hosts = several_hosts(rows)
    notes = []
    waited = [_number(r.get("clock_ramp_s")) for r in rows]
    waited = [w for w in waited if w]
    if waited:
        notes.append(
            f"note: {len(waited)} row(s) first ran untimed for their device's clock to rise "
            f"(up to {max(waited):.2g} s; a row waits about {clocks.RAMP_S:g} s at most)"
        )
    low, idle = [], 0
    for r in rows:
        clock, top = _number(r.get("clock_mhz_before")), _number(r.get("clock_max_mhz"))
        if r.get("status") == "ok" and clock and top and clock < (1 - clocks.DROP) * top:
            low.append(f"{named(r, params, hosts)} ({clock:.0f} of {top:.0f} MHz)")
            busy = device_busy(r)
            idle += busy is not None and busy < IDLE_BUSY
    if low:
        notes.append(
            f"warning: {len(low)} row(s) were timed more than {clocks.DROP:.0%} below their "
            "device's highest clock: " + _some(low)
        )
    if idle:
        notes.append(
            f"note: {idle} of them kept their device busy less than {IDLE_BUSY:.0%} of their "
            "timed wall time (repetitions times their mean over timed_wall_s): the host's "
            "launching set their pace, and a GPU whose clock follows its load slowed for it"
        )
    return notes


#: A row whose device ran its repetitions less than this share of their wall time
#: was paced by its host (`device_busy`).
IDLE_BUSY = 0.5


def device_busy(row: dict[str, Any]) -> float | None:
    """The share of a row's timed wall time its device spent on the timed
    repetitions (``reps`` times ``time_mean_s`` over ``timed_wall_s``), for rows
    timed by the device's own clock; None where the row does not tell. On an
    H200 every WebGPU row under 1782 MHz had its device busy 41% of the time or
    less: the host, encoding, could not keep it busy, and its clock fell."""
    reps, mean = _number(row.get("reps")), _number(row.get("time_mean_s"))
    wall = _number(row.get("timed_wall_s"))
    if row.get("timer") != "device" or not reps or not mean or not wall:
        return None
    return min(1.0, reps * mean / wall)


def short_energy(rows: Sequence[dict[str, Any]]) -> str | None:
    """A note on the timed rows without energy figures on devices that gave other
    rows theirs, because their timed repetitions lasted under `energy.MIN_WINDOW_S`;
    None where there are none."""
    hosts = several_hosts(rows)
    metered = {where(r, hosts) for r in rows if _number(r.get("power_w")) is not None}
    # A row without its timed wall time (a damaged one) is not known to be short.
    walls = [_number(r.get("timed_wall_s")) for r in rows]
    short = [
        r
        for r, wall in zip(rows, walls, strict=True)
        if r.get("status") == "ok"
        and where(r, hosts) in metered
        and _number(r.get("power_w")) is None
        and wall is not None
        and wall < energy.MIN_WINDOW_S
    ]
    if not short:
        return None
    return (
        f"note: {len(short)} timed row(s) have no energy figures: their timed repetitions "
        f"lasted under {energy.MIN_WINDOW_S:g} s, too short for the energy counter's steps "
        f"(--min-time {energy.MIN_WINDOW_S:g} times every row that long)"
    )


def _number(value: Any) -> float | None:
    """A finite number from a journal or CSV cell; None where there is none."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _some(names: Sequence[str], most: int = 8) -> str:
    """The first few names, and how many more."""
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _true(value: Any) -> bool:
    """A flag from a journal (bool) or a CSV file (text)."""
    return value is True or str(value).lower() == "true"


def param_names(meta: dict[str, Any]) -> list[str]:
    """The names of the kernel options of a run's kernels, from its metadata's kernel
    facts (`KernelSpec.facts`), for `label` and `format_rows`."""
    kernels = meta.get("kernels")
    names: dict[str, None] = {}
    if isinstance(kernels, dict):
        for facts in kernels.values():
            params = facts.get("params") if isinstance(facts, dict) else None
            if isinstance(params, dict):
                names.update(dict.fromkeys(str(name) for name in params))
    return list(names)


def across_ranks(rows: Sequence[dict[str, Any]], params: Collection[str] = ()) -> str:
    """The summary of an MPI run over its ranks: each kernel's minimum, average and
    maximum median time per backend, precision and size, as RAJAPerf reports them."""
    times: dict[tuple[str, str, str, int], list[float]] = {}
    for row in rows:
        median = row.get("time_median_s")
        if row.get("status") == "ok" and median:
            key = (label(row, params), str(row["backend"]), str(row["precision"]), int(row["size"]))
            times.setdefault(key, []).append(float(median))
    if not times:
        return ""
    head = ("kernel", "backend", "prec", "size", "ranks", "min", "avg", "max")
    lines = [head]
    for (kernel, backend, precision, size), found in times.items():
        lines.append(
            (
                kernel,
                backend,
                precision,
                str(size),
                str(len(found)),
                format_time(min(found)),
                format_time(statistics.fmean(found)),
                format_time(max(found)),
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    text = [
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)) for line in lines
    ]
    return "median time per repetition over ranks:\n" + "\n".join(t.rstrip() for t in text)

"""RAJAPerf's output files, written from our rows so RAJAPerf users' scripts read our runs.

The layouts follow RAJAPerf's Executor (``src/common/Executor.cpp``): fields
separated by ``" , "`` and padded with spaces, the same title and header lines,
"Not run" where a variant has no timing. How our rows map onto RAJAPerf's
names:

- Kernel: our kernel name (RAJAPerf's spelling), plus the run options its
  description calls cases, such as a sort's order and input
  (``Bitonic_F32_asc_uniform``).
- Variant: the device, as ``harness run --device`` spells it (``cpu:0``,
  ``opencl:1``); prefixed with the host, or suffixed with ``@run``, where
  several runs would otherwise give two devices one name.
- Tuning: the run options its description calls variants (a sort's
  ``strategy``), else ``default``.
- One RAJAPerf run has one precision and one problem size per kernel. A run of
  several precisions gets a folder per precision, and a size sweep a folder
  per size named like RAJAPerf's ``scripts/sweep_size.sh`` (``SIZE_000100000``).
- Reps (kernel details) is the most repetitions any device ran; the timing
  file holds mean time per rep x Reps, so time per rep = timing / Reps as in
  RAJAPerf. Speedup is T_ref/T_var against the baseline device, same tuning
  where it has one, else its first.
- Checksum result is our own verification (every element against the CPU
  reference), so PASSED/FAILED is the row's status; the relative difference is
  against the first variant listed, as in RAJAPerf.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.execution import results

if TYPE_CHECKING:
    import pandas as pd

PREFIX = "RAJAPerf"
SEP = " , "
NOT_RUN = "Not run"
MPI_LINE = "Kernels run without MPI"

FILES = (
    "kernel-details.csv",
    "kernel-run-data.csv",
    "checksum.txt",
    "timing-Average.csv",
    "speedup-Average.csv",
)


def write_all(
    frame: pd.DataFrame,
    out: Path,
    baseline_key: str | None,
    facts: dict[str, dict[str, Any]] | None = None,
) -> list[Path]:
    """Write RAJAPerf's files for these rows into ``out`` (folders per precision/size as
    needed); ``facts`` are the kernels' facts from the runs' metadata
    (`harness.reporting.frames.kernel_facts`)."""
    facts = facts or {}
    frame = _prepare(frame)
    written = []
    sets = _file_sets(frame)
    for folder, rows in sets:
        target = out / folder
        target.mkdir(parents=True, exist_ok=True)
        written += _write_set(rows, target, baseline_key, facts)
    return written


def planned(frame: pd.DataFrame, baseline_key: str | None) -> set[Path]:
    """The files `write_all` writes for these rows, relative to its ``out``: so that
    files of an earlier report it would not replace are found before it writes."""
    found = set()
    for folder, rows in _file_sets(_prepare(frame)):
        rows = _last_of_each_cell(rows)
        names = FILES if _reference_variant(rows, baseline_key) is not None else FILES[:-1]
        found |= {Path(folder) / f"{PREFIX}-{name}" for name in names}
    return found


def earlier(out: Path) -> set[Path]:
    """RAJAPerf-format files in ``out`` and its precision and size folders (an earlier
    report's), relative to ``out``."""
    names = {f"{PREFIX}-{name}" for name in FILES}
    found = set()
    for path in (*out.glob("*"), *out.glob("*/*"), *out.glob("*/*/*")):
        if path.name in names and path.is_file():
            found.add(path.relative_to(out))
    return found


def _prepare(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame["rp_kernel"] = [
        _token(f"{kernel}_{case}" if case else kernel)
        for kernel, case in zip(frame["kernel"].astype(str), frame["case_params"], strict=True)
    ]
    frame["rp_tuning"] = frame["variant_params"].map(lambda s: _token(s) if s else "default")
    frame["rp_variant"] = frame["series_key"].map(_variant_names(frame))
    return frame


def _last_of_each_cell(rows: pd.DataFrame) -> pd.DataFrame:
    """The last row of each kernel, variant and tuning: the cells RAJAPerf's files
    hold. Only those three columns are compared (``drop_duplicates`` walked every
    column of the frame, once per file set: most of a long size sweep's report)."""
    cell = rows[["rp_kernel", "rp_variant", "rp_tuning"]]
    return rows[~cell.duplicated(keep="last").to_numpy()]


def _token(text: str) -> str:
    """A name RAJAPerf's files can hold: no separators or spaces."""
    return re.sub(r"[\s,]+", "_", str(text)) or "-"


def _variant_names(frame: pd.DataFrame) -> dict[str, str]:
    first = frame.drop_duplicates("series_key")
    names = dict(zip(first["series_key"], first["device_id"].astype(str), strict=True))
    if len(set(names.values())) < len(names) and first["host"].nunique() > 1:
        names = {
            k: f"{h}/{d}" if h else d
            for k, h, d in zip(first["series_key"], first["host"], first["device_id"], strict=True)
        }
    if len(set(names.values())) < len(names) and "rank" in first:
        # An MPI run's ranks share a device where there are fewer than ranks.
        names = {
            k: names[k] if r != r else f"{names[k]}.r{int(r)}"
            for k, r in zip(first["series_key"], first["rank"], strict=True)
        }
    if len(set(names.values())) < len(names):
        names = {
            k: f"{names[k]}@{r}" for k, r in zip(first["series_key"], first["run"], strict=True)
        }
    return {k: _token(v) for k, v in names.items()}


def _file_sets(frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    precisions = list(dict.fromkeys(frame["precision"].astype(str)))
    sets = []
    for precision in precisions:
        rows = frame[frame["precision"].astype(str) == precision]
        base = precision if len(precisions) > 1 else ""
        sweep = rows.groupby("rp_kernel")["size"].nunique().max() > 1
        if not sweep:
            sets.append((base, rows))
            continue
        for size in sorted(rows["size"].dropna().unique()):
            sets.append((str(Path(base) / f"SIZE_{int(size):09d}"), rows[rows["size"] == size]))
    return sets


def _write_set(
    rows: pd.DataFrame, out: Path, baseline_key: str | None, facts: dict[str, dict[str, Any]]
) -> list[Path]:
    rows = _last_of_each_cell(rows)
    kernels = list(dict.fromkeys(rows["rp_kernel"]))
    pairs = list(dict.fromkeys(zip(rows["rp_variant"], rows["rp_tuning"], strict=True)))
    variants = list(dict.fromkeys(v for v, _ in pairs))
    columns = sorted(pairs, key=lambda p: variants.index(p[0]))  # a variant's tunings together
    # RAJAPerf's order: kernel, then variant, then tuning.
    rows = rows.assign(
        _order=[
            (kernels.index(k), columns.index((v, t)))
            for k, v, t in zip(
                rows["rp_kernel"], rows["rp_variant"], rows["rp_tuning"], strict=True
            )
        ]
    ).sort_values("_order", kind="stable")
    reps = {k: int(rows.loc[rows["rp_kernel"] == k, "reps"].fillna(0).max()) for k in kernels}
    by_cell = {(r["rp_kernel"], r["rp_variant"], r["rp_tuning"]): r for _, r in rows.iterrows()}
    paths = []

    def emit(name: str, text: str) -> None:
        path = out / f"{PREFIX}-{name}"
        results.write_text(path, text)
        paths.append(path)

    emit("kernel-details.csv", _details(rows, kernels, reps, facts))
    emit("kernel-run-data.csv", _run_data(rows))
    emit("checksum.txt", _checksums(rows, kernels, facts))

    def per_rep(kernel: str, variant: str, tuning: str) -> float | None:
        row = by_cell.get((kernel, variant, tuning))
        # A row timed at 0 is no time, as for every other table (`report.timed`): the
        # speedup over it was a division by zero, a traceback.
        if row is None or row["status"] != "ok" or not _number(row["time_mean_s"]):
            return None
        if not row["time_mean_s"] > 0:
            return None
        return float(row["time_mean_s"])

    def timing(kernel: str, variant: str, tuning: str) -> str:
        t = per_rep(kernel, variant, tuning)
        if t is None:
            return NOT_RUN
        # No row of the kernel says how many repetitions ran: their total is unknown.
        return _fixed(t * reps[kernel], 6) if reps[kernel] else "Unknown"

    emit(
        "timing-Average.csv",
        _matrix("Mean Runtime Report (sec.) ", kernels, columns, timing, 6),
    )
    ref_variant = _reference_variant(rows, baseline_key)
    if ref_variant is not None:
        # One reference a kernel, as RAJAPerf has one reference variant and tuning: the
        # reference variant's default tuning, else the first it ran the kernel in (each
        # tuning over itself made every tuning of it 1.000, a slower one too).
        tunings = [t for v, t in columns if v == ref_variant]
        first = "default" if "default" in tunings else tunings[0]

        def speedup(kernel: str, variant: str, tuning: str) -> str:
            ran = [t for t in (first, *tunings) if per_rep(kernel, ref_variant, t) is not None]
            ref = per_rep(kernel, ref_variant, ran[0]) if ran else None
            here = per_rep(kernel, variant, tuning)
            return NOT_RUN if ref is None or here is None else _fixed(ref / here, 3)

        named = f"{ref_variant} {first}" if len(tunings) > 1 else ref_variant
        title = f"Mean Speedup Report (T_ref/T_var): ref var = {named} "
        emit("speedup-Average.csv", _matrix(title, kernels, columns, speedup, 3))
    return paths


def _reference_variant(rows: pd.DataFrame, baseline_key: str | None) -> str | None:
    if baseline_key is None:
        return None
    match = rows.loc[rows["series_key"] == baseline_key, "rp_variant"]
    return None if match.empty else str(match.iat[0])


def _fixed(value: float, places: int) -> str:
    """``value`` with RAJAPerf's ``places`` decimals, or in exponent form where those
    would round it to 0: a time under half a microsecond, or a speedup under 0.0005,
    read 0.000000 or 0.000 (no time; infinitely slower)."""
    text = f"{value:.{places}f}"
    return text if float(text) or not value else f"{value:.{places - 1}e}"


def _number(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _line(cells: Sequence[tuple[str, int, str]]) -> str:
    """Fields padded to width, left ('<') or right ('>'), joined by RAJAPerf's separator."""
    return SEP.join(f"{text:{align}{width}}" for text, width, align in cells) + "\n"


def _width(head: str, values: Sequence[str], pad: int) -> int:
    return max([len(head), *(len(v) for v in values)]) + pad


def _kernel_facts(row: pd.Series, known: dict[str, Any]) -> dict[str, str]:
    """What the run recorded of the kernel per repetition, at this row's size and options
    (the row's byte and iteration columns; the kernel's complexity from the run's
    metadata). Empty where a run made by an older harness lacks them: the columns then
    read "Unknown"."""
    parts = (
        "bytes_read_per_rep",
        "bytes_written_per_rep",
        "bytes_modify_written_per_rep",
        "bytes_atomic_modify_written_per_rep",
        "iterations_per_rep",
    )
    if not all(_number(row.get(p)) for p in parts):
        return {}
    read, written, modify, atomic, iterations = (int(row[p]) for p in parts)
    facts = {
        "Iterations/rep": str(iterations),
        "BytesTouched/rep": str(read + written - modify + atomic),
        "BytesRead/rep": str(read),
        "BytesWritten/rep": str(written),
        "BytesModifyWritten/rep": str(modify),
        "BytesAtomicModifyWritten/rep": str(atomic),
    }
    if _number(row.get("bytes_allocated")):
        facts["BytesAllocated/rep"] = str(int(row["bytes_allocated"]))
    if known.get("complexity"):
        facts["OperationalComplexity"] = f"O({known['complexity']})"
    return facts


_DETAIL_COLUMNS = (
    ("Problem size", ">", 3),
    ("Reps", ">", 3),
    ("Iterations/rep", ">", 3),
    ("Kernels/rep", ">", 3),
    ("BytesMoved/rep", ">", 3),
    ("FLOPS/rep", ">", 3),
    ("BytesTouched/rep", ">", 3),
    ("BytesRead/rep", ">", 3),
    ("BytesWritten/rep", ">", 3),
    ("BytesModifyWritten/rep", ">", 3),
    ("BytesAtomicModifyWritten/rep", ">", 3),
    ("BytesAllocated/rep", ">", 3),
    ("ChecksumConsistency", "<", 2),
    ("OperationalComplexity", "<", 2),
    ("MaxPerfectLoopDimensions", ">", 3),
    ("ProblemDimensionality", ">", 3),
)


def _details(
    rows: pd.DataFrame,
    kernels: list[str],
    reps: dict[str, int],
    known: dict[str, dict[str, Any]],
) -> str:
    table = []
    for kernel in kernels:
        mine = rows[rows["rp_kernel"] == kernel]
        # A row read from a damaged line keeps no size: the kernel's size is another's.
        sized = mine[mine["size"].notna()]
        first = (sized if len(sized) else mine).iloc[0]
        size = _int_text(first["size"])
        facts = _kernel_facts(first, known.get(str(first["kernel"])) or {})
        values = {
            "Problem size": size,
            "Reps": str(reps[kernel]),
            "Iterations/rep": size,
            "Kernels/rep": _int_text(first["launches"]),
            "BytesMoved/rep": _int_text(first["bytes_per_rep"]),
            "FLOPS/rep": _int_text(first["flops_per_rep"]),
            "ChecksumConsistency": "Unknown ChecksumConsistency",
            "OperationalComplexity": "O(Unknown Complexity)",
            **facts,
        }
        table.append([kernel] + [values.get(h, "Unknown") for h, _, _ in _DETAIL_COLUMNS])
    heads = ["Kernel"] + [h for h, _, _ in _DETAIL_COLUMNS]
    aligns = ["<"] + [a for _, a, _ in _DETAIL_COLUMNS]
    pads = [2] + [p for _, _, p in _DETAIL_COLUMNS]
    widths = [
        _width(h, [r[i] for r in table], p)
        for i, (h, p) in enumerate(zip(heads, pads, strict=True))
    ]
    head_aligns = ["<", *(">" if a == ">" else "<" for a in aligns[1:])]
    # RAJAPerf left-aligns the last two headers although their values are numbers.
    head_aligns[-2:] = ["<", "<"]
    text = MPI_LINE + "\n"
    text += _line(list(zip(heads, widths, head_aligns, strict=True)))
    for r in table:
        text += _line(list(zip(r, widths, aligns, strict=True)))
    return text


def _int_text(value: Any) -> str:
    return str(int(value)) if _number(value) else "Unknown"


def _run_data(rows: pd.DataFrame) -> str:
    heads = (
        ("Kernel", "<", 2),
        ("Variant", "<", 2),
        ("Tuning", "<", 2),
        ("Problem size", ">", 3),
        ("Checksum", "<", 2),
        ("Mean time per rep (sec.)", ">", 3),
        ("Mean Bandwidth (GiB per sec.)", ">", 3),
        ("Mean flops (gigaFLOP per sec.)", ">", 3),
    )
    table = []
    for _, row in rows.iterrows():
        result = {"ok": "PASSED", "fail": "FAILED"}.get(str(row["status"]), NOT_RUN)
        t = row["time_mean_s"]
        if row["status"] == "ok" and _number(t) and t > 0:
            numbers = [
                f"{t:#.6g}",
                _rate_text(row["bytes_per_rep"], t * 2**30),
                _rate_text(row["flops_per_rep"], t * 1e9),
            ]
        else:
            numbers = [NOT_RUN] * 3
        names = [row["rp_kernel"], row["rp_variant"], row["rp_tuning"]]
        table.append([*names, _int_text(row["size"]), result, *numbers])
    widths = [_width(h, [r[i] for r in table], p) for i, (h, _, p) in enumerate(heads)]
    aligns = [a for _, a, _ in heads]
    text = MPI_LINE + "\n"
    text += _line([(h, w, a) for (h, a, _), w in zip(heads, widths, strict=True)])
    for r in table:
        text += _line(list(zip(r, widths, aligns, strict=True)))
    return text


def _rate_text(count: Any, per: float) -> str:
    """A count per repetition over ``per`` as a rate cell; "Unknown" where the row has
    no count (an imported row without its kernel's details), which is no rate of 0."""
    return f"{float(count) / per:#.6g}" if _number(count) else "Unknown"


def _matrix(
    title: str,
    kernels: list[str],
    columns: list[tuple[str, str]],
    cell: Callable[[str, str, str], str],
    prec: int,
) -> str:
    """A timing or speedup table: a title, a Variant and a Tuning header line, a row per kernel."""
    first = max([len("Variant  "), len("Tuning  "), *(len(k) for k in kernels)]) + 1
    widths = [max(prec + 2, len(v), len(t)) for v, t in columns]
    lines = [title + SEP * len(columns)]
    lines.append(
        f"{'Variant  ':<{first}}"
        + "".join(f"{SEP}{v:<{w}}" for (v, _), w in zip(columns, widths, strict=True))
    )
    lines.append(
        f"{'Tuning  ':<{first}}"
        + "".join(f"{SEP}{t:<{w}}" for (_, t), w in zip(columns, widths, strict=True))
    )
    for kernel in kernels:
        cells = (
            f"{SEP}{cell(kernel, v, t):>{w}}" for (v, t), w in zip(columns, widths, strict=True)
        )
        lines.append(f"{kernel:<{first}}" + "".join(cells))
    return "\n".join(lines) + "\n"


def _checksums(rows: pd.DataFrame, kernels: list[str], facts: dict[str, dict[str, Any]]) -> str:
    equal = "=" * 99
    dash = "-" * 88
    dash_short = "-" * 55
    dots = "." * 56
    names = rows["rp_variant"] + "-" + rows["rp_tuning"]
    name_w = max([len(k) for k in kernels] + [len(n) for n in names]) + 1
    result_w = 8
    value_w = 28
    out = [equal, "Checksum Report ", equal, f"{'Kernel  ':<{name_w}}", dots]
    out.append(
        f"{'Variants  ':<{name_w}}{'Result  ':<{result_w}}{'Tolerance  ':<{value_w}}"
        f"{'Checksum  ':<{value_w}}{'Checksum Rel Diff  ':<{value_w}}"
    )
    out.append(
        f"{'  ':<{name_w}}{'  ':<{result_w}}{'  ':<{value_w}}{'  ':<{value_w}}"
        f"{'(vs. first variant listed)  ':<{value_w}}"
    )
    out.append(dash)
    for kernel in kernels:
        out += [f"{kernel:<{name_w}}", dots]
        mine = rows[rows["rp_kernel"] == kernel]
        ref = None
        for _, row in mine.iterrows():
            name = f"{row['rp_variant']}-{row['rp_tuning']}"
            checksum = row["checksum"]
            if row["status"] not in ("ok", "fail") or not _number(checksum):
                out.append(
                    f"{name:<{name_w}}{'Not Run':<{result_w}}{'Not Run':<{value_w}}"
                    f"{'Not Run':<{value_w}}{'Not Run':<{value_w}}"
                )
                continue
            ref = float(checksum) if ref is None else ref
            diff = abs(ref - checksum) / abs(ref) if ref else abs(ref - checksum)
            result = "PASSED" if row["status"] == "ok" else "FAILED"
            out.append(
                f"{name:<{name_w}}{result:<{result_w}}{_tolerance(row, facts):<{value_w}}"
                f"{float(checksum):<#{value_w}.20g}{diff:<#{value_w}.20g}"
            )
        out += ["", dash_short]
    return "\n".join(out) + "\n"


def _tolerance(row: pd.Series, facts: dict[str, dict[str, Any]]) -> str:
    tolerance = (facts.get(str(row["kernel"])) or {}).get("tolerance") or {}
    value = tolerance.get(str(row["precision"]))
    return f"{float(value):#.20g}" if _number(value) else "Unknown"

"""raja-perf.exe's own output as a run folder, so that ``harness report``, ``plot``
and ``compare`` put RAJAPerf's variants beside this harness's backends.

A RAJAPerf output folder (``--outdir``) holds ``RAJAPerf-kernel-run-data.csv``
(a row per kernel, variant and tuning: problem size, checksum PASSED or
FAILED, mean time per repetition), ``RAJAPerf-kernel-details.csv`` (reps,
bytes and FLOPs per repetition) and ``RAJAPerf-checksum.txt`` (each variant's
checksum). Each variant-tuning becomes a device of backend ``rajaperf``
(``rajaperf:0`` is the first listed, named ``Base_Seq default``), each kernel
row a row of ours. RAJAPerf records one mean per variant: the row's median,
mean, min and max are that mean, and ``samples`` is empty.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import hashlib
import math
import os
import re
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import UsageError
from harness.execution import metadata, results
from harness.reporting import table
from harness.version import __version__

PREFIX = "RAJAPerf-"
RUN_DATA = PREFIX + "kernel-run-data.csv"
DETAILS = PREFIX + "kernel-details.csv"
CHECKSUMS = PREFIX + "checksum.txt"
BACKEND = "rajaperf"
#: Words in the names of RAJAPerf's variants that run on a GPU.
GPU_VARIANTS = ("Cuda", "Hip", "Sycl", "OpenMPTarget")
#: The columns of RAJAPerf-kernel-details.csv read as counts, by the start of their names.
COUNTS = ("Problem size", "Reps", "BytesMoved/rep", "FLOPS/rep", "BytesAllocated/rep")
#: What a problem size may be: raja-perf.exe runs no kernel at size 0.
ACCEPTED_SIZE = f"a whole number from 1 to {results.MAX_COUNT:g} is accepted"
TIME = "Mean time per rep"
TIME_IN_SECONDS = f"{TIME} (sec.)"
#: The columns each table needs, by the start of their names.
NEEDS = {
    RUN_DATA: ("Kernel", "Variant", "Tuning", "Checksum", TIME),
    DETAILS: ("Kernel",),
}
#: The report `harness report` writes beside its RAJAPerf-format files: a folder that
#: holds it holds this harness's rows in RAJAPerf's layout, which an import took for
#: raja-perf.exe's (its devices named variants of backend ``rajaperf``).
OUR_REPORT = "report.md"
#: How RAJAPerf fills a cell of a variant it did not run.
NOT_RUN = "Not run"
#: What a run-data row's Checksum cell may say: without it, no row is known to be right.
CHECKED = ("PASSED", "FAILED", NOT_RUN)


def _warn(path: Path, line: int, why: str) -> None:
    print(f"warning: {path}:{line}: {why}", file=sys.stderr)


def _lines(path: Path) -> tuple[list[tuple[int, str]], dict[int, str]]:
    """A file's lines with their numbers, and apart, by number, why each line that
    is not UTF-8 text cannot be read."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror})") from None
    # A file saved by an editor that marks UTF-8 begins with a byte-order mark, and
    # one saved with old Mac line ends has carriage returns alone between its lines.
    raw = raw.removeprefix(codecs.BOM_UTF8)
    if b"\r" in raw and b"\n" not in raw:
        raw = raw.replace(b"\r", b"\n")
    lines = []
    undecodable = {}
    for number, line in enumerate(raw.split(b"\n"), 1):
        try:
            lines.append((number, line.decode("utf-8").rstrip("\r")))
        except UnicodeDecodeError as exc:
            undecodable[number] = f"not UTF-8 text (byte {exc.start + 1} of the line)"
    return lines, undecodable


def _table(path: Path) -> list[tuple[int, dict[str, str] | str]]:
    """A RAJAPerf CSV's rows with their line numbers: fields split on commas and
    stripped, the title lines before the header (``Kernels run without MPI``)
    skipped; a row whose fields do not match the header's (a line cut short) is
    the reason it cannot be read instead, as is a line that is not UTF-8 text."""
    lines, undecodable = _lines(path)
    start = next((i for i, (_, line) in enumerate(lines) if line.count(",") > 1), None)
    if start is None:
        raise UsageError(f"{path}: no table in it")
    number, text = lines[start]
    header = _cells(text)
    needed = NEEDS.get(path.name, ())
    missing = [n for n in needed if not any(h.startswith(n) for h in header or ())]
    if header is None or missing:
        raise UsageError(
            f"{path}:{number}: the header has no {', '.join(missing)} column; a header "
            f"naming {', '.join(needed)} is accepted"
        )
    twice = next((h for i, h in enumerate(header) if h in header[:i]), None)
    if twice is not None:
        raise UsageError(
            f"{path}:{number}: the header names column {twice!r} twice, so which of its "
            "cells is meant cannot be told; a header naming each column once is accepted"
        )
    unit = next((h for h in header if h.startswith(TIME)), TIME)
    if unit not in (TIME, TIME_IN_SECONDS):
        raise UsageError(
            f"{path}:{number}: the time column is {unit!r}; {TIME_IN_SECONDS!r}, the time "
            "in seconds that raja-perf.exe writes, is accepted"
        )
    rows: list[tuple[int, dict[str, str] | str]] = []
    first = number
    for number, text in lines[start + 1 :]:
        if not text.strip():
            continue
        cells = _cells(text)
        if cells == header:
            # A second table's header (two outputs in one file): as a row it named a
            # kernel 'Kernel' on a device 'Variant Tuning', which no run had.
            _warn(path, number, f"repeats the header of line {first}: skipped")
            continue
        if cells is None:
            rows.append((number, "not a line of comma-separated text (a control character in it?)"))
        elif len(cells) == len(header):
            rows.append((number, dict(zip(header, cells, strict=True))))
        else:
            cut = "cut short" if len(cells) < len(header) else "too long"
            rows.append((number, f"{cut}: {len(cells)} of the header's {len(header)} fields"))
    # A line of the table that is no text is lost as a line cut short is.
    rows += [(n, why) for n, why in undecodable.items() if n > first]
    return sorted(rows, key=lambda row: row[0])


def _cells(text: str) -> list[str] | None:
    """A CSV line's fields, stripped; None for a line with control characters
    (a NUL...) or one the csv module cannot read."""
    if any(ord(c) < 32 and c != "\t" for c in text):
        return None
    try:
        return [cell.strip() for cell in next(csv.reader([text]))]
    except csv.Error:
        return None


def _column(row: dict[str, str], start: str) -> str:
    """The cell of the first column whose name starts with ``start``."""
    return next((v for k, v in row.items() if k.startswith(start)), "")


def _number(text: str) -> float | None:
    """A cell's number as raja-perf.exe writes numbers, or None: Python's float()
    also takes digit separators (``1_0``) and other scripts' digits, which no
    output of it holds."""
    if not text.isascii() or "_" in text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _count(text: str) -> int | None:
    """A cell that counts something as a whole number, or None where it cannot."""
    value = _number(text)
    if value is None or not (0 <= value <= results.MAX_COUNT and value.is_integer()):
        return None
    return int(value)


@dataclass(frozen=True)
class Checksum:
    """A variant-tuning's line of RAJAPerf-checksum.txt: its checksum and verdict."""

    value: float
    verdict: str
    line: int


def read_checksums(path: Path) -> dict[tuple[str, str], Checksum]:
    """Checksums by (kernel, variant-tuning) from RAJAPerf-checksum.txt: a kernel's
    name alone on a line, then a line per variant-tuning (name, result,
    tolerance, checksum, relative difference). A checksum that is no finite
    number, or a variant-tuning's second line, is named and left out."""
    found: dict[tuple[str, str], Checksum] = {}
    kernel = None
    lines, undecodable = _lines(path)
    for number, why in undecodable.items():
        _warn(path, number, f"{why}: skipped")
    for number, line in lines:
        cells = line.split()
        if len(cells) in (3, 4) and cells[1] in ("PASSED", "FAILED"):
            # raja-perf.exe writes five cells a line: a line of fewer was cut short (the
            # last of a file written to a full disk), its last cell cut too.
            _warn(path, number, f"cut short: {len(cells)} of a checksum line's 5 cells: left out")
            continue
        if len(cells) == 1 and set(cells[0]) <= set("-="):
            # A kernel's section ends with a rule: the next lines are another kernel's,
            # which a missing name line would leave under this one's name.
            kernel = None
        elif len(cells) == 1 and not set(cells[0]) <= set("."):
            kernel = cells[0]
        elif len(cells) >= 4 and cells[1] in ("PASSED", "FAILED"):
            if kernel is None:
                _warn(path, number, "a checksum with no kernel's name before it: left out")
                continue
            value = _number(cells[3])
            key = (kernel, cells[0])
            if value is None:
                _warn(path, number, f"checksum {cells[3]!r} is no finite number: left out")
            elif key in found:
                first = found[key]
                said = f"{kernel} {cells[0]} of line {first.line}: left out"
                if (first.value, first.verdict) != (value, cells[1]):
                    said = (
                        f"{kernel} {cells[0]} of line {first.line} with another verdict or "
                        f"checksum ({cells[1]} {cells[3]}): left out; the first is kept"
                    )
                _warn(path, number, f"repeats {said}")
            else:
                found[key] = Checksum(value, cells[1], number)
    return found


def our_report(folder: Path) -> Path | None:
    """The `OUR_REPORT` whose RAJAPerf-format files ``folder`` holds: in it, or above
    it where it is one of that report's precision or size folders (``f64``,
    ``SIZE_000100000``); None where there is none."""
    folder = folder.absolute()
    for _ in range(3):
        if (folder / OUR_REPORT).is_file():
            return folder / OUR_REPORT
        if not re.fullmatch(r"f32|f64|SIZE_\d+", folder.name):
            return None
        folder = folder.parent
    return None


def _details(path: Path) -> dict[str, dict[str, str]]:
    """Each kernel's row of RAJAPerf-kernel-details.csv; a damaged or repeated row
    is left out with a warning naming it."""
    found: dict[str, dict[str, str]] = {}
    lines: dict[str, int] = {}
    for number, row in _table(path):
        if isinstance(row, str):
            _warn(path, number, f"{row}: skipped (its kernel's reps, bytes and FLOPs are unknown)")
            continue
        kernel = _column(row, "Kernel")
        if kernel in found:
            _warn(path, number, f"repeats {_repeat(kernel, lines[kernel], found[kernel], row)}")
            continue
        for column in COUNTS:
            text = _column(row, column)
            # raja-perf.exe repeats every kernel it lists at least once, on one element
            # at least.
            least = 1 if column in ("Reps", "Problem size") else 0
            count = _count(text) if text else least
            if count is None or count < least:
                accepted = f"a whole number from {least} to {results.MAX_COUNT:g} is accepted"
                _warn(path, number, f"{column} is {text!r}; {accepted}: left out")
                row = {k: "" if k.startswith(column) else v for k, v in row.items()}
        found[kernel], lines[kernel] = row, number
    return found


def rows_of(
    folder: Path, known: Collection[str] = ()
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[int]]:
    """The rows, the devices (variant-tunings) of a RAJAPerf output folder, and the
    numbers of its run-data lines that could not be read (cut short, not text): a
    row lost there may be any row, which the imported run must say.

    A row's kernel is one the details file describes (raja-perf.exe describes every
    kernel it runs, a fork's or an MPI one too) or one of ``known`` (the suite's
    RAJAPerf kernels, whose counts are left unknown where the details lack them);
    any other name is damage, and its line is not read.

    A damaged row (cut short, a time of 0 or below, a number no run gives) is
    named in a warning and becomes an error row saying why, or is skipped where
    not even its kernel and variant can be read; UsageError where no row is left
    that is not damaged; UsageError too for one of its files that is there but is
    no regular file (a folder, a device, a pipe, a link to nothing), which was
    taken for a file not there: 'no RAJAPerf-kernel-run-data.csv', or no
    checksums at all, without a word."""
    for name in (RUN_DATA, DETAILS, CHECKSUMS):
        path = folder / name
        if os.path.lexists(path) and not path.is_file():
            raise UsageError(
                f"{path}: not a regular file (a folder, a device, a pipe or a link to nothing); "
                "give the file raja-perf.exe wrote"
            )
    if results.written_now(folder):
        raise UsageError(
            f"{folder}: another harness command (a report) is writing into it now; wait "
            "for it to end, then import the folder raja-perf.exe wrote"
        )
    ours = our_report(folder)
    if ours is not None:
        raise UsageError(
            f"{folder}: its RAJAPerf files are those 'harness report' wrote beside {ours} of "
            "this harness's own rows, not raja-perf.exe's; give the folder raja-perf.exe "
            "wrote with --outdir"
        )
    missing = [name for name in (RUN_DATA, DETAILS) if not (folder / name).is_file()]
    if missing:
        raise UsageError(
            f"{folder}: not a raja-perf.exe output folder (no {', '.join(missing)}; "
            "give the folder raja-perf.exe wrote with --outdir)"
        )
    details = _details(folder / DETAILS)
    checks = read_checksums(folder / CHECKSUMS) if (folder / CHECKSUMS).is_file() else {}
    if (folder / CHECKSUMS).is_file() and not checks:
        print(f"warning: {folder / CHECKSUMS}: no checksum in it: rows have none", file=sys.stderr)
    devices: dict[str, dict[str, Any]] = {}
    rows = []
    seen: dict[tuple[str, str, str], tuple[int, dict[str, str]]] = {}
    undetailed: set[str] = set()
    path = folder / RUN_DATA
    unread: list[int] = []
    for number, data in _table(path):
        if isinstance(data, str):
            _warn(path, number, f"{data}: skipped")
            unread.append(number)
            continue
        kernel, variant, tuning = (_column(data, c) for c in ("Kernel", "Variant", "Tuning"))
        if not (kernel and variant and tuning):
            _warn(path, number, "no kernel, variant or tuning: skipped")
            unread.append(number)
            continue
        if not (kernel + variant + tuning).isprintable():
            # A run's journal holds no such name: the row written would be damage there.
            _warn(
                path,
                number,
                "kernel, variant or tuning holds a character that prints as nothing: skipped",
            )
            unread.append(number)
            continue
        if kernel not in details and kernel not in known:
            # A name neither described nor RAJAPerf's is damage (a cell cut, or another
            # column's text), whose row, read as good, became a kernel of its own in
            # every report. Its row is lost, as a line cut short is, and may be any row.
            _warn(
                path,
                number,
                f"kernel {kernel!r} has no line in {DETAILS}, where raja-perf.exe describes "
                "every kernel it runs, and is none of RAJAPerf's that 'harness list' names "
                "(a damaged name?): skipped",
            )
            unread.append(number)
            continue
        odd = next((c for c in (variant, tuning) if "-" in c or len(c.split()) > 1), None)
        if odd is not None:
            # Devices are named "variant tuning" and checksums "variant-tuning": a cell
            # holding either would name another variant-tuning's device.
            _warn(path, number, f"variant or tuning {odd!r} holds a space or '-': skipped")
            unread.append(number)
            continue
        key = (kernel, variant, tuning)
        if key in seen:
            first, kept = seen[key]
            _warn(path, number, f"repeats {_repeat(' '.join(key), first, kept, data)}")
            continue
        seen[key] = number, data
        name = f"{variant} {tuning}"
        if name not in devices:
            devices[name] = {
                "id": f"{BACKEND}:{len(devices)}",
                "backend": BACKEND,
                "name": name,
                "vendor": "RAJAPerf",
                "kind": "gpu"
                if any(api.lower() in variant.lower() for api in GPU_VARIANTS)
                else "cpu",
                "driver": "raja-perf.exe",
                "api": f"RAJAPerf {variant}",
                "features": [],
                "limits": {},
            }
        if kernel not in details and kernel not in undetailed:
            undetailed.add(kernel)
            unknown = "its reps, bytes and FLOPs are unknown"
            _warn(path, number, f"{kernel} has no line in {DETAILS}: {unknown}")
        row = _row(kernel, devices[name], data, _same_size(path, number, data, details, kernel))
        check = checks.get((kernel, f"{variant}-{tuning}"))
        row["checksum"] = check.value if check else None
        if checks and check is None and _column(data, "Checksum") in ("PASSED", "FAILED"):
            _warn(
                path,
                number,
                f"{CHECKSUMS} has no checksum of {kernel} {variant}-{tuning}: its row has none",
            )
        verdict = _column(data, "Checksum")
        if check and verdict in ("PASSED", "FAILED") and check.verdict != verdict:
            why = f"'Checksum' is {verdict}, but {check.verdict} in {CHECKSUMS}:{check.line}"
            _warn(path, number, f"{why}: made a failed row")
            row.update(status="fail", reason=f"{RUN_DATA}:{number}: {why}")
        problem = _problem(row, data)
        if problem:
            _warn(path, number, f"{problem}: made an error row")
            row = _damaged(row, f"{RUN_DATA}:{number}: {problem}")
        rows.append(row)
    if not rows:
        raise UsageError(f"{path}: no kernel rows in it")
    if all(r["status"] == "error" for r in rows):
        raise UsageError(
            f"{path}: no usable row: all {len(rows)} are damaged (the first: {rows[0]['reason']})"
        )
    return rows, list(devices.values()), unread


def _repeat(what: str, line: int, first: dict[str, str], again: dict[str, str]) -> str:
    """A warning's words for a row that repeats ``what`` of line ``line``: the
    columns where it differs are named (which of two values raja-perf.exe wrote
    is not known; the first line's are kept)."""
    other = [c for c in {**first, **again} if first.get(c, "").strip() != again.get(c, "").strip()]
    if not other:
        return f"{what} of line {line}: skipped"
    named = ", ".join(repr(c) for c in other[:3]) + (", ..." if len(other) > 3 else "")
    return f"{what} of line {line} with other values ({named}): skipped; the first is kept"


def _same_size(
    path: Path, number: int, data: dict[str, str], details: dict[str, dict[str, str]], kernel: str
) -> dict[str, str]:
    """A kernel's details row for a run-data row: without its bytes and FLOPs, and
    with a warning naming both sizes, where the two files give other problem
    sizes (files of two runs): they count another size's work, which would make
    up the row's rates."""
    own = details.get(kernel, {})
    size, counted = _count(_column(data, "Problem size")), _count(_column(own, "Problem size"))
    if size is None or counted is None or size == counted:
        return own
    _warn(
        path,
        number,
        f"'Problem size' is {size}, but {counted} in {DETAILS} (files of two runs?): "
        "its bytes and FLOPs are left unknown",
    )
    return {k: v for k, v in own.items() if not k.startswith(("Bytes", "FLOPS"))}


def _row(
    kernel: str, device: dict[str, Any], data: dict[str, str], details: dict[str, str]
) -> dict[str, Any]:
    seconds = _number(_column(data, TIME))
    size = _count(_column(data, "Problem size"))
    if size is None:
        size = _count(_column(details, "Problem size"))
    reps = _count(_column(details, "Reps"))
    moved = _count(_column(details, "BytesMoved/rep"))
    flops = _count(_column(details, "FLOPS/rep"))
    passed = _column(data, "Checksum")
    row: dict[str, Any] = {
        "kernel": kernel,
        "group": kernel.split("_", 1)[0],
        "backend": BACKEND,
        "device_id": device["id"],
        "device": device["name"],
        "precision": "f64",
        "size": size,
        "reps": reps,
        "warmup": 0,
        "status": "ok",
        "reason": None,
        "bytes_per_rep": moved,
        "flops_per_rep": flops,
        "bytes_allocated": _count(_column(details, "BytesAllocated/rep")) or None,
        "timer": "host",
        "device_api": device["api"],
        "device_driver": device["driver"],
    }
    if passed == "FAILED":
        row.update(status="fail", reason="raja-perf.exe's checksum check FAILED")
    if seconds is None or seconds <= 0:
        if row["status"] == "ok":
            row.update(status="skipped", reason="raja-perf.exe did not run it")
        return row
    row.update(
        time_min_s=seconds,
        time_median_s=seconds,
        time_mean_s=seconds,
        time_max_s=seconds,
        samples=None,
        stop="reps",
    )
    if moved is not None:
        row["gbytes_per_s"] = moved / seconds / 1e9
    if flops is not None:
        row["gflops_per_s"] = flops / seconds / 1e9
    return row


#: GB/s no memory reaches (a thousand times a GPU's of today): a time that gives
#: more is damage.
MAX_GBYTES_PER_S = 1e6


def _problem(row: dict[str, Any], data: dict[str, str]) -> str | None:
    """What is wrong with a run-data row, naming the field and what is accepted."""
    name = next((k for k in data if k.startswith(TIME)), TIME)
    text = data.get(name, "")
    seconds = _number(text)
    if text != NOT_RUN and (
        seconds is None or not results.MIN_SECONDS <= seconds <= results.MAX_SECONDS
    ):
        return (
            f"{name!r} is {text!r}; a time from {results.MIN_SECONDS:g} up to "
            f"{results.MAX_SECONDS:g} seconds, or {NOT_RUN!r}, is accepted"
        )
    rate = row.get("gbytes_per_s")
    if rate is not None and rate > MAX_GBYTES_PER_S:
        # A damaged time can still be a number: one no memory could run at is no time.
        least = row["bytes_per_rep"] / MAX_GBYTES_PER_S / 1e9
        return (
            f"{name!r} is {text!r}: {rate:.3g} GB/s for the kernel's bytes, past any "
            f"memory's; a time from {least:.3g} seconds is accepted"
        )
    checked = _column(data, "Checksum")
    if checked not in CHECKED:
        return f"'Checksum' is {checked!r}; 'PASSED', 'FAILED' or {NOT_RUN!r} is accepted"
    if checked == NOT_RUN and text != NOT_RUN:
        # raja-perf.exe checks every variant it times: a time without a check is no run's.
        return f"'Checksum' is {NOT_RUN!r} beside a time; a timed row says PASSED or FAILED"
    size = _column(data, "Problem size")
    if size and not _count(size):
        return f"'Problem size' is {size!r}; {ACCEPTED_SIZE}"
    if row["size"] is None and row["status"] in ("ok", "fail"):
        # A row that ran has its size: one without was written into the imported
        # run's journal as damage, which every reader of the run then skipped.
        return f"no 'Problem size' in the row, nor in {DETAILS}; {ACCEPTED_SIZE}"
    for key, value in row.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            why = results.implausible(key, value)
            if why:
                return why
    return None


def _damaged(row: dict[str, Any], reason: str) -> dict[str, Any]:
    """A row read from a damaged line: an error saying why, without its numbers."""
    keep = ("kernel", "group", "backend", "device_id", "device", "precision")
    return {
        **{k: row[k] for k in keep},
        "status": "error",
        "reason": reason,
        "device_api": row["device_api"],
        "device_driver": row["device_driver"],
    }


def digest(folder: Path) -> str:
    """A hash of the RAJAPerf files an import reads: one output imported twice is
    one run, whose rows a report or merge of both imports would count twice."""
    hashed = hashlib.sha256()
    for name in (RUN_DATA, DETAILS, CHECKSUMS):
        hashed.update(name.encode())
        if (folder / name).is_file():
            with contextlib.suppress(OSError):
                hashed.update(hashlib.sha256((folder / name).read_bytes()).digest())
    return hashed.hexdigest()


def import_folder(folder: Path, out: Path, known: Collection[str] = ()) -> Path:
    """Write a RAJAPerf output folder's rows as a new run folder under ``out``
    (probed first, leaving no folder made, so that a refusal of it comes before
    warnings of damaged lines); ``known``: kernel names taken without a details
    line (`rows_of`)."""
    results.check_out(out, keep=False)
    with results.before_new(out):
        rows, devices, unread = rows_of(folder, known)
    meta = {
        "harness_version": __version__,
        "format": results.FORMAT,
        "command": ["harness", "import-rajaperf", str(folder)],
        "imported_from": str(folder.resolve()),
        "imported_sha256": digest(folder),
        "start": metadata.now(),
        "end": metadata.now(),
        "host": metadata.host(),
        "devices": devices,
        "kernels": list(dict.fromkeys(r["kernel"] for r in rows)),
        "journal_rows": len(rows),
        **({"unread_lines": {"file": RUN_DATA, "lines": unread}} if unread else {}),
    }

    def fill(run_dir: Path) -> None:
        results.write_json(run_dir / results.METADATA, meta)
        # The run folder is named only once whole: its rows go to disk at once.
        journal = results.Journal(run_dir, each=False)
        try:
            for row in rows:
                journal.append(row)
            journal.sync()
        finally:
            journal.close()
        results.finish(run_dir, table.format_rows(rows))

    return results.write_new(out, fill)

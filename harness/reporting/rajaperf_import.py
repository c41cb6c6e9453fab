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

import csv
import math
from pathlib import Path
from typing import Any

from harness import __version__
from harness.errors import UsageError
from harness.execution import metadata, results
from harness.reporting import table

PREFIX = "RAJAPerf-"
RUN_DATA = PREFIX + "kernel-run-data.csv"
DETAILS = PREFIX + "kernel-details.csv"
CHECKSUMS = PREFIX + "checksum.txt"
BACKEND = "rajaperf"
#: Words in the names of RAJAPerf's variants that run on a GPU.
GPU_VARIANTS = ("Cuda", "Hip", "Sycl", "OpenMPTarget")


def _table(path: Path) -> list[dict[str, str]]:
    """A RAJAPerf CSV as dicts: fields split on commas and stripped, the title
    lines before the header (``Kernels run without MPI``) skipped."""
    with path.open(newline="") as f:
        lines = [line for line in f if line.count(",") > 1]
    rows = [[cell.strip() for cell in row] for row in csv.reader(lines)]
    if not rows:
        raise UsageError(f"{path}: no table in it")
    header = rows[0]
    return [dict(zip(header, row, strict=False)) for row in rows[1:] if len(row) == len(header)]


def _column(row: dict[str, str], start: str) -> str:
    """The cell of the first column whose name starts with ``start``."""
    return next((v for k, v in row.items() if k.startswith(start)), "")


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_checksums(path: Path) -> dict[tuple[str, str], float]:
    """Checksums by (kernel, variant-tuning) from RAJAPerf-checksum.txt: a kernel's
    name alone on a line, then a line per variant-tuning (name, result,
    tolerance, checksum, relative difference)."""
    found: dict[tuple[str, str], float] = {}
    kernel = None
    for line in path.read_text().splitlines():
        cells = line.split()
        if len(cells) == 1 and not set(cells[0]) <= set("-=."):
            kernel = cells[0]
        elif kernel and len(cells) >= 4 and cells[1] in ("PASSED", "FAILED"):
            value = _number(cells[3])
            if value is not None:
                found[(kernel, cells[0])] = value
    return found


def rows_of(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows and the devices (variant-tunings) of a RAJAPerf output folder."""
    missing = [name for name in (RUN_DATA, DETAILS) if not (folder / name).is_file()]
    if missing:
        raise UsageError(
            f"{folder}: not a raja-perf.exe output folder (no {', '.join(missing)}; "
            "give the folder raja-perf.exe wrote with --outdir)"
        )
    details = {row["Kernel"]: row for row in _table(folder / DETAILS)}
    checks = read_checksums(folder / CHECKSUMS) if (folder / CHECKSUMS).is_file() else {}
    devices: dict[str, dict[str, Any]] = {}
    rows = []
    for data in _table(folder / RUN_DATA):
        kernel, variant, tuning = data["Kernel"], data["Variant"], data["Tuning"]
        name = f"{variant} {tuning}"
        if name not in devices:
            devices[name] = {
                "id": f"{BACKEND}:{len(devices)}",
                "backend": BACKEND,
                "name": name,
                "vendor": "RAJAPerf",
                "kind": "gpu" if any(api in variant for api in GPU_VARIANTS) else "cpu",
                "driver": "raja-perf.exe",
                "api": f"RAJAPerf {variant}",
                "features": [],
                "limits": {},
            }
        row = _row(kernel, devices[name], data, details.get(kernel, {}))
        row["checksum"] = checks.get((kernel, f"{variant}-{tuning}"))
        rows.append(row)
    if not rows:
        raise UsageError(f"{folder / RUN_DATA}: no kernel rows in it")
    return rows, list(devices.values())


def _row(
    kernel: str, device: dict[str, Any], data: dict[str, str], details: dict[str, str]
) -> dict[str, Any]:
    seconds = _number(_column(data, "Mean time per rep"))
    size = _number(_column(data, "Problem size")) or _number(_column(details, "Problem size"))
    reps = _number(_column(details, "Reps"))
    moved = _number(_column(details, "BytesMoved/rep"))
    flops = _number(_column(details, "FLOPS/rep"))
    passed = _column(data, "Checksum")
    row: dict[str, Any] = {
        "kernel": kernel,
        "group": kernel.split("_", 1)[0],
        "backend": BACKEND,
        "device_id": device["id"],
        "device": device["name"],
        "precision": "f64",
        "size": int(size) if size is not None else None,
        "reps": int(reps) if reps is not None else 0,
        "warmup": 0,
        "status": "ok",
        "reason": None,
        "bytes_per_rep": int(moved) if moved is not None else None,
        "flops_per_rep": int(flops) if flops is not None else None,
        "bytes_allocated": int(_number(_column(details, "BytesAllocated/rep")) or 0) or None,
        "timer": "host",
        "device_api": device["api"],
        "device_driver": device["driver"],
    }
    if passed == "FAILED":
        row.update(status="fail", reason="raja-perf.exe's checksum check FAILED")
    if seconds is None:
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


def import_folder(folder: Path, out: Path) -> Path:
    """Write a RAJAPerf output folder's rows as a new run folder under ``out``."""
    rows, devices = rows_of(folder)
    run_dir = results.create(out)
    meta = {
        "harness_version": __version__,
        "command": ["harness", "import-rajaperf", str(folder)],
        "imported_from": str(folder.resolve()),
        "start": metadata.now(),
        "end": metadata.now(),
        "host": metadata.host(),
        "devices": devices,
        "kernels": list(dict.fromkeys(r["kernel"] for r in rows)),
    }
    with results.lock(run_dir), results.writing(run_dir):
        results.write_json(run_dir / results.METADATA, meta)
        journal = results.Journal(run_dir)
        for row in rows:
            journal.append(row)
        journal.close()
        results.finish(run_dir, table.format_rows(rows))
    return run_dir

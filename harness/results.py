"""Run folders: the journal written row by row, the metadata, results.csv.

The journal (one JSON object per line, flushed and synced as each row ends)
is the record of truth: results.csv and summary.txt are derived from it, at
the end of a run or by any later command that reads an interrupted one.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

JOURNAL = "journal.jsonl"
METADATA = "metadata.json"
RESULTS = "results.csv"
SUMMARY = "summary.txt"

#: results.csv columns, in order; rows may carry more, appended after these.
COLUMNS = (
    "kernel",
    "group",
    "backend",
    "device_id",
    "device",
    "precision",
    "size",
    "reps",
    "warmup",
    "launches",
    "status",
    "reason",
    "max_rel_error",
    "checksum",
    "time_min_s",
    "time_median_s",
    "time_mean_s",
    "time_max_s",
    "time_std_s",
    "unstable",
    "gbytes_per_s",
    "gflops_per_s",
    "bytes_per_rep",
    "flops_per_rep",
    "timer",
)

STATUSES = ("ok", "fail", "error", "skipped")


class RunFolderError(RuntimeError):
    """A run folder that is missing, empty or unreadable."""


def create(out: Path) -> Path:
    """Make a new, uniquely named run folder under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("run-%Y%m%d-%H%M%S")
    for n in range(1000):
        path = out / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise RunFolderError(f"could not make a new run folder in {out}")


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (write a temporary file, then rename)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


class Journal:
    """Appends rows to a run's journal; each row is on disk before the next starts."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / JOURNAL
        _drop_torn_tail(self.path)
        self._file = self.path.open("a", encoding="utf-8")

    def append(self, row: dict[str, Any]) -> None:
        """Write one finished row and force it to disk."""
        self._file.write(json.dumps(row, default=_plain) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """Close the file."""
        self._file.close()


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line that a crash left half-written, so appends start clean."""
    if not path.exists():
        return
    with path.open("rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def read_journal(run_dir: Path) -> list[dict[str, Any]]:
    """Rows of a run's journal; a torn or corrupt line is skipped with a warning."""
    path = Path(run_dir) / JOURNAL
    if not Path(run_dir).is_dir():
        raise RunFolderError(f"{run_dir}: no such run folder")
    if not path.is_file():
        raise RunFolderError(f"{run_dir}: not a run folder (no {JOURNAL} in it)")
    rows = []
    with path.open(encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                print(f"warning: {path}:{number}: skipped a torn or corrupt line", file=sys.stderr)
                continue
            if isinstance(row, dict):
                rows.append(row)
    return rows


def write_csv(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """results.csv: the fixed columns first, then any extra ones in first-seen order."""
    rows = list(rows)
    columns = list(COLUMNS)
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    tmp = path.with_suffix(".csv.tmp")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in columns})
    os.replace(tmp, path)


def finish(run_dir: Path, summary: str) -> None:
    """Derive results.csv and summary.txt from the journal."""
    write_csv(run_dir / RESULTS, read_journal(run_dir))
    (run_dir / SUMMARY).write_text(summary + "\n", encoding="utf-8")


def ensure_csv(run_dir: Path) -> list[dict[str, Any]]:
    """The run's rows; (re)builds results.csv when missing or older than the journal."""
    rows = read_journal(run_dir)
    csv_path = Path(run_dir) / RESULTS
    journal = Path(run_dir) / JOURNAL
    if not csv_path.exists() or csv_path.stat().st_mtime < journal.stat().st_mtime:
        write_csv(csv_path, rows)
    return rows


def read_metadata(run_dir: Path) -> dict[str, Any]:
    """The run's metadata, or an empty dict where it is missing or unreadable."""
    try:
        return json.loads((Path(run_dir) / METADATA).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}

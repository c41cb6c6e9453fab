"""A run folder as Caliper profiles, the files Thicket (LLNL's analysis tool for
RAJAPerf runs) loads with ``Thicket.from_caliperreader``.

RAJAPerf writes one ``.cali`` profile per variant and tuning: a region tree
``RAJAPerf`` > group > kernel with timing metrics per region, and the run's
Adiak metadata as globals. The export writes the same shape: one profile per
host (a merged run holds several machines' rows), MPI rank (where a run has
several), device, precision, problem size and variant options (a sort's
strategy, the transfer mode...: RAJAPerf's tuning), its kernel regions carrying
``Avg time/rank`` (the row's median time per repetition, RAJAPerf's metric
name), ``Min time/rank``, ``Max time/rank``, ``Reps``, ``ProblemSize``,
``Bytes/Rep`` and ``Flops/Rep``, and RAJAPerf's metadata keys (``variant``,
``tuning``, ``ProblemSizeRunParam``, ``cluster`` (the profile's host),
``launchdate``, ``jobsize`` (its run's MPI ranks)) plus the device's name, API
and driver, and Caliper's ``mpi.rank`` in an MPI run's profiles.

The ``.cali`` format is Caliper's text stream: ``node`` records define
attributes and the region tree, ``ctx`` records attach metric values to a
region, a ``globals`` record holds the metadata.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd

#: Caliper's bootstrap type nodes (``string`` and ``double``) and meta-attributes.
STRING_TYPE, DOUBLE_TYPE = 3, 5
ATTRIBUTE_NAME, ATTRIBUTE_PROP = 8, 10
#: Caliper attribute properties: stored as a value, process scope, nested
#: (the region hierarchy), global (run metadata), aggregatable (a metric).
AS_VALUE, PROCESS, NESTED, GLOBAL, AGGREGATABLE = 1, 12, 256, 512, 4096
#: The metrics of a kernel region: (Caliper name, row column).
METRICS = (
    ("Avg time/rank", "time_median_s"),
    ("Min time/rank", "time_min_s"),
    ("Max time/rank", "time_max_s"),
    ("Reps", "reps"),
    ("ProblemSize", "size"),
    ("Bytes/Rep", "bytes_per_rep"),
    ("Flops/Rep", "flops_per_rep"),
)
ROOT = "RAJAPerf"
#: The metrics parent regions get, summed over their kernels.
TIMES = ("Avg time/rank", "Min time/rank", "Max time/rank")


#: The longest profile file name before its ".cali" (file names end at 255 bytes on
#: most disks; a longer one failed the export).
MAX_NAME = 200
#: The most of a host's name a profile's file name holds.
HOST_CHARS = 100


def _escape(text: Any) -> str:
    """A value as a .cali field: backslash before the separators."""
    return re.sub(r"([\\,=])", r"\\\1", str(text)).replace("\n", "\\n")


class _Stream:
    """The records of one .cali profile, numbering nodes as they are made."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._next = 12  # Caliper's bootstrap nodes are 0..11
        self._attributes: dict[str, int] = {}
        self._regions: dict[tuple[str, ...], int] = {}

    def node(self, attribute: int, data: Any, parent: int | None = None) -> int:
        node = self._next
        self._next += 1
        line = f"__rec=node,id={node},attr={attribute},data={_escape(data)}"
        self.lines.append(line + (f",parent={parent}" if parent is not None else ""))
        return node

    def attribute(self, name: str, kind: int, prop: int) -> int:
        if name not in self._attributes:
            self._attributes[name] = self.node(
                ATTRIBUTE_NAME, name, self.node(ATTRIBUTE_PROP, prop, kind)
            )
        return self._attributes[name]

    def region(self, path: tuple[str, ...]) -> int:
        """The node of a region path (RAJAPerf, group, kernel), made with its parents."""
        if path not in self._regions:
            region = self.attribute("region", STRING_TYPE, NESTED | PROCESS)
            parent = self.region(path[:-1]) if len(path) > 1 else None
            self._regions[path] = self.node(region, path[-1], parent)
        return self._regions[path]

    def metrics(self, path: tuple[str, ...], values: dict[str, float]) -> None:
        ids = [self.attribute(n, DOUBLE_TYPE, AS_VALUE | PROCESS | AGGREGATABLE) for n in values]
        data = "=".join(_escape(repr(float(v))) for v in values.values())
        attrs = "=".join(str(i) for i in ids)
        self.lines.append(f"__rec=ctx,ref={self.region(path)},attr={attrs},data={data}")

    def globals(self, values: dict[str, Any]) -> None:
        refs = [
            self.node(self.attribute(name, STRING_TYPE, GLOBAL | PROCESS), value)
            for name, value in values.items()
        ]
        self.lines.append("__rec=globals,ref=" + "=".join(str(r) for r in refs))


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def profiles(frame: pd.DataFrame, meta: dict[str, Any]) -> dict[str, str]:
    """The .cali text of each profile of a prepared run frame, by file name: one
    per host (a merged run holds several), MPI rank, device, precision, size and
    tuning."""
    frame = frame.assign(_jobsize=_jobsizes(frame))
    timed = frame[(frame["status"] == "ok") & frame["time_median_s"].notna()]
    # `frames.load` gives every row its host: a merged run's rows their own.
    timed = timed.assign(_host=timed["host"].fillna("").astype(str))
    several = timed["_host"].nunique() > 1
    # An MPI run's ranks time alike regions each: a profile apiece, as RAJAPerf's
    # files give each rank a variant, so that no region is recorded twice in one.
    ranks = timed["rank"].map(lambda r: -1 if r != r else int(r)) if "rank" in timed else -1
    timed = timed.assign(_rank=ranks)
    by_rank = timed["_rank"].nunique() > 1
    out: dict[str, str] = {}
    keys = ["_host", "_rank", "device_id", "precision", "size", "variant_params"]
    for (host, rank, device_id, precision, size, variant), rows in timed.groupby(
        keys, sort=False, dropna=False
    ):
        tuning = re.sub(r"[^A-Za-z0-9.]+", "_", variant) if variant else "default"
        known = size is not None and math.isfinite(float(size))
        stream = _Stream()
        first = rows.iloc[0]
        # A parent region's times are its kernels' summed, as inclusive times are.
        totals: dict[tuple[str, ...], dict[str, float]] = {}
        for _, row in rows.iterrows():
            path = (ROOT, str(row["group"]), _kernel_name(row))
            values = {name: row[column] for name, column in METRICS}
            stream.metrics(path, {k: float(v) for k, v in values.items() if _finite(v)})
            for parent in (path[:1], path[:2]):
                sums = totals.setdefault(parent, dict.fromkeys(TIMES, 0.0))
                for name in TIMES:
                    sums[name] += float(values[name]) if _finite(values[name]) else 0.0
        for parent, sums in totals.items():
            stream.metrics(parent, sums)
        stream.globals(
            {
                "variant": device_id,
                "tuning": tuning,
                "ProblemSizeRunParam": int(size) if known else "",
                "precision": precision,
                "device": first.get("device") or "",
                "backend": first["backend"],
                "api": first.get("device_api") or "",
                "driver": first.get("device_driver") or "",
                "cluster": host,
                "launchdate": meta.get("start") or "",
                "jobsize": int(first["_jobsize"]),
                "run": first["run"],
                "harness_version": meta.get("harness_version") or "",
                # A row of no rank (a run without MPI, merged beside one with it) is
                # no rank's: it has no mpi.rank, as no RAJAPerf run without MPI has.
                **({"mpi.rank": rank} if by_rank and rank >= 0 else {}),
            }
        )
        parts = [str(host)[:HOST_CHARS]] if several else []
        parts += [f"r{rank}"] if by_rank and rank >= 0 else []
        parts += [device_id, precision]
        parts += [f"n{int(size)}" if known else "n-unknown", tuning]
        # A host's name (with its run's, in a merged run) may be too long for a file's:
        # it is cut first, the name then, and the profile's 'cluster' keeps it whole.
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(map(str, parts)))[:MAX_NAME]
        # Two profiles whose names differ only in characters a file name drops stay two.
        unique, n = name, 1
        while f"{unique}.cali" in out:
            n += 1
            unique = f"{name}-{n}"
        out[f"{unique}.cali"] = "\n".join(stream.lines) + "\n"
    return out


def _jobsizes(frame: pd.DataFrame) -> pd.Series:
    """Each row's job size, RAJAPerf's ``jobsize``: how many MPI ranks its run had (in
    a merged run, the run it came from), 1 for a run without MPI."""
    run = frame["source_run"] if "source_run" in frame else frame["run"]
    run = run.fillna(frame["run"]).astype(str)
    if "rank" not in frame:
        return run.map(lambda _: 1)
    return frame["rank"].groupby(run).transform("nunique").clip(lower=1)


def _kernel_name(row: Any) -> str:
    """The kernel's region name: its name, with its case options (a sort's order
    and input) as RAJAPerf spells kernels that differ by them."""
    case = str(row.get("case_params") or "")
    return "_".join([str(row["kernel"]), *case.split(", ")]) if case else str(row["kernel"])


def _check_room(out: Path, made: dict[str, str]) -> None:
    """UsageError where the disk under ``out`` has no room for the profiles ``made``
    (each in whole blocks, less the earlier ones they replace, plus one written
    beside the one it replaces): a full disk stopped the export part-way, its first
    profiles written, which Thicket would read as the whole run."""
    try:
        # The folder, or where it would be made: a refusal leaves none made.
        disk = os.statvfs(next(p for p in (out, *out.parents) if p.is_dir()))
    except (OSError, StopIteration):
        return
    if disk.f_blocks == 0:
        # No disk (/proc, /sys): whether it takes a file is for `results.check_out`
        # to say, where it was said to have no room.
        return
    block = disk.f_frsize or 4096

    def blocks(size: int) -> int:
        return -(-size // block) * block

    sizes = [blocks(len(text.encode())) for text in made.values()]
    earlier = sum(blocks((out / name).stat().st_size) for name in made if (out / name).is_file())
    needed = sum(sizes) - earlier + max(sizes)
    free = disk.f_bavail * block
    if needed > free:
        raise UsageError(
            f"output folder {out}: its disk has {free} bytes free, and the {len(made)} "
            f"profile(s) need {needed}; free some space or give --out another disk"
        )


#: How a row that has no time came to have none, by its status.
UNTIMED = {
    "fail": "failed verification",
    "error": "errored",
    "skipped": "skipped",
    "ok": "verified only (--check)",
}


def untimed(frame: pd.DataFrame) -> str:
    """The rows of ``frame`` that no profile holds, having no time, counted by why
    ("2 failed verification, 1 errored"); "" where every row is timed."""
    left = frame[~((frame["status"] == "ok") & frame["time_median_s"].notna())]
    counts = left["status"].value_counts()
    return ", ".join(f"{int(counts[s])} {why}" for s, why in UNTIMED.items() if counts.get(s, 0))


def write(run_dir: Path, out: Path, left: list[str] | None = None) -> list[Path]:
    """Write a run folder's profiles into ``out`` (each whole or not at all); return
    their paths, none where the run has no timed row. UsageError in one line where
    ``out`` cannot take them, or holds profiles of another export, which would be
    read with these; it is checked once the run is read, so that a run refused,
    or one with nothing to export, leaves no folder made. ``left`` gets the rows
    left out for want of a time, counted (`untimed`), where there are any."""
    from harness.execution import results
    from harness.reporting import frames

    loaded = frames.load(run_dir)
    if left is not None and untimed(loaded):
        left.append(untimed(loaded))
    meta = loaded.attrs.get("metadata") or {}
    # pandas deep-copies a frame's attrs into every frame made of it (each row the
    # profiles walk): a merged run's metadata, copied so, took most of an export.
    loaded.attrs = {}
    made = profiles(frames.prepare(loaded, frames.kernel_facts([meta])), meta)
    if not made:
        return []
    found = out.glob("*.cali") if out.is_dir() else ()
    others = sorted(p.name for p in found if p.name not in made)
    if others:
        # Thicket reads a folder's profiles as one set: another run's would join these.
        raise UsageError(
            f"output folder {out}: holds {len(others)} profile(s) this run has none of "
            f"({', '.join(others[:3])}{', ...' if len(others) > 3 else ''}), of another "
            "export: its profiles and these would be read as one; give an empty --out"
        )
    _check_room(out, made)
    results.check_out(out)
    written: list[Path] = []
    name = ""
    with results.hold_output(out):
        try:
            # One stopped short removes an earlier export's profiles of these names that
            # it had not yet replaced: beside its own, they would be read as this run's.
            with results.no_earlier_left(out, [out / n for n in made], "export"):
                for name, text in made.items():
                    results.write_text(out / name, text)
                    written.append(out / name)
        except OSError as exc:
            raise UsageError(
                f"output folder {out}: cannot write {name} ({exc.strerror or exc}); "
                f"{len(written)} of the profiles were written"
            ) from None
    return written

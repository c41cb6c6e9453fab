"""Several run folders as one: runs made on different machines (a node each of a
cluster without MPI, the same suite on two laptops) become one run folder that
``harness report``, ``plot`` and ``compare`` take like any other.

Every row keeps what it was and gains ``host`` (its machine's name; where two
merged runs come from one machine, the run's name follows it, so that their
devices stay apart) and ``source_run`` (the folder it came from). Samples keep
their rows. The metadata lists each merged run's own under ``merged_from``,
and every device with its host.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness import __version__
from harness.errors import UsageError
from harness.execution import metadata, results


def _hostname(meta: dict[str, Any]) -> str:
    return str((meta.get("host") or {}).get("hostname") or "unknown host")


def merge(run_dirs: Sequence[Path], out: Path) -> Path:
    """Write the rows of ``run_dirs`` into a new run folder under ``out``."""
    if len(run_dirs) < 2:
        raise UsageError("merge: give at least two run folders")
    if len({d.resolve() for d in run_dirs}) != len(run_dirs):
        raise UsageError("merge: a run folder is given twice")
    metas = []
    for run_dir in run_dirs:
        results.check_folder(run_dir)
        metas.append(results.read_metadata(run_dir))
    machines = Counter(_hostname(m) for m in metas)
    # Runs are named by the second they began: two made apart can share a name.
    names = [d.name for d in run_dirs]
    if len(set(names)) < len(names):
        names = [f"{d.parent.name}/{d.name}" for d in run_dirs]
    merged = results.create(out)
    devices: list[dict[str, Any]] = []
    sources = []
    with results.lock(merged), results.writing(merged):
        journal = results.Journal(merged)
        for run_dir, name, meta in zip(run_dirs, names, metas, strict=True):
            host = _hostname(meta)
            if machines[host] > 1:
                host = f"{host} ({name})"
            samples = results.read_samples(run_dir)
            for line, row in enumerate(results.read_journal(run_dir), 1):
                row = dict(row, host=row.get("host") or host, source_run=name)
                if line in samples:
                    row["samples_s"] = samples[line]
                journal.append(row)
            devices += [dict(d, host=host) for d in meta.get("devices") or []]
            sources.append({**meta, "run": name, "path": str(run_dir.resolve())})
        journal.close()
        starts = [m["start"] for m in metas if m.get("start")]
        ends = [m["end"] for m in metas if m.get("end")]
        results.write_json(
            merged / results.METADATA,
            {
                "harness_version": __version__,
                "command": ["harness", "merge", *map(str, run_dirs)],
                "start": min(starts, default=metadata.now()),
                "end": max(ends, default=metadata.now()),
                "host": {"hostname": ", ".join(machines)},
                "devices": devices,
                # What reports know of each kernel (`KernelSpec.facts`), from every run.
                "kernels": {
                    name: facts
                    for m in metas
                    if isinstance(m.get("kernels"), dict)
                    for name, facts in m["kernels"].items()
                },
                "merged_from": sources,
            },
        )
        from harness.reporting import table

        results.finish(merged, table.format_rows(results.read_journal(merged)))
    return merged

"""Several run folders as one: runs made on different machines (a node each of a
cluster without MPI, the same suite on two laptops) become one run folder that
``harness report``, ``plot`` and ``compare`` take like any other.

Every row keeps what it was and gains ``host`` (its machine's name; where two
merged runs come from one machine, the run's name follows it, so that their
devices stay apart) and ``source_run`` (the folder it came from). Samples keep
their rows. The metadata lists each merged run's own under ``merged_from``,
and every device with its host.

A merge is refused where a run would count twice (given twice, under two
paths, or already inside a merged run given too) or is still being written;
the new folder appears only once it is complete.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from harness.errors import UsageError
from harness.execution import metadata, results
from harness.version import __version__


def hostname(run_dir: Path, meta: dict[str, Any]) -> str:
    """The machine a run's metadata names, or ""; RunFolderError where its name is not
    text, or holds a character that prints as nothing (a damaged metadata.json: no
    machine is named so), which would name no machine a row can be told by."""
    host = (meta.get("host") or {}).get("hostname") or ""
    if not isinstance(host, str) or not host.isprintable():
        raise results.RunFolderError(
            f"{Path(run_dir) / results.METADATA}: 'host.hostname' is {host!r}; text (the "
            "machine's name) is accepted"
        )
    return host


def _hostname(meta: dict[str, Any]) -> str:
    return str((meta.get("host") or {}).get("hostname") or "unknown host")


def _marks(meta: dict[str, Any], path: str, folder: Path | None = None) -> set[tuple[str, ...]]:
    """What identifies a run wherever its folder is now: its path, its ``run_id``
    (which a resume keeps: a copy taken before it and the run resumed are one run),
    its machine, command, start and end (a copy whose id was taken out is still
    the run, as is one written before ids), where it was imported, the hash of
    what it was imported from (imported twice, it is one run), and for a ``folder``
    at hand, its journal file (one linked from another run folder is that run's)."""
    marks = {("path", path)}
    with contextlib.suppress(OSError):
        if folder is not None:
            found = (folder / results.JOURNAL).stat()
            marks.add(("journal", f"{found.st_dev}:{found.st_ino}"))
    if meta.get("run_id"):
        marks.add(("id", str(meta["run_id"])))
    if meta.get("start"):
        marks.add(
            (_hostname(meta), str(meta.get("command")), str(meta["start"]), str(meta.get("end")))
        )
    if meta.get("imported_sha256"):
        marks.add(("imported", str(meta["imported_sha256"])))
    return marks


def same_run(
    first: Path, first_meta: dict[str, Any], second: Path, second_meta: dict[str, Any]
) -> bool:
    """Whether two run folders hold one run: the same folder, or a copy of it."""
    ours = _marks(first_meta, str(first.resolve()), first)
    theirs = _marks(second_meta, str(second.resolve()), second)
    return bool(ours & theirs) or _one_journal(first, first_meta, second, second_meta)


def _one_journal(
    first: Path, first_meta: dict[str, Any], second: Path, second_meta: dict[str, Any]
) -> bool:
    """Whether two runs, one of which has lost its ``run_id``, have journals the
    same byte for byte: every row holds times measured, so one is a copy."""
    if first_meta.get("run_id") and second_meta.get("run_id"):
        return False
    digest = _journal_digest(first, first_meta)
    return digest is not None and digest == _journal_digest(second, second_meta)


def _journal_digest(run_dir: Path, meta: dict[str, Any]) -> str | None:
    """The hash of a run's journal, or None where it has none to tell it by: an
    empty one, or a merged run's (its sources' rows, which `shared_source` names)."""
    if meta.get("merged_from"):
        return None
    try:
        data = (run_dir / results.JOURNAL).read_bytes()
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest() if data else None


def shared_source(first: dict[str, Any], second: dict[str, Any]) -> str | None:
    """The name of a run merged into both of two merged runs (their metadata), or None."""
    theirs = [_marks(s, str(s.get("path"))) for s in inside(second)]
    for source in inside(first):
        marks = _marks(source, str(source.get("path")))
        if any(marks & other for other in theirs):
            return str(source.get("run"))
    return None


def within(outer: dict[str, Any], run_dir: Path, meta: dict[str, Any]) -> bool:
    """Whether the run at ``run_dir`` is one of those merged into the run whose
    metadata is ``outer``, at any depth."""
    own = _marks(meta, str(run_dir.resolve()))
    return any(_marks(s, str(s.get("path"))) & own for s in inside(outer))


def inside(meta: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The metadata of every run merged into this one, at any depth."""
    sources = meta.get("merged_from")
    for source in sources if isinstance(sources, list) else ():
        if isinstance(source, dict):
            yield source
            yield from inside(source)


def given_twice(run_dirs: Sequence[Path]) -> str | None:
    """The first run folder given twice (under the same path or another one to
    it), named both ways where they differ; None where each is given once."""
    seen: dict[Path, Path] = {}
    for run_dir in run_dirs:
        first = seen.setdefault(run_dir.resolve(), run_dir)
        if first is not run_dir:
            return str(first) if first == run_dir else f"{first} (as {run_dir})"
    return None


def check_distinct(
    run_dirs: Sequence[Path], metas: Sequence[dict[str, Any]], command: str = "merge"
) -> None:
    """UsageError (its message led by ``command``) where one run would count twice:
    the same run under two paths, a run already inside a merged run given too, or
    one run inside two of them."""
    own = [_marks(m, str(d.resolve()), d) for d, m in zip(run_dirs, metas, strict=True)]
    within = [
        [(str(s.get("run")), _marks(s, str(s.get("path")))) for s in inside(m)] for m in metas
    ]
    for i, first in enumerate(run_dirs):
        for j in range(i + 1, len(run_dirs)):
            second = run_dirs[j]
            if any(mark[0] == "imported" for mark in own[i] & own[j]):
                raise UsageError(
                    f"{command}: {first} and {second} are imports of the same RAJAPerf output "
                    "(the same files); give one of them"
                )
            if own[i] & own[j] or _one_journal(first, metas[i], second, metas[j]):
                raise UsageError(
                    f"{command}: {first} and {second} are the same run (one is a copy of the "
                    "other, perhaps taken before the run was resumed); give one of them"
                )
            for (outer, o), (inner, n) in (((first, i), (second, j)), ((second, j), (first, i))):
                if any(marks & own[n] for _, marks in within[o]):
                    raise UsageError(
                        f"{command}: {inner} is already inside {outer} (in its merged_from); its "
                        f"rows would count twice: give {outer} with the other runs only"
                    )
            shared = [name for name, marks in within[i] if any(marks & m for _, m in within[j])]
            if shared:
                raise UsageError(
                    f"{command}: {shared[0]} is inside both {first} and {second} (in their "
                    "merged_from); its rows would count twice: merge their sources instead"
                )


def _nesting(value: Any) -> int:
    """How many levels of objects and lists ``value`` nests (0 for a scalar)."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return 1 + max(map(_nesting, value), default=0)
    return 0


def _check_nesting(run_dir: Path, meta: dict[str, Any]) -> None:
    """UsageError for a run whose metadata, two levels down in the merged run's
    (``merged_from``), would nest past what readers take (`results.MAX_NESTING`):
    the merged run was written, and no command could read it."""
    if _nesting(meta) + 2 > results.MAX_NESTING:
        raise UsageError(
            f"merge: {run_dir / results.METADATA} nests {_nesting(meta)} levels, which in "
            f"the merged run's would pass the {results.MAX_NESTING} a run folder may hold; "
            "merge its sources instead"
        )


def _check_ended(run_dir: Path, meta: dict[str, Any], rows: int) -> None:
    """UsageError for a run being written now; a warning for one that never ended."""
    holder = results.writer(run_dir)
    if holder is not None:
        raise UsageError(
            f"merge: {run_dir} is still being written ({holder}); wait for it to end "
            "(or stop it), then merge"
        )
    if not rows:
        raise UsageError(f"merge: {run_dir}: the journal has no readable rows; nothing to merge")
    if meta.get("start") and not meta.get("end"):
        print(
            f"warning: {run_dir}: its metadata has no end (a run killed before it ended, or "
            f"one still being written on another machine): merging the {rows} rows it has now",
            file=sys.stderr,
        )
    elif meta.get("interrupted"):
        print(
            f"warning: {run_dir}: the run was interrupted: merging the {rows} rows it has",
            file=sys.stderr,
        )


def run_names(run_dirs: Sequence[Path]) -> list[str]:
    """Each run's name in a merge: its folder's, or where two share it (runs are named
    by the second they began, so two made apart can), as many of the folders above
    it as tell them apart; the same two names would leave their rows alike."""
    paths = [d.resolve() for d in run_dirs]
    for depth in range(1, max(len(p.parts) for p in paths) + 1):
        names = [_printable("/".join(p.parts[-depth:])) for p in paths]
        if len(set(names)) == len(names):
            return names
    return [_printable(str(p)) for p in paths]


def _printable(name: str) -> str:
    """A folder's name with each character that prints as nothing (a line break)
    escaped: it names the rows' host, and one across two lines split the table."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in name)


def union_facts(metas: Sequence[dict[str, Any]], names: Sequence[str]) -> dict[str, Any]:
    """Every kernel's facts (`KernelSpec.facts`) from the runs' metadata, the first run's
    where two differ (as reports read them), with a warning naming what differs: runs of
    two versions of a kernel's description are merged, not silently made one."""
    union: dict[str, Any] = {}
    first: dict[str, str] = {}
    for meta, name in zip(metas, names, strict=True):
        kernels = meta.get("kernels")
        for kernel, facts in (kernels if isinstance(kernels, dict) else {}).items():
            if kernel not in union:
                union[kernel], first[kernel] = facts, name
                continue
            known = union[kernel]
            if facts == known:
                continue
            fields = (
                sorted(k for k in {*facts, *known} if facts.get(k) != known.get(k))
                if isinstance(facts, dict) and isinstance(known, dict)
                else ["all"]
            )
            held = ""
            if {"tolerance", "own_check", "all"} & set(fields) and isinstance(known, dict):
                # Rows checked to two tolerances: neither is held against the other's.
                union[kernel] = {k: v for k, v in known.items() if k != "own_check"}
                held = "; its rows are held to neither's tolerance"
            print(
                f"warning: {kernel} is described differently in {first[kernel]} and {name}"
                f" ({', '.join(fields)}); the merged run keeps {first[kernel]}'s, and each"
                f" run's own stays in merged_from{held}",
                file=sys.stderr,
            )
    return union


def merge(
    run_dirs: Sequence[Path], out: Path, summarise: Callable[[list[dict[str, Any]]], str]
) -> Path:
    """Write the rows of ``run_dirs`` into a new run folder under ``out``, with
    ``summarise(rows)`` as its summary.txt (the caller formats: execution knows no
    table). ``out`` is probed before any run is read, leaving no folder made,
    so that runs refused leave none."""
    with results.before_new(out):
        metas, journals, damaged = _read_runs(run_dirs, out)
    machines = Counter(_hostname(m) for m in metas)
    # A machine in more than one run (as the run's host, or an MPI rank's in its
    # rows) gets each run's name after it, so that the runs' devices stay apart.
    shared = Counter(
        host
        for meta, (rows, _) in zip(metas, journals, strict=True)
        for host in {_hostname(meta), *(str(r["host"]) for _, r in rows if r.get("host"))}
    )

    def named(host: str, run: str) -> str:
        return f"{host} ({run})" if shared[host] > 1 else host

    names = run_names(run_dirs)
    # Each run's hosts by the label its rows take; a label another run's host took
    # already (a merged run's "vm (nightly)" beside a run named nightly from vm) is
    # numbered, so that two runs' rows are never one device's.
    labels: list[dict[str, str]] = []
    taken: set[str] = set()
    for meta, (rows, _), name in zip(metas, journals, names, strict=True):
        hosts = {_hostname(meta), *(str(r["host"]) for _, r in rows if r.get("host"))}
        own: dict[str, str] = {}
        for host in sorted(hosts):
            label = first = named(host, name)
            count = 1
            while label in taken:
                count += 1
                label = f"{first} #{count}"
            own[host] = label
        taken.update(own.values())
        labels.append(own)

    kernels = union_facts(metas, names)
    # A run that names its kernels only (imported, or made before kernel facts) adds
    # them with no facts: its rows are the merged run's too.
    for rows, _ in journals:
        for _, row in rows:
            kernels.setdefault(row["kernel"], {})

    def fill(merged: Path) -> None:
        devices: list[dict[str, Any]] = []
        sources = []
        # The merged folder is named only once whole: its rows go to disk at once.
        journal = results.Journal(merged, each=False)
        try:
            for run_dir, name, meta, (rows, samples), lost, label in zip(
                run_dirs, names, metas, journals, damaged, labels, strict=True
            ):
                host = label[_hostname(meta)]
                for line, row in rows:
                    own = label[str(row["host"])] if row.get("host") else host
                    row = dict(row, host=own, source_run=name)
                    if line in samples:
                        row["samples_s"] = samples[line]
                    journal.append(row)
                # A merged run's devices name their hosts, as its rows do, and keep
                # the peaks their run placed their rows against (one id is a device
                # of each host, so the metadata's peaks by id cannot hold them).
                measured = meta.get("peaks") if isinstance(meta.get("peaks"), dict) else {}
                devices += [
                    dict(
                        d,
                        host=label.get(str(d["host"]), host) if d.get("host") else host,
                        **(
                            {"peaks": d.get("peaks") or measured.get(str(d.get("id")))}
                            if d.get("peaks") or measured.get(str(d.get("id")))
                            else {}
                        ),
                    )
                    for d in meta.get("devices") or []
                ]
                source = {**meta, "run": name, "path": str(run_dir.resolve())}
                lines, missing, repeats = lost
                # A case measured twice keeps its first row, as when the run is read: the
                # merged run's gate must not take that row for the run's measurement.
                sources.append(
                    source
                    | ({"damaged_lines": lines} if lines else {})
                    | ({"missing_rows": missing} if missing else {})
                    | ({"repeated_cases": [list(r) for r in repeats]} if repeats else {})
                )
            journal.sync()
        finally:
            journal.close()
        starts = [m["start"] for m in metas if m.get("start")]
        ends = [m["end"] for m in metas if m.get("end")]
        results.write_json(
            merged / results.METADATA,
            {
                "harness_version": __version__,
                "format": results.FORMAT,
                "command": ["harness", "merge", *map(str, run_dirs)],
                "run_id": metadata.new_id(),
                # By the time each names, whatever its host's offset from UTC.
                "start": min(starts, key=_instant, default=metadata.now()),
                "end": max(ends, key=_instant, default=metadata.now()),
                "host": {"hostname": ", ".join(machines)},
                "devices": devices,
                # What reports know of each kernel (`KernelSpec.facts`), from every run.
                "kernels": kernels,
                "merged_from": sources,
                "journal_rows": sum(len(rows) for rows, _ in journals),
                # A run merged before it ended leaves the merged run short of its
                # work too: compare fails on it, as on the run itself.
                "interrupted": any(
                    m.get("interrupted") or (m.get("start") and not m.get("end")) for m in metas
                ),
            },
        )
        results.finish(merged, summarise(results.read_journal(merged)))

    return results.write_new(out, fill)


def _read_runs(
    run_dirs: Sequence[Path], out: Path
) -> tuple[list[dict[str, Any]], list[tuple[list, dict]], list[tuple[list[int], int, list]]]:
    """The metadata, the numbered rows and samples, and the losses (damaged lines,
    rows missing, cases repeated) of each run a merge takes; UsageError where the
    runs cannot be merged into ``out``."""
    if len(run_dirs) < 2:
        raise UsageError("merge: give at least two run folders")
    twice = given_twice(run_dirs)
    if twice:
        raise UsageError(
            f"merge: a run folder is given twice: {twice}; its rows would count twice: give it once"
        )
    target = out.resolve()
    for run_dir in run_dirs:
        if run_dir.resolve() == target or run_dir.resolve() in target.parents:
            raise UsageError(
                f"merge: --out {out} is inside {run_dir}, a run folder it merges; the merged "
                "run would be written into one of its sources: give --out another folder"
            )
    # Before any run is read: reading warns of damaged lines, which were printed
    # ahead of a refusal of the --out they could never be merged into.
    results.check_out(out, keep=False)
    metas = []
    for run_dir in run_dirs:
        results.check_folder(run_dir)
        metas.append(results.read_metadata(run_dir))
        hostname(run_dir, metas[-1])
        _check_nesting(run_dir, metas[-1])
    check_distinct(run_dirs, metas)
    journals = []
    damaged = []
    for run_dir, meta in zip(run_dirs, metas, strict=True):
        rows = results.read_numbered(run_dir)
        _check_ended(run_dir, meta, len(rows))
        if not any(inside(meta)) and any(r.get("source_run") for _, r in rows):
            raise UsageError(
                f"merge: {run_dir}'s rows name the runs they came from (source_run), so it is "
                f"a merged run, but its {results.METADATA} has no merged_from: which runs it "
                "holds cannot be told, and one of them given beside it would count twice"
            )
        journals.append((rows, results.read_samples(run_dir)))
        damaged.append(
            (
                results.damaged_lines(run_dir),
                results.missing_rows(run_dir),
                results.repeated_cases(run_dir),
            )
        )
    return metas, journals, damaged


def _instant(text: str) -> float:
    """A metadata time as seconds since the epoch (one without an offset as UTC)."""
    when = results.read_time(text)
    if when is None:
        return 0.0
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.timestamp()

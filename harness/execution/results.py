"""Run folders: the journal written row by row, the metadata, results.csv.

The journal (one JSON object per line, flushed and synced as each row ends)
is the record of truth: results.csv and summary.txt are derived from it, at
the end of a run or by any later command that reads an interrupted one.

A run folder has one writer at a time: the process running (or resuming) it
holds ``.lock`` (an OS file lock, gone when the process is) and names itself
in ``.lock.owner``, so that a second writer can say who has the folder.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import dataclasses
import datetime
import errno
import io
import itertools
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import stat
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import filelock

from harness.errors import UsageError
from harness.model.modes import CACHE_MODES, TRANSFER_MODES
from harness.model.spec import PRECISIONS

JOURNAL = "journal.jsonl"
SAMPLES = "samples.jsonl"
#: Folder of the pictures kernels that draw one save (`KernelSpec.image`).
IMAGES = "images"
METADATA = "metadata.json"
#: The run folder's format, in its metadata: from 2 a run (or merge or import)
#: counts its journal's rows at its end (``journal_rows``), so a count removed
#: is damage, not a run of a version that did not count them.
FORMAT = 2
#: Metadata keys a run never writes as null.
NEVER_NULL = ("format", "journal_rows", "devices", "unread_lines")
RESULTS = "results.csv"
SUMMARY = "summary.txt"
LOCK = ".lock"
OWNER = ".lock.owner"

#: results.csv columns, in order; rows may carry more, appended after these.
COLUMNS = (
    "kernel",
    "group",
    "backend",
    "device_id",
    "device",
    "precision",
    "cache",
    "transfers",
    "work_group",
    "partition",
    "size",
    "reps",
    "batch",
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
    "time_q1_s",
    "time_q3_s",
    "time_ci_low_s",
    "time_ci_high_s",
    "samples",
    "noise",
    "noise_target",
    "noise_met",
    "stop",
    "unstable",
    "gbytes_per_s",
    "gflops_per_s",
    "bytes_per_rep",
    "flops_per_rep",
    "timer",
    "h2d_s",
    "kernel_s",
    "d2h_s",
)

STATUSES = ("ok", "fail", "error", "skipped")

#: Columns every journal row has, as text: what tables, reports and resumes key on.
REQUIRED = ("kernel", "device_id", "status")
#: Columns that hold text (or null) where a row has them: reports group and label by
#: them, and tables show them (a reason of 1e+30 was shown as the row's reason).
TEXT = (
    "precision",
    "device",
    "group",
    "reason",
    "timer",
    "stop",
    "queue",
    "partition",
    "wgsl_checks",
    "device_api",
    "device_driver",
    "transfer_timer",
    "clocks_note",
    "host",
    "source_run",
    "source",
    "source_sha256",
)
#: Columns that hold true or false (or null) where a row has them: reports count them.
BOOLEAN = ("unstable", "noise_met", "clocks_dropped")
#: What a row counts of its kernel's work per repetition besides bytes_per_rep and
#: flops_per_rep: RAJAPerf's kernel-details columns are written from them, where text
#: or a boolean in one was a traceback or a count of 1.
WORK_COUNTS = (
    "bytes_allocated",
    "bytes_read_per_rep",
    "bytes_written_per_rep",
    "bytes_modify_written_per_rep",
    "bytes_atomic_modify_written_per_rep",
    "iterations_per_rep",
)
#: Columns that hold numbers (or null) where a row has them.
NUMERIC = (
    "rank",
    "size",
    "work_group",
    "reps",
    "batch",
    "warmup",
    "launches",
    "max_rel_error",
    "checksum",
    "time_min_s",
    "time_median_s",
    "time_mean_s",
    "time_max_s",
    "time_std_s",
    "time_q1_s",
    "time_q3_s",
    "time_ci_low_s",
    "time_ci_high_s",
    "samples",
    "noise",
    "noise_target",
    "flush_bytes",
    "pct_peak_bw",
    "pct_peak_flops",
    "clock_ramp_s",
    "clock_max_mhz",
    "clock_mhz_before",
    "clock_mhz_after",
    "temp_c_before",
    "temp_c_after",
    "gbytes_per_s",
    "gflops_per_s",
    "bytes_per_rep",
    "flops_per_rep",
    "keys_per_s",
    "h2d_s",
    "kernel_s",
    "d2h_s",
    "h2d_bytes_per_rep",
    "d2h_bytes_per_rep",
    "host_s",
    "timed_wall_s",
    "power_w",
    "energy_j_per_rep",
    "gflops_per_j",
    "gbytes_per_j",
    *WORK_COUNTS,
)
#: Numeric columns that count something: whole numbers from 0 to `MAX_COUNT`.
COUNTS = (
    "rank",
    "size",
    "work_group",
    "reps",
    "batch",
    "warmup",
    "launches",
    "samples",
    "bytes_per_rep",
    "flops_per_rep",
    "flush_bytes",
    "h2d_bytes_per_rep",
    "d2h_bytes_per_rep",
    *WORK_COUNTS,
)
#: Numeric columns that hold a check's outcome, which may be any number: a
#: failed check's error can be infinite, a broken kernel's checksum NaN.
OUTCOMES = ("max_rel_error", "checksum")
#: The largest count, time in seconds (a repetition longer than about four
#: months), rate per second and other number a row may hold: beyond them a
#: number is damage, not a measurement.
MAX_COUNT, MAX_SECONDS, MAX_RATE, MAX_OTHER = 1e18, 1e7, 1e15, 1e15
#: The shortest time a row can hold but 0.
MIN_SECONDS = 1e-12
#: Numeric columns that hold a clock in MHz: from 0 to `MAX_MHZ`, a thousand
#: times today's; above it, or below 0, is damage, which the clock notes showed
#: as a row timed at "2445 of 100000000000000 MHz".
CLOCKS = ("clock_max_mhz", "clock_mhz_before", "clock_mhz_after")
MAX_MHZ = 1e6
#: Numeric columns that hold a share of a device's peak in percent: from 0 (above 100
#: where the data sat in a cache); below 0 is damage, which reports showed as "-50%".
PERCENTS = ("pct_peak_bw", "pct_peak_flops")
#: Numeric columns that hold a row's energy (`energy.COLUMNS`): from 0; below it is
#: damage, which was read as a row drawing -1 W.
ENERGY = ("power_w", "energy_j_per_rep", "gflops_per_j", "gbytes_per_j")


def _kernel_facts(facts: Any) -> bool:
    """Whether one kernel's facts in metadata.json (`KernelSpec.facts`) are of the
    shapes the reports read them as."""
    if not isinstance(facts, dict):
        return False
    tolerance = facts.get("tolerance") or {}
    return (
        isinstance(facts.get("params") or {}, dict)
        and isinstance(tolerance, dict)
        and all(isinstance(t, int | float) and not isinstance(t, bool) for t in tolerance.values())
        and all(isinstance(facts.get(k) or "", str) for k in ("group", "items"))
    )


def peak_shaped(peak: Any) -> bool:
    """Whether one device's peaks (`harness peak`, as a store or a run's metadata
    holds them) are of the shapes readers take: an object, its FMA rates an object
    by precision, its notes and warnings lists."""
    return (
        isinstance(peak, dict)
        and isinstance(peak.get("fma_gflops_per_s") or {}, dict)
        and all(isinstance(peak.get(k) or [], list) for k in ("notes", "warnings"))
    )


#: The metadata.json entries that readers use: what each must be where present.
def read_time(value: Any) -> datetime.datetime | None:
    """A metadata time (ISO 8601, as `metadata.now` writes it), or None where the
    value is none."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.datetime.fromisoformat(value)
    except ValueError:
        return None


METADATA_SHAPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "host": ("an object", lambda v: isinstance(v, dict)),
    "libraries": ("an object", lambda v: isinstance(v, dict)),
    "options": ("an object", lambda v: isinstance(v, dict)),
    "devices": (
        "a list of objects",
        lambda v: isinstance(v, list) and all(isinstance(d, dict) for d in v),
    ),
    "command": (
        "a list of strings",
        lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v),
    ),
    "run_id": ("text (an identifier)", lambda v: isinstance(v, str) and v != ""),
    "format": (
        f"a whole number from 1 (the run folder's format: this harness reads up to {FORMAT})",
        lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_COUNT,
    ),
    "journal_rows": (
        "a whole number (the rows the journal held at the run's end)",
        lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_COUNT,
    ),
    "start": ("a time as 2026-01-31T12:00:00+0000", lambda v: read_time(v) is not None),
    "end": ("a time as 2026-01-31T12:00:00+0000", lambda v: read_time(v) is not None),
    "interrupted": ("true or false", lambda v: isinstance(v, bool)),
    "kernels": (
        "a list of kernel names, or an object of each kernel's facts (objects: params an "
        "object, tolerance one of numbers, group and items text)",
        lambda v: (
            (isinstance(v, list) and all(isinstance(k, str) for k in v))
            or (isinstance(v, dict) and all(_kernel_facts(f) for f in v.values()))
        ),
    ),
    "ranks": (
        'a list of each MPI rank\'s {"rank": ..., "host": ..., "devices": [...]}',
        lambda v: isinstance(v, list) and all(isinstance(r, dict) for r in v),
    ),
    "merged_from": (
        "a list of objects (the merged runs' metadata)",
        lambda v: isinstance(v, list) and all(isinstance(m, dict) for m in v),
    ),
    "resumed_on": (
        'a list of the other hosts a resume ran on ({"host": text, "at": a time})',
        lambda v: (
            isinstance(v, list)
            and all(
                isinstance(e, dict)
                and isinstance(e.get("host"), str)
                and read_time(e.get("at")) is not None
                for e in v
            )
        ),
    ),
    "imported_from": ("text (a folder)", lambda v: isinstance(v, str)),
    "imported_sha256": ("text (a hash)", lambda v: isinstance(v, str)),
    "unread_lines": (
        'an object naming the imported file and its unread lines ({"file": text, '
        '"lines": a list of line numbers})',
        lambda v: (
            isinstance(v, dict)
            and isinstance(v.get("file"), str)
            and isinstance(v.get("lines"), list)
            and bool(v["lines"])
            and all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in v["lines"])
        ),
    ),
    "peaks": (
        "an object of each device's peaks (objects, FMA rates an object by precision, "
        "notes and warnings lists)",
        lambda v: isinstance(v, dict) and all(peak_shaped(p) for p in v.values()),
    ),
}


class RunFolderError(UsageError, RuntimeError):
    """A run folder that is missing, empty, unreadable or held by another writer."""


class WriteError(RunFolderError):
    """Writing into a run folder failed (a full disk, say); what was written stays."""

    def __init__(self, run_dir: Path, error: OSError) -> None:
        super().__init__(f"cannot write to run folder {run_dir}: {error.strerror or error}")
        self.run_dir = run_dir
        self.error = error


@contextlib.contextmanager
def writing(run_dir: Path) -> Iterator[None]:
    """Turn an OSError from writing into ``run_dir`` into a WriteError naming it."""
    try:
        yield
    except OSError as exc:
        raise WriteError(run_dir, exc) from exc


def _check_regular(path: Path) -> None:
    """RunFolderError where a run folder's file is there but is no regular file: a
    folder, or a link to a device or a pipe (/dev/zero, a FIFO), whose reading
    never ends or fills the memory; or a link to nothing or to itself, which
    passed for no file at all (a journal so linked was 'no journal.jsonl')."""
    if path.is_symlink() and not path.exists():
        raise RunFolderError(
            f"{path}: a link to nothing or to itself ({os.readlink(path)}); a run folder's "
            f"{path.name} is a file harness run writes"
        )
    if path.exists() and not path.is_file():
        raise RunFolderError(
            f"{path}: not a regular file (a folder, a device or a pipe); a run folder's "
            f"{path.name} is a file harness run writes"
        )


def check_folder(run_dir: Path) -> None:
    """Raise RunFolderError unless ``run_dir`` is a run folder (one with a journal),
    whose files are files. A path that names nothing is told by why: a loop of
    symbolic links, or a name too long, was 'no such run folder' (or a traceback)."""
    try:
        os.stat(run_dir)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RunFolderError(
                f"{run_dir}: a loop of symbolic links, which names no run folder; give the "
                "path of a real one"
            ) from None
        if exc.errno == errno.ENAMETOOLONG:
            raise RunFolderError(
                f"{run_dir}: a name longer than the file system takes, which names no run "
                "folder; give a shorter path"
            ) from None
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise RunFolderError(f"{run_dir}: cannot read it ({exc.strerror})") from None
        raise RunFolderError(f"{run_dir}: no such run folder") from None
    if not run_dir.is_dir():
        raise RunFolderError(f"{run_dir}: is a file, not a run folder")
    for name in (JOURNAL, SAMPLES, METADATA, RESULTS, SUMMARY):
        _check_regular(run_dir / name)
    if not (run_dir / JOURNAL).is_file():
        # A hidden folder is a new run folder still being written (`write_new`).
        runs = sorted(
            p.parent for p in run_dir.glob(f"*/{JOURNAL}") if not p.parent.name.startswith(".")
        )
        if runs:
            raise RunFolderError(
                f"{run_dir}: a folder of {len(runs)} run(s), not a run folder; "
                f"give one of them, e.g. {runs[-1]}"
            )
        raise RunFolderError(f"{run_dir}: not a run folder (no {JOURNAL} in it)")


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


def room_fix(number: int | None) -> str | None:
    """What to do where a write failed for want of room (by its errno), or None
    where it did not: a full disk or quota wants space freed, but a file grown
    past the limit on a file's size (``ulimit -f``, a FAT disk's 4 GiB) does not."""
    if number in (errno.ENOSPC, errno.EDQUOT):
        return "free some space"
    if number == errno.EFBIG:
        return "raise the limit on a file's size (ulimit -f) or write to another disk"
    return None


#: Bytes written (and synced) to find out whether an output folder takes files.
PROBE_BYTES = 1 << 16


def check_out(out: Path, named: str = "output folder", keep: bool = True) -> None:
    """Make the output folder ``out`` if missing and check that it takes a file
    (a probe written, synced and removed), so that an output that cannot be
    written is found before the work, not after it; UsageError in one line, the
    folder ``named`` as the command calls it, if not: a path that is a file, a
    link to nothing, a read-only folder, a full disk. Not ``keep``: the folders
    made for the probe are removed again, for a command that may yet refuse its
    inputs and should leave nothing behind."""
    accepted = "give --out a folder this user can write, on a disk with free space"
    if out.exists() and not out.is_dir():
        raise UsageError(f"{named} {out}: is a file, not a folder; {accepted}")
    if out.is_symlink() and not out.exists():
        raise UsageError(f"{named} {out}: a link to nothing ({os.readlink(out)}); {accepted}")
    # The folders this call makes, deepest first: a refusal removes them again,
    # so that a refused command leaves no empty folder behind.
    made = [p for p in (out, *out.parents) if not p.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".probe-") as probe:
            probe.write(bytes(PROBE_BYTES))
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        how = "write there" if out.is_dir() else "make it"
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise UsageError(
            f"{named} {out}: cannot {how} ({exc.strerror or exc}); {accepted}"
        ) from None
    if not keep:
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()


#: The signals that stop a command: Ctrl-C, SIGTERM (a batch system's stop) and
#: SIGHUP (its terminal closed), which killed a run unmarked, its summary unwritten,
#: unless the process started with SIGHUP ignored (``nohup``), which asks to run on.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM) + (
    () if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN else (signal.SIGHUP,)
)


def stop_name(signum: int) -> str:
    """How a stop signal is named in what the command says: "interrupt" for Ctrl-C."""
    return "interrupt" if signum == signal.SIGINT else signal.Signals(signum).name


@contextlib.contextmanager
def stop_signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held off while a stopped command removes what it had
    begun, then taken: a second one raised there cut the removal short (a report's
    RAJAPerf files left without their report.md, passing for raja-perf.exe's). They
    are noted, not masked: a mask holds in one thread, and a library's threads
    (OpenBLAS's) took the signal. Only the main thread may handle signals, and a
    handler a C library set (None to Python) could not be put back."""
    stops = STOP_SIGNALS
    main = threading.current_thread() is threading.main_thread()
    if not main or any(signal.getsignal(s) is None for s in stops):
        yield
        return
    came: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: came.append(signum)) for s in stops}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if came and callable(previous[came[0]]):
            previous[came[0]](came[0], None)
        elif came and previous[came[0]] == signal.SIG_DFL:
            signal.raise_signal(came[0])


@contextlib.contextmanager
def no_earlier_left(
    out: Path, planned: list[Path], what: str, keep_own: bool = True
) -> Iterator[None]:
    """Where the writing stops short (Ctrl-C, SIGTERM, a full disk), remove the files
    of ``planned`` that an earlier report or plot left in ``out`` and this one had
    not yet replaced: beside the files this one wrote, they would pass for its own
    (a report.md of other runs beside this report's RAJAPerf files). Without
    ``keep_own`` the files this one wrote go too: a set that is whole or not at
    all (a report's RAJAPerf files without its report.md pass for raja-perf.exe's)."""
    before = {path: path.stat().st_ino for path in planned if path.is_file()}
    try:
        yield
    except (KeyboardInterrupt, OSError) as exc:
        with stop_signals_held():
            # Every file is replaced whole (a new inode), so one of the same inode is earlier.
            stale = [p for p, ino in before.items() if p.is_file() and p.stat().st_ino == ino]
            own = [] if keep_own else [p for p in planned if p.is_file() and p not in stale]
            kept: list[tuple[Path, OSError]] = []
            for path in (*stale, *own):
                try:
                    path.unlink(missing_ok=True)
                except OSError as error:
                    kept.append((path, error))
            # Folders (a report's per-size ones) left empty go too: those that held only
            # what was removed, and one made for files the signal came before.
            emptied = {p.parent for p in (*stale, *own, *planned) if p.parent != out}
            for folder in sorted(emptied, key=lambda f: len(f.parts), reverse=True):
                with contextlib.suppress(OSError):
                    folder.rmdir()
            if (stale or own) and isinstance(exc, KeyboardInterrupt):
                earlier = f"{len(stale)} file(s) of an earlier {what}"
                said = (
                    f"removed {earlier} from {out} that this one had not yet replaced"
                    if not own
                    else f"removed the {len(own)} file(s) it had written"
                    + (f" and {earlier} that it had not yet replaced" if stale else "")
                    + f" from {out}: a {what} is whole or not at all"
                )
                print(f"\nnote: {what} interrupted: {said}", file=sys.stderr)
            if kept:
                _left_behind(out, exc, kept, stale, what)
        raise


def _left_behind(
    out: Path,
    exc: BaseException,
    kept: list[tuple[Path, OSError]],
    stale: list[Path],
    what: str,
) -> None:
    """Say which files a stopped report, plot or export could not remove (an immutable
    file, a folder made read-only): beside the others they pass for one whole
    ``what``. UsageError for a write that failed; a note for an interrupt, which
    goes on as one."""
    path, error = kept[0]
    whose = f"an earlier {what}'s" if path in stale else f"this {what}'s"
    said = (
        f"it could not remove {path} ({error.strerror or error}), {whose}, which is no "
        f"whole {what}: remove it, then run it again"
        if len(kept) == 1
        else f"it could not remove {len(kept)} files ({path} ({error.strerror or error}) "
        f"and {len(kept) - 1} more), which are no whole {what}: remove them, then run it again"
    )
    if isinstance(exc, KeyboardInterrupt):
        print(f"note: {said}", file=sys.stderr)
        return
    at = f" at {exc.filename}" if isinstance(exc, OSError) and exc.filename else ""
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
    raise UsageError(f"output folder {out}: writing stopped{at} ({reason}); {said}") from None


@contextlib.contextmanager
def output_folder(out: Path) -> Iterator[None]:
    """`check_out` for a report or plot, whose folders it made are removed again
    where the command then fails or is interrupted before writing into them: a
    report stopped while its plots were drawn left an empty folder behind."""
    made = [p for p in (out, *out.parents) if not p.exists()]
    check_out(out)
    try:
        yield
    except BaseException:
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


@contextlib.contextmanager
def hold_output(out: Path) -> Iterator[None]:
    """Hold the output folder ``out`` of a report, plot or export (which must exist)
    against another command writing into it at once; UsageError in one line if one
    is: two plots of different runs into one folder left each file as whichever
    wrote it last, a mix of the two passing for one plot. The lock is the folder's
    own (flock), which leaves no file behind; where there is no flock (Windows, a
    file system without locks, a folder this user cannot open), there is none."""
    try:
        import fcntl

        handle = os.open(out, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        raise UsageError(
            f"output folder {out}: another harness command is writing into it now; "
            "wait for it to end, or give another --out"
        ) from None
    except OSError:
        pass
    try:
        yield
    finally:
        os.close(handle)


def written_now(folder: Path) -> bool:
    """Whether another command holds ``folder`` as its output now (`hold_output`):
    what is there may be half of what it writes (a report's RAJAPerf files come
    before its report.md, which tells them from raja-perf.exe's). False where there
    is no such lock to ask (no flock, a folder this user cannot open)."""
    try:
        import fcntl

        handle = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(handle)
    return False


@contextlib.contextmanager
def before_new(out: Path) -> Iterator[None]:
    """The reading a new run folder under ``out`` waits on (`write_new`): a stop
    signal there says nothing of the folder was begun, where 'what it was writing
    may be incomplete' alone sent the user looking for it."""
    try:
        yield
    except KeyboardInterrupt:
        print(
            f"\nnote: interrupted before the new run folder in {out} was begun: nothing "
            "of it was written",
            file=sys.stderr,
        )
        raise


def write_new(out: Path, fill: Callable[[Path], None]) -> Path:
    """A new run folder under ``out``, written whole or not at all: ``fill`` writes
    into a hidden folder, held for writing, which is named as `create` names a
    run folder only once ``fill`` has returned; on any failure it is removed, so
    that no partial folder passes for a run."""
    check_out(out)
    staging = Path(tempfile.mkdtemp(prefix=".partial-run-", dir=out))
    made: Path | None = None
    whole = False
    try:
        with lock(staging):
            fill(staging)
        # Named and moved with stop signals held: one just after the move said
        # 'nothing of it is left' of a folder there whole, which a rerun doubled.
        with stop_signals_held():
            made = create(out)
            try:
                os.replace(staging, made)
            except OSError:
                made.rmdir()
                raise
            whole = True
    except (OSError, WriteError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        error = exc.error if isinstance(exc, WriteError) else exc
        raise RunFolderError(
            f"cannot write a new run folder in {out} ({error.strerror or error}); nothing of "
            f"it is left: free some space or make {out} writable, then try again"
        ) from None
    except BaseException as exc:
        if whole and made is not None:
            if isinstance(exc, KeyboardInterrupt):
                print(
                    f"\nnote: interrupted once the new run folder was whole: {made}",
                    file=sys.stderr,
                )
            raise
        with stop_signals_held():
            shutil.rmtree(staging, ignore_errors=True)
            # A signal between naming the run and moving it there left the name empty.
            if made is not None:
                with contextlib.suppress(OSError):
                    made.rmdir()
            if isinstance(exc, KeyboardInterrupt):
                # 'What it was writing may be incomplete' sent the user looking for it.
                print(
                    f"\nnote: interrupted before the new run folder in {out} was whole: "
                    "nothing of it is left",
                    file=sys.stderr,
                )
        raise
    return made


def discard(run_dir: Path) -> None:
    """Remove a run folder that holds nothing but its lock (a run that could not start)."""
    with contextlib.suppress(OSError):
        for name in (OWNER, LOCK):
            (run_dir / name).unlink(missing_ok=True)
        run_dir.rmdir()


def _check_lock_file(path: Path) -> None:
    """RunFolderError where a run folder's ``.lock`` is there but is no regular file
    (a folder, a pipe): no run makes one, and 'make it writable' was no fix for it."""
    if path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "no regular file"
        raise RunFolderError(
            f"{path} is {kind}, not the lock file a run makes; remove it, then try again"
        )


@contextlib.contextmanager
def lock(run_dir: Path) -> Iterator[None]:
    """Hold the run folder for writing; RunFolderError naming the holder if another has it.

    The lock is the operating system's, so a killed writer leaves the folder free.
    """
    _check_lock_file(run_dir / LOCK)
    held = filelock.FileLock(run_dir / LOCK, timeout=0)
    try:
        held.acquire()
        _HELD.add(run_dir.resolve())
    except filelock.Timeout:
        raise RunFolderError(
            f"{run_dir} is in use by another harness run ({_owner(run_dir)}); "
            "wait for it to end or stop it, then try again"
        ) from None
    except OSError as exc:
        raise WriteError(run_dir, exc) from exc
    try:
        # The owner note only helps a second writer say who; a full disk must not stop the run.
        with contextlib.suppress(OSError):
            write_json(
                run_dir / OWNER,
                {
                    "pid": os.getpid(),
                    "host": platform.node(),
                    "since": time.strftime("%Y-%m-%d %H:%M:%S"),
                },
            )
        yield
    finally:
        with contextlib.suppress(OSError):
            (run_dir / OWNER).unlink(missing_ok=True)
        _HELD.discard(run_dir.resolve())
        held.release()


#: The run folders this process holds (`lock`): what it reads there (a resume's
#: journal with a torn last line) is no row in flight of another writer's.
_HELD: set[Path] = set()


def writer(run_dir: Path) -> str | None:
    """Who is writing ``run_dir`` now (its lock is held: a run or resume in
    progress), or None where no one is or it cannot be told (a read-only folder)."""
    if not (run_dir / LOCK).exists():
        return None
    probe = filelock.FileLock(run_dir / LOCK, timeout=0)
    try:
        probe.acquire()
    except filelock.Timeout:
        return _owner(run_dir)
    except OSError:
        return None
    probe.release()
    return None


def _owner(run_dir: Path) -> str:
    """Who holds a run folder's lock, as its owner note says; not a process of this
    host that the note cannot be of: a note a killed run left behind (the lock then
    held by another, as a probe of `writer`) named a pid that had ended, or that a
    later process had taken, as the one to wait for or stop."""
    unknown = "its process did not say which"
    try:
        owner = json.loads((run_dir / OWNER).read_text(encoding="utf-8"))
        pid, host, since = owner["pid"], owner["host"], owner["since"]
    except (OSError, ValueError, TypeError, KeyError):
        return unknown
    if host == platform.node() and not _running_since(pid, since):
        return unknown
    return f"pid {pid} on {host}, since {since}"


def _running_since(pid: Any, since: Any) -> bool:
    """Whether process ``pid`` of this host is running and began by ``since`` (an
    owner note's time); True where the start cannot be told (no /proc)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass  # another user's process, which is running
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
        ticks = int(stat.rsplit(")", 1)[1].split()[19])
        boot = next(
            int(line.split()[1])
            for line in Path("/proc/stat").read_text(encoding="ascii").splitlines()
            if line.startswith("btime ")
        )
        noted = time.mktime(time.strptime(str(since), "%Y-%m-%d %H:%M:%S"))
    except (OSError, ValueError, IndexError, StopIteration):
        return True
    # The note's time is in whole seconds, as /proc's boot time is.
    return boot + ticks / os.sysconf("SC_CLK_TCK") <= noted + 2


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (write a temporary file, then rename)."""
    write_text(path, json.dumps(data, indent=2, default=str) + "\n")


#: Stop signals whose KeyboardInterrupt was lost where it was raised (a weakref
#: callback or finalizer, which Python only reports): `lost_stop` counts them.
_LOST_STOPS: list[int] = []


def lost_stop() -> None:
    """Count a stop signal whose KeyboardInterrupt was swallowed: the next file
    `write_whole` would write raises it again, so that the command stops there."""
    _LOST_STOPS.append(1)


def lost_stops() -> bool:
    """Whether a lost stop signal (`lost_stop`) was never raised again: the command
    wrote no file after it."""
    return bool(_LOST_STOPS)


def forget_lost_stops() -> None:
    """Forget the lost stop signals counted (a command's end: the next starts clean)."""
    _LOST_STOPS.clear()


def write_whole(path: Path, write: Callable[[Path], None]) -> None:
    """Have ``write`` write a temporary file beside ``path``, then rename it over
    ``path``: on a failure or an interruption (Ctrl-C, SIGTERM) the old file stays
    and the temporary one goes, so that no file is left cut short (a plot saved
    half-way, under its own name, looked whole). A stop signal lost before
    (`lost_stop`) stops the command here, before the file."""
    if _LOST_STOPS:
        _LOST_STOPS.clear()
        raise KeyboardInterrupt
    tmp = path.with_name(path.name + ".tmp")
    clear_pipe(tmp)
    try:
        write(tmp)
        try:
            os.replace(tmp, path)
        except OSError as exc:
            # Named by the file it was to replace: the temporary one is gone.
            raise OSError(exc.errno, exc.strerror, str(path)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise


def clear_pipe(tmp: Path) -> None:
    """Remove a pipe (or a link to one) left at a temporary file's name ``tmp``:
    opening it to write waits for a reader for ever, and the command hung there."""
    with contextlib.suppress(OSError):
        if stat.S_ISFIFO(tmp.stat().st_mode):
            tmp.unlink()


def write_text(path: Path, text: str) -> None:
    """Write ``text`` whole or not at all (`write_whole`), in UTF-8: a path's bytes
    that were no UTF-8 (a report names its runs' folders) as backslash escapes,
    where they ended the command in a traceback."""

    def write(tmp: Path) -> None:
        with tmp.open("w", encoding="utf-8", errors="backslashreplace", newline="") as f:
            f.write(text)

    write_whole(path, write)


class Journal:
    """Appends rows to a run's journal; each row is on disk before the next starts.

    A row's raw samples (``samples_s``: a repetition's time, or a batch's mean per
    repetition, ``batch`` saying how many) go to samples.jsonl instead, in whole
    nanoseconds (``samples_ns``), one line per row, written before the row and
    keyed by the row's line number in the journal (``row``): a row in the
    journal has its samples on disk.

    A journal written whole into a folder no reader sees until it is named (a
    merge's, an import's: `write_new`) needs no row on disk before the next:
    ``each=False`` forces its rows to disk once, at `sync`, where a sync per row
    made a merge of a few runs spend seconds in fsync.
    """

    def __init__(self, run_dir: Path, each: bool = True) -> None:
        self._each = each
        self.path = run_dir / JOURNAL
        _drop_torn_tail(self.path, parse_row)
        _drop_torn_tail(run_dir / SAMPLES, _parse_samples)
        self._rows = self.path.read_bytes().count(b"\n") if self.path.exists() else 0
        self._file = self.path.open("a", encoding="utf-8")
        self._samples = (run_dir / SAMPLES).open("a", encoding="utf-8")

    def append(self, row: dict[str, Any]) -> None:
        """Write one finished row (its samples first) and force it to disk."""
        row = dict(row)
        samples = row.pop("samples_s", None)
        self._rows += 1
        if samples:
            line = {
                "row": self._rows,
                "kernel": row.get("kernel"),
                "device_id": row.get("device_id"),
                "batch": row.get("batch", 1),
                "samples_ns": [round(t * 1e9) for t in samples],
            }
            _append_synced(self._samples, json.dumps(line, default=_plain), self._each)
        _append_synced(self._file, json.dumps(row, default=_plain), self._each)

    def sync(self) -> None:
        """Force every row written to disk (the samples first, as `append` does)."""
        for f in (self._samples, self._file):
            f.flush()
            os.fsync(f.fileno())

    def close(self) -> None:
        """Close the files (a write still buffered, which failed already, is dropped)."""
        for f in (self._file, self._samples):
            with contextlib.suppress(OSError):
                f.close()


def _append_synced(file: Any, line: str, sync: bool = True) -> None:
    file.write(line + "\n")
    if sync:
        file.flush()
        os.fsync(file.fileno())


def read_samples(run_dir: Path) -> dict[int, list[float]]:
    """Each row's raw samples in seconds (a repetition's time, or a batch's mean per
    repetition), by the row's line number in the journal (the last line for a
    number wins: a resumed run rewrites the samples of a row whose journal line
    a crash cut short). A damaged line is skipped with a warning naming it, and so
    is one whose kernel or device is not its journal line's: its times are
    another row's, or a row's that is gone."""
    path = Path(run_dir) / SAMPLES
    found: dict[int, list[float]] = {}
    try:
        lines = path.read_bytes().split(b"\n")
    except FileNotFoundError:
        return found
    except OSError as exc:
        raise RunFolderError(f"{path}: cannot read it ({exc.strerror})") from None
    rows = dict(_scan(run_dir).rows)
    damaged = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row, samples, of = _parse_samples(line)
            if row not in rows:
                continue  # a row a resume ran again (a cut line blanked), or one lost
            _check_owner(row, of, rows[row], samples)
        except ValueError as why:
            if not _in_flight(run_dir, number, lines):
                damaged.append(f"{path}:{number}: skipped a damaged line: {why}")
            continue
        found[row] = samples
    _warn_each(damaged, path)
    return found


#: The warnings of one file's lines (damaged, repeated) printed one by one; past
#: them, one line counts the rest (100,000 damaged lines printed 100,000 warnings).
SHOWN_DAMAGE = 20


def _warn_each(warnings: Sequence[str], path: Path) -> None:
    """Print the first `SHOWN_DAMAGE` of a file's warnings, and a count of the rest."""
    for warning in warnings[:SHOWN_DAMAGE]:
        print(f"warning: {warning}", file=sys.stderr)
    if len(warnings) > SHOWN_DAMAGE:
        print(
            f"warning: {path}: {len(warnings) - SHOWN_DAMAGE} more such lines, not named one "
            "by one",
            file=sys.stderr,
        )


def _in_flight(run_dir: Path, number: int, lines: list[bytes]) -> bool:
    """Whether line ``number`` of ``lines`` (a journal's or samples file's, split
    at newlines), which cannot be read, is the one a run writing ``run_dir`` now is
    appending: its last, with no newline yet. A command reading a run in progress
    called that row a torn line and the row lost, as a killed run leaves it. In a
    folder this process holds (a resume reading its journal) it is a torn line."""
    if number != len(lines) or run_dir.resolve() in _HELD:
        return False
    return writer(run_dir) is not None


def _check_owner(
    number: int, of: dict[str, Any], row: dict[str, Any], samples: Sequence[float]
) -> None:
    """ValueError where a samples line's kernel or device is not its row's, or it
    holds another number of samples than the row counts, or samples whose median is
    not the row's (its statistics are of its samples: a plot of others showed other
    times)."""
    count = len(samples)
    if any(of[key] != row.get(key) for key in of):
        said = {"kernel": row["kernel"], "device_id": row["device_id"], **of}
        raise ValueError(
            f"it holds samples of {said['kernel']} on {said['device_id']}, but line {number} "
            f"of the journal is {row['kernel']} on {row['device_id']}"
        )
    counted = row.get("samples")
    if _whole(counted) and counted != count:
        raise ValueError(
            f"it holds {count} samples, but line {number} of the journal counts {counted}"
        )
    median = row.get("time_median_s")
    if samples and isinstance(median, float) and median > 0:
        # Samples are whole nanoseconds: their median is the row's to within one.
        middle = statistics.median(samples)
        if abs(middle - median) > SAMPLE_SLACK_S + 1e-3 * median:
            raise ValueError(
                f"its samples' median is {middle:.4g} s, but line {number} of the journal "
                f"has a median of {median:.4g} s"
            )


#: Seconds a samples line's median may differ from its row's: samples are kept
#: in whole nanoseconds.
SAMPLE_SLACK_S = 1e-9


def _parse_samples(line: bytes) -> tuple[int, list[float], dict[str, Any]]:
    """One samples.jsonl line as (row, seconds, what else it names: its kernel
    and device); ValueError saying what is wrong."""
    try:
        entry = load_json(line)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError("not JSON text") from None
    if not isinstance(entry, dict):
        raise ValueError(f"a JSON {_kind(entry)}, not an object")
    row, times = entry.get("row"), entry.get("samples_ns")
    if not _whole(row) or row < 1:
        raise ValueError("'row' should be a journal line number from 1")
    if not isinstance(times, list) or not all(
        _whole(t) and 0 <= t <= MAX_SECONDS * 1e9 for t in times
    ):
        raise ValueError(
            f"'samples_ns' should be a list of whole nanoseconds from 0 to {MAX_SECONDS * 1e9:g}"
        )
    named = {k: entry[k] for k in ("kernel", "device_id") if k in entry}
    return row, [t * 1e-9 for t in times], named


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _drop_torn_tail(path: Path, whole: Callable[[bytes], object]) -> None:
    """Cut a last line that a crash left half-written, so appends start clean; one
    that ``whole`` reads (a row whose newline alone is missing, as an editor can
    leave it) is ended instead: it was read as a row, and a resume counts it done."""
    if not path.exists():
        return
    with path.open("rb+") as f:
        data = f.read()
        if not data or data.endswith(b"\n"):
            return
        tail = data[data.rfind(b"\n") + 1 :]
        try:
            whole(tail)
        except ValueError:
            f.truncate(data.rfind(b"\n") + 1)
        else:
            f.write(b"\n")


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def _kind(value: Any) -> str:
    """How JSON names a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "list", dict: "object"}.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    """A JSON value for a message: itself where short, else its kind."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    kind = _kind(value)
    return text if len(text) <= 40 else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def implausible(key: str, value: float) -> str | None:
    """None where a row's number can be what its column holds, else why not,
    naming what is accepted: NaN, infinity or an absurd size is damage."""
    if key in OUTCOMES:
        return None
    whole = key in COUNTS
    if whole:
        low, high, accepted = 0.0, MAX_COUNT, f"a whole number from 0 to {MAX_COUNT:g}"
    elif key.endswith("_per_s"):
        low, high, accepted = 0.0, MAX_RATE, f"a rate from 0 to {MAX_RATE:g} per second"
    elif key in CLOCKS:
        low, high, accepted = 0.0, MAX_MHZ, f"a clock from 0 to {MAX_MHZ:g} MHz"
    elif key in PERCENTS:
        low, high, accepted = 0.0, MAX_OTHER, f"a percentage from 0 to {MAX_OTHER:g}"
    elif key in ENERGY:
        low, high, accepted = 0.0, MAX_OTHER, f"a number from 0 to {MAX_OTHER:g}"
    elif key.endswith("_s"):
        # No clock ticks below a picosecond: a time between 0 and that is no measurement.
        if 0 < value < MIN_SECONDS:
            return f"{key!r} is {value:g}; 0 or a time from {MIN_SECONDS:g} seconds is accepted"
        low, high, accepted = 0.0, MAX_SECONDS, f"a time from 0 to {MAX_SECONDS:g} seconds"
    else:
        low, high, accepted = (
            -MAX_OTHER,
            MAX_OTHER,
            f"a number from {-MAX_OTHER:g} to {MAX_OTHER:g}",
        )
    if isinstance(value, int):
        fits = low <= value <= high
    else:
        fits = math.isfinite(value) and low <= value <= high and (value.is_integer() or not whole)
    if fits:
        return None
    shown = json.dumps(value)
    shown = shown if len(shown) <= 24 else f"a {len(shown)}-digit number"
    return f"{key!r} is {shown}; {accepted} is accepted"


class RepeatedKey(ValueError):
    """A JSON object that gives one key twice: which of its values is meant cannot be told."""

    def __init__(self, key: str) -> None:
        super().__init__(f"{key!r} is given twice")
        self.key = key


def keys_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's members (``object_pairs_hook``); RepeatedKey for a key given
    twice, which Python's json reads as its last value without a word."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise RepeatedKey(key)
        found[key] = value
    return found


#: The deepest nesting of brackets a run folder's JSON may hold: what the harness writes
#: nests a few levels (a merge of merged runs a few more). Past a few hundred, Python's
#: parser, and the copies pandas makes of a run's metadata, exceed the recursion limit.
MAX_NESTING = 64


def load_json(text: str | bytes) -> Any:
    """``json.loads`` with `keys_once`; JSONDecodeError, as for other damage, where
    brackets nest past `MAX_NESTING` levels (a RecursionError, a traceback, before),
    at the bracket that does, so that every reader names its line."""
    doc = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    if doc.count("[") + doc.count("{") > MAX_NESTING:
        at = _too_deep(doc)
        if at is not None:
            raise json.JSONDecodeError(f"nested deeper than {MAX_NESTING} levels", doc, at)
    return json.loads(text, object_pairs_hook=keys_once)


def _too_deep(text: str) -> int | None:
    """Where a bracket of JSON ``text`` opens past `MAX_NESTING` levels (brackets
    inside strings left out), or None where none does."""
    depth = 0
    quoted = escaped = False
    for i, char in enumerate(text):
        if escaped:
            escaped = False
        elif quoted:
            escaped = char == "\\"
            quoted = char != '"'
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return i
        elif char in "]}":
            depth -= 1
    return None


def parse_row(line: bytes) -> dict[str, Any]:
    """One journal line as a row; ValueError saying what is wrong with it, naming
    the field: not a JSON object, a required field missing, a status not in
    `STATUSES`, a number of the wrong type, not finite, or beyond what its
    column can hold."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    try:
        row = load_json(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg})") from None
    if not isinstance(row, dict):
        raise ValueError(f"a JSON {_kind(row)}, not an object")
    for key in REQUIRED:
        if not isinstance(row.get(key), str):
            raise ValueError(f"no {key!r}" if key not in row else f"{key!r} is not text")
        if not row[key].strip():
            raise ValueError(f"{key!r} is empty")
        odd = next((c for c in row[key] if not c.isprintable()), None)
        if odd is not None:
            # No kernel or device is named so; a line break in one split the table
            # `show` prints, a row across two lines.
            raise ValueError(f"{key!r} holds {odd!r}, which prints as nothing")
    for key in TEXT:
        if row.get(key) is not None and not isinstance(row[key], str):
            raise ValueError(f"{key!r} is a {_kind(row[key])}, not text")
    for key in BOOLEAN:
        if row.get(key) is not None and not isinstance(row[key], bool):
            raise ValueError(f"{key!r} is {_shown(row[key])}; true, false or null is accepted")
    # A run writes no list or object into a row; one in a column rows are keyed on
    # (cache, partition, host, a sort's strategy) was a traceback in every reader.
    nested = next((k for k, v in row.items() if isinstance(v, (list, dict))), None)
    if nested is not None:
        shape = "a list" if isinstance(row[nested], list) else "an object"
        raise ValueError(f"{nested!r} is {shape}; text, a number, true, false or null is accepted")
    if row["status"] not in STATUSES:
        raise ValueError(f"'status' is {row['status']!r}; one of {', '.join(STATUSES)} is accepted")
    for key, accepted in (
        ("precision", PRECISIONS),
        ("cache", CACHE_MODES),
        ("transfers", TRANSFER_MODES),
    ):
        if row.get(key) is not None and row[key] not in accepted:
            raise ValueError(f"{key!r} is {row[key]!r}; one of {', '.join(accepted)} is accepted")
    for key in NUMERIC:
        value = row.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ValueError(f"{key!r} is a {_kind(value)}, not a number")
    for key, value in row.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if key in NUMERIC or key.endswith("_s") or not math.isfinite(value):
            why = implausible(key, value)
            if why:
                raise ValueError(why)
    # Every row is written with its backend, which reports colour and group by.
    if not isinstance(row.get("backend"), str):
        raise ValueError("no 'backend'" if "backend" not in row else "'backend' is not text")
    error = row.get("max_rel_error")
    if isinstance(error, (int, float)) and error < 0:
        raise ValueError(f"'max_rel_error' is {error}; an error from 0 is accepted")
    times = [(k, row.get(k)) for k in ("time_min_s", "time_median_s", "time_max_s")]
    given = [(k, v) for k, v in times if isinstance(v, (int, float))]
    for (low, a), (high, b) in itertools.pairwise(given):
        if a > b:
            raise ValueError(f"{low!r} ({a:g}) is above {high!r} ({b:g}); no samples give that")
    _check_consistent(row)
    return row


def _check_consistent(row: dict[str, Any]) -> None:
    """ValueError where a row's numbers contradict each other, so that an edited one
    cannot pass for a measurement: a spread wider than its range (which would hide a
    regression as noise), a mean, quartile or interval outside the range, quartiles
    out of order, a row that ran without a size or precision, or a rate that is not
    its work over its median time."""
    spread, low, high = (row.get(k) for k in ("time_std_s", "time_min_s", "time_max_s"))
    if all(isinstance(v, (int, float)) for v in (low, high)):
        slack = high * 1e-9 + 1e-15
        width = high - low
        if isinstance(spread, (int, float)) and spread > width + slack:
            raise ValueError(
                f"'time_std_s' ({spread:g}) is above 'time_max_s' - 'time_min_s' ({width:g}); "
                "no samples give that"
            )
        for key in ("time_mean_s", "time_q1_s", "time_q3_s", "time_ci_low_s", "time_ci_high_s"):
            value = row.get(key)
            if isinstance(value, (int, float)) and not low - slack <= value <= high + slack:
                raise ValueError(
                    f"{key!r} ({value:g}) is outside 'time_min_s' to 'time_max_s' ({low:g} to "
                    f"{high:g}); no samples give that"
                )
    quartiles = [(k, row.get(k)) for k in ("time_q1_s", "time_median_s", "time_q3_s")]
    given = [(k, v) for k, v in quartiles if isinstance(v, (int, float))]
    for (below, a), (above, b) in itertools.pairwise(given):
        if a > b * (1 + 1e-9) + 1e-15:
            raise ValueError(f"{below!r} ({a:g}) is above {above!r} ({b:g}); no samples give that")
    if isinstance(row.get("time_median_s"), (int, float)):
        for key in ("reps", "samples"):
            value = row.get(key)
            if isinstance(value, (int, float)) and value < 1:
                raise ValueError(
                    f"{key!r} is {value}, beside a 'time_median_s': a time is taken over one "
                    "at least"
                )
    for key in ("noise", "noise_target"):
        value = row.get(key)
        if isinstance(value, (int, float)) and value < 0:
            raise ValueError(f"{key!r} is {value:g}; a spread from 0 is accepted")
    if row["status"] in ("ok", "fail"):
        for key in ("size", "precision"):
            if row.get(key) is None:
                raise ValueError(f"no {key!r}, where the row ran ('status' {row['status']})")
        if row["size"] == 0:
            # No run makes a problem of no elements; its row was drawn nowhere on a
            # sweep's log axis, without a word.
            raise ValueError(
                f"'size' is 0, where the row ran ('status' {row['status']}); "
                f"a whole number from 1 to {MAX_COUNT:g} is accepted"
            )
    median = row.get("time_median_s")
    for rate, work in (("gbytes_per_s", "bytes_per_rep"), ("gflops_per_s", "flops_per_rep")):
        value, done = row.get(rate), row.get(work)
        if not isinstance(value, (int, float)):
            continue
        if not isinstance(median, (int, float)) or median <= 0:
            raise ValueError(f"{rate!r} is given, but no 'time_median_s' above 0 it was taken over")
        if isinstance(done, (int, float)) and not math.isclose(
            value, done / median / 1e9, rel_tol=1e-6
        ):
            raise ValueError(
                f"{rate!r} ({value:g}) is not {work!r} over 'time_median_s' "
                f"({done / median / 1e9:g}); the row's numbers disagree"
            )


@dataclasses.dataclass(frozen=True)
class _Scan:
    """A journal read: its rows with their line numbers; the lines skipped, each with
    its number, a warning naming it (`read_numbered`) and whether a row was lost
    there (not so for a repeat of an earlier line, whose row is read); how many
    rows fewer it holds than the run counted at its end, besides those lost there;
    and each line that measures an earlier line's case again, with that line's number."""

    rows: list[tuple[int, dict[str, Any]]]
    skipped: list[tuple[int, str, bool]]
    missing: int
    repeats: list[tuple[int, int]]
    #: The metadata's count of rows was removed (`_Known.uncounted`).
    uncounted: bool = False


def _scan(run_dir: Path) -> _Scan:
    """The journal of a run, read (`_Scan`)."""
    run_dir = Path(run_dir)
    check_folder(run_dir)
    path = run_dir / JOURNAL
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError as exc:
        raise RunFolderError(f"{path}: cannot read it ({exc.strerror})") from None
    # A file saved by an editor that marks UTF-8 begins with a byte-order mark,
    # which is no damage to its first row.
    lines[0] = lines[0].removeprefix(codecs.BOM_UTF8)
    rows = []
    skipped = []
    seen: dict[bytes, int] = {}
    cases: dict[tuple, int] = {}
    known = _Known.of(run_dir)
    repeats: list[tuple[int, int]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = parse_row(line)
        except ValueError as why:
            if _in_flight(run_dir, number, lines):
                continue
            cut = " (the last line, cut short as a killed run leaves it)"
            detail = cut if number == len(lines) else f": {why}"
            skipped.append(
                (number, f"{path}:{number}: skipped a torn or corrupt line{detail}", True)
            )
            continue
        first = seen.setdefault(line.strip(), number)
        if first != number:
            skipped.append(
                (
                    number,
                    f"{path}:{number}: skipped a line that repeats line {first} exactly "
                    "(its row would count twice)",
                    False,
                )
            )
            continue
        why = known.contradicted(row)
        if why:
            skipped.append((number, f"{path}:{number}: skipped a damaged row: {why}", True))
            continue
        case = _case(row, known.params)
        first = cases.setdefault(case, number) if case else number
        if first != number:
            repeats.append((number, first))
            skipped.append(
                (
                    number,
                    f"{path}:{number}: skipped a row that measures the case of line {first} "
                    f"again ({_named(row)}): a run measures each case once, so its first "
                    "row is the one read",
                    False,
                )
            )
            continue
        differs = known.device_differs(row)
        if differs:
            skipped.append((number, f"{path}:{number}: {differs}", False))
        rows.append((number, row))
    lost = sum(1 for *_, gone in skipped if gone)
    missing = max(0, (known.counted or 0) - len(rows) - lost)
    return _Scan(rows, skipped, missing, repeats, known.uncounted)


#: What tells a row's case from every other row's in one run (with the kernel's
#: parameters): the same case twice is a journal joined or edited by hand, not
#: a run's, whose rows would count twice.
CASE = (
    "host",
    "source_run",
    "rank",
    "kernel",
    "backend",
    "device_id",
    "precision",
    "size",
    "cache",
    "transfers",
    "work_group",
    "partition",
    "wgsl_checks",
)


@dataclasses.dataclass(frozen=True)
class _Known:
    """What a run's metadata says that its rows must agree with: each kernel's
    parameter names and, where its check is a relative error (not its own), its
    tolerance at each precision; each device's name by id. Empty where the
    metadata cannot be read (the journal's own damage is what its reader reports)."""

    params: dict[str, tuple[str, ...]]
    tolerances: dict[str, dict[str, float]]
    devices: dict[str, str]
    #: The rows the journal held when the run (or merge or import) ended.
    counted: int | None = None
    #: Each device's backend by id (empty for a merged run, whose ids repeat by host).
    backends: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: The run's kernels, where its metadata names them.
    kernels: frozenset[str] | None = None
    #: Whether the run ended without counting its rows though its format counts
    #: them (`FORMAT`): its count was removed, and rows removed with it.
    uncounted: bool = False
    #: Whether the metadata lists the run's devices (an empty list lists none).
    listed: bool = False
    #: Each kernel's group, where the metadata says it (not a merged run's: runs of
    #: two versions of a kernel may group it apart, and the merge keeps the first's).
    groups: dict[str, str] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, run_dir: Path) -> _Known:
        try:
            meta = read_metadata(run_dir)
        except RunFolderError:
            return cls({}, {}, {})
        kernels = meta.get("kernels")
        names = frozenset(kernels) if isinstance(kernels, (dict, list)) else None
        if not isinstance(kernels, dict):  # an imported run's: the names of its kernels
            kernels = {}
        params = {
            name: tuple(facts["params"])
            for name, facts in kernels.items()
            if isinstance(facts, dict) and isinstance(facts.get("params"), dict)
        }
        tolerances = {
            name: facts["tolerance"]
            for name, facts in kernels.items()
            if facts.get("own_check") is False and isinstance(facts.get("tolerance"), dict)
        }
        # A job whose ranks ran on several hosts lists one device of each id.
        hosts = {str(r.get("host")) for r in meta.get("ranks") or [] if isinstance(r, dict)}
        listed = [] if meta.get("merged_from") else meta.get("devices") or []
        backends = {str(d.get("id")): d.get("backend") for d in listed}
        devices = {
            str(d.get("id")): d["name"]
            for d in listed
            if isinstance(d.get("name"), str) and len(hosts) < 2
        }
        uncounted = (
            isinstance(meta.get("format"), int)
            and meta["format"] >= FORMAT
            and bool(meta.get("end"))
            and "journal_rows" not in meta
        )
        counted = meta.get("journal_rows")
        listing = not meta.get("merged_from") and isinstance(meta.get("devices"), list)
        groups = {
            name: facts["group"]
            for name, facts in ({} if meta.get("merged_from") else kernels).items()
            if isinstance(facts, dict) and isinstance(facts.get("group"), str)
        }
        return cls(
            params, tolerances, devices, counted, backends, names, uncounted, listing, groups
        )

    def contradicted(self, row: dict[str, Any]) -> str | None:
        """Why a row cannot be one of the run's: a kernel it did not run, or in another
        group; a device it does not list or of another backend; or, ok, an error above
        the tolerance its kernel is checked to at its precision."""
        if self.kernels is not None and row["kernel"] not in self.kernels:
            return f"'kernel' is {row['kernel']!r}, which is none of the run's in {METADATA}"
        group = self.groups.get(row["kernel"])
        if group is not None and row.get("group") is not None and row["group"] != group:
            # Reports and profiles file the row under its group: it would be another's.
            return (
                f"'group' is {row['group']!r}, but {METADATA} has {row['kernel']} in "
                f"group {group!r}"
            )
        device = row["device_id"]
        if (self.backends or self.listed) and device not in self.backends:
            accepted = (
                f"one of {', '.join(self.backends)} is accepted"
                if self.backends
                else "it lists none, which a run with rows never does"
            )
            return f"'device_id' is {device!r}, a device {METADATA} does not list; {accepted}"
        listed = self.backends.get(device)
        if isinstance(listed, str) and row["backend"] != listed:
            return (
                f"'backend' is {row['backend']!r}, but {METADATA} lists {device} as a "
                f"{listed} device"
            )
        error = row.get("max_rel_error")
        tolerance = self.tolerances.get(row["kernel"], {}).get(row.get("precision"))
        if row["status"] != "ok" or not isinstance(error, (int, float)):
            return None
        if not isinstance(tolerance, (int, float)) or error <= tolerance:
            return None
        return (
            f"'status' is 'ok', but its 'max_rel_error' ({error:g}) is above the "
            f"tolerance of {row['kernel']} at {row.get('precision')} ({tolerance:g}) in "
            f"{METADATA}; a row that passed its check is within it"
        )

    def device_differs(self, row: dict[str, Any]) -> str | None:
        """A note where a row names its device otherwise than the metadata does for
        its id: reports label it (its kind, its peaks) by the metadata's. An MPI
        run lists rank 0's devices; another rank's may be another under one id
        (each rank given its own GPU as cuda:0)."""
        if row.get("rank") not in (None, 0):
            return None
        listed = self.devices.get(row["device_id"])
        named = row.get("device")
        if listed is None or named is None or named == listed:
            return None
        return (
            f"the row names device {row['device_id']} {named!r}, but {METADATA} names it "
            f"{listed!r}; it is read as the journal gives it, its kind and peaks as "
            f"{METADATA} gives them"
        )


def _case(row: dict[str, Any], params: dict[str, tuple[str, ...]]) -> tuple | None:
    """The row's case (`CASE`), or None where the run does not say which
    parameters its kernel has: two rows of it may differ only in those."""
    names = params.get(row["kernel"])
    if names is None:
        return None
    return tuple(json.dumps(row.get(k)) for k in (*CASE, *names))


def _named(row: dict[str, Any]) -> str:
    """A row's case in words: kernel, precision, size and device."""
    return f"{row['kernel']} {row.get('precision')} n={row.get('size')} on {row['device_id']}"


def read_numbered(run_dir: Path) -> list[tuple[int, dict[str, Any]]]:
    """Rows of a run's journal with their line numbers (which key their samples).

    A line that is not a row is skipped with a warning naming it and what is
    wrong: a killed run leaves its last line cut short, which a resume then
    overwrites; a line with a number no measurement gives (NaN, infinity, 1e308)
    is damaged and is not shown as a row. A line that repeats an earlier one
    exactly is skipped too, so that no row counts twice.
    """
    scan = _scan(run_dir)
    _warn_each([warning for _, warning, _ in scan.skipped], Path(run_dir) / JOURNAL)
    if scan.missing:
        print(f"warning: {_missing(run_dir, scan.missing)}", file=sys.stderr)
    if scan.uncounted:
        print(f"warning: {_uncounted(run_dir)}", file=sys.stderr)
    return scan.rows


def _uncounted(run_dir: Path) -> str:
    return (
        f"{Path(run_dir) / METADATA} has an 'end' but no 'journal_rows', which a run of "
        f"its format counts at its end: rows removed from {JOURNAL} cannot be told"
    )


def _missing(run_dir: Path, count: int) -> str:
    return (
        f"{Path(run_dir) / JOURNAL}: {count} row(s) fewer than {METADATA} counts at the "
        "run's end (its 'journal_rows'): rows were removed from it"
    )


def damaged_lines(run_dir: Path) -> list[int]:
    """The numbers of the journal's lines whose rows could not be read (torn or
    damaged), found quietly: a row lost there may be any row of the run."""
    return [number for number, _, lost in _scan(run_dir).skipped if lost]


def missing_rows(run_dir: Path) -> int:
    """How many rows fewer the journal holds than the run counted at its end (its
    metadata's ``journal_rows``), besides those lost on damaged lines."""
    return _scan(run_dir).missing


def repeated_cases(run_dir: Path) -> list[tuple[int, int]]:
    """Each journal line that measures an earlier line's case again (a journal
    joined or edited by hand: a run measures each case once), with the earlier
    line's number: which of the two is the measurement cannot be told."""
    return _scan(run_dir).repeats


def unread_lines(meta: dict[str, Any]) -> tuple[str, list[int]] | None:
    """The source file and line numbers an imported run could not read (its
    metadata's ``unread_lines``), or None where it read every line."""
    unread = meta.get("unread_lines")
    if not isinstance(unread, dict) or not isinstance(unread.get("lines"), list):
        return None
    lines = [n for n in unread["lines"] if isinstance(n, int)]
    return (str(unread.get("file")), lines) if lines else None


def losses(run_dir: Path) -> str | None:
    """What a run's journal lost, in words (its damaged lines, rows removed since
    the run counted them), or None where it lost nothing: a row lost may be any row
    of the run, which a gate must not take as never measured."""
    scan = _scan(run_dir)
    lines = damaged_lines(run_dir)
    found = []
    if lines:
        shown = ", ".join(map(str, lines[:5])) + (", ..." if len(lines) > 5 else "")
        found.append(f"{Path(run_dir) / JOURNAL} has {len(lines)} damaged line(s) ({shown})")
    if scan.missing:
        found.append(_missing(run_dir, scan.missing))
    if scan.uncounted:
        found.append(_uncounted(run_dir))
    try:
        meta = read_metadata(run_dir)
    except RunFolderError:
        meta = {}
    unread = unread_lines(meta)
    if unread:
        file, numbers = unread
        shown = ", ".join(map(str, numbers[:5])) + (", ..." if len(numbers) > 5 else "")
        found.append(
            f"{Path(run_dir)} was imported from a {file} with unreadable line(s) ({shown})"
        )
    found += [f"{Path(run_dir)} merges {lost}" for lost in merged_losses(meta)]
    return "; ".join(found) or None


def merged_losses(meta: dict[str, Any]) -> list[str]:
    """What the runs merged into a run (at any depth) had lost when merged, in words:
    their damaged lines, rows removed and unread lines, kept in ``merged_from``. A
    merged run's rows read whole, and its reports and gates took its losses for none."""
    found = []
    sources = meta.get("merged_from")
    for source in sources if isinstance(sources, list) else ():
        if not isinstance(source, dict):
            continue
        run = source.get("run")
        damaged = source.get("damaged_lines")
        if isinstance(damaged, list) and damaged:
            found.append(f"{run}, whose journal had {len(damaged)} damaged line(s) when merged")
        missing = source.get("missing_rows")
        if isinstance(missing, int) and missing > 0:
            found.append(f"{run}, whose journal had {missing} row(s) fewer than it counted")
        unread = unread_lines(source)
        if unread:
            found.append(
                f"{run}, imported from a {unread[0]} with {len(unread[1])} unreadable line(s)"
            )
        found += merged_losses(source)
    return found


def resume_command(run_dir: Path, meta: dict[str, Any]) -> str:
    """The command that finishes a run, to paste: an MPI run's resumes with as many
    ranks (without mpirun it is refused)."""
    ranks = meta.get("ranks")
    launch = f"mpirun -n {len(ranks)} " if isinstance(ranks, list) and len(ranks) > 1 else ""
    return f"{launch}harness run --resume {shlex.quote(str(run_dir))}"


def no_rows(run_dir: Path) -> str:
    """Why a run's journal gives no row, in words, for a command that has nothing
    to read: a run still being written, or stopped, before its first row (and how
    to finish it), or a journal empty or with every line corrupt."""
    run_dir = Path(run_dir)
    try:
        blank = not (run_dir / JOURNAL).read_bytes().strip()
    except OSError:
        blank = False
    if blank:
        holder = writer(run_dir)
        if holder is not None:
            return f"{run_dir}: no row yet: it is being written ({holder})"
        try:
            meta = read_metadata(run_dir)
        except RunFolderError:
            meta = {}
        if meta.get("interrupted") or (meta.get("start") and not meta.get("end")):
            how = "was interrupted" if meta.get("interrupted") else "stopped"
            return (
                f"{run_dir}: no row: the run {how} before its first row; continue it with: "
                f"{resume_command(run_dir, meta)}"
            )
        return f"{run_dir}: no row: its journal is empty"
    return f"{run_dir}: the journal has no readable rows (every line corrupt)"


def read_journal(run_dir: Path) -> list[dict[str, Any]]:
    """Rows of a run's journal, as `read_numbered` reads them."""
    return [row for _, row in read_numbered(run_dir)]


def csv_text(rows: Iterable[dict[str, Any]]) -> str:
    """results.csv's text: the fixed columns first, then any extra ones in first-seen order."""
    rows = list(rows)
    columns = list(COLUMNS)
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in columns})
    return out.getvalue()


def write_csv(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write results.csv (atomically) from rows."""
    write_text(path, csv_text(rows))


def finish(run_dir: Path, summary: str) -> None:
    """Derive results.csv and summary.txt from the journal."""
    write_csv(run_dir / RESULTS, read_journal(run_dir))
    write_text(run_dir / SUMMARY, summary + "\n")


def ensure_csv(run_dir: Path) -> list[dict[str, Any]]:
    """The run's rows; rebuilds results.csv wherever it is not exactly what the
    journal gives (missing, out of date, cut short, garbage), unless the folder
    is read-only, which is then only read."""
    run_dir = Path(run_dir)
    rows = read_journal(run_dir)
    path = run_dir / RESULTS
    text = csv_text(rows)
    try:
        current = path.read_bytes()
    except OSError:
        current = None
    if current == text.encode("utf-8"):
        return rows
    if not os.access(run_dir, os.W_OK):
        print(
            f"note: {path} is out of date, but {run_dir} is read-only: not rebuilt", file=sys.stderr
        )
        return rows
    try:
        write_text(path, text)
    except OSError as exc:
        print(
            f"note: {path} is out of date; rebuilding it failed ({exc.strerror})", file=sys.stderr
        )
    return rows


def read_metadata(run_dir: Path) -> dict[str, Any]:
    """The run's metadata, or an empty dict where there is none; RunFolderError
    naming the file and line where it is not what ``harness run`` writes."""
    path = Path(run_dir) / METADATA
    _check_regular(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise RunFolderError(f"{path}: cannot read it ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise RunFolderError(f"{path}:{line}: not UTF-8 text") from None
    try:
        meta = load_json(text)
    except json.JSONDecodeError as exc:
        raise RunFolderError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except RepeatedKey as exc:
        given = list(re.finditer(rf'"{re.escape(exc.key)}"\s*:', text))
        line = text[: given[-1].start()].count("\n") + 1 if given else 1
        raise RunFolderError(f"{path}:{line}: {exc}; which is meant cannot be told") from None
    if not isinstance(meta, dict):
        raise RunFolderError(f"{path}:1: a JSON {_kind(meta)}, not an object")
    for key, (shape, fits) in METADATA_SHAPES.items():
        # A count or format a run writes is never null: one made so (by hand) would
        # turn off the checks that read it (rows removed since the run counted them).
        damaged = meta.get(key) is not None and not fits(meta[key])
        if damaged or (key in NEVER_NULL and key in meta and meta[key] is None):
            # The least indented of the key's lines: an entry of the same name further
            # in (the options' kernels) is not the one meant.
            given = re.finditer(rf'^([ \t]*)"{key}"\s*:', text, re.MULTILINE)
            found = min(given, key=lambda m: len(m.group(1)), default=None)
            line = text[: found.start()].count("\n") + 1 if found else 1
            raise RunFolderError(
                f"{path}:{line}: {key!r} is {_shown(meta[key])}; {shape} is accepted"
            )
    if isinstance(meta.get("format"), int) and meta["format"] > FORMAT:
        given = re.search(r'^[ \t]*"format"\s*:', text, re.MULTILINE)
        line = text[: given.start()].count("\n") + 1 if given else 1
        raise RunFolderError(
            f"{path}:{line}: 'format' is {meta['format']}, newer than this harness reads "
            f"(up to {FORMAT}): read it with the harness that wrote it"
        )
    start, end = read_time(meta.get("start")), read_time(meta.get("end"))
    if start and end and (start.tzinfo is None) == (end.tzinfo is None) and end < start:
        given = re.search(r'^[ \t]*"end"\s*:', text, re.MULTILINE)
        line = text[: given.start()].count("\n") + 1 if given else 1
        raise RunFolderError(
            f"{path}:{line}: 'end' is {_shown(meta['end'])}, before its 'start' "
            f"({_shown(meta['start'])}); a run ends after it starts"
        )
    listed = [(d.get("host"), d.get("id")) for d in meta.get("devices") or []]
    twice = next((d for i, d in enumerate(listed) if d in listed[:i]), None)
    if twice is not None:
        # Rows are labelled by a device's id: which of the two is theirs cannot be told.
        given = [
            m.start() for m in re.finditer(rf'"id"\s*:\s*{re.escape(json.dumps(twice[1]))}', text)
        ]
        line = text[: given[-1]].count("\n") + 1 if len(given) > 1 else 1
        raise RunFolderError(
            f"{path}:{line}: 'devices' lists device {twice[1]!r} twice; a list of each "
            "device once is accepted"
        )
    _check_devices(path, text, meta.get("devices") or [])
    return meta


#: What each field of a device in a run's metadata holds where it is given (not null):
#: reports name, group and class devices by them (a kind that is not text took a
#: device for no CPU, a name that is a list was printed as one).
DEVICE_FIELDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "id": ("text", lambda v: isinstance(v, str) and v.strip() != ""),
    "backend": ("text", lambda v: isinstance(v, str)),
    "name": ("text", lambda v: isinstance(v, str)),
    "kind": ("text", lambda v: isinstance(v, str)),
    # Compare matches devices by API and driver, and reports list them: a true there
    # was an API named 'True'.
    **dict.fromkeys(
        ("api", "driver", "vendor", "uuid", "pci_bus_id"), ("text", lambda v: isinstance(v, str))
    ),
    "memory_bytes": (f"a whole number from 0 to {MAX_COUNT:g}", lambda v: _count_fits(v)),
    "compute_units": (f"a whole number from 0 to {MAX_COUNT:g}", lambda v: _count_fits(v)),
    # A merged run's devices, and an MPI job's over several hosts, name their host
    # and keep their own peaks: reports label and place rows by them.
    "host": ("text", lambda v: isinstance(v, str)),
    "peaks": (
        "an object of the device's peaks (FMA rates an object by precision, notes and "
        "warnings lists)",
        peak_shaped,
    ),
}


def _count_fits(value: Any) -> bool:
    return _whole(value) and 0 <= value <= MAX_COUNT


def _check_devices(path: Path, text: str, devices: list[dict[str, Any]]) -> None:
    """RunFolderError naming the line of the first device field of the wrong type
    (`DEVICE_FIELDS`): an id must be given; the others may be null."""
    for number, device in enumerate(devices, 1):
        for key, (accepted, fits) in DEVICE_FIELDS.items():
            value = device.get(key)
            if (value is None and key != "id") or fits(value):
                continue
            given = re.search(rf'"{key}"\s*:\s*{re.escape(json.dumps(value))}', text)
            if given is None:
                # A list or object over several lines: the key's in the device's place.
                listed = re.search(r'^[ \t]*"devices"\s*:', text, re.MULTILINE)
                start = listed.start() if listed else 0
                keys = list(re.finditer(rf'"{key}"\s*:', text[start:]))
                at = start + keys[number - 1].start() if len(keys) >= number else 0
            else:
                at = given.start()
            line = text[:at].count("\n") + 1
            raise RunFolderError(
                f"{path}:{line}: device {number} of 'devices' has {key!r} {_shown(value)}; "
                f"{accepted} is accepted"
            )

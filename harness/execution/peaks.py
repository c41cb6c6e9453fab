"""``harness peak``: what each device can do, measured with the harness's own
kernels, kept per device, and every row of later runs placed against it.

For each device: the best copy and triad bandwidth (Stream_COPY and
Stream_TRIAD, RAJAPerf's bytes over the fastest repetition, as BabelStream
reports its best) with their arrays four times the device's last-level cache
and at least BabelStream's default 2^25 elements each (within the device's
limits). A shared or throttled machine's bandwidth can change for seconds at a
time, so each is sampled for a fixed span (``--span``) rather than until its
noise settles, and a span whose median is far from its best is reported. Then
the FMA throughput in f64 and f32 (the internal PeakFMA kernel: chains of
independent multiply-adds). A device without f64 streams f32 arrays, and its FMA
peak is f32's alone. A simulator (Oclgrind), ten thousand times slower than a
device, is measured at the least sizes below. The figures go to a JSON store,
one entry per device of a host (keyed by host, backend, name, driver and API, so another
machine or driver never reuses them): ``$HARNESS_PEAKS``, else
``$XDG_CACHE_HOME/harness/peaks.json``, else ``~/.cache/harness/peaks.json``.
Each entry keeps the conditions it was measured in (host, CPUs, load averages
before and after, the share of CPU time other processes took meanwhile). A
measurement taken under load (a CPU device while the load average passed half
the CPUs or other processes took a quarter of the CPU time, or any device whose
bandwidth median was far from its best), or one that would lose or lower a
stored figure by half, is not kept unless ``--force`` keeps it flagged; a
figure that is not a positive finite number is never kept. Sizes below those a
peak is measured at, or past a device's memory or its limit on one array, and a
store that cannot be read or written, are refused before measuring; a damaged
store is left as it is. ``harness run`` copies each device's entry into its
metadata, says which it used (naming a flagged or old one), and gives every row
``pct_peak_bw`` and ``pct_peak_flops``.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import math
import os
import platform
import resource
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import filelock

from harness import suite
from harness.backends.base import DeviceInfo, user_cache
from harness.errors import UsageError
from harness.execution import metadata
from harness.execution.flush import last_level_cache
from harness.execution.results import MAX_OTHER, clear_pipe, load_json
from harness.execution.runner import Runner, Task, largest_size, size_for_memory
from harness.execution.sampling import StopRule

#: Bandwidth kernels, and the key each one's best GB/s is kept under.
BANDWIDTH = {"Stream_COPY": "copy_gbytes_per_s", "Stream_TRIAD": "triad_gbytes_per_s"}
#: The arithmetic kernel.
FMA = "PeakFMA"
#: The bandwidth kernels' arrays, in last-level caches, and at least
#: BabelStream's default length (2^25 elements each), where the device allows.
CACHES = 4
MIN_LENGTH = 1 << 25
#: Seconds each bandwidth kernel is sampled for, and the ratio of its median
#: time to its best past which the measurement says the bandwidth changed.
SPAN = 5.0
SPREAD = 1.25
#: The least sizes a peak is measured at: below them a launch's overhead, not
#: the memory, sets a bandwidth array's time (2^16 elements, 512 KiB in f64), and
#: too few work-items leave most of a device's units idle (four groups of 256).
LEAST_BANDWIDTH_SIZE = 1 << 16
LEAST_FMA_SIZE = 1 << 10
#: A CPU device's peak is taken under load when the 1-minute load average
#: passed this share of the CPUs before it, or other processes took more than
#: ``OTHERS`` of the machine's CPU time while it was measured.
LOADED = 0.5
OTHERS = 0.25
#: A measured figure this many times below the stored one does not replace it.
FAR_BELOW = 2.0
#: Days after which a run calls the peak it uses old.
OLD_DAYS = 30
#: Bytes written to the store's folder before measuring, to find a full disk.
PROBE_BYTES = 1 << 16


class StoreError(UsageError):
    """The peaks store cannot be read or written (one line, exit status 2)."""


def store_path() -> Path:
    """Where measured peaks are kept: ``$HARNESS_PEAKS`` (a leading ``~`` the home
    folder, as a shell would have it, not a folder named ``~`` made in the current
    one; a blank value as unset), else under ``$XDG_CACHE_HOME`` where it is an
    absolute path (the XDG spec ignores a relative one), else ``~/.cache``; where
    that is a link, the file it points to. StoreError where a leading ``~`` names
    no home folder here, or the path cannot be looked at (a name too long)."""
    given = os.environ.get("HARNESS_PEAKS", "")
    try:
        path = Path(given).expanduser() if given.strip() else user_cache() / "peaks.json"
    except RuntimeError:
        # ``~nobody/peaks.json``, of a user this system lacks: Path raises no OSError.
        user = given.split("/", 1)[0]
        raise StoreError(
            f"HARNESS_PEAKS={given!r}: no home folder for {user!r}; give a path without it"
        ) from None
    try:
        # A link (to a store shared between machines) is written through, not replaced.
        return Path(os.path.realpath(path)) if path.is_symlink() else path
    except OSError as exc:
        # A name too long for the file system: a traceback of peak, and of every run.
        raise StoreError(
            f"peaks store {path}: cannot be read ({exc.strerror or exc}); point "
            "HARNESS_PEAKS at another file"
        ) from None


def device_key(device: Mapping[str, Any]) -> str:
    """What identifies a device's peaks: this host and the device as its driver names it."""
    parts = (platform.node(), device.get("backend"), device.get("name"), device.get("driver"))
    return " | ".join(str(p) for p in (*parts, device.get("api")))


def read_store(path: Path | None = None) -> dict[str, Any]:
    """The stored peaks by `device_key` (empty where there is no store yet);
    StoreError for a store that is a folder, no regular file or damaged, which
    is then left as it is."""
    path = path or store_path()
    fix = "it is left as it is: repair or remove it, or point HARNESS_PEAKS at another file"
    if path.is_dir():
        raise StoreError(f"peaks store {path}: is a folder; point HARNESS_PEAKS at a file")
    if path.exists() and not path.is_file():
        raise StoreError(f"peaks store {path}: not a regular file; point HARNESS_PEAKS at a file")
    try:
        stored = load_json(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except json.JSONDecodeError as exc:
        raise StoreError(
            f"peaks store {path}: damaged at line {exc.lineno}, column {exc.colno} "
            f"({exc.msg}); {fix}"
        ) from None
    except (OSError, ValueError) as exc:
        raise StoreError(f"peaks store {path}: cannot be read ({exc}); {fix}") from None
    if not isinstance(stored, dict):
        raise StoreError(
            f"peaks store {path}: holds {_JSON_KINDS.get(type(stored), 'a JSON value')}, not "
            f"the object of peaks harness peak writes; {fix}"
        )
    # Another JSON file (a run's metadata.json), which keep would rewrite.
    strange = next((k for k, v in stored.items() if not _entry(k, v)), None)
    if strange is not None:
        raise StoreError(
            f"peaks store {path}: {strange!r} is not a device's peaks (a key "
            f"'host | backend | name | driver | api' and an object); not the file harness "
            f"peak writes, so {fix}"
        )
    # A run copies its devices' entries into its metadata, which readers then refuse,
    # and places its rows against their figures.
    damaged = next(((k, _damage(v)) for k, v in stored.items() if _damage(v)), None)
    if damaged is not None:
        raise StoreError(
            f"peaks store {path}: {damaged[0]!r} holds damaged peaks ({damaged[1]}; figures "
            "should be positive numbers, FMA rates an object of them by precision, notes and "
            f"warnings lists); {fix}"
        )
    return stored


#: What a JSON document that is no object holds, as JSON names it (it said 'a JSON
#: NoneType' for null).
_JSON_KINDS = {
    list: "a JSON array",
    str: "a JSON string",
    int: "a JSON number",
    float: "a JSON number",
    bool: "a JSON true or false",
    type(None): "a JSON null",
}


def _damage(peak: Mapping[str, Any]) -> str | None:
    """Which field of a stored device's peaks is damaged, and how, in words (it was
    left unnamed, to be found in the file by hand); None where none is."""
    shapes = (("fma_gflops_per_s", dict, "an object"), ("notes", list, "a list"))
    for field, kind, what in (*shapes, ("warnings", list, "a list")):
        value = peak.get(field) or kind()
        if not isinstance(value, kind):
            return f"its {field} is {_shown(value)}, not {what}"
    rates = peak.get("fma_gflops_per_s") or {}
    figures = [(k, peak.get(k)) for k in ("copy_gbytes_per_s", "triad_gbytes_per_s")]
    figures += [(f"fma_gflops_per_s {p}", v) for p, v in rates.items()]
    for field, value in figures:
        if value is not None and not _sensible(value):
            return f"its {field} is {_shown(value)}"
    when = peak.get("measured")
    if when is not None and _date(when) is None:
        # Runs state when their peak was measured, and how old it is.
        return f"its measured is {_shown(when)}, not a time such as {metadata.now()!r}"
    return None


def _date(when: Any) -> datetime.date | None:
    """The day of a stored ``measured`` time (`metadata.now`'s form), or None."""
    try:
        return datetime.datetime.strptime(str(when), "%Y-%m-%dT%H:%M:%S%z").date()
    except ValueError:
        return None


def _shown(value: Any) -> str:
    """A stored value as the file spells it, cut to a line."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _entry(key: str, value: Any) -> bool:
    """Whether a store's item is a device's peaks as `keep` stores them."""
    return len(key.split(" | ")) >= 5 and isinstance(value, dict)


def lookup(device: Mapping[str, Any], stored: Mapping[str, Any]) -> dict[str, Any] | None:
    """A device's (a `DeviceInfo.as_dict`) entry in the ``stored`` peaks, or None."""
    entry = stored.get(device_key(device))
    return entry if isinstance(entry, dict) else None


def check_store(path: Path) -> None:
    """Check before measuring that the store at ``path`` can be read and replaced:
    StoreError in one line for a folder, a damaged file, a read-only file or
    folder, or a full disk (a probe is written, synced and removed)."""
    read_store(path)
    fix = "point HARNESS_PEAKS at a file this user can write, on a disk with free space"
    if path.exists() and not (path.stat().st_mode & 0o222 and os.access(path, os.W_OK)):
        raise StoreError(f"peaks store {path}: is read-only; {fix}")
    tmp = _temporary(path)
    if tmp.is_dir() or (tmp.exists() and not os.access(tmp, os.W_OK)):
        # The store is written there first: a folder of that name ended a measured
        # peak in a traceback (IsADirectoryError), the measurement lost.
        what = "a folder" if tmp.is_dir() else "read-only"
        raise StoreError(
            f"peaks store {path}: {tmp}, which the store is written to before it "
            f"replaces it, is {what}; remove it, or {fix}"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"peaks store {path}: cannot make its folder ({exc.strerror or exc}); {fix}"
        ) from None
    try:
        handle, probe = tempfile.mkstemp(dir=path.parent, prefix=".probe-")
        try:
            os.write(handle, bytes(PROBE_BYTES))
            os.fsync(handle)
        finally:
            os.close(handle)
            os.unlink(probe)
    except OSError as exc:
        raise StoreError(
            f"peaks store {path}: cannot write there ({exc.strerror or exc}); {fix}"
        ) from None


def _temporary(path: Path) -> Path:
    """The file a store at ``path`` is written to before it replaces it."""
    return path.with_name(path.name + ".tmp")


def keep(device: Mapping[str, Any], peak: dict[str, Any]) -> Path:
    """Store a device's peaks, keeping every other device's; returns the file.
    StoreError where it cannot be written, the store then left as it was."""
    path = store_path()
    tmp = _temporary(path)
    clear_pipe(tmp)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path.parent):
            stored = read_store(path)
            stored[device_key(device)] = peak
            tmp.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
            os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise StoreError(
            f"peaks store {path}: cannot write it ({exc.strerror or exc}); it is left as it was"
        ) from None
    return path


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the store's folder against other writers of a store in it. The lock
    is the folder's own (flock), which leaves no file behind; where there is no
    flock (Windows), a lock file that its lock removes when it is released. Where
    another command holds it (a report writing there), it waits, saying so: the
    peak, measured, hung without a word."""
    try:
        import fcntl
    except ImportError:
        with filelock.FileLock(str(folder / ".harness-peaks.lock")):
            yield
        return
    handle = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(
                f"  waiting for {folder}: another harness command holds it (a peak keeping "
                "its figures, or a report, plot or export writing there); the peak is kept "
                "once it ends",
                file=sys.stderr,
                flush=True,
            )
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def _cpu_seconds() -> tuple[float, float, float] | None:
    """The machine's busy and total CPU seconds since boot and this process's own
    (with its children), or None where the kernel does not tell (no /proc/stat)."""
    try:
        line = Path("/proc/stat").read_text(encoding="ascii").split("\n", 1)[0]
    except OSError:
        return None
    ticks = [int(t) for t in line.split()[1:9]]
    idle = sum(ticks[3:5])
    tick = os.sysconf("SC_CLK_TCK")
    usage = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    own = sum(u.ru_utime + u.ru_stime for u in usage)
    return (sum(ticks) - idle) / tick, sum(ticks) / tick, own


def conditions(before: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The host's state now: name, CPUs and load averages (1, 5 and 15 minutes).
    Given the state ``before`` a measurement, also the load averages then and the
    share of the machine's CPU time other processes took in between."""
    now = {
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "load": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "cpu_seconds": _cpu_seconds(),
    }
    if before is None:
        return now
    spent = now.pop("cpu_seconds"), before.get("cpu_seconds")
    others = None
    if all(spent) and spent[0][1] > spent[1][1]:
        (busy, total, own), (busy0, total0, own0) = spent
        others = max(0.0, (busy - busy0) - (own - own0)) / (total - total0)
    return {
        "host": now["host"],
        "cpus": now["cpus"],
        "load_before": before.get("load"),
        "load_after": now["load"],
        "others_busy": others,
    }


def under_load(info: DeviceInfo, state: Mapping[str, Any]) -> str | None:
    """Why a CPU device's peak measured in ``state`` (see `conditions`) was taken
    under load, or None."""
    if info.kind != "cpu":
        return None
    cpus = state.get("cpus") or 1
    load = (state.get("load_before") or [0.0])[0]
    others = state.get("others_busy")
    if load <= LOADED * cpus and (others is None or others <= OTHERS):
        return None
    took = f"; other processes took {others:.0%} of its CPU time" if others is not None else ""
    return (
        f"measured under load: the load average was {load:.2f} on {cpus} CPUs before it"
        f"{took}; a CPU device's peak is then too low"
    )


def losses(peak: Mapping[str, Any], stored: Mapping[str, Any] | None) -> list[str]:
    """What keeping ``peak`` would lose of the ``stored`` entry: each figure it
    lacks (failed or nonsense) or holds far below the stored one."""
    if not stored:
        return []
    found = []
    when = stored.get("measured") or "an unknown date"
    for key, label, unit in _figures(stored):
        old, new = _figure(stored, key), _figure(peak, key)
        if old is None:
            continue
        if new is None:
            found.append(f"{label}: not measured; the stored {old:.3g} {unit} ({when}) would go")
        elif new * FAR_BELOW < old:
            found.append(
                f"{label} {new:.3g} {unit} is far below the stored {old:.3g} {unit} ({when})"
            )
    return found


def has_figures(peak: Mapping[str, Any]) -> bool:
    """Whether a peak holds a figure at all: one whose every measurement failed or was
    nonsense has nothing to place a row against."""
    return any(_figure(peak, key) is not None for key, _, _ in _figures(peak))


def _figures(peak: Mapping[str, Any]) -> list[tuple[tuple[str, ...], str, str]]:
    """The figures of a peak: where each is kept, its label and unit."""
    return [
        (("copy_gbytes_per_s",), "copy", "GB/s"),
        (("triad_gbytes_per_s",), "triad", "GB/s"),
        *((("fma_gflops_per_s", p), f"FMA {p}", "GFLOP/s") for p in ("f64", "f32")),
    ]


def _figure(peak: Mapping[str, Any], key: tuple[str, ...]) -> float | None:
    """One figure of a peak where it is a positive finite number, else None."""
    value: Any = peak
    for part in key:
        value = value.get(part) if isinstance(value, Mapping) else None
    return float(value) if _sensible(value) else None


def _rate(amount: float, seconds: float) -> float:
    """Giga-units a second, NaN for a time that is not positive."""
    return amount / seconds / 1e9 if seconds > 0 else math.nan


#: The smallest figure a device's peak can be (a kilobyte or a thousand FLOPs a
#: second): below it, a store's figure is damage, and rows placed against it would
#: hold percentages no reader takes (1e-300 GB/s made one 2e302%). The Oclgrind
#: simulator's figures are real and under a million (4e-4 GFLOP/s): at 1e-3 every
#: one was refused as one "no device does", and its peak was never kept.
MIN_FIGURE = 1e-6
#: GB/s or GFLOP/s no device has (an exa-figure): above it, a store's figure is
#: damage too (1e300 GB/s placed rows at 5.8e-298 % of it).
MAX_FIGURE = 1e9


def _sensible(value: Any) -> bool:
    """Whether a measured figure is one a device can have: a finite number of at
    least `MIN_FIGURE` and at most `MAX_FIGURE` (no True, which Python counts as 1)."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and MIN_FIGURE <= value <= MAX_FIGURE
    )


def describe(peak: Mapping[str, Any], today: datetime.date | None = None) -> tuple[str, list[str]]:
    """When a stored peak was measured, and why a run should doubt it: flagged
    (its warnings), old, or without the conditions it was measured in."""
    when = str(peak.get("measured") or "at an unknown date")
    warnings = "; ".join(str(w) for w in peak.get("warnings") or [])
    doubts = [f"flagged: {warnings}"] if warnings else []
    measured = _date(when)
    age = ((today or datetime.date.today()) - measured).days if measured else None
    if age is not None and age > OLD_DAYS:
        doubts.append(f"old: measured {age} days ago")
    if not isinstance(peak.get("conditions"), dict):
        doubts.append("the load it was measured under was not recorded")
    return when, doubts


def bandwidth(peak: Mapping[str, Any]) -> float | None:
    """A device's bandwidth peak: the better of copy and triad."""
    values = [peak.get(key) for key in BANDWIDTH.values()]
    found = [float(v) for v in values if _sensible(v)]
    return max(found, default=None)


def place(row: dict[str, Any], peak: Mapping[str, Any] | None) -> None:
    """Add ``pct_peak_bw`` and ``pct_peak_flops`` (percent of the device's peaks)
    to a timed row, where the device has peaks and the row the rate."""
    if not peak:
        return
    # A damaged store may hold anything there: a figure that is no positive
    # number places no row, nor one that would make a percentage no reader takes.
    for column, rate, best in (
        ("pct_peak_bw", row.get("gbytes_per_s"), bandwidth(peak)),
        (
            "pct_peak_flops",
            row.get("gflops_per_s"),
            _figure(peak, ("fma_gflops_per_s", str(row.get("precision")))),
        ),
    ):
        if rate and best and 100 * rate / best <= MAX_OTHER:
            row[column] = 100 * rate / best


def _bandwidth_size(kernel: str, info: DeviceInfo, precision: str, limit: int | None) -> int:
    spec = suite.BY_NAME[kernel]
    cache, _ = last_level_cache(info)
    size = size_for_memory(spec, precision, "allocated", CACHES * cache) or spec.default_size
    size = max(size, MIN_LENGTH)
    if info.memory_bytes:
        size = min(size, largest_size(spec, precision, info.memory_bytes // 8) or size)
    if limit:
        size = min(size, largest_size(spec, precision, limit) or size)
    return size


def measure(
    info: DeviceInfo,
    runner: Runner,
    fma_size: int | None = None,
    bandwidth_size: int | None = None,
    span: float = SPAN,
) -> dict[str, Any]:
    """A device's peaks (see the module's description), with how they were measured;
    the sizes default to the module's choices."""
    session = runner.session(info.backend, info.index)
    limit = session.array_limit()
    before = conditions()
    peak: dict[str, Any] = {"device": info.as_dict(), "measured": metadata.now(), "notes": []}
    peak["warnings"] = []
    # A simulator runs ten thousand times slower than a device: at the default sizes
    # its bandwidth took minutes and its FMA was skipped (hours a repetition); at the
    # least sizes it is measured in a minute or two.
    least = info.kind == "simulator"
    # Noise is never judged (a row keeps no more samples than that), so only
    # the span's budget ends the sampling.
    never = StopRule.max_samples
    spanned = Runner(
        replace(runner.options, reps=None, min_time=span, max_time=span, min_samples=never)
    )
    # A device without f64 (a GPU through wgpu, mostly) streams f32 arrays, its bytes a
    # second the same measure: in f64 its rows were skipped, and it had no bandwidth peak.
    wide = "f64" if "f64" in info.features else "f32"
    for kernel, key in BANDWIDTH.items():
        size = bandwidth_size or (
            LEAST_BANDWIDTH_SIZE
            if least
            else _bandwidth_size(kernel, info, wide, limit[1] if limit else None)
        )
        row = spanned.execute(Task(kernel, info.backend, info.index, size, wide))
        if row["status"] != "ok":
            peak["notes"].append(f"{kernel}: {row['status']}: {row['reason']}")
            continue
        name = key.split("_")[0]
        best = _rate(row["bytes_per_rep"], row["time_min_s"])
        if not _sensible(best):
            peak["notes"].append(f"{kernel}: measured {best} GB/s, which no device does")
            continue
        peak[key] = best
        peak[key.replace("_gbytes", "_median_gbytes")] = row["gbytes_per_s"]
        peak[f"{name}_size"] = size
        peak[f"{name}_samples"] = len(row["samples_s"])
        if row["time_median_s"] > SPREAD * row["time_min_s"]:
            peak["warnings"].append(
                f"{kernel}'s bandwidth changed while it was measured (median "
                f"{row['gbytes_per_s']:.3g} GB/s, best {peak[key]:.3g}): the machine is "
                "shared or throttled, and the peak is its best"
            )
    peak["fma_gflops_per_s"] = {}
    spec = suite.spec_of(FMA)
    # A precision the device lacks is no failure of the measurement (an exit status 1
    # on every device without f64), as it is none of a run's.
    for precision in [p for p in ("f64", "f32") if not spec.required_features(p) - info.features]:
        default = spec.default_size if info.kind != "cpu" else spec.default_size // 4
        size = fma_size or (LEAST_FMA_SIZE if least else default)
        row = runner.execute(Task(FMA, info.backend, info.index, size, precision))
        if row["status"] != "ok":
            peak["notes"].append(f"{FMA} {precision}: {row['status']}: {row['reason']}")
            continue
        flops = _rate(row["flops_per_rep"], row["time_min_s"])
        if not _sensible(flops):
            peak["notes"].append(
                f"{FMA} {precision}: measured {flops} GFLOP/s, which no device does"
            )
            continue
        peak["fma_gflops_per_s"][precision] = flops
    peak["conditions"] = conditions(before)
    if loaded := under_load(info, peak["conditions"]):
        peak["warnings"].append(loaded)
    return peak

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
independent multiply-adds). The figures go to a JSON store, one entry per
device of a host (keyed by host, backend, name, driver and API, so another
machine or driver never reuses them): ``$HARNESS_PEAKS``, else
``$XDG_CACHE_HOME/harness/peaks.json``, else ``~/.cache/harness/peaks.json``.
``harness run`` copies each device's entry into its metadata and gives every
row ``pct_peak_bw`` and ``pct_peak_flops``.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import filelock

from harness import suite
from harness.backends.base import DeviceInfo
from harness.errors import UsageError
from harness.execution import metadata
from harness.execution.flush import last_level_cache
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


def store_path() -> Path:
    """Where measured peaks are kept."""
    if os.environ.get("HARNESS_PEAKS"):
        return Path(os.environ["HARNESS_PEAKS"])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "harness" / "peaks.json"


def device_key(device: Mapping[str, Any]) -> str:
    """What identifies a device's peaks: this host and the device as its driver names it."""
    parts = (platform.node(), device.get("backend"), device.get("name"), device.get("driver"))
    return " | ".join(str(p) for p in (*parts, device.get("api")))


def _read(path: Path) -> dict[str, Any]:
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: not a peaks file harness peak wrote ({exc})") from None
    return stored if isinstance(stored, dict) else {}


def lookup(device: Mapping[str, Any]) -> dict[str, Any] | None:
    """The stored peaks of a device (a `DeviceInfo.as_dict`), or None."""
    try:
        entry = _read(store_path()).get(device_key(device))
    except UsageError:
        return None
    return entry if isinstance(entry, dict) else None


def keep(device: Mapping[str, Any], peak: dict[str, Any]) -> Path:
    """Store a device's peaks, keeping every other device's; returns the file."""
    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(str(path) + ".lock"):
        stored = _read(path)
        stored[device_key(device)] = peak
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    return path


def bandwidth(peak: Mapping[str, Any]) -> float | None:
    """A device's bandwidth peak: the better of copy and triad."""
    values = [peak.get(key) for key in BANDWIDTH.values()]
    found = [float(v) for v in values if isinstance(v, (int, float)) and v > 0]
    return max(found, default=None)


def place(row: dict[str, Any], peak: Mapping[str, Any] | None) -> None:
    """Add ``pct_peak_bw`` and ``pct_peak_flops`` (percent of the device's peaks)
    to a timed row, where the device has peaks and the row the rate."""
    if not peak:
        return
    rate = row.get("gbytes_per_s")
    best = bandwidth(peak)
    if rate and best:
        row["pct_peak_bw"] = 100 * rate / best
    flops = (peak.get("fma_gflops_per_s") or {}).get(row.get("precision"))
    if row.get("gflops_per_s") and flops:
        row["pct_peak_flops"] = 100 * row["gflops_per_s"] / flops


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
    peak: dict[str, Any] = {"device": info.as_dict(), "measured": metadata.now(), "notes": []}
    peak["warnings"] = []
    # Noise is never judged (a row keeps no more samples than that), so only
    # the span's budget ends the sampling.
    never = StopRule.max_samples
    spanned = Runner(
        replace(runner.options, reps=None, min_time=span, max_time=span, min_samples=never)
    )
    for kernel, key in BANDWIDTH.items():
        size = bandwidth_size or _bandwidth_size(kernel, info, "f64", limit[1] if limit else None)
        row = spanned.execute(Task(kernel, info.backend, info.index, size, "f64"))
        if row["status"] != "ok":
            peak["notes"].append(f"{kernel}: {row['status']}: {row['reason']}")
            continue
        name = key.split("_")[0]
        peak[key] = row["bytes_per_rep"] / row["time_min_s"] / 1e9
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
    for precision in ("f64", "f32"):
        size = fma_size or (spec.default_size if info.kind != "cpu" else spec.default_size // 4)
        row = runner.execute(Task(FMA, info.backend, info.index, size, precision))
        if row["status"] != "ok":
            peak["notes"].append(f"{FMA} {precision}: {row['status']}: {row['reason']}")
            continue
        peak["fma_gflops_per_s"][precision] = row["flops_per_rep"] / row["time_min_s"] / 1e9
    return peak

"""Cold-cache repetitions: between two timed repetitions a kernel reads a
scratch buffer larger than the device's last-level cache, outside the timed
region, so that the next repetition finds none of its data in cache. It
writes only a small digest: a flush that wrote its buffer would leave dirty
lines, whose write-back the next (timed) repetition would pay for.

The scratch buffer is twice the last-level cache: the device's own figure
where its API gives one (OpenCL's global memory cache, CUDA's L2), the host's
largest CPU cache for devices that run on the host's cores (the numpy
backend, PoCL, lavapipe), else `UNKNOWN_CACHE_BYTES`; `--flush-bytes` sets it
instead. Either is capped by the device's limit on one buffer and its memory.
An OpenCL GPU's figure is only a floor: NVIDIA's driver gives 4 MiB for an
H100, whose L2 holds 50 MiB. Each cold row records the bytes it used.
"""

from __future__ import annotations

from pathlib import Path

from harness.backends import base
from harness.model import sources
from harness.suite.internal import FLUSH

#: Where the host lists its CPU caches (``index*/size`` such as ``32768K``).
HOST_CACHES = Path("/sys/devices/system/cpu/cpu0/cache")
#: The cache assumed where neither the device nor the host says: larger than
#: any GPU's last-level cache today.
UNKNOWN_CACHE_BYTES = 256 << 20
#: The scratch buffer's size in last-level caches.
CACHES_FLUSHED = 2


def _bytes(text: str) -> int | None:
    """``32768K``, ``1M`` or ``512`` as bytes; None for anything else."""
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if scale > 1 else text
    return int(digits) * scale if digits.isascii() and digits.isdigit() else None


def host_cache_bytes(root: Path = HOST_CACHES) -> int | None:
    """The largest CPU cache the host lists (its last level); None where it lists none."""
    sizes = []
    for entry in root.glob("index*/size"):
        try:
            size = _bytes(entry.read_text())
        except OSError:
            continue
        if size:
            sizes.append(size)
    return max(sizes, default=None)


def last_level_cache(info: base.DeviceInfo) -> tuple[int, str]:
    """The device's last-level cache in bytes, and where the figure comes from."""
    reported = info.limits.get("cache_bytes")
    on_cpu = "cpu" in info.kind.split("/")
    if isinstance(reported, int) and reported > 0:
        if info.backend == "opencl" and not on_cpu and reported < UNKNOWN_CACHE_BYTES:
            return UNKNOWN_CACHE_BYTES, "assumed"  # a GPU's L1 or part of its L2
        return reported, "device"
    if on_cpu:
        host = host_cache_bytes()
        if host:
            return host, "host"
    return UNKNOWN_CACHE_BYTES, "assumed"


def flush_length(info: base.DeviceInfo, array_limit: int | None, wanted: int | None = None) -> int:
    """Elements of the scratch buffer: ``wanted`` bytes, else `CACHES_FLUSHED`
    last-level caches, within the device's limit on one buffer and a quarter of
    its memory."""
    want = wanted if wanted else CACHES_FLUSHED * last_level_cache(info)[0]
    for cap in (array_limit, info.memory_bytes // 4 if info.memory_bytes else None):
        if cap:
            want = min(want, cap)
    return max(1, want // 4)


class Flusher:
    """A loaded scratch buffer and its kernel on one device; `run` evicts the cache."""

    def __init__(
        self,
        session: base.Session,
        language: str | None,
        extension: str,
        wanted: int | None = None,
    ) -> None:
        source = None
        if language is not None:
            source = sources.find(language, extension, FLUSH.source_name, ())
            if source is None:
                raise RuntimeError(f"no cache-flush source for {language}")
        limit = session.array_limit()
        length = flush_length(session.info, limit[1] if limit else None, wanted)
        self.bytes = 4 * length
        inputs = FLUSH.init(length, 1, "f64")
        self._launches = FLUSH.resolve(length, inputs, "f64")
        self._execution = session.load(FLUSH, "f64", source, inputs)

    def run(self) -> None:
        """Read the whole scratch buffer, and wait for it."""
        self._execution.run(self._launches)

    def close(self) -> None:
        """Free the scratch buffer."""
        self._execution.close()

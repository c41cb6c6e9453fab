"""Energy a device uses over a row's timed repetitions, where a counter tells.

One reader per source, each a set of cumulative counters read before and after
the timed repetitions:

- NVIDIA GPUs: NVML's total energy counter (``nvmlDeviceGetTotalEnergyConsumption``,
  millijoules since the driver loaded; Volta and newer) through ``pynvml``
  (``pip install 'harness[nvml]'``);
- devices that run on the host's cores (the numpy backend, PoCL, lavapipe):
  RAPL's package counters (``/sys/class/powercap/intel-rapl:N/energy_uj``,
  microjoules, wrapping at ``max_energy_range_uj``; AMD processors have them
  under the same name on recent kernels), all packages summed, since such a
  device runs on all of them. A package counts everything it does meanwhile
  (other processes, this one's own host work, idle power), not the kernel alone;
- anything else: nothing, and the reason.

A row's energy per repetition is the mean power over the timed repetitions' wall
time (the counters' rise over it) times the median repetition time, so that the
repetitions the sampler runs but does not count (calibrating a batch) are priced
at the power they ran at rather than charged to the counted ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.execution import clocks

#: Where Linux lists its power-capping zones, RAPL's among them.
POWERCAP = Path("/sys/class/powercap")

#: The columns every timed row has (None where nothing was measured).
COLUMNS = ("power_w", "energy_j_per_rep", "gflops_per_j", "gbytes_per_j")
#: The shortest timed stretch an energy figure is given for. The counters move in
#: steps (NVML's some tens of milliseconds apart on an H200), so a stretch of a few
#: steps holds one more or one fewer by chance: over 0.06 s an H200 read 0 W on
#: some rows and 500 to 940 W, past its 700 W limit, on others.
MIN_WINDOW_S = 1.0


@dataclass(frozen=True)
class Counter:
    """One cumulative energy counter: how to read it, joules per unit, and the
    value past which it wraps to zero (None: it does not)."""

    name: str
    read: Callable[[], int]
    joules: float
    wrap: int | None = None


def rise(before: int, after: int, wrap: int | None) -> int | None:
    """How far a counter rose between two readings, across at most one wrap; None
    where it went back and cannot wrap (a driver reloaded: its count restarted)."""
    if after >= before:
        return after - before
    if wrap is None:
        return None
    return wrap - before + after


class Reader:
    """One device's energy counters, from one source (``rapl``, ``nvml``)."""

    def __init__(self, source: str, counters: Sequence[Counter]) -> None:
        self.source = source
        self.counters = tuple(counters)

    def read(self) -> tuple[int, ...] | None:
        """Every counter's value now; None where one cannot be read."""
        try:
            return tuple(int(counter.read()) for counter in self.counters)
        except Exception:  # a counter that stops answering gives no reading
            return None

    def joules(self, before: tuple[int, ...] | None, after: tuple[int, ...] | None) -> float | None:
        """Joules used between two readings, all counters summed; None where either
        reading failed or a counter went back."""
        if before is None or after is None:
            return None
        total = 0.0
        for counter, old, new in zip(self.counters, before, after, strict=True):
            units = rise(old, new, counter.wrap)
            if units is None:
                return None
            total += units * counter.joules
        return total

    def describe(self) -> dict[str, Any]:
        """What the run's metadata says of this source."""
        return {"source": self.source, "counters": [c.name for c in self.counters]}


def rapl(root: Path = POWERCAP) -> Reader | str:
    """A reader of the host's RAPL package counters under ``root``, or why there is none."""
    if not root.is_dir():
        return f"no RAPL counters readable here: {root} has none"
    packages = []
    for zone in sorted(root.glob("intel-rapl:*")):
        if zone.name.count(":") != 1:  # intel-rapl:0:1: a package's core, uncore or memory
            continue
        try:
            name = (zone / "name").read_text().strip()
        except OSError:
            continue
        if name.startswith("package"):
            packages.append((zone, name))
    if not packages:
        return f"no RAPL counters readable here: {root} has no package domain"
    counters = []
    for zone, name in packages:
        energy = zone / "energy_uj"
        try:
            int(energy.read_text())
            wrap = int((zone / "max_energy_range_uj").read_text())
        except PermissionError:
            return f"RAPL counters not readable here: permission denied ({energy})"
        except (OSError, ValueError) as exc:
            return f"RAPL counters not readable here: {energy}: {exc}"
        counters.append(Counter(name, _file_reader(energy), 1e-6, wrap))
    return Reader("rapl", counters)


def _file_reader(path: Path) -> Callable[[], int]:
    return lambda: int(path.read_text())


def nvml(name: str, index: int) -> Reader | str:
    """A reader of one NVIDIA GPU's total energy counter, or why there is none."""
    found = clocks.nvml_device(name, index)
    if isinstance(found, str):
        return found
    pynvml, handle = found
    try:
        pynvml.nvmlDeviceGetTotalEnergyConsumption(handle)
    except Exception as exc:
        return f"NVML has no total energy counter for {name} (Volta and newer have one): {exc}"
    return Reader(
        "nvml",
        [Counter("total energy", lambda: pynvml.nvmlDeviceGetTotalEnergyConsumption(handle), 1e-3)],
    )


def reader(device: Mapping[str, Any]) -> Reader | str:
    """The energy reader of a device (a `DeviceInfo.as_dict`), or why it has none."""
    if device.get("kind") == "cpu":
        return rapl()
    if clocks.nvidia(device):
        return nvml(str(device.get("name")), clocks.device_index(device))
    kind, vendor = device.get("kind"), device.get("vendor")
    return f"no energy counter known for this device (a {kind} of {vendor})"


def describe(found: Reader | str) -> dict[str, Any]:
    """What the run's metadata says of a device's energy: its source and counters,
    or why it has none."""
    if isinstance(found, str):
        return {"source": None, "why": found}
    return found.describe()


def columns(
    joules: float | None, window_s: float, median_s: float, bytes_per_rep: int, flops_per_rep: int
) -> dict[str, float | None]:
    """A timed row's energy columns (`COLUMNS`) from the joules used over its timed
    repetitions' ``window_s`` seconds of wall time: the mean power, that power times
    the median repetition time, and the bytes and FLOPs of a repetition per joule
    (where it has any); every one None where nothing was measured or the stretch
    was shorter than `MIN_WINDOW_S`."""
    row: dict[str, float | None] = dict.fromkeys(COLUMNS)
    if joules is None or not joules > 0 or not math.isfinite(joules):
        return row
    if not window_s >= MIN_WINDOW_S:
        return row
    power = joules / window_s
    per_rep = power * median_s
    row.update(power_w=power, energy_j_per_rep=per_rep)
    if per_rep > 0:
        row["gbytes_per_j"] = bytes_per_rep / per_rep / 1e9 if bytes_per_rep else None
        row["gflops_per_j"] = flops_per_rep / per_rep / 1e9 if flops_per_rep else None
    return row

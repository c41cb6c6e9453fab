"""Clocks, temperature and throttling around each row, where the system tells.

A row records its device's clock (and temperature, where known) just before
its timed repetitions and just after, and is flagged when the clock fell by
more than `DROP` or a throttle reason appeared meanwhile: its times may then
mix two speeds. Sources:

- devices that run on the host's cores (the numpy backend, PoCL, lavapipe):
  the host's CPU frequencies (cpufreq where the kernel has it, else
  /proc/cpuinfo) and its thermal zones or hwmon sensors;
- NVIDIA GPUs: NVML through the ``pynvml`` module (``pip install
  'harness[nvml]'``): SM and memory clocks, temperature, power and the
  driver's current throttle reasons;
- anything else: nothing is recorded.

A host CPU changes frequency by itself with load, so a flag on a CPU device
says the clock fell during the row, not why.

An NVIDIA GPU reached through Vulkan or OpenCL lets its clock follow the load:
on an H200 the WebGPU rows of a suite began anywhere from 345 to 1980 MHz, where
every CUDA row began at 1980. So where NVML tells a GPU's highest clock, a row
whose device is well below it first runs its repetitions untimed until the clock
has risen (`ramp`), at most `RAMP_S`, as a GPU program under steady load would run.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

#: A row is flagged when its clock after is this much below its clock before.
DROP = 0.10
#: The longest a row waits, running its repetitions untimed, for its device's
#: clock to rise to within `DROP` of the highest (`ramp`).
RAMP_S = 1.0

Sample = dict[str, Any]


def _numbers(paths: list[Path], scale: float) -> list[float]:
    values = []
    for path in paths:
        try:
            values.append(int(path.read_text().strip()) * scale)
        except (OSError, ValueError):
            continue
    return values


def host_sample(root: Path = Path("/")) -> Sample:
    """The host's CPU clocks (mean and lowest, MHz) and hottest sensor (°C), where
    the system has them; ``root`` is where /sys and /proc are (for tests)."""
    cpus = root / "sys/devices/system/cpu"
    mhz = _numbers(sorted(cpus.glob("cpu[0-9]*/cpufreq/scaling_cur_freq")), 1e-3)
    if not mhz:
        try:
            text = (root / "proc/cpuinfo").read_text()
        except OSError:
            text = ""
        mhz = [float(v) for v in re.findall(r"^cpu MHz\s*:\s*([\d.]+)", text, re.MULTILINE)]
    sensors = sorted((root / "sys/class/thermal").glob("thermal_zone*/temp"))
    sensors += sorted((root / "sys/class/hwmon").glob("hwmon*/temp*_input"))
    temps = _numbers(sensors, 1e-3)
    sample: Sample = {}
    if mhz:
        sample["clock_mhz"] = sum(mhz) / len(mhz)
        sample["clock_min_mhz"] = min(mhz)
    if temps:
        sample["temp_c"] = max(temps)
    return sample


def nvml_device(name: str, index: int) -> tuple[Any, Any] | str:
    """The ``pynvml`` module and NVML's handle of one NVIDIA GPU: the device of that
    name at that index in NVML's order if there is one, else the first of that name
    (CUDA's order can differ from NVML's, which follows the PCI bus); else why not.
    Shared by the clock probe and the energy reader (`harness.execution.energy`)."""
    try:
        import pynvml
    except ImportError:
        return "no NVML module (pip install 'harness[nvml]')"
    try:
        pynvml.nvmlInit()
        handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]
    except Exception as exc:  # no library, no driver
        return f"NVML does not answer: {exc}"

    def named(handle: Any) -> str:
        value = pynvml.nvmlDeviceGetName(handle)
        return value.decode() if isinstance(value, bytes) else str(value)

    same = [i for i, h in enumerate(handles) if named(h) == name]
    if not same:
        return f"NVML lists no GPU named {name!r}"
    return pynvml, handles[index if index in same else same[0]]


def _nvml_sampler(name: str, index: int) -> Callable[[], Sample] | None:
    """Reads one NVIDIA GPU's clocks through NVML (`nvml_device`)."""
    found = nvml_device(name, index)
    if isinstance(found, str):
        return None
    pynvml, handle = found
    reasons = {
        getattr(pynvml, f"nvmlClocksThrottleReason{key}", None): label
        for key, label in (
            ("SwPowerCap", "sw_power_cap"),
            ("HwSlowdown", "hw_slowdown"),
            ("SwThermalSlowdown", "sw_thermal"),
            ("HwThermalSlowdown", "hw_thermal"),
            ("HwPowerBrakeSlowdown", "hw_power_brake"),
        )
    }

    try:
        highest = {
            "clock_max_mhz": float(pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM))
        }
    except Exception:  # no highest clock known: no ramp
        highest = {}

    def sample() -> Sample:
        try:
            mask = pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(handle)
            return {
                **highest,
                "clock_mhz": float(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)),
                "memory_clock_mhz": float(
                    pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM)
                ),
                "temp_c": float(
                    pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU)
                ),
                "power_w": pynvml.nvmlDeviceGetPowerUsage(handle) / 1000,
                "throttle": ",".join(
                    label for bit, label in reasons.items() if bit is not None and mask & bit
                ),
            }
        except Exception:  # a device that stops answering gives no sample
            return {}

    return sample


class ClockProbe:
    """Reads one device's clocks on demand."""

    def __init__(self, read: Callable[[], Sample]) -> None:
        self._read = read

    def read(self) -> Sample:
        """One sample: clock_mhz, and temp_c, throttle and more where known."""
        return self._read()


def probe(device: Mapping[str, Any]) -> ClockProbe | None:
    """A probe for a device (a `DeviceInfo.as_dict`), or None where nothing tells
    its clocks."""
    if device.get("kind") == "cpu":
        return ClockProbe(host_sample) if host_sample() else None
    if nvidia(device):
        read = _nvml_sampler(str(device.get("name")), device_index(device))
        return ClockProbe(read) if read else None
    return None


def nvidia(device: Mapping[str, Any]) -> bool:
    """Whether a device (a `DeviceInfo.as_dict`) is an NVIDIA GPU, which NVML reads."""
    return device.get("backend") == "cuda" or "NVIDIA" in str(device.get("vendor", "")).upper()


def device_index(device: Mapping[str, Any]) -> int:
    """A device's index within its backend, from its id (``cuda:1``: 1)."""
    index = str(device.get("id", "")).rpartition(":")[2]
    return int(index) if index.isascii() and index.isdigit() else 0


def ramp(
    read: Callable[[], Sample],
    work: Callable[[], object],
    limit_s: float = RAMP_S,
    now: Callable[[], float] = time.perf_counter,
    ceiling: float | None = None,
) -> float:
    """Run ``work`` (a row's repetitions, untimed) until the device's clock, as
    ``read`` gives it, is within `DROP` of its highest (``clock_max_mhz``, or the
    lower ``ceiling`` an earlier whole ramp reached), or ``limit_s`` has passed;
    return the seconds it took (0 where the clock was already there or no highest
    clock is known)."""
    sample = read()
    highest = sample.get("clock_max_mhz")
    if not highest:
        return 0.0
    if ceiling:
        highest = min(highest, ceiling)
    start = now()

    def low(sample: Sample) -> bool:
        clock = sample.get("clock_mhz")
        return clock is not None and clock < (1 - DROP) * highest

    if not low(sample):
        return 0.0
    while now() - start < limit_s:
        work()
        if not low(read()):
            break
    return now() - start


def columns(before: Sample, after: Sample) -> dict[str, Any]:
    """What a row records of two samples: clocks and temperatures before and after,
    the device's highest clock where it tells it, and ``clocks_dropped`` with a
    ``clocks_note`` saying why where the clock fell by more than `DROP` or a
    throttle reason appeared."""
    row: dict[str, Any] = {}
    for key in ("clock_mhz", "temp_c"):
        for when, sample in (("before", before), ("after", after)):
            if sample.get(key) is not None:
                row[f"{key}_{when}"] = sample[key]
    if not row:
        return row
    if before.get("clock_max_mhz"):
        row["clock_max_mhz"] = before["clock_max_mhz"]
    notes = []
    low, high = after.get("clock_mhz"), before.get("clock_mhz")
    if low is not None and high and low < (1 - DROP) * high:
        notes.append(f"clock fell from {high:.0f} to {low:.0f} MHz")
    was = set(filter(None, str(before.get("throttle") or "").split(",")))
    now = set(filter(None, str(after.get("throttle") or "").split(",")))
    if now - was:
        notes.append(f"throttled: {', '.join(sorted(now - was))}")
    row["clocks_dropped"] = bool(notes)
    if notes:
        row["clocks_note"] = "; ".join(notes)
    return row

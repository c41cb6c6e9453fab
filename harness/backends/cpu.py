"""The CPU fallback: runs a description's plan through its numpy entry points.

Always available. It executes the same launch list as every device backend,
so it tests the plan as well as giving a baseline; repetitions are timed with
the host clock.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from harness.backends.base import Backend, DeviceInfo, DeviceOutOfMemory, Execution, Session
from harness.model.spec import FEATURES, Grid, KernelSpec, ResolvedLaunch


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _host_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


class CpuExecution(Execution):
    """Host arrays and the description's numpy entry points."""

    def __init__(self, spec: KernelSpec, inputs: Mapping[str, np.ndarray]) -> None:
        self._spec = spec
        try:
            self._arrays = {name: np.array(value, copy=True) for name, value in inputs.items()}
        except MemoryError as exc:
            need = sum(v.nbytes for v in inputs.values())
            raise DeviceOutOfMemory(
                f"host out of memory copying {need} bytes of inputs "
                f"(host memory {_host_memory()} bytes)"
            ) from exc

    def run(self, launches: Sequence[ResolvedLaunch]) -> None:
        for launch in launches:
            entry = self._spec.cpu[launch.entry]
            arrays = [self._arrays[n] for n in launch.arrays]
            entry(Grid(launch.items, launch.group), *arrays, *(v for _, v in launch.scalars))

    def time(
        self, launches: Sequence[ResolvedLaunch], reps: int, hold: bool = True, batch: int = 1
    ) -> list[float]:
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            for _ in range(batch):
                self.run(launches)
            times.append((time.perf_counter() - start) / batch)
        return times

    def read(self, name: str) -> np.ndarray:
        return self._arrays[name].copy()

    def upload(self, name: str, host: np.ndarray) -> float:
        # The host is the device: a transfer is a copy between two host arrays,
        # what a runtime that copies on a shared-memory device pays.
        start = time.perf_counter()
        self._arrays[name][: host.size] = host
        return time.perf_counter() - start

    def download(self, name: str, host: np.ndarray) -> float:
        start = time.perf_counter()
        host[:] = self._arrays[name][: host.size]
        return time.perf_counter() - start


class CpuSession(Session):
    """The host as a device."""

    timer = "host"

    def __init__(self, info: DeviceInfo) -> None:
        self.info = info

    def load(
        self,
        spec: KernelSpec,
        precision: str,
        source: Path | None,
        inputs: Mapping[str, np.ndarray],
    ) -> Execution:
        return CpuExecution(spec, inputs)


class CpuBackend(Backend):
    """numpy on the host."""

    name = "cpu"

    def devices(self) -> list[DeviceInfo]:
        return [
            DeviceInfo(
                backend=self.name,
                index=0,
                name=_cpu_name(),
                vendor=platform.machine(),
                kind="cpu",
                memory_bytes=_host_memory(),
                compute_units=os.cpu_count() or 1,
                driver=f"numpy {np.__version__}",
                api=f"Python {platform.python_version()}",
                features=frozenset(FEATURES),
            )
        ]

    def open(self, index: int) -> Session:
        return CpuSession(self.devices()[index])

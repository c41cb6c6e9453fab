"""The backend registry: the name a user types, mapped to its implementation."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from harness.backends.base import Backend, DeviceInfo
from harness.backends.cpu import CpuBackend
from harness.backends.cuda import CudaBackend
from harness.backends.opencl import OpenCLBackend
from harness.backends.wgpu import WgpuBackend

BACKENDS: dict[str, type[Backend]] = {
    "cpu": CpuBackend,
    "opencl": OpenCLBackend,
    "wgpu": WgpuBackend,
    "cuda": CudaBackend,
}


def get(name: str) -> Backend:
    """A backend by name; ValueError naming the choices for an unknown one."""
    try:
        return BACKENDS[name]()
    except KeyError:
        raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}") from None


@dataclass(frozen=True)
class Catalog:
    """What one backend offers on this machine: why it cannot run, or its devices.

    Picklable, so that a worker process can list devices for its parent, which
    then never loads a driver itself.
    """

    backend: str
    reason: str | None
    devices: tuple[DeviceInfo, ...] = ()
    defaults: tuple[DeviceInfo, ...] = ()
    #: `Backend.device_notes`: what to know of a device, by id.
    notes: tuple[tuple[str, str], ...] = ()
    #: `Backend.backend_notes`: what to know of the backend besides its devices.
    backend_notes: tuple[str, ...] = ()


def catalog(name: str) -> Catalog:
    """List a backend's devices in this process; a failure to list becomes the reason."""
    backend = get(name)
    try:
        reason = backend.unavailable_reason()
        if reason is not None:
            return Catalog(name, reason)
        return Catalog(
            name,
            None,
            tuple(backend.devices()),
            tuple(backend.default_devices()),
            tuple(backend.device_notes().items()),
            tuple(backend.backend_notes()),
        )
    except Exception as exc:
        return Catalog(name, f"listing its devices failed: {type(exc).__name__}: {exc}")


def drivers_loaded() -> bool:
    """Whether this process has loaded any backend's driver library.

    A process that has may not fork workers: drivers keep threads and device
    state that a forked child inherits broken (PoCL hangs, CUDA refuses).
    """
    return any(m in sys.modules for cls in BACKENDS.values() for m in cls.driver_modules)

"""The backend registry: the name a user types, mapped to its implementation."""

from __future__ import annotations

from harness.backends.base import Backend
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

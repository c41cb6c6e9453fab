"""RAJAPerf's Lcals group (src/lcals/*.cpp)."""

from __future__ import annotations

from harness.spec import KernelSpec

GROUP_NAME = "Lcals"

KERNELS: tuple[KernelSpec, ...] = ()

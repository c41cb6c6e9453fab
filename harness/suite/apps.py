"""RAJAPerf's Apps group (src/apps/*.cpp)."""

from __future__ import annotations

from harness.spec import KernelSpec

GROUP_NAME = "Apps"

KERNELS: tuple[KernelSpec, ...] = ()

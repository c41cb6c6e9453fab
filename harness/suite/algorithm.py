"""RAJAPerf's Algorithm group (src/algorithm/*.cpp)."""

from __future__ import annotations

from harness.spec import KernelSpec

GROUP_NAME = "Algorithm"

KERNELS: tuple[KernelSpec, ...] = ()

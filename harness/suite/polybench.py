"""RAJAPerf's Polybench group (src/polybench/*.cpp)."""

from __future__ import annotations

from harness.spec import KernelSpec

GROUP_NAME = "Polybench"

KERNELS: tuple[KernelSpec, ...] = ()

"""RAJAPerf's Basic kernels that map each element on its own (src/basic/*.cpp),
and Basic_EMPTY, whose empty body measures what a launch costs."""

from __future__ import annotations

from harness.model.spec import KernelSpec

KERNELS: tuple[KernelSpec, ...] = ()

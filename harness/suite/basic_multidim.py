"""RAJAPerf's Basic kernels over two- and three-dimensional spaces:
NESTED_INIT and MAT_MAT_SHARED."""

from __future__ import annotations

from harness.model.spec import KernelSpec

KERNELS: tuple[KernelSpec, ...] = ()

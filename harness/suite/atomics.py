"""RAJAPerf's kernels built on floating-point atomic adds: Basic_DAXPY_ATOMIC,
Basic_MULTI_REDUCE and Algorithm_ATOMIC."""

from __future__ import annotations

from harness.model.spec import KernelSpec

KERNELS: tuple[KernelSpec, ...] = ()

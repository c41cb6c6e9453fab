"""Library variants: a kernel computed by the device's own library (a vendor
BLAS) instead of the harness's source, as a run option beside the kernel, so
that the two are timed and verified alike in one run."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from harness.model.spec import CpuEntry, KernelSpec, Launch, Param

#: The run option: the harness's kernel, the library's routine, or both.
IMPL = Param(
    "impl",
    ("kernel", "library"),
    ("kernel", "library"),
    "kernel: the harness's own kernel; library: the device's BLAS on the same arrays, "
    "timed and verified alike (numpy's BLAS on cpu, CLBlast on OpenCL; wgpu has none) "
    "(default: both, as two rows)",
    role="variant",
)


def with_library(
    spec: KernelSpec,
    plan: Callable[[int], Sequence[Launch]],
    cpu: Mapping[str, CpuEntry],
    summary: str,
) -> KernelSpec:
    """``spec`` taking `IMPL`: its own kernel, or ``plan``, whose launches call a
    library routine (`harness.model.spec.LIBRARY`), with ``cpu`` their numpy form."""
    kernel = dataclasses.replace(spec, param_values={IMPL.name: "kernel"})
    library = dataclasses.replace(
        spec,
        summary=summary,
        plan=plan,
        cpu=cpu,
        features=frozenset(),
        fixed_group="it is a library call",
        param_values={IMPL.name: "library"},
    )

    def bind(chosen: Mapping[str, str]) -> KernelSpec:
        return library if chosen.get(IMPL.name, "kernel") == "library" else kernel

    return dataclasses.replace(spec, params=(IMPL,), bind=bind)

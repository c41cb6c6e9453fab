"""Library variants: a kernel computed by the device's own library (a vendor
BLAS) instead of the harness's source, as a run option beside the kernel, so
that the two are timed and verified alike in one run."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from harness.model.spec import LIBRARY, CpuEntry, Grid, KernelSpec, Launch, Param, Scalar

#: The run option: the harness's kernel, the library's routine, or both.
IMPL = Param(
    "impl",
    ("kernel", "library"),
    ("kernel", "library"),
    "kernel: the harness's own kernel; library: the device's BLAS on the same arrays, "
    "timed and verified alike (numpy's BLAS on cpu, CLBlast on OpenCL, cuBLAS on CUDA; "
    "wgpu has none) "
    "(default: both, as two rows)",
    role="variant",
    same_data=True,
)


#: Scalars library calls take that a kernel's description may lack: launches
#: give them their values (a gemv's alpha of 1, beta of 0).
ZERO = Scalar("zero", "real")
ONE = Scalar("one", "real")
CONSTANTS = {ZERO.name: 0.0, ONE.name: 1.0}


def _gemv_cpu(grid: Grid, y, A, x, alpha, beta, m: int, n: int) -> None:
    product = A[: m * n].reshape(m, n) @ x[:n]
    y[:m] = alpha * product + beta * y[:m]


def _gemv_t_cpu(grid: Grid, y, A, x, alpha, beta, m: int, n: int) -> None:
    product = x[:m] @ A[: m * n].reshape(m, n)
    y[:n] = alpha * product + beta * y[:n]


def _gemm_cpu(grid: Grid, C, A, B, alpha, beta, m: int, n: int, k: int) -> None:
    product = A[: m * k].reshape(m, k) @ B[: k * n].reshape(k, n)
    C[: m * n] = (alpha * product + beta * C[: m * n].reshape(m, n)).ravel()


#: The BLAS routines as the cpu backend runs them: numpy's BLAS.
BLAS_CPU: dict[str, CpuEntry] = {
    f"{LIBRARY}gemm": _gemm_cpu,
    f"{LIBRARY}gemv": _gemv_cpu,
    f"{LIBRARY}gemv_t": _gemv_t_cpu,
}


def call(routine: str, args: tuple[str, ...], values: Mapping[str, float | int]) -> Launch:
    """A launch of a library routine on the description's arrays and scalars
    (`harness.model.spec.LIBRARY_ROUTINES` gives each routine's arguments)."""
    return Launch(f"{LIBRARY}{routine}", 1, 1, args, {**CONSTANTS, **values})


def with_library(
    spec: KernelSpec,
    plan: Callable[[int], Sequence[Launch]],
    cpu: Mapping[str, CpuEntry],
    summary: str,
) -> KernelSpec:
    """``spec`` taking `IMPL`: its own kernel, or ``plan``, whose launches call a
    library routine (`harness.model.spec.LIBRARY`), with ``cpu`` their numpy form
    (`BLAS_CPU` is added)."""
    kernel = dataclasses.replace(spec, param_values={IMPL.name: "kernel"})
    names = {s.name for s in spec.scalars}
    extra = tuple(s for s in (ZERO, ONE) if s.name not in names)
    library = dataclasses.replace(
        spec,
        summary=summary,
        plan=plan,
        cpu={**BLAS_CPU, **cpu},
        scalars=(*spec.scalars, *extra),
        features=frozenset(),
        fixed_group="it is a library call",
        param_values={IMPL.name: "library"},
    )

    def bind(chosen: Mapping[str, str]) -> KernelSpec:
        return library if chosen.get(IMPL.name, "kernel") == "library" else kernel

    return dataclasses.replace(spec, params=(IMPL,), bind=bind)

"""cuBLAS, NVIDIA's BLAS, called through its C API on the CUDA backend's own
device arrays and stream, so that a library routine is timed like any kernel
launch.

The library comes from the ``nvidia-cublas`` wheel (``pip install
'harness[cublas]'``) or a CUDA toolkit; `cuda.pathfinder` finds either. cuBLAS
is column-major: a row-major matrix is its transpose there, so each routine
below swaps or transposes operands to compute the row-major result.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from harness.backends.base import DeviceLimit

#: cuBLAS's operation enums (cublas_api.h).
OP_N = 0
OP_T = 1

INSTALL_HINT = "pip install 'harness[cublas]' (CUDA 13; nvidia-cublas-cu12 for CUDA 12)"


@cache
def library() -> ctypes.CDLL:
    """The loaded libcublas; DeviceLimit (a skipped row) where none is found."""
    try:
        from cuda import pathfinder

        path = pathfinder.load_nvidia_dynamic_lib("cublas").abs_path
    except Exception as exc:  # no cuda-pathfinder, or no library where it looks
        raise DeviceLimit(f"the library variant on CUDA needs cuBLAS: {INSTALL_HINT}") from exc
    return ctypes.CDLL(path)


def _check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"cuBLAS {what} failed with status {status}")


def _function(name: str, argtypes: list[Any]) -> Callable[..., int]:
    function = getattr(library(), name)
    function.argtypes = argtypes
    function.restype = ctypes.c_int
    return function


def create(stream: int) -> int:
    """A cuBLAS handle whose calls are queued on ``stream`` (a raw CUstream), in
    the current context."""
    handle = ctypes.c_void_p()
    _check(_function("cublasCreate_v2", [ctypes.c_void_p])(ctypes.byref(handle)), "create")
    set_stream = _function("cublasSetStream_v2", [ctypes.c_void_p, ctypes.c_void_p])
    _check(set_stream(handle, ctypes.c_void_p(stream)), "set stream")
    return handle.value or 0


def destroy(handle: int) -> None:
    """Give a handle back."""
    _check(_function("cublasDestroy_v2", [ctypes.c_void_p])(ctypes.c_void_p(handle)), "destroy")


def _real(precision: str) -> tuple[type, str]:
    return (ctypes.c_double, "D") if precision == "f64" else (ctypes.c_float, "S")


def gemm(handle: int, pointers: Sequence[int], scalars: Sequence[Any], precision: str) -> None:
    """Queue C = alpha A B + beta C (row-major; pointers C, A, B; scalars alpha,
    beta, m, n, k): column-major, C^T = alpha B^T A^T + beta C^T."""
    real, letter = _real(precision)
    c, a, b = pointers
    alpha, beta, m, n, k = scalars
    p, i = ctypes.c_void_p, ctypes.c_int
    function = _function(f"cublas{letter}gemm_v2", [p, i, i, i, i, i, p, p, i, p, i, p, p, i])
    status = function(
        ctypes.c_void_p(handle), OP_N, OP_N, int(n), int(m), int(k),
        ctypes.byref(real(alpha)), p(b), int(n), p(a), int(k),
        ctypes.byref(real(beta)), p(c), int(n),
    )  # fmt: skip
    _check(status, "gemm")


def _gemv(
    handle: int, pointers: Sequence[int], scalars: Sequence[Any], precision: str, op: int
) -> None:
    real, letter = _real(precision)
    y, a, x = pointers
    alpha, beta, m, n = scalars
    p, i = ctypes.c_void_p, ctypes.c_int
    function = _function(f"cublas{letter}gemv_v2", [p, i, i, i, p, p, i, p, i, p, p, i])
    status = function(
        ctypes.c_void_p(handle), op, int(n), int(m), ctypes.byref(real(alpha)),
        p(a), int(n), p(x), 1, ctypes.byref(real(beta)), p(y), 1,
    )  # fmt: skip
    _check(status, "gemv")


def gemv(handle: int, pointers: Sequence[int], scalars: Sequence[Any], precision: str) -> None:
    """Queue y = alpha A x + beta y (row-major A of m x n; pointers y, A, x; scalars
    alpha, beta, m, n): the n x m column-major A^T, transposed."""
    _gemv(handle, pointers, scalars, precision, OP_T)


def gemv_t(handle: int, pointers: Sequence[int], scalars: Sequence[Any], precision: str) -> None:
    """Queue y = alpha A^T x + beta y (row-major A of m x n): the n x m
    column-major A^T as it is."""
    _gemv(handle, pointers, scalars, precision, OP_N)


#: The routines a launch may name (harness.model.spec.LIBRARY_ROUTINES).
ROUTINES: dict[str, Callable[[int, Sequence[int], Sequence[Any], str], None]] = {
    "gemm": gemm,
    "gemv": gemv,
    "gemv_t": gemv_t,
}

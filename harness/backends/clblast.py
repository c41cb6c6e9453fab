"""CLBlast, the OpenCL BLAS, called through its C API on the OpenCL backend's own
buffers and queue, so that a library routine is timed like any kernel launch.

The library is Debian's libclblast1 (``apt install libclblast1``); it dispatches
through the OpenCL objects it is given, so it runs on the device of the queue.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from harness.backends.base import DeviceLimit

#: CLBlast's enums (clblast_c.h).
ROW_MAJOR = 101
NO_TRANSPOSE = 111
TRANSPOSE = 112

INSTALL_HINT = "install CLBlast (Debian: apt install libclblast1)"


@cache
def library() -> ctypes.CDLL:
    """The loaded libclblast; DeviceLimit (a skipped row) where it is not installed."""
    path = ctypes.util.find_library("clblast")
    if path is None:
        raise DeviceLimit(f"the library variant on OpenCL needs CLBlast: {INSTALL_HINT}")
    return ctypes.CDLL(path)


def _gemm(precision: str) -> Callable[..., int]:
    real = ctypes.c_double if precision == "f64" else ctypes.c_float
    function = getattr(library(), "CLBlastDgemm" if precision == "f64" else "CLBlastSgemm")
    size, mem = ctypes.c_size_t, ctypes.c_void_p
    function.argtypes = [
        ctypes.c_int, ctypes.c_int, ctypes.c_int, size, size, size,
        real, mem, size, size, mem, size, size, real, mem, size, size,
        ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p),
    ]  # fmt: skip
    function.restype = ctypes.c_int
    return function


def gemm(queue: Any, buffers: Sequence[Any], scalars: Sequence[Any], precision: str) -> int:
    """Queue C = alpha A B + beta C (row-major; buffers C, A, B; scalars alpha,
    beta, m, n, k) on a pyopencl queue; return the raw cl_event of the call."""
    c, a, b = (buffer.int_ptr for buffer in buffers)
    alpha, beta, m, n, k = scalars
    handle = ctypes.c_void_p(queue.int_ptr)
    event = ctypes.c_void_p()
    status = _gemm(precision)(
        ROW_MAJOR, NO_TRANSPOSE, NO_TRANSPOSE, int(m), int(n), int(k),
        float(alpha), a, 0, int(k), b, 0, int(n), float(beta), c, 0, int(n),
        ctypes.byref(handle), ctypes.byref(event),
    )  # fmt: skip
    _check(status, "gemm")
    return int(event.value)


def _gemv(precision: str) -> Callable[..., int]:
    real = ctypes.c_double if precision == "f64" else ctypes.c_float
    function = getattr(library(), "CLBlastDgemv" if precision == "f64" else "CLBlastSgemv")
    size, mem = ctypes.c_size_t, ctypes.c_void_p
    function.argtypes = [
        ctypes.c_int, ctypes.c_int, size, size, real, mem, size, size, mem, size, size,
        real, mem, size, size, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p),
    ]  # fmt: skip
    function.restype = ctypes.c_int
    return function


def _gemv_call(
    transpose: int, queue: Any, buffers: Sequence[Any], scalars: Sequence[Any], precision: str
) -> int:
    y, a, x = (buffer.int_ptr for buffer in buffers)
    alpha, beta, m, n = scalars
    handle = ctypes.c_void_p(queue.int_ptr)
    event = ctypes.c_void_p()
    status = _gemv(precision)(
        ROW_MAJOR, transpose, int(m), int(n), float(alpha), a, 0, int(n), x, 0, 1,
        float(beta), y, 0, 1, ctypes.byref(handle), ctypes.byref(event),
    )  # fmt: skip
    _check(status, "gemv")
    return int(event.value)


def gemv(queue: Any, buffers: Sequence[Any], scalars: Sequence[Any], precision: str) -> int:
    """Queue y = alpha A x + beta y (row-major A of m x n; buffers y, A, x; scalars
    alpha, beta, m, n) on a pyopencl queue; return the raw cl_event of the call."""
    return _gemv_call(NO_TRANSPOSE, queue, buffers, scalars, precision)


def gemv_t(queue: Any, buffers: Sequence[Any], scalars: Sequence[Any], precision: str) -> int:
    """Queue y = alpha A^T x + beta y, as `gemv`."""
    return _gemv_call(TRANSPOSE, queue, buffers, scalars, precision)


def _check(status: int, routine: str) -> None:
    if status != 0:
        raise RuntimeError(
            f"CLBlast {routine} failed with status {status} (clblast_c.h's StatusCode)"
        )


#: The routines the OpenCL backend can call, by the name launches give them.
ROUTINES = {"gemm": gemm, "gemv": gemv, "gemv_t": gemv_t}

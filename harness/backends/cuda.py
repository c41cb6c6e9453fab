"""CUDA through NVIDIA's cuda-python or through pycuda: every NVIDIA GPU, timed by CUDA events.

Source convention: kernels/cuda/<KernelName>.cu, else the body OpenCL shares,
kernels/c/<KernelName>.c, after the dialect's CUDA prelude
(kernels/cuda/dialect.cuh), compiled with ``REAL`` defined as double or float
for the run's precision, for the device's own architecture
(``sm_<major><minor>``), by NVRTC or nvcc (see `harness.backends.cuda_compile`,
imported where used so that ``python -m harness.backends.cuda_compile`` runs it).
Entry points are ``extern "C" __global__`` functions (``KERNEL`` in a shared
body) named like the OpenCL entry points. Their parameters are the launch's
arrays as pointers, in launch order, then its scalars by value, in order:
u32 -> ``unsigned int``, i32 -> ``int``, u64 -> ``unsigned long long``,
i64 -> ``long long``, f32 -> ``float``, f64 -> ``double``, real -> ``REAL``.
A launch is one-dimensional: ``groups`` blocks of ``group`` threads, so
kernels guard their index. A description's
constants and type aliases arrive as ``#define`` lines, ``#include "file"``
lines are expanded from the source's folder, and ``#line`` directives keep the
compiler's messages on the source files' own line numbers.

Bindings: cuda-python (``cuda.bindings``; NVRTC comes from PyPI, no toolkit
needed) or pycuda, whichever is installed, cuda-python first when both are.
Set ``HARNESS_CUDA_BINDING=cuda-python`` or ``pycuda`` (or pass ``binding`` to
`CudaBackend`) to choose. Each binding has a small adapter behind one internal
interface (`_Driver`, `_Context`); both load the same compiled code.

A repetition's launches are queued on one stream without host synchronisation,
between two CUDA events whose elapsed time is the repetition's time. With
cuda-python they are captured once into a CUDA graph, launched whole per
repetition, so the device never waits for the host between launches (the
``queue`` column says "held (graph)"); pycuda launches them one by one
("direct"). Uploads and downloads are ordered on the same stream.

A kernel that faults (an illegal address, a device-side assert: CUDA's sticky
errors) leaves the context unusable for the rest of the process: the backend
raises `DeviceLost` naming the fault, frees nothing more, and the runner replaces
the worker that held the context.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from harness.backends import cublas
from harness.backends.base import (
    Backend,
    BackendUnavailable,
    CompileError,
    DeviceInfo,
    DeviceLimit,
    DeviceLost,
    DeviceOutOfMemory,
    Execution,
    Session,
    build_key,
    out_of_device_memory,
)
from harness.model.partition import PARTITIONS
from harness.model.spec import FEATURES, KernelSpec, ResolvedLaunch, library_routine

if TYPE_CHECKING:
    from harness.backends.cuda_compile import Binary

BINDINGS = ("cuda-python", "pycuda")
BINDING_ENV = "HARNESS_CUDA_BINDING"
INSTALL_HINT = "pip install 'harness[cuda]'"
_EXTRAS = {"cuda-python": "cuda", "pycuda": "pycuda"}
_MODULES = {"cuda-python": "cuda.bindings", "pycuda": "pycuda"}
_DRIVER_LIBRARY = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
NO_DRIVER = (
    f"no NVIDIA driver found ({_DRIVER_LIBRARY} could not be loaded): "
    f"install the NVIDIA driver; bindings: {INSTALL_HINT}"
)
NO_BINDING = f"neither cuda-python nor pycuda is installed: {INSTALL_HINT}"


class CudaError(RuntimeError):
    """A driver call failed; ``code`` is the CUresult name when the binding gives one."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


#: CUDA's sticky errors, by CUresult name, with the driver's text for each (how
#: pycuda reports them): after one, every call in the context fails the same way.
STICKY_ERRORS = {
    "CUDA_ERROR_ILLEGAL_ADDRESS": ("illegal address", "an illegal memory access was encountered"),
    "CUDA_ERROR_LAUNCH_TIMEOUT": ("launch timed out", "the launch timed out and was terminated"),
    "CUDA_ERROR_ASSERT": ("device-side assert", "device-side assert triggered"),
    "CUDA_ERROR_HARDWARE_STACK_ERROR": ("hardware stack error", "hardware stack error"),
    "CUDA_ERROR_ILLEGAL_INSTRUCTION": ("illegal instruction", "an illegal instruction was"),
    "CUDA_ERROR_MISALIGNED_ADDRESS": ("misaligned address", "misaligned address"),
    "CUDA_ERROR_INVALID_ADDRESS_SPACE": ("invalid address space", "global/shared address space"),
    "CUDA_ERROR_INVALID_PC": ("invalid program counter", "invalid program counter"),
    "CUDA_ERROR_LAUNCH_FAILED": ("launch failed", "unspecified launch failure"),
}


def sticky_fault(exc: Exception) -> str | None:
    """The few words naming a sticky error, or None for an error the context survives."""
    code = getattr(exc, "code", "")
    if code in STICKY_ERRORS:
        return STICKY_ERRORS[code][0]
    text = str(exc)
    for fault, words in STICKY_ERRORS.values():
        if words in text:
            return fault
    return None


def _lost_earlier(fault: str) -> DeviceLost:
    return DeviceLost(fault, f"the device was lost earlier in this process ({fault})", True)


def _cuda_version(number: int) -> str:
    """CUDA's integer version (12040) as text (12.4)."""
    return f"{number // 1000}.{number % 1000 // 10}"


#: Extents along x, y and z: a grid's blocks or a block's threads.
Dims = tuple[int, int, int]


@dataclass(frozen=True)
class _Props:
    """What the backend asks of a device."""

    name: str
    capability: tuple[int, int]
    memory_bytes: int
    sm_count: int
    max_threads_per_block: int
    shared_mem_per_block: int
    #: Largest block and grid along x, y and z.
    max_block: Dims
    max_grid: Dims
    #: Bytes of the L2 cache, the last level before device memory.
    l2_cache_bytes: int = 0
    #: Shared memory a block may have when its function opts in (dynamic
    #: shared memory over 48 KiB): 227 KiB on Hopper.
    shared_mem_per_block_optin: int = 0


class _Context(ABC):
    """A device's primary context with one stream: memory, modules, launches, events."""

    def __init__(self) -> None:
        self._events: list[Any] = []

    @abstractmethod
    def activate(self) -> Any:
        """A context manager making this context current for the calls inside it."""

    @abstractmethod
    def alloc(self, nbytes: int) -> Any:
        """Device memory; DeviceOutOfMemory when the device has too little."""

    @abstractmethod
    def free(self, pointer: Any) -> None:
        """Release device memory."""

    @abstractmethod
    def upload(self, pointer: Any, host: np.ndarray) -> None:
        """Copy a host array to the device on the stream, waiting for the copy."""

    @abstractmethod
    def download(self, host: np.ndarray, pointer: Any) -> None:
        """Copy device memory into a host array on the stream, after the work
        queued before it, waiting for the copy."""

    @abstractmethod
    def load(self, image: bytes) -> Any:
        """A module from a cubin or NUL-terminated PTX."""

    @abstractmethod
    def function(self, module: Any, name: str) -> Any:
        """An entry point of a module."""

    @abstractmethod
    def allow_shared(self, function: Any, nbytes: int) -> None:
        """Let ``function``'s launches have ``nbytes`` of dynamic shared memory
        (needed over 48 KiB)."""

    @abstractmethod
    def prepare(
        self, function: Any, pointers: Sequence[Any], scalars: Sequence[Any], shared: int = 0
    ) -> Any:
        """Arguments packed once, so a timed loop only launches; each launch gets
        ``shared`` bytes of dynamic shared memory."""

    @abstractmethod
    def launch(self, prepared: Any, blocks: Dims, threads: Dims) -> None:
        """Queue a prepared launch of a grid of blocks on the stream."""

    def graph(self, prepared: Sequence[tuple[Any, Dims, Dims]]) -> Any:
        """The launches captured into an executable graph, launched whole by
        `launch_graph`; None where the binding cannot capture graphs."""
        return None

    def launch_graph(self, graph: Any) -> None:
        """Queue an executable graph on the stream."""
        raise NotImplementedError

    def free_graph(self, graph: Any) -> None:
        """Release an executable graph."""
        raise NotImplementedError

    @abstractmethod
    def close(self) -> None:
        """Destroy the stream and give the primary context back."""

    @abstractmethod
    def _new_event(self) -> Any:
        """A new event that can time."""

    @abstractmethod
    def record(self, event: Any) -> None:
        """Queue an event on the stream."""

    @abstractmethod
    def elapsed(self, start: Any, end: Any) -> float:
        """Seconds between two completed events."""

    @abstractmethod
    def synchronize(self) -> None:
        """Wait until the stream's work is done."""

    @abstractmethod
    def stream_handle(self) -> int:
        """The stream as a raw CUstream, for a library that queues on it."""

    def events(self, count: int) -> list[Any]:
        """``count`` timing events, reused between calls."""
        while len(self._events) < count:
            self._events.append(self._new_event())
        return self._events[:count]


class _Driver(ABC):
    """A binding's view of the driver: its devices and how to open one."""

    #: The binding and its CUDA version, for device listings.
    binding: str

    @abstractmethod
    def cuda_version(self) -> int:
        """The newest CUDA version the installed driver supports, e.g. 12040."""

    @abstractmethod
    def count(self) -> int:
        """Number of CUDA devices."""

    @abstractmethod
    def props(self, index: int) -> _Props:
        """Name, architecture and limits of one device."""

    @abstractmethod
    def open(self, index: int) -> _Context:
        """Make device ``index``'s primary context and a stream."""


# ---------------------------------------------------------------- cuda-python


class _CudaPython(_Driver):
    """NVIDIA's cuda-python, through its low-level ``cuda.bindings.driver``."""

    def __init__(self) -> None:
        try:
            import cuda.bindings
            from cuda.bindings import driver
        except ImportError as exc:
            raise BackendUnavailable(
                f"cuda-python is installed but does not import ({exc}): {INSTALL_HINT}"
            ) from exc
        self.api = driver
        try:
            (err,) = driver.cuInit(0)
        except Exception as exc:  # the binding raises when it cannot use the driver library
            raise BackendUnavailable(_load_failure(exc)) from exc
        if err != driver.CUresult.CUDA_SUCCESS:
            raise BackendUnavailable(_init_failure(err.name, self._describe(err)))
        self.binding = f"cuda-python {cuda.bindings.__version__}"
        try:
            from cuda.bindings import runtime

            _, number = runtime.cudaRuntimeGetVersion()
            self.binding += f" (CUDA runtime {_cuda_version(number)})"
        except Exception:  # the runtime version is informative only
            pass

    def _describe(self, err: Any) -> str:
        _, text = self.api.cuGetErrorString(err)
        return text.decode() if text else err.name

    def call(self, function: Any, *args: Any) -> Any:
        """Call a driver function; its one result, a tuple of several, or CudaError."""
        err, *results = function(*args)
        if err != self.api.CUresult.CUDA_SUCCESS:
            raise CudaError(
                f"{function.__name__} failed: {err.name} ({self._describe(err)})", err.name
            )
        return results[0] if len(results) == 1 else tuple(results)

    def cuda_version(self) -> int:
        return int(self.call(self.api.cuDriverGetVersion))

    def count(self) -> int:
        return int(self.call(self.api.cuDeviceGetCount))

    def props(self, index: int) -> _Props:
        d = self.api
        device = self.call(d.cuDeviceGet, index)
        attr = d.CUdevice_attribute

        def get(name: str) -> int:
            return int(self.call(d.cuDeviceGetAttribute, getattr(attr, name), device))

        return _Props(
            name=self.call(d.cuDeviceGetName, 256, device).split(b"\0")[0].decode(),
            capability=(
                get("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"),
                get("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"),
            ),
            memory_bytes=int(self.call(d.cuDeviceTotalMem, device)),
            sm_count=get("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
            max_threads_per_block=get("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
            shared_mem_per_block=get("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK"),
            shared_mem_per_block_optin=get("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
            max_block=tuple(get(f"CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_{a}") for a in "XYZ"),
            max_grid=tuple(get(f"CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_{a}") for a in "XYZ"),
            l2_cache_bytes=get("CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE"),
        )

    def open(self, index: int) -> _Context:
        return _CudaPythonContext(self, index)


class _CudaPythonContext(_Context):
    def __init__(self, driver: _CudaPython, index: int) -> None:
        super().__init__()
        self._d = driver.api
        self._call = driver.call
        device = self._call(self._d.cuDeviceGet, index)
        self._device = device
        self._context = self._call(self._d.cuDevicePrimaryCtxRetain, device)
        self._call(self._d.cuCtxSetCurrent, self._context)
        self._stream = self._call(self._d.cuStreamCreate, 0)

    def close(self) -> None:
        self._call(self._d.cuCtxSetCurrent, self._context)
        for event in self._events:
            self._call(self._d.cuEventDestroy, event)
        self._events.clear()
        self._call(self._d.cuStreamDestroy, self._stream)
        self._call(self._d.cuDevicePrimaryCtxRelease, self._device)

    @contextmanager
    def activate(self) -> Iterator[None]:
        self._call(self._d.cuCtxSetCurrent, self._context)
        yield

    def alloc(self, nbytes: int) -> Any:
        try:
            return self._call(self._d.cuMemAlloc, nbytes)
        except CudaError as exc:
            if exc.code == "CUDA_ERROR_OUT_OF_MEMORY":
                raise DeviceOutOfMemory(str(exc)) from exc
            raise

    def free(self, pointer: Any) -> None:
        self._call(self._d.cuMemFree, pointer)

    def upload(self, pointer: Any, host: np.ndarray) -> None:
        self._call(self._d.cuMemcpyHtoDAsync, pointer, host.ctypes.data, host.nbytes, self._stream)
        self.synchronize()

    def download(self, host: np.ndarray, pointer: Any) -> None:
        self._call(self._d.cuMemcpyDtoHAsync, host.ctypes.data, pointer, host.nbytes, self._stream)
        self.synchronize()

    def load(self, image: bytes) -> Any:
        buffer = np.frombuffer(image, dtype=np.uint8)
        return self._call(self._d.cuModuleLoadData, buffer.ctypes.data)

    def function(self, module: Any, name: str) -> Any:
        return self._call(self._d.cuModuleGetFunction, module, name.encode())

    def allow_shared(self, function: Any, nbytes: int) -> None:
        attribute = self._d.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        self._call(self._d.cuFuncSetAttribute, function, attribute, nbytes)

    def prepare(
        self, function: Any, pointers: Sequence[Any], scalars: Sequence[Any], shared: int = 0
    ) -> Any:
        # cuLaunchKernel takes an array of addresses, one per parameter's value.
        values = [np.array([int(p)], dtype=np.uint64) for p in pointers]
        values += [np.array([s]) for s in scalars]
        addresses = np.array([v.ctypes.data for v in values], dtype=np.uint64)
        return function, addresses.ctypes.data, shared, (values, addresses)

    def launch(self, prepared: Any, blocks: Dims, threads: Dims) -> None:
        f, params, shared, _ = prepared
        self._call(self._d.cuLaunchKernel, f, *blocks, *threads, shared, self._stream, params, 0)

    def graph(self, prepared: Sequence[tuple[Any, Dims, Dims]]) -> Any:
        d = self._d
        mode = d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
        self._call(d.cuStreamBeginCapture, self._stream, mode)
        try:
            for args, blocks, threads in prepared:
                self.launch(args, blocks, threads)
        except BaseException:
            d.cuStreamEndCapture(self._stream)  # ends the capture; the launch's error goes up
            raise
        graph = self._call(d.cuStreamEndCapture, self._stream)
        try:
            return self._call(d.cuGraphInstantiate, graph, 0)
        finally:
            self._call(d.cuGraphDestroy, graph)

    def launch_graph(self, graph: Any) -> None:
        self._call(self._d.cuGraphLaunch, graph, self._stream)

    def free_graph(self, graph: Any) -> None:
        self._call(self._d.cuGraphExecDestroy, graph)

    def _new_event(self) -> Any:
        return self._call(self._d.cuEventCreate, 0)

    def record(self, event: Any) -> None:
        self._call(self._d.cuEventRecord, event, self._stream)

    def elapsed(self, start: Any, end: Any) -> float:
        return float(self._call(self._d.cuEventElapsedTime, start, end)) * 1e-3

    def synchronize(self) -> None:
        self._call(self._d.cuStreamSynchronize, self._stream)

    def stream_handle(self) -> int:
        return int(self._stream)


# --------------------------------------------------------------------- pycuda


class _PyCuda(_Driver):
    """pycuda's ``pycuda.driver``; its compiler is not used, so it loads the same code."""

    def __init__(self) -> None:
        try:
            import pycuda
            import pycuda.driver as drv
        except ImportError as exc:  # pycuda's extension links the driver library
            if "libcuda" in str(exc) or "nvcuda" in str(exc):
                raise BackendUnavailable(NO_DRIVER) from exc
            raise BackendUnavailable(
                f"pycuda is installed but does not import ({exc}): reinstall it for "
                "this machine's CUDA, or use cuda-python: " + INSTALL_HINT
            ) from exc
        self.drv = drv
        try:
            drv.init()
        except drv.Error as exc:
            raise BackendUnavailable(_init_failure("", str(exc))) from exc
        built = ".".join(str(v) for v in drv.get_version()[:2])
        self.binding = f"pycuda {pycuda.VERSION_TEXT} (CUDA runtime {built})"

    def cuda_version(self) -> int:
        return int(self.drv.get_driver_version())

    def count(self) -> int:
        return int(self.drv.Device.count())

    def props(self, index: int) -> _Props:
        device = self.drv.Device(index)
        attr = self.drv.device_attribute
        major, minor = device.compute_capability()
        return _Props(
            name=device.name(),
            capability=(int(major), int(minor)),
            memory_bytes=int(device.total_memory()),
            sm_count=int(device.get_attribute(attr.MULTIPROCESSOR_COUNT)),
            max_threads_per_block=int(device.get_attribute(attr.MAX_THREADS_PER_BLOCK)),
            shared_mem_per_block=int(device.get_attribute(attr.MAX_SHARED_MEMORY_PER_BLOCK)),
            max_block=tuple(
                int(device.get_attribute(getattr(attr, f"MAX_BLOCK_DIM_{a}"))) for a in "XYZ"
            ),
            max_grid=tuple(
                int(device.get_attribute(getattr(attr, f"MAX_GRID_DIM_{a}"))) for a in "XYZ"
            ),
            l2_cache_bytes=int(device.get_attribute(attr.L2_CACHE_SIZE)),
            shared_mem_per_block_optin=int(
                device.get_attribute(attr.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            ),
        )

    def open(self, index: int) -> _Context:
        return _PyCudaContext(self.drv, self.drv.Device(index))


class _PyCudaContext(_Context):
    def __init__(self, drv: Any, device: Any) -> None:
        super().__init__()
        self._drv = drv
        self._context = device.retain_primary_context()
        with self.activate():
            self._stream = drv.Stream()

    def close(self) -> None:
        with self.activate():
            self._events.clear()
            self._stream = None
        self._context.detach()

    @contextmanager
    def activate(self) -> Iterator[None]:
        self._context.push()
        try:
            yield
        finally:
            self._context.pop()

    def _checked(self, what: str, function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except self._drv.Error as exc:
            raise CudaError(f"{what} failed: {exc}") from exc

    def alloc(self, nbytes: int) -> Any:
        try:
            return self._drv.mem_alloc(nbytes)
        except self._drv.MemoryError as exc:
            raise DeviceOutOfMemory(str(exc)) from exc

    def free(self, pointer: Any) -> None:
        pointer.free()

    def upload(self, pointer: Any, host: np.ndarray) -> None:
        self._checked("memcpy_htod_async", self._drv.memcpy_htod_async, pointer, host, self._stream)
        self.synchronize()

    def download(self, host: np.ndarray, pointer: Any) -> None:
        self._checked("memcpy_dtoh_async", self._drv.memcpy_dtoh_async, host, pointer, self._stream)
        self.synchronize()

    def load(self, image: bytes) -> Any:
        return self._checked("module_from_buffer", self._drv.module_from_buffer, image)

    def function(self, module: Any, name: str) -> Any:
        return self._checked("get_function", module.get_function, name)

    def allow_shared(self, function: Any, nbytes: int) -> None:
        attribute = self._drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES
        self._checked("set_attribute", function.set_attribute, attribute, nbytes)

    def prepare(
        self, function: Any, pointers: Sequence[Any], scalars: Sequence[Any], shared: int = 0
    ) -> Any:
        function.prepare("P" * len(pointers) + "".join(s.dtype.char for s in scalars))
        return function, (*(int(p) for p in pointers), *scalars), shared

    def launch(self, prepared: Any, blocks: Dims, threads: Dims) -> None:
        function, args, shared = prepared
        self._checked(
            "launch",
            lambda: function.prepared_async_call(
                blocks, threads, self._stream, *args, shared_size=shared
            ),
        )

    def _new_event(self) -> Any:
        return self._drv.Event()

    def record(self, event: Any) -> None:
        event.record(self._stream)

    def elapsed(self, start: Any, end: Any) -> float:
        return float(end.time_since(start)) * 1e-3

    def synchronize(self) -> None:
        self._checked("stream synchronize", self._stream.synchronize)

    def stream_handle(self) -> int:
        return int(self._stream.handle)


# ------------------------------------------------------------ binding choice


def _load_failure(exc: Exception) -> str:
    """Why cuda-python could not call into the driver library: not there at all, or
    there but not usable (too old for the bindings, say), in the binding's words."""
    text = str(exc)
    if isinstance(exc, OSError) or type(exc).__name__ == "DynamicLibNotFoundError":
        return NO_DRIVER
    return (
        f"cuda-python could not use the NVIDIA driver ({type(exc).__name__}: {text}): "
        "update the driver, or install bindings for its CUDA version "
        "(for a CUDA 12 driver: pip install 'harness[cuda12]')"
    )


def _init_failure(code: str, text: str) -> str:
    """A failed cuInit in words a user can act on."""
    if code == "CUDA_ERROR_NO_DEVICE" or "no CUDA-capable device" in text:
        return f"the NVIDIA driver found no CUDA device ({text})"
    if code == "CUDA_ERROR_INSUFFICIENT_DRIVER" or "insufficient for CUDA runtime" in text:
        return (
            f"the NVIDIA driver is older than these bindings need ({text}): update the "
            "driver, or install bindings for its CUDA version"
        )
    return f"the CUDA driver did not start: {code + ': ' if code else ''}{text}"


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


@cache
def _load_driver(choice: str | None) -> _Driver:
    """The driver through the chosen binding (or the first installed); cached once started."""
    if choice is None:
        for binding in BINDINGS:
            if _installed(_MODULES[binding]):
                return _load_driver(binding)
        raise BackendUnavailable(NO_BINDING)
    if choice not in BINDINGS:
        raise BackendUnavailable(
            f"unknown CUDA binding {choice!r} (from {BINDING_ENV}): choose {' or '.join(BINDINGS)}"
        )
    if not _installed(_MODULES[choice]):
        raise BackendUnavailable(
            f"{choice} is asked for but not installed: pip install 'harness[{_EXTRAS[choice]}]'"
        )
    return _CudaPython() if choice == "cuda-python" else _PyCuda()


def _kernel_module_version() -> str | None:
    """The NVIDIA kernel driver's version (e.g. 550.54.15), where the system shows it."""
    try:
        text = Path("/proc/driver/nvidia/version").read_text(encoding="utf-8")
    except OSError:
        return None
    found = re.search(r"Kernel Module.*?\s(\d+\.\d+(?:\.\d+)?)\s", text)
    return found.group(1) if found else None


def _info(driver: _Driver, index: int, props: _Props) -> DeviceInfo:
    from harness.backends import cuda_compile

    supported = driver.cuda_version()
    cuda = f"CUDA {_cuda_version(supported)}"
    module = _kernel_module_version()
    chosen = compiler_for(supported)
    compiler = cuda_compile.version(chosen) if chosen else "no compiler"
    major, minor = props.capability
    return DeviceInfo(
        backend="cuda",
        index=index,
        name=props.name,
        vendor="NVIDIA",
        kind="gpu",
        memory_bytes=props.memory_bytes,
        compute_units=props.sm_count,
        driver=f"{module} ({cuda})" if module else cuda,
        api=f"{driver.binding}; {compiler}",
        features=frozenset(FEATURES),
        limits={
            "compute_capability": f"{major}.{minor}",
            "max_threads_per_block": props.max_threads_per_block,
            "shared_mem_per_block": props.shared_mem_per_block,
            "shared_mem_per_block_optin": props.shared_mem_per_block_optin,
            "max_block_dims": list(props.max_block),
            "max_grid_dims": list(props.max_grid),
            "cache_bytes": props.l2_cache_bytes,
        },
    )


#: How the driver says a module is too new for it, in cuda-python's codes and
#: pycuda's words: the only refusals a newer compiler explains.
_VERSION_REFUSALS = (
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    "CUDA_ERROR_NO_BINARY_FOR_GPU",
    "CUDA_ERROR_INVALID_IMAGE",
    "CUDA_ERROR_INVALID_PTX",
    "unsupported toolchain",
    "no kernel image is available",
    "device kernel image is invalid",
    "a PTX JIT compilation failed",
)


def load_failure(source: Path, binary: Binary, exc: Exception, cuda: int) -> str:
    """Why a driver supporting CUDA ``cuda`` refused a compiled module, with the usual
    cause (a compiler newer than the driver) where it explains the refusal: a
    version or image error, from a compiler of a later major release (a cubin
    loads on any driver of its major) or, for PTX, of a later release at all."""
    driver = _cuda_version(cuda)
    text = (
        f"{source.name}: the driver (CUDA {driver}) could not load the {binary.kind} "
        f"for {binary.target} made by {binary.compiler}: {exc}"
    )
    made_by = re.search(r"(\d+)\.(\d+)", binary.compiler)
    if made_by is None or not any(word in str(exc) for word in _VERSION_REFUSALS):
        return text
    made = tuple(map(int, made_by.groups()))
    supported = (cuda // 1000, cuda % 1000 // 10)
    newer = made > supported if binary.kind == "ptx" else made[0] > supported[0]
    if newer:
        text += (
            "; the compiler is newer than the driver: update the driver, or install an "
            f"NVRTC for CUDA {cuda // 1000} (for CUDA 12: pip install 'cuda-python<13' "
            "nvidia-cuda-nvrtc-cu12)"
        )
    return text


def compiler_for(cuda: int) -> str | None:
    """The first compiler (of `cuda_compile.available`) whose code a driver supporting
    CUDA ``cuda`` loads: one of the driver's major release or older. None when
    there is none, or no compiler at all."""
    from harness.backends import cuda_compile

    for compiler in cuda_compile.available():
        made_by = re.search(r"(\d+)\.", cuda_compile.version(compiler))
        if made_by is None or int(made_by.group(1)) <= cuda // 1000:
            return compiler
    return None


def compiler_too_new(cuda: int) -> str:
    """Why no compiler here serves a driver supporting CUDA ``cuda``, and what to install."""
    from harness.backends import cuda_compile

    made = ", ".join(cuda_compile.version(c) for c in cuda_compile.available())
    major = cuda // 1000
    text = (
        f"the CUDA compiler here ({made}) is newer than the driver (CUDA {_cuda_version(cuda)}), "
        f"which cannot load its code: update the driver, or install a compiler for CUDA {major}"
    )
    return text + (": pip install 'harness[cuda12]'" if major == 12 else "")


# ------------------------------------------------------------------- backend


class CudaExecution(Execution):
    """Device arrays and a module's entry points on one context."""

    def __init__(
        self,
        session: CudaSession,
        module: Any,
        source: Path,
        inputs: Mapping[str, np.ndarray],
        shared: int = 0,
    ) -> None:
        self._context = session.context
        self._props = session.props
        self._module = module
        self._source = source
        #: Dynamic shared memory every launch gets (`cuda_compile.dynamic_shared_bytes`).
        self._shared = shared
        self._session = session
        self._functions: dict[str, Any] = {}
        self._graphs: dict[tuple[ResolvedLaunch, ...], Any] = {}
        self._host = {name: np.ascontiguousarray(value) for name, value in inputs.items()}
        self._buffers: dict[str, Any] = {}
        need = sum(max(v.nbytes, 1) for v in self._host.values())
        if need > self._props.memory_bytes:
            raise DeviceLimit(
                f"the arrays need {need} bytes, over this device's memory of "
                f"{self._props.memory_bytes} bytes"
            )
        with self._device_calls():
            try:
                for name, value in self._host.items():
                    # cuMemAlloc refuses zero bytes; an empty array gets one byte.
                    self._buffers[name] = self._context.alloc(max(value.nbytes, 1))
                    if value.nbytes:
                        self._context.upload(self._buffers[name], value)
            except Exception as exc:
                if sticky_fault(exc) is None:
                    self.close()
                if isinstance(exc, DeviceOutOfMemory):
                    raise out_of_device_memory(need, self._props.memory_bytes, exc) from exc
                raise

    @contextmanager
    def _device_calls(self) -> Iterator[None]:
        """The context made current for the calls inside; a sticky error among them
        becomes DeviceLost, and marks the session lost."""
        if self._session.lost:
            raise _lost_earlier(self._session.lost)
        try:
            with self._context.activate():
                yield
        except CudaError as exc:
            fault = sticky_fault(exc)
            if fault is None:
                raise
            self._session.lost = fault
            raise DeviceLost(fault, str(exc)) from exc

    def _function(self, entry: str) -> Any:
        if entry not in self._functions:
            try:
                function = self._context.function(self._module, entry)
            except CudaError as exc:
                raise CompileError(
                    f"entry point {entry!r} not found in {self._source.name}: {exc}"
                ) from exc
            if self._shared:
                self._context.allow_shared(function, self._shared)
            self._functions[entry] = function
        return self._functions[entry]

    def _prepare(
        self, launches: Sequence[ResolvedLaunch]
    ) -> list[tuple[Any, Dims | None, Dims | None]]:
        prepared = []
        props = self._props
        for launch in launches:
            routine = library_routine(launch.entry)
            if routine is not None:
                prepared.append((self._library(routine, launch), None, None))
                continue
            block = launch.group_axes
            if launch.threads > props.max_threads_per_block or any(
                b > most for b, most in zip(block, props.max_block, strict=True)
            ):
                raise DeviceLimit(
                    f"{launch.entry} needs blocks of {block} threads, over this device's "
                    f"{props.max_threads_per_block} threads or {props.max_block} per axis"
                )
            if any(g > most for g, most in zip(launch.grid, props.max_grid, strict=True)):
                raise DeviceLimit(
                    f"{launch.entry} needs a grid of {launch.grid} blocks, over this "
                    f"device's {props.max_grid}"
                )
            args = self._context.prepare(
                self._function(launch.entry),
                [self._buffers[n] for n in launch.arrays],
                [v for _, v in launch.scalars],
                self._shared,
            )
            prepared.append((args, launch.grid, block))
        return prepared

    def _library(self, routine: str, launch: ResolvedLaunch) -> Callable[[], None]:
        """A cuBLAS routine on the arrays, to be queued on the stream like a launch."""
        if routine not in cublas.ROUTINES:
            raise DeviceLimit(f"the CUDA backend calls no library routine {routine!r}")
        # The routine works in the precision of its arrays (the first one's).
        precision = "f64" if self._host[launch.arrays[0]].dtype == np.float64 else "f32"
        handle = self._session.blas_handle()
        pointers = [int(self._buffers[n]) for n in launch.arrays]
        scalars = [v for _, v in launch.scalars]
        return lambda: cublas.ROUTINES[routine](handle, pointers, scalars, precision)

    def _queue(self, prepared: Sequence[tuple[Any, Dims | None, Dims | None]]) -> None:
        """Queue prepared launches and library calls on the stream, in order."""
        for args, blocks, threads in prepared:
            if blocks is None:
                args()
            else:
                self._context.launch(args, blocks, threads)

    def run(self, launches: Sequence[ResolvedLaunch]) -> None:
        with self._device_calls():
            self._queue(self._prepare(launches))
            self._context.synchronize()

    def _graph(self, launches: Sequence[ResolvedLaunch]) -> Any:
        """The repetition as a graph, captured once per set of launches; None where
        the binding has no graphs."""
        key = tuple(launches)
        if key not in self._graphs:
            self._graphs[key] = self._context.graph(self._prepare(launches))
        return self._graphs[key]

    def time(
        self, launches: Sequence[ResolvedLaunch], reps: int, hold: bool = True, batch: int = 1
    ) -> list[float]:
        ctx = self._context
        # A library call is queued by the host each repetition; graphs hold kernels only.
        hold = hold and not any(library_routine(launch.entry) for launch in launches)
        with self._device_calls():
            graph = self._graph(launches) if hold else None
            prepared = [] if graph is not None else self._prepare(launches)
            self.queue = "held (graph)" if graph is not None else "direct"
            events = ctx.events(2 * reps)
            for rep in range(reps):
                ctx.record(events[2 * rep])
                for _ in range(batch):
                    if graph is not None:
                        ctx.launch_graph(graph)
                    self._queue(prepared)
                ctx.record(events[2 * rep + 1])
            ctx.synchronize()
            return [ctx.elapsed(events[2 * r], events[2 * r + 1]) / batch for r in range(reps)]

    def read(self, name: str) -> np.ndarray:
        out = np.empty_like(self._host[name])
        if out.size:
            with self._device_calls():
                self._context.download(out, self._buffers[name])
        return out

    def _copy(self, copy: Callable[[], None]) -> float:
        """A copy on the stream between two events: its seconds by the device's clock."""
        ctx = self._context
        with self._device_calls():
            start, end = ctx.events(2)
            ctx.record(start)
            copy()
            ctx.record(end)
            ctx.synchronize()
            return ctx.elapsed(start, end)

    def upload(self, name: str, host: np.ndarray) -> float:
        if not host.nbytes:
            return 0.0
        return self._copy(lambda: self._context.upload(self._buffers[name], host))

    def download(self, name: str, host: np.ndarray) -> float:
        if not host.nbytes:
            return 0.0
        return self._copy(lambda: self._context.download(host, self._buffers[name]))

    def close(self) -> None:
        """Free the arrays and graphs; after a sticky error nothing can be freed,
        and the process's end gives the memory back."""
        if not self._session.lost:
            with self._device_calls():
                for graph in self._graphs.values():
                    if graph is not None:
                        self._context.free_graph(graph)
                for pointer in self._buffers.values():
                    self._context.free(pointer)
        self._graphs.clear()
        self._buffers.clear()


class CudaSession(Session):
    """One device's primary context and stream; compiled modules cached."""

    transfer_timer = "device"

    def __init__(self, info: DeviceInfo, props: _Props, driver: _Driver, index: int) -> None:
        self.info = info
        self.props = props
        self._cuda = driver.cuda_version()
        self.compiler = compiler_for(self._cuda)
        self.context = driver.open(index)
        self._modules: dict[tuple, Any] = {}
        self._blas: int | None = None
        #: The sticky fault that made the context unusable, once one has.
        self.lost = ""

    def blas_handle(self) -> int:
        """The session's cuBLAS handle on its stream, made on first use (in the
        context, which the caller has made current)."""
        if self._blas is None:
            self._blas = cublas.create(self.context.stream_handle())
        return self._blas

    def close(self) -> None:
        if not self.lost:
            if self._blas is not None:
                with self.context.activate():
                    cublas.destroy(self._blas)
            self.context.close()

    def group_limit(self) -> tuple[str, int] | None:
        return "max_threads_per_block", self.props.max_threads_per_block

    def _module(self, spec: KernelSpec, source: Path, precision: str) -> Any:
        key = build_key(spec, source, precision)
        if key not in self._modules:
            from harness.backends import cuda_compile

            major, minor = self.props.capability
            binary = cuda_compile.compile_source(
                spec, source, precision, major * 10 + minor, self.compiler
            )
            with self.context.activate():
                try:
                    self._modules[key] = self.context.load(binary.image)
                except CudaError as exc:
                    raise CompileError(load_failure(source, binary, exc, self._cuda)) from exc
        return self._modules[key]

    def load(
        self,
        spec: KernelSpec,
        precision: str,
        source: Path | None,
        inputs: Mapping[str, np.ndarray],
    ) -> Execution:
        if self.lost:
            raise _lost_earlier(self.lost)
        if source is None:
            raise CompileError(f"no CUDA source for {spec.name}")
        from harness.backends import cuda_compile

        most = max(self.props.shared_mem_per_block, self.props.shared_mem_per_block_optin)
        if spec.work_group_bytes > most:
            raise DeviceLimit(
                f"{spec.name} needs {spec.work_group_bytes} bytes of shared memory a block; "
                f"the device allows {most} (shared_mem_per_block_optin)"
            )
        shared = cuda_compile.dynamic_shared_bytes(spec)
        module = self._module(spec, source, precision)
        return CudaExecution(self, module, source, inputs, shared)


class CudaBackend(Backend):
    """Every CUDA device of the NVIDIA driver, through cuda-python or pycuda."""

    name = "cuda"
    language = "cuda"
    extension = ".cu"
    partitions = PARTITIONS
    driver_modules = ("cuda.bindings.driver", "pycuda.driver")
    holds_queue = True

    def __init__(self, binding: str | None = None) -> None:
        self.binding = binding or os.environ.get(BINDING_ENV) or None

    def compiled_text(
        self, spec: KernelSpec, source: Path, precision: str, device: DeviceInfo
    ) -> str | None:
        from harness.backends import cuda_compile

        return cuda_compile.source_text(spec, source, precision).decode()

    def _driver(self) -> _Driver:
        return _load_driver(self.binding)

    def unavailable_reason(self) -> str | None:
        try:
            driver = self._driver()
            count = driver.count()
        except (BackendUnavailable, CudaError) as exc:
            return str(exc)
        if count == 0:
            return "the NVIDIA driver reports no CUDA device"
        from harness.backends import cuda_compile

        if not cuda_compile.available():
            return cuda_compile.no_compiler_reason()
        try:
            cuda = driver.cuda_version()
        except CudaError as exc:
            return str(exc)
        if compiler_for(cuda) is None:
            return compiler_too_new(cuda)
        return None

    def devices(self) -> list[DeviceInfo]:
        driver = self._driver()
        return [_info(driver, i, driver.props(i)) for i in range(driver.count())]

    def open(self, index: int) -> Session:
        driver = self._driver()
        props = driver.props(index)
        return CudaSession(_info(driver, index, props), props, driver, index)

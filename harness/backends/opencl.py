"""OpenCL through pyopencl: every platform and device, timed by profiling events.

Sources are kernels/opencl/<kernel>.cl, else the body CUDA shares,
kernels/c/<kernel>.c, after the dialect's OpenCL prelude
(kernels/opencl/dialect.clh). The run precision reaches them as the
macro ``REAL``, a description's constants and type aliases as macros too;
``#include "file"`` lines are expanded from the source's folder;
``HARNESS_CPU_DEVICE`` is defined on CPU devices, so a source can
pick a CPU-friendly memory walk; ``#line`` directives keep compiler messages
pointing at the files' own lines. Elementwise kernels walk their items with
the dialect's ``FOR_EACH``, which `harness.model.partition` deals to work-items
(contiguous runs on CPU devices by default). The Oclgrind simulator, where
installed, is listed after every real device and checks kernels for races and
overruns (`harness.backends.oclgrind`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from harness.backends import clblast, oclgrind, opencl_binaries
from harness.backends.base import (
    HELD_LAUNCHES,
    Backend,
    BackendUnavailable,
    CompileError,
    DeviceInfo,
    DeviceLimit,
    Execution,
    Session,
    build_key,
    c_program,
    out_of_device_memory,
    takes_files,
)
from harness.model.partition import PARTITIONS, device_macros
from harness.model.spec import KernelSpec, ResolvedLaunch, library_routine

INSTALL_HINT = "pip install 'harness[opencl]' (and 'harness[pocl]' for a CPU OpenCL device)"


def _cl() -> Any:
    """pyopencl, without its caches (of built programs, and of the code that calls a
    kernel) where the user's cache folder cannot hold them (``XDG_CACHE_HOME`` a
    file, or in /proc, or on a full disk): there they raised as a program was built
    (a KeyError, a NotADirectoryError), and every OpenCL row was an error. PoCL,
    which cannot build without a cache folder, then keeps its builds in a scratch
    folder of this user's (`_scratch_cache`)."""
    if not os.environ.get("POCL_CACHE_DIR", "unset").strip():
        # A blank one is taken as unset, as the harness's own variables are: PoCL
        # aborted the process listing the devices.
        del os.environ["POCL_CACHE_DIR"]
    if not _cache_writable():
        os.environ["PYOPENCL_NO_CACHE"] = "1"
        if "POCL_CACHE_DIR" not in os.environ:
            _scratch_cache()
    try:
        import pyopencl
    except ImportError as exc:
        raise BackendUnavailable(f"pyopencl is not installed: {INSTALL_HINT}") from exc
    return pyopencl


#: The name of PoCL's OpenCL platform.
POCL_PLATFORM = "Portable Computing Language"


def _pocl_cache_unusable() -> bool:
    """Whether POCL_CACHE_DIR, or the nearest of its parents that exists, is no folder
    (a file): PoCL then lists its devices but fails every build."""
    given = os.environ.get("POCL_CACHE_DIR")
    if given is None:
        return False
    path = Path(given).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return not path.is_dir()


@cache
def _cache_writable() -> bool:
    """Whether pyopencl's caches, and PoCL's unless POCL_CACHE_DIR names one, can be
    made in the user's cache folder, as they make them (through platformdirs, which
    pyopencl installs), and take a file of a built kernel's size."""
    try:
        import platformdirs
    except ImportError:
        return True
    folders = [Path(platformdirs.user_cache_dir("pytools", "pytools"))]
    if "POCL_CACHE_DIR" not in os.environ:
        folders.append(Path(platformdirs.user_cache_dir("pocl", appauthor=False)))
    return all(map(takes_files, folders))


def _scratch_cache() -> None:
    """Point PoCL (and the worker processes, which inherit POCL_CACHE_DIR) at this
    user's own folder under the temporary folder, made private and reused, as a
    cache the user's cache folder cannot be."""
    folder = Path(tempfile.gettempdir()) / f"harness-pocl-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        if folder.stat().st_uid != os.getuid() or folder.is_symlink():
            return
    except OSError:
        return
    os.environ["POCL_CACHE_DIR"] = str(folder)


def _platform_devices() -> list[tuple[str, list[Any]]]:
    """Each OpenCL platform's name and devices, a simulator's after every other's,
    so that adding one renumbers none; a platform that cannot list any has none."""
    cl = _cl()
    oclgrind.set_device_limits()
    try:
        platforms = cl.get_platforms()
    except cl.Error as exc:
        raise BackendUnavailable(
            f"no OpenCL platform found ({exc}): install a driver, e.g. "
            "pip install pocl-binary-distribution, or Debian's pocl-opencl-icd"
        ) from exc
    found = []
    for platform in sorted(platforms, key=lambda p: p.name.strip() == oclgrind.PLATFORM):
        if platform.name.strip() == POCL_PLATFORM and _pocl_cache_unusable():
            # Each of its rows was a compile error that did not name the variable;
            # as a platform of no device, `backend_notes` names it.
            found.append((platform.name.strip(), []))
            continue
        try:
            found.append((platform.name.strip(), list(platform.get_devices())))
        except cl.Error:
            found.append((platform.name.strip(), []))
    return found


def _all_devices() -> list[Any]:
    devices = [d for _, listed in _platform_devices() for d in listed]
    if not devices:
        raise BackendUnavailable("OpenCL platforms were found but they offer no device")
    return devices


#: A kernel every OpenCL compiler must build.
_TRIVIAL = "__kernel void probe(__global int *a) { a[0] = 1; }"


@cache
def compiler_problem(index: int) -> str | None:
    """Why device ``index``'s compiler cannot build a trivial kernel; None when it can.

    A driver can list a device its compiler cannot target: the PoCL bundled in
    pyopencl's wheels (LLVM 14) asks for CPU ``generic`` on CPUs newer than its
    LLVM knows (AMD Zen 5) and fails every build, where Debian's PoCL works.
    """
    cl = _cl()
    device = _all_devices()[index]
    try:
        opencl_binaries.from_text(cl, cl.Context([device]), _TRIVIAL)
    except cl.Error as exc:
        lines = [line.strip() for line in str(exc).splitlines() if "error:" in line]
        return f"its compiler fails on a trivial kernel ({lines[0] if lines else exc})"
    return None


def _why_not_default(device: DeviceInfo, every: Sequence[DeviceInfo]) -> str | None:
    if device.kind == SIMULATOR:
        return (
            "a simulator that reports data races and out-of-bounds accesses, far slower "
            "than any device: use it for --check runs, with --device oclgrind"
        )
    problem = compiler_problem(device.index)
    if problem:
        return f"{problem}; Debian's pocl-opencl-icd has a PoCL that can"
    if "cpu" in device.kind.split("/"):
        first = next(
            d for d in every if "cpu" in d.kind.split("/") and compiler_problem(d.index) is None
        )
        if first != device:
            return f"{first.id} runs on the same host CPU; name it with --device to use it"
    return None


def _features(device: Any) -> frozenset[str]:
    ext = device.extensions.split()
    features = {"int64", "atomics", "local_memory"}
    if device.double_fp_config or "cl_khr_fp64" in ext:
        features.add("f64")
    if "cl_khr_int64_base_atomics" in ext:
        features.add("atomics64")
    return frozenset(features)


#: The kind of a device that simulates one (`harness.backends.oclgrind`).
SIMULATOR = "simulator"


def _kind(device: Any) -> str:
    cl = _cl()
    if oclgrind.is_simulator(device):
        return SIMULATOR
    kinds = []
    for flag, word in ((cl.device_type.GPU, "gpu"), (cl.device_type.CPU, "cpu")):
        if device.type & flag:
            kinds.append(word)
    return "/".join(kinds) or "accelerator"


def _info(index: int, device: Any) -> DeviceInfo:
    return DeviceInfo(
        backend="opencl",
        index=index,
        name=device.name.strip(),
        vendor=device.vendor.strip(),
        kind=_kind(device),
        memory_bytes=int(device.global_mem_size),
        compute_units=int(device.max_compute_units),
        driver=device.driver_version.strip(),
        api=f"{device.platform.name.strip()}; {device.version.strip()}",
        features=_features(device),
        limits={
            "max_alloc_bytes": int(device.max_mem_alloc_size),
            "max_work_group_size": int(device.max_work_group_size),
            "local_mem_bytes": int(device.local_mem_size),
            "cache_bytes": int(device.global_mem_cache_size),
        },
    )


_C_TYPES = {
    "f32": "float",
    "f64": "double",
    "i32": "int",
    "u32": "uint",
    "i64": "long",
    "u64": "ulong",
}


def program_text(spec: KernelSpec, source: Path, precision: str, device: DeviceInfo) -> str:
    """What the OpenCL compiler sees: the defines, the dialect, then the source."""
    first = ["#pragma OPENCL EXTENSION cl_khr_fp64 : enable"] if precision == "f64" else []
    first += [f"#define {macro} 1" for macro in sorted(device_macros(device.kind))]
    return c_program(spec, source, precision, "opencl", _C_TYPES, first)


def _is_out_of_memory(exc: Exception) -> bool:
    text = str(exc)
    return (
        "MEM_OBJECT_ALLOCATION_FAILURE" in text
        or "OUT_OF_RESOURCES" in text
        or ("OUT_OF_HOST_MEMORY" in text)
    )


class OpenCLExecution(Execution):
    """Buffers on one device and the program's kernels."""

    def __init__(
        self, session: OpenCLSession, program: Any, text: str, inputs: Mapping[str, np.ndarray]
    ):
        cl = _cl()
        self._cl = cl
        self._context = session.context
        self._queue = session.queue
        self._program = program
        self._device = session.device
        self._local_bytes = session.info.limits["local_mem_bytes"]
        self._findings = session.findings
        self._lines = oclgrind.source_lines(text) if self._findings else {}
        self._kernels: dict[str, Any] = {}
        self._host = {name: np.ascontiguousarray(value) for name, value in inputs.items()}
        self._buffers: dict[str, Any] = {}
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
        total = 0
        try:
            for name, value in self._host.items():
                # OpenCL has no empty buffers; a zero-length array gets one element.
                host = value if value.size else np.zeros(1, value.dtype)
                total += host.nbytes
                self._buffers[name] = cl.Buffer(session.context, flags, hostbuf=host)
            self._finish()
        except cl.Error as exc:
            if _is_out_of_memory(exc):
                raise out_of_device_memory(total, session.info.memory_bytes, exc) from exc
            raise

    def _kernel(self, entry: str) -> Any:
        if entry not in self._kernels:
            try:
                kernel = self._cl.Kernel(self._program, entry)
            except self._cl.Error as exc:
                raise CompileError(
                    f"entry point {entry!r} not found in the program: {exc}"
                ) from exc
            # A launch whose work-group memory is over the device's fails with
            # OUT_OF_RESOURCES, which names neither: a skipped row names both.
            need = kernel.get_work_group_info(
                self._cl.kernel_work_group_info.LOCAL_MEM_SIZE, self._device
            )
            if need > self._local_bytes:
                raise DeviceLimit(
                    f"{entry} needs {need} bytes of work-group memory; the device has "
                    f"{self._local_bytes} (local_mem_bytes)"
                )
            self._kernels[entry] = kernel
        return self._kernels[entry]

    def _finish(self, event: Any = None) -> None:
        """Wait for the queue (or one event), then raise what a simulator saw in it."""
        if event is None:
            self._queue.finish()
        else:
            event.wait()
        if self._findings is not None:
            self._findings.check(self._lines)

    def _enqueue(self, launch: ResolvedLaunch) -> Any:
        routine = library_routine(launch.entry)
        if routine is not None:
            return self._library(routine, launch)
        kernel = self._kernel(launch.entry)
        kernel.set_args(*(self._buffers[n] for n in launch.arrays), *(v for _, v in launch.scalars))
        local = launch.group_axes[: launch.dims]
        size = tuple(n * g for n, g in zip(launch.grid[: launch.dims], local, strict=True))
        return self._cl.enqueue_nd_range_kernel(self._queue, kernel, size, local)

    def _library(self, routine: str, launch: ResolvedLaunch) -> Any:
        """A CLBlast routine queued on the arrays, as an event like a kernel's."""
        if routine not in clblast.ROUTINES:
            raise DeviceLimit(f"the OpenCL backend calls no library routine {routine!r}")
        # The routine works in the precision of its arrays (the first one's).
        precision = "f64" if self._host[launch.arrays[0]].dtype == np.float64 else "f32"
        event = clblast.ROUTINES[routine](
            self._queue,
            [self._buffers[n] for n in launch.arrays],
            [v for _, v in launch.scalars],
            precision,
        )
        return self._cl.Event.from_int_ptr(event, retain=False)

    def run(self, launches: Sequence[ResolvedLaunch]) -> None:
        for launch in launches:
            self._enqueue(launch)
        self._finish()

    def time(
        self, launches: Sequence[ResolvedLaunch], reps: int, hold: bool = True, batch: int = 1
    ) -> list[float]:
        """Each sample from its first launch's start to its last one's end.

        Held, samples are queued behind a marker waiting on a user event, set
        once they are all queued (or once `HELD_LAUNCHES` launches are: a
        driver may stop taking commands while too many wait), so that the
        device never waits on the host within a sample.
        """
        spans = []
        # A library may wait on the queue itself (CLBlast compiles on first use),
        # which a held queue would never let finish.
        hold = hold and not any(library_routine(launch.entry) for launch in launches)
        per_hold = max(1, HELD_LAUNCHES // max(1, len(launches) * batch))
        self.queue = "held (user event)" if hold else "direct"
        for first in range(0, reps, per_hold):
            gate = self._cl.UserEvent(self._context) if hold else None
            try:
                if gate is not None:
                    self._cl.enqueue_marker(self._queue, wait_for=[gate])
                for _ in range(min(per_hold, reps - first)):
                    events = [self._enqueue(launch) for _ in range(batch) for launch in launches]
                    spans.append((events[0], events[-1]))
            finally:
                if gate is not None:
                    gate.set_status(self._cl.command_execution_status.COMPLETE)
        self._finish()
        return [(last.profile.end - first.profile.start) * 1e-9 / batch for first, last in spans]

    def read(self, name: str) -> np.ndarray:
        out = np.empty_like(self._host[name])
        if out.size:
            self._finish(self._cl.enqueue_copy(self._queue, out, self._buffers[name]))
        return out

    def upload(self, name: str, host: np.ndarray) -> float:
        if not host.nbytes:
            return 0.0
        event = self._cl.enqueue_copy(self._queue, self._buffers[name], host)
        self._finish(event)
        return (event.profile.end - event.profile.start) * 1e-9

    def download(self, name: str, host: np.ndarray) -> float:
        if not host.nbytes:
            return 0.0
        event = self._cl.enqueue_copy(self._queue, host, self._buffers[name])
        self._finish(event)
        return (event.profile.end - event.profile.start) * 1e-9

    def close(self) -> None:
        for buffer in self._buffers.values():
            buffer.release()
        self._buffers.clear()


class OpenCLSession(Session):
    """A context and a profiling queue on one device; compiled programs cached."""

    transfer_timer = "device"

    def __init__(self, info: DeviceInfo, device: Any) -> None:
        cl = _cl()
        self.info = info
        self.device = device
        #: What a simulator reports (`harness.backends.oclgrind`); None on a real device.
        self.findings = oclgrind.Findings() if info.kind == SIMULATOR else None
        self.reports_overruns = self.findings is not None
        with self.findings.options() if self.findings else nullcontext():
            self.context = cl.Context([device])
        self.queue = cl.CommandQueue(
            self.context, properties=cl.command_queue_properties.PROFILING_ENABLE
        )
        self._programs: dict[tuple, tuple[Any, str]] = {}
        self._keep = False

    def array_limit(self) -> tuple[str, int] | None:
        return "max_alloc_bytes", self.info.limits["max_alloc_bytes"]

    def keep_builds(self) -> None:
        self._keep = True

    @property
    def spent(self) -> bool:
        return self.findings is not None and self.findings.spent

    def close(self) -> None:
        if self.findings is not None:
            self.findings.close()

    def group_limit(self) -> tuple[str, int] | None:
        return "max_work_group_size", self.info.limits["max_work_group_size"]

    def _program(self, spec: KernelSpec, source: Path, precision: str) -> tuple[Any, str]:
        """The built program and the text it was built from."""
        cl = _cl()
        key = build_key(spec, source, precision)
        if key not in self._programs:
            text = program_text(spec, source, precision, self.info)
            try:
                if self.findings is not None:
                    # The simulator's findings point into the text it compiled.
                    program = opencl_binaries.from_text(
                        cl, self.context, text, oclgrind.BUILD_OPTIONS
                    )
                else:
                    program = opencl_binaries.build(
                        cl, self.context, self.device, text, (), keep=self._keep
                    )
            except cl.Error as exc:
                raise CompileError(_build_log(exc, source)) from exc
            self._programs[key] = (program, text)
        return self._programs[key]

    def load(
        self,
        spec: KernelSpec,
        precision: str,
        source: Path | None,
        inputs: Mapping[str, np.ndarray],
    ) -> Execution:
        if source is None:
            raise CompileError(f"no OpenCL source for {spec.name}")
        return OpenCLExecution(self, *self._program(spec, source, precision), inputs)


def _build_log(exc: Exception, source: Path) -> str:
    """The compiler's own messages, without pyopencl's repeated banner."""
    lines = [
        line.strip()
        for line in str(exc).splitlines()
        if line.strip() and "clBuildProgram failed" not in line and not line.startswith("Build on")
    ]
    detail = " | ".join(lines)
    return f"{source.name} failed to compile: {detail}"


class OpenCLBackend(Backend):
    """Every OpenCL platform's devices, numbered across platforms."""

    name = "opencl"
    language = "opencl"
    extension = ".cl"
    driver_modules = ("pyopencl",)
    partitions = PARTITIONS
    holds_queue = True

    def devices(self) -> list[DeviceInfo]:
        return [_info(i, d) for i, d in enumerate(_all_devices())]

    def default_devices(self) -> list[DeviceInfo]:
        """Every device whose compiler works, but one CPU device only: two CPU
        drivers (Debian's PoCL and the one in pyopencl's wheels) run on the same
        cores. Where no compiler works, every device but a simulator, so that each
        row says why (with the simulator alone, a default run timed on it)."""
        every = self.devices()
        chosen = [d for d in every if _why_not_default(d, every) is None]
        return chosen or [d for d in every if d.kind != SIMULATOR]

    def device_notes(self) -> dict[str, str]:
        every = self.devices()
        notes = {d.id: _why_not_default(d, every) for d in every}
        return {device: f"not used by default: {why}" for device, why in notes.items() if why}

    def backend_notes(self) -> list[str]:
        """A platform that offered no device (PoCL whose POCL_CACHE_DIR it cannot
        write): it was left out unsaid, and a run of -b opencl ran on the simulator."""
        empty = dict.fromkeys(name for name, listed in _platform_devices() if not listed)
        return [
            f"platform {name!r} offers no device: its driver found none or could not "
            "start (see its settings, such as POCL_CACHE_DIR)"
            for name in empty
        ]

    def compiled_text(
        self, spec: KernelSpec, source: Path, precision: str, device: DeviceInfo
    ) -> str | None:
        return program_text(spec, source, precision, device)

    def open(self, index: int) -> Session:
        device = _all_devices()[index]
        return OpenCLSession(_info(index, device), device)

"""The one small interface every backend implements, and the errors it raises.

A backend lists its devices and opens a session on one. A session turns a
kernel description, its source and its inputs into an `Execution` that can run
one repetition, time repetitions with the device's own clock, and read arrays
back. The runner drives only this interface, so it never knows which backend it
talks to, and a backend never knows which kernel it runs.
"""

from __future__ import annotations

import os
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from harness.model import sources
from harness.model.spec import KernelSpec, ResolvedLaunch


class BackendUnavailable(RuntimeError):
    """The backend cannot run here; the message says what the user can do."""


class CompileError(RuntimeError):
    """A kernel source failed to compile; the message carries the compiler's log."""


class DeviceOutOfMemory(RuntimeError):
    """An allocation failed; the message names the bytes asked for and the limit."""


class DeviceLimit(RuntimeError):
    """The problem does not fit a documented device limit; the row is skipped."""


class KernelFault(RuntimeError):
    """A checking device (a simulator) saw the kernel do what real devices leave
    undefined: a data race, an access outside an array; the message says what
    and where."""


class DeviceLost(RuntimeError):
    """The device faulted in a way that leaves it unusable to this process (CUDA's
    sticky errors: an illegal address, a device-side assert). ``fault`` names the
    fault in a few words; the message keeps the driver's own."""

    def __init__(self, fault: str, message: str, earlier: bool = False) -> None:
        super().__init__(message)
        self.fault = fault
        #: Lost by an earlier row of this process, not by the one that raises it.
        self.earlier = earlier


def user_cache() -> Path:
    """The user's cache folder for the harness: ``$XDG_CACHE_HOME/harness`` where that
    is an absolute path (the XDG spec ignores a relative one), else ``~/.cache/harness``."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache):
        cache = str(Path.home() / ".cache")
    return Path(cache) / "harness"


#: Bytes a cache folder must take to be used: about what a built kernel takes.
CACHE_PROBE_BYTES = 1 << 16


def takes_files(folder: Path, size: int = CACHE_PROBE_BYTES) -> bool:
    """Whether ``folder`` (made where missing) takes a file of ``size`` bytes (a built
    kernel's): not where it is a file, unwritable, or on a full disk, which takes
    the folder but not the file, and where a driver's cache failed its builds (PoCL)
    or killed its process (Mesa's, with SIGBUS)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-") as probe:
            probe.write(bytes(size))
            probe.flush()
    except OSError:
        return False
    return True


def out_of_device_memory(need: int, memory: int, cause: Exception) -> DeviceOutOfMemory:
    """The error for a failed upload, naming the bytes asked for and the device's memory."""
    return DeviceOutOfMemory(
        f"out of device memory allocating {need} bytes (device memory {memory} bytes): {cause}"
    )


def build_key(
    spec: KernelSpec, source: Path, precision: str, expanded: sources.Expanded | None = None
) -> tuple:
    """What decides a compiled program: the source's text with its includes (so
    that an edited source or header is compiled again; ``expanded``, where the
    caller has it already), the precision and the description's constants."""
    return (
        source,
        sources.digest(source) if expanded is None else sources.text_digest(expanded.text),
        precision,
        tuple(spec.constants.items()),
        tuple(spec.type_aliases.items()),
        tuple(spec.group_names.items()),
    )


def c_program(
    spec: KernelSpec,
    source: Path,
    precision: str,
    language: str,
    c_types: Mapping[str, str],
    first: Sequence[str] = (),
) -> str:
    """What a C compiler sees: ``first`` lines (pragmas), the description's
    defines (REAL, REAL_IS_F64, its type aliases, GROUP and its axes, its constants), the
    language's prelude of the shared dialect, then the expanded source, with
    ``#line`` directives so messages name the files' own lines."""
    lines = [*first, f"#define REAL {c_types[precision]}"]
    lines.append(f"#define REAL_IS_F64 {int(precision == 'f64')}")
    for name, dtype in spec.type_aliases.items():
        lines.append(f"#define {name} {c_types[precision if dtype == 'real' else dtype]}")
    lines += [f"#define {name} {value}" for name, value in spec.group_names.items()]
    for name, value in spec.constants.items():
        text = f"((REAL){value!r})" if isinstance(value, float) else str(int(value))
        lines.append(f"#define {name} {text}")
    prelude = sources.prelude(language)
    body = sources.expand(source).with_line_directives()
    return "\n".join(lines) + "\n" + (prelude.with_line_directives() if prelude else "") + body


@dataclass(frozen=True)
class DeviceInfo:
    """What a user needs to know about one device, for listings and metadata."""

    backend: str
    index: int
    name: str
    vendor: str
    kind: str
    memory_bytes: int
    compute_units: int
    driver: str
    api: str
    features: frozenset[str]
    limits: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """The ``backend:index`` form that ``--device`` takes."""
        return f"{self.backend}:{self.index}"

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready description for run metadata."""
        return {
            "id": self.id,
            "backend": self.backend,
            "name": self.name,
            "vendor": self.vendor,
            "kind": self.kind,
            "memory_bytes": self.memory_bytes,
            "compute_units": self.compute_units,
            "driver": self.driver,
            "api": self.api,
            "features": sorted(self.features),
            "limits": dict(self.limits),
        }


#: The most launches a held queue is asked to hold at once (a driver may stop
#: taking commands while too many wait): one sample's batch stays within it.
HELD_LAUNCHES = 512


class Execution(ABC):
    """One kernel's buffers and compiled entry points on one device."""

    @abstractmethod
    def run(self, launches: Sequence[ResolvedLaunch]) -> None:
        """Perform one repetition and wait for it to finish."""

    #: How the last `time` call queued its repetitions, for the row's ``queue``
    #: column: "held (...)" where the device saw each repetition's launches only
    #: once all were queued, "direct" where it ran them as the host queued them,
    #: "host" where the host itself runs them.
    queue: str = "host"

    @abstractmethod
    def time(
        self, launches: Sequence[ResolvedLaunch], reps: int, hold: bool = True, batch: int = 1
    ) -> list[float]:
        """Perform ``reps`` samples of ``batch`` back-to-back repetitions each; return
        each sample's duration in seconds divided by ``batch`` (a repetition's mean).

        With ``hold``, where the API can hold a queue, the device starts a
        sample only once the host has queued all of its launches (at most
        `HELD_LAUNCHES` at once), so that the time is the device's and not the
        host's rate of queueing launches.
        """

    @abstractmethod
    def read(self, name: str) -> np.ndarray:
        """Copy one array back to the host."""

    @abstractmethod
    def upload(self, name: str, host: np.ndarray) -> float:
        """Copy a host array over the start of a device array and wait for the copy;
        return its duration in seconds, by the device's clock where the API times
        copies (the session's ``transfer_timer`` says which)."""

    @abstractmethod
    def download(self, name: str, host: np.ndarray) -> float:
        """Copy the start of a device array into a host array (as many bytes as the
        host array has) and wait for the copy; return its duration, as `upload`."""

    def close(self) -> None:  # noqa: B027 - most backends free by garbage collection
        """Release device memory now rather than at garbage collection."""


class Session(ABC):
    """An open device: compiles sources and loads inputs for executions."""

    info: DeviceInfo
    #: Which clock times repetitions on this device: "device" or "host".
    timer: str = "device"
    #: Which clock times host<->device copies (`Execution.upload`).
    transfer_timer: str = "host"
    #: Whether the device itself reports a kernel's reads and writes past an
    #: array's end (a simulator): a verified repetition then gives it the arrays
    #: without the guard zones after them, which would make those accesses valid.
    reports_overruns: bool = False

    @property
    def spent(self) -> bool:
        """Whether this process should end after the current row: a simulator that
        stops reporting after a number of reports per process has used half of it."""
        return False

    def array_limit(self) -> tuple[str, int] | None:
        """The device's limit on one array, as (limit name, bytes); None if none."""
        return None

    def group_limit(self) -> tuple[str, int] | None:
        """The device's limit on a work-group's work-items, as (limit name,
        work-items); None if none."""
        return None

    def set_shader_checks(self, on: bool) -> None:
        """Compile what this session loads from now on with the runtime checks its
        shader compiler adds (bounds clamping, loop bounding) on or off; DeviceLimit,
        naming why, where they cannot be turned off."""
        if not on:
            raise DeviceLimit("its compiler adds no runtime checks to turn off")

    def keep_builds(self) -> None:
        """Keep what this session builds from now on where a session in another
        process finds it, where the backend can (the build-ahead does, for the
        rows that follow it); nothing where it cannot."""
        return None

    @abstractmethod
    def load(
        self,
        spec: KernelSpec,
        precision: str,
        source: Path | None,
        inputs: Mapping[str, np.ndarray],
    ) -> Execution:
        """Compile (or reuse) the kernel and upload its arrays."""

    def close(self) -> None:  # noqa: B027 - most sessions end with their process
        """Give the device back (a context, a stream) before the process ends."""


class Backend(ABC):
    """A programming model: how to find its devices and open one."""

    #: Name used on the command line.
    name: str
    #: Folder under kernels/ holding this backend's sources, and their suffix;
    #: None for a backend that runs the description's numpy entry points.
    language: str | None = None
    extension: str = ""
    #: Python modules through which the backend loads its driver library.
    driver_modules: tuple[str, ...] = ()
    #: How it can deal a walking launch's items to work-items
    #: (`harness.model.partition`); empty for a backend without work-items.
    partitions: tuple[str, ...] = ()
    #: Whether its shader compiler adds runtime checks to every shader that a run
    #: can turn off (``--wgsl-checks``, `Session.set_shader_checks`).
    shader_checks: bool = False
    #: Whether it can hold a repetition's launches until all are queued (a CUDA
    #: graph, an OpenCL user event), which ``--no-hold`` turns off.
    holds_queue: bool = False

    def unavailable_reason(self) -> str | None:
        """None when usable; otherwise why not, in words a user can act on.

        By default, whether `devices` can list them without BackendUnavailable.
        """
        try:
            self.devices()
        except BackendUnavailable as exc:
            return str(exc)
        return None

    def compiled_text(
        self, spec: KernelSpec, source: Path, precision: str, device: DeviceInfo
    ) -> str | None:
        """The C text the backend hands its compiler for a kernel on a device (its
        defines, then the expanded source with #line directives); None for a
        language that has no C preprocessor."""
        return None

    @abstractmethod
    def devices(self) -> list[DeviceInfo]:
        """Every device this backend can use on this machine."""

    def default_devices(self) -> list[DeviceInfo]:
        """The devices a run uses when the user names none."""
        return self.devices()

    def device_notes(self) -> dict[str, str]:
        """What a user should know of a device (why it is not a default), by id."""
        return {}

    def backend_notes(self) -> list[str]:
        """What a user should know of the backend besides its devices: a driver of
        it that offered none, whose devices are missing from the list."""
        return []

    @abstractmethod
    def open(self, index: int) -> Session:
        """Open device ``index`` of `devices`."""

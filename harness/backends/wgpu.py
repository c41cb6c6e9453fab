"""WebGPU through wgpu-py: every adapter it enumerates, timed by timestamp queries.

WGSL convention for kernels/wgsl/<kernel>.wgsl:

- The backend prepends ``alias REAL = f64;`` or ``alias REAL = f32;``, so
  sources write ``REAL`` for the run precision (f64 needs the adapter's
  ``shader-f64`` feature, which the backend requests; no ``enable`` directive).
  It also prepends ``REAL_BITS``, the unsigned integer of REAL's width (u32, or
  u64 where the adapter has ``shader-int64``), for atomics on REAL done as a
  compare-and-swap loop on ``array<atomic<REAL_BITS>>`` with ``bitcast``; the
  description's type aliases as ``alias``, its integer constants as
  ``const NAME = value;`` and its real ones as ``const NAME: REAL = REAL(value);``.
  ``#include "file"`` lines are expanded, and ``#ifdef``/``#ifndef``/``#else``/
  ``#endif`` blocks of ``HARNESS_CPU_DEVICE`` (defined on CPU adapters, such as
  lavapipe) are selected as a C preprocessor would (`sources.select_branches`);
  ``#unroll NAME COUNT`` ... ``#endunroll`` writes a loop out (`sources.unroll`).
  Compiler messages name the file and
  line a user edits, not the compiled text's.
- Group 0, binding i is array i of the launch, in the launch's order:
  ``var<storage, read>`` for an array of intent ``in``, else
  ``var<storage, read_write>`` (wgpu wants the layout's access exactly).
- A launch's scalars are ONE ``var<uniform>`` struct at binding len(arrays),
  its members the launch's scalars in order (REAL, f32, f64, i32, u32, i64, u64),
  packed on the host with WGSL's layout rules.
- A source that declares no binding gets these declarations written for it,
  per launch, under the description's names (arrays by name, scalars as the
  fields of ``s``), its other entry points left out (`wgsl_module`); a source
  that needs its own names or types (atomics, 64-bit keys, one entry point
  launched on different arrays) declares every binding itself.
- ``global_index(wid, nwg, lid)`` is the work-item's linear index, with the
  linear group index ``wid.x + wid.y * nwg.x`` of a folded grid.
- Each entry point is a ``@compute`` function named like the launch's entry,
  with ``@workgroup_size`` equal to the launch's group shape: ``GROUP`` for a
  1-D launch, ``GROUP_X, GROUP_Y, GROUP_Z`` for one over several axes (the
  backend prepends these constants, from the description's ``group_size``).
- A launch over several axes is dispatched as it is, its groups per axis
  within the adapter's per-dimension limit. A 1-D launch over more
  work-groups than the adapter allows per dimension (65535) is dispatched
  as a 2-D grid of (min(groups, limit), ceil(groups / limit)) groups, so
  shaders use ``workgroup_id.x + workgroup_id.y *
  num_workgroups.x`` as the linear group index and guard against ``n``: the
  groups past the launch's own do nothing. Verification dispatches every 1-D
  launch so, with such extra groups, to check both.

naga, wgpu's shader compiler, adds runtime checks to every module: indices
clamped into their arrays, and a counter around every loop (loop bounding).
With `WgpuSession.set_shader_checks` off, modules are compiled through
wgpu-native's trusted entry (`TRUSTED_ENTRY`) with none of them.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from harness.backends.base import (
    Backend,
    BackendUnavailable,
    CompileError,
    DeviceInfo,
    DeviceLimit,
    DeviceOutOfMemory,
    Execution,
    Session,
    build_key,
    takes_files,
    user_cache,
)
from harness.model import sources, wgsl_module
from harness.model.partition import device_macros
from harness.model.spec import KernelSpec, ResolvedLaunch, library_routine

INSTALL_HINT = "pip install 'harness[wgpu]'"

#: Adapters preferred by default; OpenGL is used only when none of these exists.
NATIVE_APIS = ("Vulkan", "Metal", "D3D12")

#: Adapter limits a run depends on, under the names devices are listed with.
LIMITS = {
    "max_storage_buffer_binding_size": "max-storage-buffer-binding-size",
    "max_buffer_size": "max-buffer-size",
    "max_compute_workgroups_per_dimension": "max-compute-workgroups-per-dimension",
    "max_compute_invocations_per_workgroup": "max-compute-invocations-per-workgroup",
    "max_compute_workgroup_size_x": "max-compute-workgroup-size-x",
    "max_compute_workgroup_storage_size": "max-compute-workgroup-storage-size",
    "max_storage_buffers_per_shader_stage": "max-storage-buffers-per-shader-stage",
}

#: wgpu features requested whenever the adapter has them.
WANTED_FEATURES = ("shader-f64", "shader-int64", "shader-int64-atomic-all-ops", "timestamp-query")

#: wgpu allows at most this many queries in one query set: two per repetition.
MAX_QUERIES = 4096
#: Dispatches in one command buffer of a timed loop, about: each is submitted as
#: soon as it is encoded, so that the device is busy while the host encodes.
SUBMIT_DISPATCHES = 256

#: wgpu-native's entry that compiles a module with the runtime checks the caller
#: chooses (wgpu.h); wgpu-py itself does not call it.
TRUSTED_ENTRY = "wgpuDeviceCreateShaderModuleTrusted"

_KINDS = {
    "DiscreteGPU": "discrete gpu",
    "IntegratedGPU": "integrated gpu",
    "VirtualGPU": "virtual gpu",
    "CPU": "cpu",
}


def _runtime_dir() -> None:
    """Give Mesa's window-system code an XDG_RUNTIME_DIR where the environment has none
    (a service, a container, ``sudo``): without one, every Vulkan instance prints
    "XDG_RUNTIME_DIR is invalid or not set" although compute needs no window. The
    folder is this user's own, under the temporary folder, made private, and reused."""
    current = os.environ.get("XDG_RUNTIME_DIR")
    if os.name != "posix" or (current and os.path.isdir(current)):
        return
    folder = Path(tempfile.gettempdir()) / f"harness-runtime-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        if folder.stat().st_uid != os.getuid() or folder.is_symlink():
            return
    except OSError:
        return
    os.environ["XDG_RUNTIME_DIR"] = str(folder)


@cache
def _shader_cache() -> None:
    """Leave Mesa's shader cache off where its folder takes no file: on a full disk,
    the index it maps there killed the process with SIGBUS, and every wgpu row was
    a worker crash. A cache costs compiles, never a row."""
    if "MESA_SHADER_CACHE_DISABLE" in os.environ:
        return
    given = os.environ.get("MESA_SHADER_CACHE_DIR")
    folder = Path(given) if given else user_cache().parent / "mesa_shader_cache"
    if not takes_files(folder):
        os.environ["MESA_SHADER_CACHE_DISABLE"] = "true"


def _wgpu() -> Any:
    _runtime_dir()
    _shader_cache()
    try:
        import wgpu
    except ImportError as exc:
        raise BackendUnavailable(f"wgpu is not installed: {INSTALL_HINT}") from exc
    return wgpu


def _adapters() -> list[Any]:
    wgpu = _wgpu()
    try:
        adapters = list(wgpu.gpu.enumerate_adapters_sync())
    except Exception as exc:  # the native library failed to load or to start
        raise BackendUnavailable(f"wgpu could not enumerate adapters: {exc}") from exc
    if not adapters:
        raise BackendUnavailable(
            "wgpu found no adapter: install a Vulkan driver (e.g. Debian's "
            "mesa-vulkan-drivers for the lavapipe CPU adapter) or a GPU driver"
        )
    return adapters


def _features(adapter: Any) -> frozenset[str]:
    features = {"atomics", "local_memory"}
    if "shader-f64" in adapter.features:
        features.add("f64")
    if "shader-int64" in adapter.features:
        features.add("int64")
    if "shader-int64-atomic-all-ops" in adapter.features:
        features.add("atomics64")
    return frozenset(features)


def _info(index: int, adapter: Any) -> DeviceInfo:
    wgpu = _wgpu()
    info = adapter.info
    limits: dict[str, Any] = {name: int(adapter.limits[key]) for name, key in LIMITS.items()}
    limits["timestamp_query"] = "timestamp-query" in adapter.features
    vendor = info.get("vendor") or f"0x{int(info.get('vendor_id', 0)):04x}"
    return DeviceInfo(
        backend="wgpu",
        index=index,
        name=info.get("device") or info.get("description") or "unknown adapter",
        vendor=vendor,
        kind=_KINDS.get(info.get("adapter_type", ""), "unknown"),
        memory_bytes=0,
        compute_units=0,
        driver=info.get("description", ""),
        api=f"{info.get('backend_type', '?')}; wgpu-py {wgpu.__version__}",
        features=_features(adapter),
        limits=limits,
    )


def _timestamp_period_ns(device: Any) -> float | None:
    """Nanoseconds per timestamp tick: wgpu resolves raw ticks, not nanoseconds.

    wgpu-py has no wrapper for ``wgpuQueueGetTimestampPeriod``, so it is called
    through the native library; None when that is not possible.
    """
    try:
        from wgpu.backends.wgpu_native import lib

        period = float(lib.wgpuQueueGetTimestampPeriod(device.queue._internal))
    except (ImportError, AttributeError, TypeError):
        return None
    return period if period > 0 else None


def _trusted_entry() -> Callable[..., Any] | None:
    """wgpu-native's `TRUSTED_ENTRY`, wrapped as wgpu-py wraps its own calls (so
    that a compile error raises a GPUError); None where the installed
    wgpu-native lacks it."""
    try:
        from wgpu.backends.wgpu_native import _api
    except ImportError:
        return None
    return getattr(_api.libf, TRUSTED_ENTRY, None)


def _unchecked_module(device: Any, label: str, code: str) -> Any:
    """A WGSL module compiled with none of naga's runtime checks
    (``WGPUShaderRuntimeChecks_None``): indices unclamped, loops unbounded."""
    from wgpu.backends.wgpu_native import GPUShaderModule, ffi, lib

    create = _trusted_entry()
    if create is None:
        raise DeviceLimit(f"the installed wgpu-native has no {TRUSTED_ENTRY}")
    text, name = code.encode(), label.encode()
    # The descriptor points into these: they live until the call returns.
    text_c, name_c = ffi.new("char[]", text), ffi.new("char[]", name)
    wgsl = ffi.new("WGPUShaderSourceWGSL *")
    wgsl.chain.next = ffi.NULL
    wgsl.chain.sType = lib.WGPUSType_ShaderSourceWGSL
    wgsl.code.data, wgsl.code.length = text_c, len(text)
    descriptor = ffi.new("WGPUShaderModuleDescriptor *")
    descriptor.nextInChain = ffi.cast("WGPUChainedStruct *", wgsl)
    descriptor.label.data, descriptor.label.length = name_c, len(name)
    handle = create(device._internal, descriptor, lib.WGPUShaderRuntimeChecks_None)
    if handle == ffi.NULL:
        raise CompileError(f"{label}: {TRUSTED_ENTRY} made no module")
    return GPUShaderModule(label, handle, device)


_ALIGN = 16


def _prelude(spec: KernelSpec, precision: str, int64: bool) -> list[str]:
    """The lines put before every source: REAL, REAL_BITS, the description's names."""
    lines = [f"alias REAL = {precision};"]
    if precision == "f32" or int64:
        lines.append(f"alias REAL_BITS = {'u32' if precision == 'f32' else 'u64'};")
    for name, dtype in spec.type_aliases.items():
        lines.append(f"alias {name} = {precision if dtype == 'real' else dtype};")
    lines += [f"const {name}: u32 = {value}u;" for name, value in spec.group_names.items()]
    # The work-item's place in a launch, wherever the grid was folded into 2-D.
    lines.append(
        "fn global_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 "
        "{ return (wid.x + wid.y * nwg.x) * GROUP + lid; }"
    )
    for name, value in spec.constants.items():
        if isinstance(value, float):
            lines.append(f"const {name}: REAL = REAL({value!r});")
        else:
            lines.append(f"const {name} = {int(value)};")
    return lines


def pack_uniform(values: Sequence[Any]) -> bytes:
    """Scalars as the bytes of a WGSL uniform struct with those members in order.

    Every member is aligned to its own size (4 or 8 bytes); the struct is padded
    to its largest alignment and the buffer to 16 bytes, as uniforms require.
    """
    out = bytearray()
    align = 4
    for value in values:
        item = np.asarray(value)
        size = item.dtype.itemsize
        if size not in (4, 8):
            raise ValueError(f"uniform member of type {item.dtype} is not 4 or 8 bytes")
        align = max(align, size)
        out.extend(bytes(-len(out) % size))
        out.extend(item.astype(item.dtype.newbyteorder("<")).tobytes())
    out.extend(bytes(-len(out) % align))
    out.extend(bytes(-len(out) % _ALIGN))
    return bytes(out)


_GUTTER = re.compile(r"^(\s*)(\d+)(\s*│)")
_NOISE = ("Validation Error", "Caused by:")


def _compile_message(text: str, source: Path, where: Callable[[int], str]) -> str:
    """The compiler's message on one line, led by ``file:line:column`` of the file a user edits.

    naga names a parse error's place ``wgsl:L:C`` and a validation error's
    ``<label>:L:C``, L a line of the compiled text; ``where`` maps it back.
    """
    place = re.compile(rf"(?:{re.escape(source.name)}|\bwgsl):(\d+):(\d+)")

    def location(match: re.Match[str]) -> str:
        return f"{where(int(match.group(1)))}:{match.group(2)}"

    def gutter(match: re.Match[str]) -> str:
        return f"{match.group(1)}{where(int(match.group(2)))}{match.group(3)}"

    lead = None
    lines = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line.strip("│ ") or line in _NOISE or line.startswith("In wgpuDevice"):
            continue
        if "naga::ir::" in line or set(line) <= set("│ ^─╭╰·"):
            continue
        line = place.sub(location, _GUTTER.sub(gutter, line))
        if line.startswith("┌─") and lead is None:
            lead = line.removeprefix("┌─").strip()
            continue
        line = line.replace(f"Shader '{source.name}' ", "Shader ")
        lines.append(" ".join(line.lstrip("│= ").split()))
    detail = " | ".join(dict.fromkeys(x for x in lines if x))
    return f"{lead or source.name}: {detail}"


def _pipeline_message(exc: Exception) -> str:
    """wgpu's pipeline error on one line, without its generic preamble."""
    lines = [" ".join(line.split()) for line in str(exc).splitlines()]
    kept = [
        line
        for line in lines
        if line and line not in _NOISE and not line.startswith("In wgpuDevice")
    ]
    return " | ".join(kept)


class _Module:
    """A compiled WGSL module and the pipelines made from its entry points."""

    def __init__(self, module: Any, source: Path) -> None:
        self.module = module
        self.source = source
        self.pipelines: dict[tuple[str, tuple[bool, ...], bool], tuple[Any, Any]] = {}


def _padded(value: np.ndarray) -> np.ndarray:
    """An array's bytes, zero-padded where needed: bindings are non-empty multiples of 4."""
    data = value.reshape(-1).view(np.uint8)
    if data.size and data.size % 4 == 0:
        return data
    padded = np.zeros(max(4, -(-data.size // 4) * 4), np.uint8)
    padded[: data.size] = data
    return padded


def folded(groups: int, grid: tuple[int, int]) -> tuple[int, int]:
    """A 1-D grid of ``groups`` as a 2-D one in 2 to 64 rows of at least 2 groups,
    with extra groups past the last where ``groups`` allows, as a launch past the
    per-dimension limit has them: so that a verification repetition checks both
    the linear group index and the guard against the groups that are not the
    launch's. Failing that, exactly ``groups`` in rows; otherwise the grid as it was."""
    if grid[1] > 1 or groups < 2:
        return grid
    for rows in range(2, 65):
        width = -(-groups // rows)
        if groups % rows and width >= 2:
            return width, rows
    divisors = [r for r in range(2, 65) if groups % r == 0]
    return (groups // divisors[0], divisors[0]) if divisors else grid


class WgpuExecution(Execution):
    """One kernel's buffers on one device, with cached pipelines and bind groups."""

    def __init__(
        self,
        session: WgpuSession,
        spec: KernelSpec,
        precision: str,
        source: Path,
        inputs: Mapping[str, np.ndarray],
    ) -> None:
        self._session = session
        self._device = session.device
        self._spec = spec
        self._precision = precision
        self._source = source
        self._expanded = sources.expand(source)
        self._read_only = {a.name: a.intent == "in" for a in spec.arrays}
        self._host = {name: np.ascontiguousarray(value) for name, value in inputs.items()}
        wgpu = _wgpu()
        self._wgpu = wgpu
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
        self._buffers: dict[str, Any] = {}
        self._others: list[Any] = []
        self._encoded: dict[tuple[Any, ...], tuple[Any, Any, tuple[int, int]]] = {}
        total = 0
        try:
            for name, value in self._host.items():
                data = _padded(value)
                total += data.nbytes
                self._buffers[name] = self._device.create_buffer_with_data(data=data, usage=usage)
            self._token = self._device.create_buffer(size=4, usage=wgpu.BufferUsage.COPY_SRC)
            self._fence = self._device.create_buffer(
                size=4, usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST
            )
            self._others.extend((self._token, self._fence))
        except wgpu.GPUOutOfMemoryError as exc:
            self.close()
            raise DeviceOutOfMemory(
                f"out of device memory allocating {total} bytes of arrays: {exc}"
            ) from exc

    def _launch(self, launch: ResolvedLaunch) -> tuple[Any, Any, tuple[int, int, int]]:
        """Pipeline, bind group and grid of a launch, made once and reused."""
        if library_routine(launch.entry) is not None:
            raise DeviceLimit(f"WebGPU has no vendor library to call ({launch.entry})")
        key = (
            launch.entry,
            launch.arrays,
            launch.grid,
            pack_uniform([v for _, v in launch.scalars]),
        )
        if key in self._encoded:
            return self._encoded[key]
        most = self._session.info.limits["max_storage_buffers_per_shader_stage"]
        if len(launch.arrays) > most:
            raise DeviceLimit(
                f"launch {launch.entry} binds {len(launch.arrays)} arrays, over this adapter's "
                f"max_storage_buffers_per_shader_stage of {most}"
            )
        wgpu = self._wgpu
        uniform = None
        if launch.scalars:
            data = np.frombuffer(key[3], np.uint8)
            uniform = self._device.create_buffer_with_data(
                data=data, usage=wgpu.BufferUsage.UNIFORM
            )
            self._others.append(uniform)
        read_only = tuple(self._read_only[n] for n in launch.arrays)
        module = self._session.module(
            self._spec, self._source, self._expanded, self._precision, launch
        )
        pipeline, layout = self._session.pipeline(
            module, launch.entry, read_only, uniform is not None
        )
        buffers = [self._buffers[n] for n in launch.arrays]
        if uniform is not None:
            buffers.append(uniform)
        bind_group = self._device.create_bind_group(
            layout=layout,
            entries=[
                {"binding": i, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                for i, b in enumerate(buffers)
            ],
        )
        self._encoded[key] = (pipeline, bind_group, self._grid(launch))
        return self._encoded[key]

    def _grid(self, launch: ResolvedLaunch) -> tuple[int, int, int]:
        """Work-groups as (x, y, z): a 1-D launch folded into 2-D past the
        per-dimension limit, in as few rows as it takes and rows as even as they
        can be (fewer than a row's worth of groups past the launch's), a launch over
        several axes as it is. Rows of the limit's width made 2^25 doubles of
        Stream 196605 groups for 131072, and their copies ran at 0.77 of CUDA's
        rate on an H200, against 0.88 to 0.96 where the rows left fewer idle."""
        most = self._session.info.limits["max_compute_workgroups_per_dimension"]
        if launch.dims > 1:
            if max(launch.grid) > most:
                raise DeviceLimit(
                    f"launch {launch.entry} needs {launch.grid} work-groups, more than "
                    f"max_compute_workgroups_per_dimension {most} along an axis"
                )
            return launch.grid
        groups = launch.groups
        y = -(-groups // most)
        x = -(-groups // y)
        if y > most:
            raise DeviceLimit(
                f"launch {launch.entry} needs {groups} work-groups, more than "
                f"max_compute_workgroups_per_dimension {most} squared"
            )
        return x, y, 1

    def _prepared(
        self, launches: Sequence[ResolvedLaunch], fold: bool = False
    ) -> list[tuple[Any, Any, tuple[int, int, int]]]:
        """Each launch's pipeline, bind group and grid, looked up once for a whole
        command buffer rather than once a dispatch.

        With ``fold``, 1-D launches of several groups go as 2-D grids of the
        same groups (see `folded`)."""
        prepared = []
        for launch in launches:
            pipeline, bind_group, grid = self._launch(launch)
            if fold and launch.dims == 1:
                grid = (*folded(launch.groups, grid[:2]), 1)
            prepared.append((pipeline, bind_group, grid))
        return prepared

    @staticmethod
    def _encode(
        encoder: Any,
        prepared: Sequence[tuple[Any, Any, tuple[int, int, int]]],
        writes: Any,
        batch: int = 1,
    ) -> None:
        """``batch`` repetitions as one compute pass; wgpu orders dispatches within
        it. A pass keeps its pipeline and bind group until they change, so they are
        set only then: the host's encoding, not the device, set the pace of short
        kernels."""
        compute = encoder.begin_compute_pass(timestamp_writes=writes)
        pipeline = bind_group = None
        for _ in range(batch):
            for next_pipeline, next_group, grid in prepared:
                if next_pipeline is not pipeline:
                    pipeline = next_pipeline
                    compute.set_pipeline(pipeline)
                if next_group is not bind_group:
                    bind_group = next_group
                    compute.set_bind_group(0, bind_group)
                compute.dispatch_workgroups(*grid)
        compute.end()

    def _submit_and_wait(self, encoder: Any) -> None:
        """Submit, then wait by mapping a 4-byte copy made after the work."""
        encoder.copy_buffer_to_buffer(self._token, 0, self._fence, 0, 4)
        self._device.queue.submit([encoder.finish()])
        self._fence.map_sync("READ")
        self._fence.unmap()

    def run(self, launches: Sequence[ResolvedLaunch]) -> None:
        # Folded, so that the verification repetition checks the linear group
        # index, and the guard against extra groups, that only launches past the
        # per-dimension limit need otherwise.
        encoder = self._device.create_command_encoder()
        self._encode(encoder, self._prepared(launches, fold=True), None)
        self._submit_and_wait(encoder)

    def time(
        self, launches: Sequence[ResolvedLaunch], reps: int, hold: bool = True, batch: int = 1
    ) -> list[float]:
        # WebGPU has no way to hold a queue: samples go in command buffers that are
        # submitted while the next are encoded; a sample's batch is one pass.
        prepared = self._prepared(launches)
        if self._session.timer != "device":
            self.queue = "host"
            return [t / batch for t in self._host_time(prepared, batch, reps)]
        self.queue = "held (submitted as encoded)"
        times: list[float] = []
        per_read = MAX_QUERIES // 2
        while len(times) < reps:
            times.extend(self._device_time(prepared, batch, min(per_read, reps - len(times))))
        return [t / batch for t in times]

    def _device_time(
        self, prepared: Sequence[tuple[Any, Any, tuple[int, int, int]]], batch: int, reps: int
    ) -> list[float]:
        """``reps`` samples of ``batch`` repetitions, each sample bracketed by two
        timestamps, submitted every `SUBMIT_DISPATCHES` dispatches or so and read
        once: the device runs what was submitted while the host encodes the rest.
        Encoded whole before one submit, the device idled as long as the host
        encoded, and a GPU whose clock follows its load (NVIDIA's under Vulkan) then
        ran short kernels at a fraction of its clock."""
        wgpu = self._wgpu
        queries = self._session.query_set()
        resolved = self._device.create_buffer(
            size=16 * reps, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC
        )
        per_submit = max(1, SUBMIT_DISPATCHES // max(1, len(prepared) * batch))
        encoder = self._device.create_command_encoder()
        for r in range(reps):
            writes = {
                "query_set": queries,
                "beginning_of_pass_write_index": 2 * r,
                "end_of_pass_write_index": 2 * r + 1,
            }
            self._encode(encoder, prepared, writes, batch)
            if (r + 1) % per_submit == 0 and r + 1 < reps:
                self._device.queue.submit([encoder.finish()])
                encoder = self._device.create_command_encoder()
        encoder.resolve_query_set(queries, 0, 2 * reps, resolved, 0)
        self._device.queue.submit([encoder.finish()])
        ticks = np.frombuffer(self._device.queue.read_buffer(resolved), np.uint64)
        resolved.destroy()
        spans = ticks[1::2].astype(np.int64) - ticks[0::2].astype(np.int64)
        if np.any(spans <= 0):
            raise RuntimeError(
                f"timestamp queries gave {int(np.sum(spans <= 0))} non-positive durations "
                f"of {reps} repetitions"
            )
        period = self._session.period_ns
        return [float(s) * period * 1e-9 for s in spans]

    def _host_time(
        self, prepared: Sequence[tuple[Any, Any, tuple[int, int, int]]], batch: int, reps: int
    ) -> list[float]:
        """Host wall time of each sample of ``batch`` repetitions: submit, then wait."""
        times = []
        for _ in range(reps):
            encoder = self._device.create_command_encoder()
            self._encode(encoder, prepared, None, batch)
            start = time.perf_counter()
            self._submit_and_wait(encoder)
            times.append(time.perf_counter() - start)
        return times

    def read(self, name: str) -> np.ndarray:
        host = self._host[name]
        out = np.empty_like(host)
        if host.nbytes:
            data = self._device.queue.read_buffer(self._buffers[name], 0, -(-host.nbytes // 4) * 4)
            out.view(np.uint8)[:] = np.frombuffer(data, np.uint8)[: host.nbytes]
        return out

    def upload(self, name: str, host: np.ndarray) -> float:
        # WebGPU times only passes; a copy is timed by the host, to its completion.
        if not host.nbytes:
            return 0.0
        start = time.perf_counter()
        self._device.queue.write_buffer(self._buffers[name], 0, host)
        self._submit_and_wait(self._device.create_command_encoder())
        return time.perf_counter() - start

    def download(self, name: str, host: np.ndarray) -> float:
        if not host.nbytes:
            return 0.0
        start = time.perf_counter()
        data = self._device.queue.read_buffer(self._buffers[name], 0, -(-host.nbytes // 4) * 4)
        host.view(np.uint8)[:] = np.frombuffer(data, np.uint8)[: host.nbytes]
        return time.perf_counter() - start

    def close(self) -> None:
        for buffer in (*self._buffers.values(), *self._others):
            buffer.destroy()
        self._buffers.clear()
        self._others.clear()
        self._encoded.clear()


class WgpuSession(Session):
    """A wgpu device on one adapter; modules and pipelines cached."""

    def __init__(self, info: DeviceInfo, adapter: Any) -> None:
        self.info = info
        features = [f for f in WANTED_FEATURES if f in adapter.features]
        self.device = adapter.request_device_sync(
            label=f"harness {info.id}", required_features=features
        )
        self.period_ns = None
        if "timestamp-query" in features:
            self.period_ns = _timestamp_period_ns(self.device)
        self.timer = "device" if self.period_ns is not None else "host"
        self._modules: dict[tuple[Any, ...], _Module] = {}
        self._written: dict[tuple[Any, ...], tuple[list[str], str, sources.Expanded]] = {}
        self._layouts: dict[tuple[tuple[bool, ...], bool], tuple[Any, Any]] = {}
        self._query_set: Any = None
        #: Whether modules get naga's runtime checks (`set_shader_checks`).
        self.shader_checks = True

    def group_limit(self) -> tuple[str, int] | None:
        names = ("max_compute_invocations_per_workgroup", "max_compute_workgroup_size_x")
        name = min(names, key=lambda n: self.info.limits[n])
        return name, self.info.limits[name]

    def array_limit(self) -> tuple[str, int] | None:
        names = ("max_storage_buffer_binding_size", "max_buffer_size")
        name = min(names, key=lambda n: self.info.limits[n])
        return name, self.info.limits[name]

    def set_shader_checks(self, on: bool) -> None:
        if not on and _trusted_entry() is None:
            from wgpu.backends.wgpu_native import lib_version_info

            version = ".".join(map(str, lib_version_info))
            raise DeviceLimit(
                f"turning naga's runtime checks off needs wgpu-native's {TRUSTED_ENTRY}, "
                f"which the installed wgpu-native {version} lacks"
            )
        self.shader_checks = on

    def query_set(self) -> Any:
        """The timestamp query set, made on first use."""
        if self._query_set is None:
            self._query_set = self.device.create_query_set(type="timestamp", count=MAX_QUERIES)
        return self._query_set

    def module(
        self,
        spec: KernelSpec,
        source: Path,
        expanded: sources.Expanded,
        precision: str,
        launch: ResolvedLaunch,
    ) -> _Module:
        """The compiled module a launch runs: the source (``expanded``) as written where
        it declares its bindings, else the source for that entry point alone with the
        declarations written from the description (see `wgsl_module`)."""
        wgpu = _wgpu()
        names = (*launch.arrays, *(name for name, _ in launch.scalars))
        # By content: a sort's dozens of launches, and its rows' executions,
        # select the branches and write the declarations once.
        found = (expanded.text, launch.entry, tuple(wgsl_module.arguments(spec, names)))
        if found not in self._written:
            try:
                selected = sources.select_branches(expanded, device_macros(self.info.kind))
                self._written[found] = (
                    *wgsl_module.for_launch(selected.text, spec, launch.entry, names),
                    selected,
                )
            except ValueError as exc:
                raise CompileError(f"{source.name}: {launch.entry}: {exc}") from None
        written, text, selected = self._written[found]
        key = (
            build_key(spec, source, precision, expanded),
            *written,
            launch.entry if written else None,
            self.shader_checks,
        )
        if key not in self._modules:
            prelude = _prelude(spec, precision, "shader-int64" in self.device.features)
            prelude += written

            def where(line: int) -> str:
                if line <= len(prelude):
                    return f"<declarations>:{line}"
                return selected.where(line - len(prelude))

            code = "\n".join(prelude) + "\n" + text
            try:
                if self.shader_checks:
                    module = self.device.create_shader_module(label=source.name, code=code)
                else:
                    module = _unchecked_module(self.device, source.name, code)
            except wgpu.GPUError as exc:
                raise CompileError(_compile_message(str(exc), source, where)) from exc
            self._modules[key] = _Module(module, source)
        return self._modules[key]

    def _layout(self, read_only: tuple[bool, ...], uniform: bool) -> tuple[Any, Any]:
        """Bind group and pipeline layouts: storage buffers, then the uniform."""
        key = (read_only, uniform)
        if key not in self._layouts:
            wgpu = _wgpu()
            kinds = wgpu.BufferBindingType
            entries = [
                {
                    "binding": i,
                    "visibility": wgpu.ShaderStage.COMPUTE,
                    "buffer": {"type": kinds.read_only_storage if ro else kinds.storage},
                }
                for i, ro in enumerate(read_only)
            ]
            if uniform:
                entries.append(
                    {
                        "binding": len(read_only),
                        "visibility": wgpu.ShaderStage.COMPUTE,
                        "buffer": {"type": wgpu.BufferBindingType.uniform},
                    }
                )
            group = self.device.create_bind_group_layout(entries=entries)
            layout = self.device.create_pipeline_layout(bind_group_layouts=[group])
            self._layouts[key] = (group, layout)
        return self._layouts[key]

    def pipeline(
        self, module: _Module, entry: str, read_only: tuple[bool, ...], uniform: bool
    ) -> tuple[Any, Any]:
        """A compute pipeline for an entry point and its bind group layout."""
        key = (entry, read_only, uniform)
        if key not in module.pipelines:
            wgpu = _wgpu()
            group, layout = self._layout(read_only, uniform)
            try:
                pipeline = self.device.create_compute_pipeline(
                    label=f"{module.source.name}:{entry}",
                    layout=layout,
                    compute={"module": module.module, "entry_point": entry},
                )
            except wgpu.GPUError as exc:
                raise CompileError(
                    f"{module.source.name}: entry point {entry!r}: {_pipeline_message(exc)}"
                ) from exc
            module.pipelines[key] = (pipeline, group)
        return module.pipelines[key]

    def load(
        self,
        spec: KernelSpec,
        precision: str,
        source: Path | None,
        inputs: Mapping[str, np.ndarray],
    ) -> Execution:
        if source is None:
            raise CompileError(f"no WGSL source for {spec.name}")
        # wgpu does not check a module's workgroup memory against the limit, and a
        # driver given more may fail in ways that name neither: a skipped row names both.
        most = self.info.limits["max_compute_workgroup_storage_size"]
        if spec.work_group_bytes > most:
            raise DeviceLimit(
                f"{spec.name} needs {spec.work_group_bytes} bytes of workgroup memory; the "
                f"adapter allows {most} (max_compute_workgroup_storage_size)"
            )
        return WgpuExecution(self, spec, precision, source, inputs)


class WgpuBackend(Backend):
    """Every adapter wgpu enumerates; by default the first native (non-GL) one."""

    name = "wgpu"
    language = "wgsl"
    extension = ".wgsl"
    #: The WGSL bodies guard one index per invocation.
    partitions = ("item",)
    driver_modules = ("wgpu",)
    shader_checks = True

    def devices(self) -> list[DeviceInfo]:
        return [_info(i, a) for i, a in enumerate(_adapters())]

    def default_devices(self) -> list[DeviceInfo]:
        adapters = _adapters()
        native = [i for i, a in enumerate(adapters) if a.info["backend_type"] in NATIVE_APIS]
        index = native[0] if native else 0
        return [_info(index, adapters[index])]

    def open(self, index: int) -> Session:
        adapter = _adapters()[index]
        return WgpuSession(_info(index, adapter), adapter)

"""Plan -> execute -> verify -> record, for kernel x backend x device x size.

Each unit of work is a small picklable `Task`. Executing one compiles the
kernel (once per device and precision), uploads fresh inputs, runs one
verification repetition against the CPU reference, then untimed warm-ups and
timed repetitions on the device's own clock. Whatever goes wrong becomes a
row with a status and a reason; the run goes on.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import reprlib
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from harness import suite
from harness.backends import base
from harness.backends import get as get_backend
from harness.execution import clocks, energy
from harness.execution.flush import Flusher
from harness.execution.sampling import MIN_REPS, Sampler, StopRule, batch_size, summarise
from harness.execution.transfers import Mover
from harness.model import partition, sources
from harness.model.rajaperf import checksum as array_checksum
from harness.model.spec import (
    STALE,
    TIMED,
    DescriptionError,
    KernelSpec,
    Launch,
    ResolvedLaunch,
    Traffic,
    axes,
    device_words,
    numpy_dtype,
    param_choices,
    stale_inputs,
)
from harness.model.verify import (
    Verdict,
    compare,
    guard_length,
    guard_problem,
    guard_zone,
    input_problem,
    with_guard,
)

#: What ``--check`` takes: a quick check (the default) or every choice.
CHECK_MODES = ("quick", "full")
#: What ``--wgsl-checks`` takes: naga's runtime checks kept (a WebGPU program's
#: lot, the default) or turned off.
WGSL_CHECKS = ("on", "off")


@dataclass(frozen=True)
class RunOptions:
    """Options shared by every task of a run."""

    precision: str = "f64"
    #: Every precision the run takes, a row each (``--precision f64 f32``); empty:
    #: ``precision`` alone.
    precisions: tuple[str, ...] = ()
    size: int | None = None
    reps: int | None = None
    warmup: int = 2
    seed: int = 1
    check: bool = False
    #: A verification run checks every checked choice of every option (``--check
    #: full``), not the quick check's few (`harness.model.spec.Param.unchosen`).
    check_all: bool = False
    max_time: float = 2.0
    min_time: float = 0.5
    min_samples: int = 10
    max_noise: float = 0.005
    #: Least device time one sample covers (`StopRule.sample_time`).
    sample_time: float = StopRule.sample_time
    caches: tuple[str, ...] = ("hot",)
    #: Bytes a cold row's flush reads (``--flush-bytes``); None: the device's default.
    flush_bytes: int | None = None
    #: Where the data lives while timed (`harness.execution.transfers`).
    transfers: tuple[str, ...] = ("resident",)
    #: Sizes picked by memory (RAJAPerf's --memory-allocated and --memory-moved):
    #: what the budgets count (one of `MEMORY_MEASURES`), and the budgets in bytes.
    memory: str | None = None
    budgets: tuple[int, ...] = ()
    sources: tuple[Path, ...] = ()
    #: User suites (``--suite``) whose kernels the tasks may name.
    suites: tuple[Path, ...] = ()
    sizes: tuple[int, ...] = ()
    #: Factors of each kernel's default size, a row each (``--size-factor``).
    size_factors: tuple[float, ...] = ()
    params: tuple[tuple[str, tuple[str, ...]], ...] = ()
    timeout: float | None = None
    in_process: bool = False
    #: Hold each batch of repetitions until all its launches are queued, where
    #: the API can (`harness.backends.base.Execution.time`).
    hold: bool = True
    #: Where kernels that draw a picture (`KernelSpec.image`) save it; None: nowhere.
    images: Path | None = None
    #: Work-group sizes to run each kernel at (``--group``); empty: each kernel's own.
    groups: tuple[int, ...] = ()
    #: How walking launches deal their items (``--partition``); empty: each
    #: device's default (`harness.model.partition`).
    partitions: tuple[str, ...] = ()
    #: Whether WGSL modules keep naga's runtime checks (``--wgsl-checks``), a row
    #: each on backends whose compiler adds them (`base.Backend.shader_checks`).
    wgsl_checks: tuple[str, ...] = ("on",)


@dataclass(frozen=True)
class Task:
    """One row's worth of work: a kernel on one device at one size and precision."""

    kernel: str
    backend: str
    device: int
    size: int
    precision: str
    params: tuple[tuple[str, str], ...] = ()
    cache: str = "hot"
    transfers: str = "resident"
    #: One-dimensional work-group size (None: the kernel's own).
    group: int | None = None
    #: How walking launches deal their items (`harness.model.partition`).
    partition: str = partition.AUTO
    #: "on" or "off": whether its shaders keep their compiler's runtime checks;
    #: None where the backend's compiler adds none (then on, where it does).
    wgsl_checks: str | None = None


def stop_rule(options: RunOptions) -> StopRule:
    """The run's rule for when a row has sampled enough."""
    return StopRule(
        max_noise=options.max_noise,
        min_samples=options.min_samples,
        min_time=options.min_time,
        max_time=options.max_time,
        sample_time=options.sample_time,
    )


def task_size(spec: KernelSpec, options: RunOptions) -> int:
    """The problem size a kernel runs at under these options (without --sizes or budgets)."""
    if options.size is not None:
        return options.size
    return spec.check_size if options.check else spec.default_size


def scaled_size(spec: KernelSpec, factor: float) -> int:
    """A kernel's default size times ``factor``, rounded (below 1 for a factor too
    small for it: its rows then run at size 1)."""
    return round(spec.default_size * factor)


def problem_signature(spec: KernelSpec, size: int) -> tuple:
    """What a size builds: its arrays' lengths, the bytes and FLOPs of a repetition
    and its launches. Sizes a description rounds to one problem (a mesh of whole
    elements, a square matrix) share one signature."""
    planned = spec.plan(size)
    if not isinstance(planned, list | tuple) or not all(
        isinstance(la, Launch) and isinstance(la.values, Mapping) for la in planned
    ):
        # Checked at load at the description's own sizes only: at another, a plan of
        # None or of text ended the run's planning in a traceback.
        raise DescriptionError(
            f"its plan at size {size} returned {reprlib.repr(planned)}: give a list of "
            "harness.model.spec.Launch, each with its values a dict"
        )
    traffic = spec.traffic(size, 8)
    if not isinstance(traffic, Traffic):
        raise DescriptionError(
            f"its traffic at size {size} returned {reprlib.repr(traffic)}: give a "
            "harness.model.spec.Traffic"
        )
    launches = tuple(
        (la.entry, la.items, la.group, la.args, tuple(sorted(la.values.items()))) for la in planned
    )
    lengths = tuple(sorted(spec.lengths(size).items()))
    return lengths, traffic, spec.flops(size), launches


def _asked_sizes(spec: KernelSpec, options: RunOptions) -> list[tuple[int, tuple[str, str]]]:
    """Every size the options give a kernel, in order, each with what asked for it
    (the option's words and value). A factor is written in full (``repr``): as ``:g``
    wrote it, factors 1 and 1.0000001 were one "factor 1", and the row they shared
    was run once without the note that says so."""
    if options.sizes or options.size_factors:
        return [(s, ("size", str(s))) for s in options.sizes] + [
            (max(1, scaled_size(spec, f)), ("factor", repr(f).removesuffix(".0")))
            for f in options.size_factors
        ]
    if options.budgets and options.memory:
        asked = []
        for budget in options.budgets:
            size = (
                size_for_memory(spec, options.precision, options.memory, budget)
                if reaches(spec, options.precision, options.memory, budget)
                else task_size(spec, options)
            )
            if size is not None:
                asked.append((size, (f"--memory-{options.memory}", str(budget))))
        return asked
    if options.check and options.size is None:
        return [(s, ("size", str(s))) for s in spec.sizes_for_check]
    size = task_size(spec, options)
    return [(size, ("size", str(size)))]


def size_groups(spec: KernelSpec, options: RunOptions) -> list[tuple[int, list[tuple[str, str]]]]:
    """The sizes a kernel runs at, each with every size, factor or budget that asked
    for it: asked sizes that build one problem (`problem_signature`) run once, at
    the first of them, rather than as rows of one problem at several sizes. A
    check's own sizes are the description's, each run."""
    own = options.check and not (options.sizes or options.size_factors or options.budgets)
    groups: dict[Any, tuple[int, list[tuple[str, str]]]] = {}
    for size, why in _asked_sizes(spec, options):
        key = size if own else problem_signature(spec, size)
        kept = groups.setdefault(key, (size, []))
        if why not in kept[1]:
            kept[1].append(why)
    return list(groups.values())


def task_sizes(spec: KernelSpec, options: RunOptions) -> tuple[int, ...]:
    """Every problem size a kernel runs at: the sweep (sizes given, and factors of
    its default size), the sizes its memory budgets
    pick (leaving out a budget no size fits, and at its own size for a budget its
    bytes never reach), the one size, or its check sizes; one per problem
    (`size_groups`)."""
    return tuple(size for size, _ in size_groups(spec, options))


def task_precisions(spec: KernelSpec, options: RunOptions) -> tuple[str, ...]:
    """The precisions a kernel runs at: the run's where its data takes the run's
    precision; its own where that is fixed (its rows say what they ran); else
    (integers alone, which every precision runs alike) the run's first."""
    precisions = options.precisions or (options.precision,)
    if spec.uses_real():
        return precisions
    own = spec.fixed_precision()
    return (own,) if own else precisions[:1]


def plan(
    kernels: Sequence[KernelSpec],
    devices: Sequence[base.DeviceInfo],
    options: RunOptions,
) -> list[Task]:
    """Every task, kernel-major so inputs and references are made once per kernel
    and precision; a run option the user left to its default takes each device's own."""
    tasks = []
    for spec in kernels:
        for precision in task_precisions(spec, options):
            tasks += _kernel_tasks(spec, devices, replace(options, precision=precision))
    return tasks


def _kernel_tasks(
    spec: KernelSpec, devices: Sequence[base.DeviceInfo], options: RunOptions
) -> list[Task]:
    """One kernel's tasks at the options' one precision."""
    chosen = dict(options.params)
    tasks = []
    on = {
        dev.id: param_choices(
            spec,
            chosen,
            options.check,
            device_words(dev.backend, dev.kind),
            every=options.check_all,
        )
        for dev in devices
    }
    grouped = {dev.backend: get_backend(dev.backend).partitions for dev in devices}
    for params in dict.fromkeys(combo for combos in on.values() for combo in combos):
        resolved = spec.with_params(dict(params))
        tasks += [
            Task(
                spec.name,
                dev.backend,
                dev.index,
                size,
                options.precision,
                params,
                cache,
                moved,
                wg if grouped[dev.backend] else None,
                p,
                checks,
            )
            for i, wg in enumerate(task_groups(resolved, options))
            for size in task_sizes(resolved, options)
            for cache in options.caches
            for moved in options.transfers
            for dev in devices
            # A device without work-groups (numpy's) runs a group sweep's work once.
            if params in on[dev.id] and (grouped[dev.backend] or i == 0)
            for p in task_partitions(resolved, options, dev.backend)
            for checks in task_wgsl_checks(options, dev.backend)
        ]
    return tasks


def task_groups(spec: KernelSpec, options: RunOptions) -> tuple[int | None, ...]:
    """The work-group sizes a kernel runs at: the sweep's, or its own where it has
    none or keeps its size (`KernelSpec.regroup_problem`)."""
    if not options.groups or spec.regroup_problem:
        return (None,)
    return options.groups


def task_wgsl_checks(options: RunOptions, backend: str) -> tuple[str | None, ...]:
    """The ``--wgsl-checks`` choices a backend's rows take: the run's where its
    compiler adds runtime checks, else none (None)."""
    return options.wgsl_checks if get_backend(backend).shader_checks else (None,)


def task_partitions(spec: KernelSpec, options: RunOptions, backend: str) -> tuple[str, ...]:
    """The partitions a kernel runs at on a backend's device: the sweep's where
    its C body walks its items and the backend has work-items, else the device's
    default."""
    if options.partitions and get_backend(backend).partitions and c_walks(spec, options.sources):
        return options.partitions
    return (partition.AUTO,)


def c_walks(spec: KernelSpec, extra: Sequence[Path] = (), kind: str | None = None) -> bool:
    """Whether a launch of the kernel runs an entry point of its C body (OpenCL's
    and CUDA's) that walks its items with FOR_EACH alone, so that ``--partition``
    applies: on a device of ``kind``, or on some kind of device."""
    source = sources.find("opencl", ".cl", spec.source_name, extra)
    if source is None:
        return False
    kinds = (kind,) if kind is not None else ("cpu", "gpu")
    walks = frozenset().union(*(walking(source, k) for k in kinds))
    return any(launch.entry in walks for launch in spec.plan(spec.check_size))


@functools.cache
def walking(source: Path, kind: str) -> frozenset[str]:
    """The entry points of a C body that walk their items with FOR_EACH alone on
    a device of ``kind`` (`harness.model.partition.walking_entries`)."""
    return partition.walking_entries(sources.expand(source).text, partition.device_macros(kind))


def partition_choices(
    task: Task, backend: base.Backend, session: base.Session, extra: Sequence[Path] = ()
) -> tuple[str, ...]:
    """The partitions a row may deal its items by: the asked one, or under
    ``auto`` the device kind's candidates (`harness.model.partition.candidates`);
    empty where the backend has no work-items or no launch of the kernel walks.
    DeviceLimit where the backend cannot deal them as asked."""
    spec = task_spec(task)
    if not backend.partitions or not c_walks(spec, extra, session.info.kind):
        return ()
    if task.partition == partition.AUTO:
        return partition.candidates(session.info.kind, backend.partitions)
    if task.partition not in backend.partitions:
        raise base.DeviceLimit(
            f"{backend.name} takes one item per work-item (its sources guard one index), "
            f"not --partition {task.partition}; opencl and cuda take "
            f"{', '.join(partition.PARTITIONS)}"
        )
    return (task.partition,)


def make_inputs(
    spec: KernelSpec,
    size: int,
    seed: int,
    precision: str,
    init: Callable[[int, int, str], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The description's inputs (or a check case's), each array and scalar cast to its run type."""
    raw = _mapping(spec, "init", (init or spec.init)(size, seed, precision))
    lengths = spec.lengths(size)
    inputs: dict[str, Any] = {}
    for array in spec.arrays:
        if array.name not in raw:
            raise DescriptionError(
                f"{spec.name}: init made no {array.name!r}; it makes every array "
                f"({', '.join(a.name for a in spec.arrays)})"
            )
        value = _converted(spec, array.name, raw[array.name], array.dtype, precision, True)
        if value.size != lengths[array.name]:
            raise DescriptionError(
                f"{spec.name}: init made {value.size} elements of {array.name}, "
                f"its length is {lengths[array.name]}"
            )
        inputs[array.name] = value.ravel()
    for scalar in spec.scalars:
        if scalar.name in raw:
            inputs[scalar.name] = _converted(
                spec, scalar.name, raw[scalar.name], scalar.dtype, precision, False
            )
    return inputs


def _mapping(spec: KernelSpec, field: str, value: Any) -> Mapping[str, Any]:
    """``value``, the return of the description's ``field``, where it is a dict."""
    if not isinstance(value, Mapping):
        raise DescriptionError(
            f"{spec.name}: {field} returned {type(value).__name__}; it returns a dict "
            "of values by array name"
        )
    return value


def _converted(
    spec: KernelSpec, name: str, value: Any, dtype: str, precision: str, array: bool
) -> Any:
    """The value init made for ``name`` as its run type: an array, or a scalar."""
    kind = numpy_dtype(dtype, precision)
    if not array and np.ndim(value) != 0:
        raise DescriptionError(
            f"{spec.name}: init's {name} has shape {np.shape(value)}; a scalar is one number"
        )
    try:
        return np.ascontiguousarray(value, dtype=kind) if array else kind.type(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise DescriptionError(
            f"{spec.name}: init's {name} cannot be taken as {np.dtype(kind).name} ({exc})"
        ) from None


def expected(spec: KernelSpec, inputs: dict[str, Any]) -> dict[str, np.ndarray]:
    """The description's reference outputs for ``inputs``: a dict whose names are
    the kernel's arrays (DescriptionError where it is not)."""
    with _read_only(spec, inputs):
        found = _mapping(spec, "reference", spec.reference(inputs))
    arrays = [a.name for a in spec.arrays]
    other = next((name for name in found if name not in arrays), None)
    if other is not None:
        raise DescriptionError(
            f"{spec.name}: reference gives {other!r}, which is none of its arrays "
            f"({', '.join(arrays)})"
        )
    written = [a.name for a in spec.arrays if a.intent in ("out", "inout")]
    if written and not any(name in found for name in written):
        # Only the arrays a reference gives are compared: none, and a kernel that
        # wrote anything at all passed.
        raise DescriptionError(
            f"{spec.name}: reference gives none of the arrays the kernel writes "
            f"({', '.join(written)}), so nothing would be verified"
        )
    complex_ = next((name for name, value in found.items() if np.iscomplexobj(value)), None)
    if complex_ is not None:
        # Compared as real numbers, its imaginary part was dropped with a warning.
        raise DescriptionError(
            f"{spec.name}: reference gives complex values for {complex_!r}; its arrays "
            "hold real numbers"
        )
    kinds = {a.name: numpy_dtype(a.dtype, "f64").kind for a in spec.arrays}
    for name, value in found.items():
        kind = np.asarray(value).dtype.kind
        if kind not in "biuf" or (kinds[name] == "f" and kind != "f"):
            # A string or object array failed as numpy converted it; integers for a
            # real array had their fractions cut, and the kernel was blamed for it.
            raise DescriptionError(
                f"{spec.name}: reference gives {np.asarray(value).dtype} values for {name!r}; "
                f"give {'floating-point numbers' if kinds[name] == 'f' else 'numbers'}"
            )
    vacuous = next((name for name, value in found.items() if _all_nan(value)), None)
    if vacuous is not None:
        # A NaN matches a NaN: every element of the array would pass, whatever the
        # kernel wrote there (inputs all NaN, say).
        raise DescriptionError(
            f"{spec.name}: reference gives NaN for every element of {vacuous!r}, so "
            "nothing in it would be verified; give inputs from which it computes numbers"
        )
    return dict(found)


@contextlib.contextmanager
def _read_only(spec: KernelSpec, inputs: Mapping[str, Any]) -> Iterator[None]:
    """The input arrays made read-only while the reference runs: one that changed
    them in place changed what the kernel then ran on (a wrong reference passed,
    or a right one written in place failed the kernel)."""
    frozen = [v for v in inputs.values() if isinstance(v, np.ndarray) and v.flags.writeable]
    for array in frozen:
        array.flags.writeable = False
    try:
        yield
    except ValueError as exc:
        if "read-only" not in str(exc):
            raise
        raise DescriptionError(
            f"{spec.name}: reference writes into its inputs ({exc}); it computes its "
            "outputs into arrays of its own (copy an input it updates)"
        ) from None
    finally:
        for array in frozen:
            array.flags.writeable = True


#: Fewer elements than this may all be NaN by chance (a sort's special keys).
_NAN_CHANCE = 16


def _all_nan(value: Any) -> bool:
    """Whether a reference array of at least `_NAN_CHANCE` floats is NaN throughout;
    only its first elements are read where they are not."""
    array = np.asarray(value)
    if array.dtype.kind != "f" or array.size < _NAN_CHANCE:
        return False
    flat = array.reshape(-1)
    return bool(np.isnan(flat[:_NAN_CHANCE]).all() and np.isnan(flat).all())


class Case(NamedTuple):
    """One set of inputs a row verifies with, and the outputs expected from them."""

    name: str
    inputs: dict[str, Any]
    reference: dict[str, np.ndarray]


#: A task's cases: the timed inputs first (named ``timed``), then the
#: description's check cases.
Data = tuple[Case, ...]


def data_key(task: Task) -> tuple:
    """Tasks with the same key share inputs and reference: they differ by device,
    or by run options whose choices compute the same thing (`Param.same_data`)."""
    params = tuple(
        (name, value)
        for name, value in task.params
        if not getattr(suite.PARAMS.get(name), "same_data", False)
    )
    return (task.kernel, task.size, task.precision, params)


def make_data(spec: KernelSpec, task: Task, seed: int, check: bool = True) -> Data:
    """A task's inputs and the reference outputs computed from them, per case: the
    timed inputs, and with ``check`` the description's check cases, which a
    verification run (``--check``) verifies at its check sizes and a timed row
    leaves to it (at a timed size they cost a row more host time than its
    repetitions: a sort's seven inputs and references)."""
    inputs = make_inputs(spec, task.size, seed, task.precision)
    cases = [Case(TIMED, inputs, expected(spec, inputs))]
    within = spec.check_cases_up_to is None or task.size <= spec.check_cases_up_to
    for case in spec.check_cases if check and within else ():
        extra = make_inputs(spec, task.size, seed, task.precision, case.init)
        cases.append(Case(case.name, extra, expected(spec, extra)))
    own = [case.inputs for case in cases[1:]]
    stale = stale_inputs(spec.arrays, inputs, seed, own) if check and within else None
    if stale is not None:
        cases.append(Case(STALE, stale, expected(spec, stale)))
    return tuple(cases)


def task_source(
    spec: KernelSpec, backend: base.Backend | type[base.Backend], extra: Sequence[Path]
) -> Path | None:
    """The source file a backend compiles for a kernel (``extra`` folders first, as
    ``--sources`` gives them), or None where it has none or compiles no source."""
    if backend.language is None:
        return None
    return sources.find(backend.language, backend.extension, spec.source_name, extra)


def source_fields(source: Path) -> dict[str, str]:
    """A row's record of the source it ran: its path as shown, and its text's hash."""
    return {"source": sources.shown(source), "source_sha256": sources.digest(source)}


def kernel_checksum(spec: KernelSpec, outputs: dict[str, np.ndarray]) -> float:
    """RAJAPerf's checksum of the verified arrays (or the description's own),
    totalled in long double as RAJAPerf totals it."""
    if spec.checksum is not None:
        return float(spec.checksum(outputs))
    return float(sum((array_checksum(outputs[a.name]) for a in spec.outputs), np.longdouble(0)))


def base_row(task: Task, device: str | None = None) -> dict[str, Any]:
    """A task's row before it runs: what it is, and what one repetition moves."""
    spec = task_spec(task)
    real_bytes = numpy_dtype("real", task.precision).itemsize
    traffic = spec.traffic(task.size, real_bytes)
    return {
        "kernel": spec.name,
        "group": spec.group,
        "backend": task.backend,
        "device_id": f"{task.backend}:{task.device}",
        "device": device,
        "precision": task.precision,
        "size": task.size,
        "reps": 0,
        "warmup": 0,
        "launches": len(spec.plan(task.size)),
        "status": "ok",
        "reason": None,
        "bytes_per_rep": traffic.moved,
        "bytes_allocated": array_bytes(spec, task.size, task.precision),
        # RAJAPerf's parts of the bytes a repetition touches, for its details file.
        "bytes_read_per_rep": traffic.read + traffic.modify_write,
        "bytes_written_per_rep": traffic.write + traffic.modify_write,
        "bytes_modify_written_per_rep": traffic.modify_write,
        "bytes_atomic_modify_written_per_rep": traffic.atomic_modify_write,
        "iterations_per_rep": sum(math.prod(axes(launch.items)) for launch in spec.plan(task.size)),
        "flops_per_rep": spec.flops(task.size),
        "timer": None,
        "cache": task.cache,
        "transfers": task.transfers,
        "work_group": task.group,
        # What dealt the items: the asked partition, or the device's (set on running).
        "partition": None if task.partition == partition.AUTO else task.partition,
        "wgsl_checks": task.wgsl_checks,
        **dict(task.params),
    }


def probed(options: RunOptions) -> bool:
    """Whether a run's timed rows probe their kernels at a 64th of their size
    first (`Runner._fitted_size`): those at each kernel's default size."""
    given = options.size is not None or options.sizes or options.size_factors
    return not (options.check or given or options.budgets)


def ahead(
    tasks: Sequence[Task], devices: dict[str, dict[str, Any]], options: RunOptions
) -> list[Task]:
    """What a timed run builds ahead of its first timed row (`Runner.prepare`),
    several at once: the probe of each shipped kernel it compiles for a CPU device
    (PoCL, lavapipe), once per program. Compiling is the host's work there, most
    of a first run's time, and one row at a time left all but one core idle; these
    drivers keep what they build on disk, where the timed rows find it. A source
    of the user's own (``--sources``, user suites), perhaps mid-change, builds in
    its row, which is where its failure (a hang) belongs; rows at sizes of the
    user's choosing probe nothing, and nothing is built ahead for them."""
    if not probed(options):
        return []
    chosen: dict[tuple, Task] = {}
    shipped = sources.shipped_root().resolve()
    extra = options.sources
    for task in tasks:
        kind = devices.get(f"{task.backend}:{task.device}", {}).get("kind", "")
        backend = get_backend(task.backend)
        if "cpu" not in str(kind).split("/") or backend.language is None:
            continue
        spec = task_spec(task)
        source = sources.find(backend.language, backend.extension, spec.source_name, extra)
        if source is None or not source.resolve().is_relative_to(shipped):
            continue
        size = max(task.size // PROBE_FRACTION, 1)
        key = (task.backend, task.device, task.kernel, task.params, task.precision)
        key += (task.group, task.partition, task.wgsl_checks)
        chosen.setdefault(key, replace(task, size=size, cache="hot", transfers="resident"))
    return list(chosen.values())


def task_spec(task: Task) -> KernelSpec:
    """The kernel a task runs: its run options chosen, at its work-group size."""
    return suite.spec_of(task.kernel).with_params(dict(task.params)).with_group(task.group)


def array_bytes(spec: KernelSpec, size: int, precision: str) -> int:
    """Bytes of all of a kernel's arrays at a size."""
    lengths = spec.lengths(size)
    return sum(lengths[a.name] * numpy_dtype(a.dtype, precision).itemsize for a in spec.arrays)


def check_memory(
    spec: KernelSpec, task: Task, device: base.DeviceInfo, check: bool = False
) -> None:
    """DeviceOutOfMemory, before anything is allocated, for a size that cannot fit.

    The host holds the inputs, the reference and the verification's copies of the
    arrays (with their guard zones), about three times the arrays, and in a
    verification run (``check``) an input and a reference more per check case;
    the device holds the arrays once.
    """
    need = array_bytes(spec, task.size, task.precision)
    if device.memory_bytes and need > device.memory_bytes:
        raise base.DeviceOutOfMemory(
            f"{spec.name} at size {task.size} needs {need} bytes of arrays; "
            f"{device.id} ({device.name}) has {device.memory_bytes} bytes"
        )
    host = host_available_bytes()
    copies = 3 + (2 * len(spec.check_cases) if check else 0)
    if host and copies * need > host:
        raise base.DeviceOutOfMemory(
            f"{spec.name} at size {task.size} needs about {copies * need} bytes of host memory "
            f"for its inputs, references and verification; {host} bytes are available"
        )


#: Upper end of the search for the largest size that fits a limit.
_SIZE_CEILING = 1 << 48


def largest_size_where(fits: Callable[[int], bool], low: int = 0) -> int | None:
    """The largest size from ``low`` up that ``fits`` (which must hold for every size
    below one that fits); None if ``low`` does not."""
    if not fits(low):
        return None
    high = max(1, 2 * low)
    while fits(high):
        if high >= _SIZE_CEILING:
            return high
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low


def _guarded_bytes(length: int, dtype: np.dtype) -> int:
    """Bytes of an array of ``length`` elements with its guard zone after it: what a
    verified repetition allocates, and a device's array limit must hold."""
    return (length + guard_length(dtype)) * dtype.itemsize


def largest_size(spec: KernelSpec, precision: str, limit: int) -> int | None:
    """The largest problem size whose every array, with the guard zone verification
    puts after it, fits in ``limit`` bytes; None if none does.

    Array lengths are assumed to grow with the size, as every description's do.
    """
    dtypes = {a.name: numpy_dtype(a.dtype, precision) for a in spec.arrays}

    def fits(size: int) -> bool:
        return all(
            _guarded_bytes(n, dtypes[name]) <= limit for name, n in spec.lengths(size).items()
        )

    # From size 1: a chunked kernel has no plan, nor partial array, for no items.
    return largest_size_where(fits, low=1)


#: What a memory budget counts: the bytes of every array of the kernel, or the
#: bytes one repetition moves (RAJAPerf's --memory-allocated and --memory-moved).
MEMORY_MEASURES = ("allocated", "moved")


def memory_bytes(spec: KernelSpec, size: int, precision: str, measure: str) -> int:
    """A kernel's bytes at a size, counted as ``measure`` (one of `MEMORY_MEASURES`)."""
    if measure == "allocated":
        return array_bytes(spec, size, precision)
    return spec.traffic(size, numpy_dtype("real", precision).itemsize).moved


def reaches(spec: KernelSpec, precision: str, measure: str, budget: int) -> bool:
    """Whether some size of a kernel takes more than ``budget`` bytes (counted as
    ``measure``): a kernel of a few scalars (Basic_PI_ATOMIC) or of partial sums
    capped in number (Basic_PI_REDUCE) has no size a larger budget could pick."""
    return not _within(spec, _SIZE_CEILING, precision, measure, budget)


def past_every_size(spec: KernelSpec, precision: str, measure: str, budget: int) -> int | None:
    """The kernel's bytes at the largest size a budget is sought among, where
    ``budget`` is beyond them though they still grow there: no size fills such a
    budget, and the kernel's own size would stand for it. None otherwise."""
    try:
        most = memory_bytes(spec, _SIZE_CEILING, precision, measure)
        grows = most > memory_bytes(spec, _SIZE_CEILING // 2, precision, measure)
    except (ValueError, OverflowError):
        return None
    return most if grows and most <= budget else None


def _within(spec: KernelSpec, size: int, precision: str, measure: str, budget: int) -> bool:
    """Whether a size's bytes stay within a budget; a size too large for the
    description to lay out (a mesh past 32-bit indices) does not."""
    try:
        return memory_bytes(spec, size, precision, measure) <= budget
    except (ValueError, OverflowError):
        return False


def size_for_memory(spec: KernelSpec, precision: str, measure: str, budget: int) -> int | None:
    """The largest problem size whose bytes (counted as ``measure``) stay within
    ``budget``, so that a run can put each kernel inside or outside a cache on
    purpose; None where even size 1 needs more. For a budget the kernel never
    `reaches` the answer means nothing."""
    return largest_size_where(lambda size: _within(spec, size, precision, measure, budget), low=1)


def check_array_limit(spec: KernelSpec, task: Task, session: base.Session) -> None:
    """DeviceLimit, before anything is made, for an array over the device's limit."""
    limit = session.array_limit()
    if limit is None:
        return
    name, most = limit
    for array in spec.arrays:
        dtype = numpy_dtype(array.dtype, task.precision)
        need = _guarded_bytes(spec.lengths(task.size)[array.name], dtype)
        if need > most:
            fits = largest_size(spec, task.precision, most)
            advice = "no size fits" if fits is None else f"the largest size that fits is {fits}"
            raise base.DeviceLimit(
                f"array {array.name} needs {need} bytes, over this device's {name} of "
                f"{most} bytes ({most / 2**20:g} MiB); {advice}"
            )


def check_group_limit(spec: KernelSpec, task: Task, session: base.Session) -> None:
    """DeviceLimit, before anything is compiled, for work-groups over the device's limit."""
    limit = session.group_limit()
    if limit is None:
        return
    name, most = limit
    for launch in spec.plan(task.size):
        if launch.threads > most:
            raise base.DeviceLimit(
                f"launch {launch.entry} needs work-groups of {launch.threads} work-items, "
                f"over this device's {name} of {most}"
            )


def host_available_bytes() -> int:
    """Host memory available now (0 where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


#: Rounds, most repetitions a round, and about how long in all, that each
#: candidate partition of an ``auto`` row runs for before the row's own
#: measurement (`Runner._trial`).
TRIAL_ROUNDS = 3
TRIAL_REPS = 10
TRIAL_SECONDS = 0.04
#: Most rounds spent sizing a row's batches (`Runner._calibrate`).
CALIBRATION_ROUNDS = 4
#: Seconds of repetitions (by a warm-up's time) in each batch that a row runs
#: while it waits for its device's clock to rise (`clocks.ramp`): enough to keep
#: the device busy between two readings of its clock.
RAMP_WORK_S = 0.01

#: The longest wait for a row, in seconds: one week (a longer one overflows poll()).
MAX_SECONDS = 7 * 24 * 3600


#: How many times the default timeout a row gets on a device of these kinds: a
#: simulator runs each work-item on its own, some 10^4 times slower than a CPU
#: device (Apps_INTSC_HEXHEX's check at 1000 elements took nine minutes on two loaded cores).
SLOW_KINDS = {"simulator": 10.0}


def default_timeout(task: Task, kind: str | None = None, timing: float = 0.0) -> float:
    """Seconds a row may take before its worker is killed: 2 minutes, plus 1 per 10^5
    elements, times `SLOW_KINDS`'s factor for the device's kind, plus ``timing``, the
    seconds its timed repetitions may take (--max-time: a row of --max-time 300 was
    killed at 2 minutes, an error row), at most `MAX_SECONDS`."""
    slow = SLOW_KINDS.get(kind or "", 1.0)
    return min((120.0 + task.size / 1e5) * slow + timing, float(MAX_SECONDS))


#: A timed row at a kernel's default size is sized down where its repetitions would
#: take more than this many times ``--max-time`` in all (`Runner._fitted_size`).
ROW_BUDGET_FACTOR = 5
#: ... and at least this many seconds, so that a run that shares a short --max-time
#: among many rows does not size down rows any device runs in seconds.
ROW_BUDGET_MIN_S = 5.0
#: The probe that estimates a repetition's time runs at this fraction of the size.
PROBE_FRACTION = 64


def _work(spec: KernelSpec, size: int, precision: str) -> float:
    """What a repetition's time grows with: its FLOPs, else the bytes it moves
    (at least one, so that a ratio of two sizes' work is defined)."""
    flops = spec.flops(size)
    if flops:
        return float(flops)
    real = numpy_dtype("real", precision).itemsize
    return float(max(spec.traffic(size, real).moved, 1))


class Runner:
    """Executes tasks, keeping device sessions and the current kernel's inputs."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        for path in options.suites:
            suite.load_suite(path)
        self._sessions: dict[tuple[str, int], base.Session | Exception] = {}
        self._backends: dict[str, base.Backend] = {}
        self._data_key: tuple | None = None
        self._data: Data | None = None
        self._probes: dict[str, clocks.ClockProbe | None] = {}
        #: The clock a whole ramp (`clocks.ramp`) held each device at where that was
        #: short of its highest under a power or thermal limit: later rows wait for it.
        self._ceilings: dict[str, float] = {}
        #: Each device's energy reader, or why it has none, by device id.
        self.energy: dict[str, energy.Reader | str] = {}
        #: A device of this process was lost (a sticky fault), or a session is
        #: spent (`Session.spent`): its process should end.
        self.lost = False

    def run(self, tasks: Sequence[Task]) -> Iterator[dict[str, Any]]:
        """Yield each task's row as soon as it is known."""
        for task in tasks:
            yield self.execute(task)

    def _backend(self, name: str) -> base.Backend:
        if name not in self._backends:
            self._backends[name] = get_backend(name)
        return self._backends[name]

    def open(self, backend: str, index: int) -> None:
        """Open a device ahead of its first task (a failure is reported by that task)."""
        try:
            self._session(self._backend(backend), index)
        except Exception:
            return

    def session(self, backend: str, index: int) -> base.Session:
        """The open session of a device (opened now if it is not yet)."""
        return self._session(self._backend(backend), index)

    def close(self) -> None:
        """Give every open device back; a device that will not go is left to the
        process's end."""
        for session in self._sessions.values():
            if isinstance(session, base.Session):
                with contextlib.suppress(Exception):
                    session.close()
        self._sessions.clear()

    def _session(self, backend: base.Backend, index: int) -> base.Session:
        key = (backend.name, index)
        if key not in self._sessions:
            try:
                self._sessions[key] = backend.open(index)
            except Exception as exc:  # a driver that fails to open fails every row on it
                self._sessions[key] = exc
        session = self._sessions[key]
        if isinstance(session, Exception):
            raise RuntimeError(f"could not open {backend.name}:{index}: {session}") from session
        return session

    def _inputs(self, spec: KernelSpec, task: Task) -> Data:
        key = data_key(task)
        if self._data_key != key:
            self._data = None
            self._data = make_data(spec, task, self.options.seed, self.options.check)
            self._data_key = key
        assert self._data is not None
        return self._data

    def provide(self, task: Task, data: Data) -> None:
        """Use inputs and reference made elsewhere (by a parent process) for this task."""
        self._data_key, self._data = data_key(task), data

    def execute(self, task: Task) -> dict[str, Any]:
        """One row: never raises for a kernel's or a device's failure."""
        row = self._execute(task)
        if any(isinstance(s, base.Session) and s.spent for s in self._sessions.values()):
            self.lost = True
        return row

    def _execute(self, task: Task) -> dict[str, Any]:
        spec = task_spec(task)
        backend = self._backend(task.backend)
        row = base_row(task)
        if self.options.groups and spec.regroup_problem:
            row["reason"] = f"keeps its work-group size under --group: {spec.regroup_problem}"
        try:
            session = self._session(backend, task.device)
            if self.options.in_process and session.spent:
                row.update(
                    status="error",
                    reason="this process has spent its session on the device (a simulator's "
                    "reports per process); without --in-process a fresh worker takes over",
                )
                return row
            if (
                self.options.partitions
                and backend.partitions
                and not c_walks(spec, self.options.sources, session.info.kind)
            ):
                row["reason"] = (
                    "keeps one item per work-item under --partition: none of its launches "
                    "walks its items with FOR_EACH alone on this device"
                )
            row["device"] = session.info.name
            # The index may change between machines and driver installs; these do not.
            row["device_api"] = session.info.api
            row["device_driver"] = session.info.driver
            row["timer"] = session.timer
            session.set_shader_checks(task.wgsl_checks != "off")
            check_memory(spec, task, session.info, self.options.check)
            check_array_limit(spec, task, session)
            check_group_limit(spec, task, session)
            missing = spec.required_features(task.precision) - session.info.features
            if missing:
                return _skip(row, f"needs {', '.join(sorted(missing))}, which this device lacks")
            source = None
            if backend.language is not None:
                source = task_source(spec, backend, self.options.sources)
                if source is None:
                    where = sources.looked_for(
                        backend.language, backend.extension, spec.source_name
                    )
                    return _skip(row, f"no source {where}")
                row.update(source_fields(source))
            fitted = self._fitted_size(spec, task, session, source)
            if fitted is not None:
                size, why = fitted
                if size is None:
                    return _skip(row, why)
                row["sized_from"] = task.size
                task = replace(task, size=size)
                kept = ("device", "status", "reason")
                row.update({k: v for k, v in base_row(task).items() if k not in kept})
                row["reason"] = why
            dealt = self._deal(spec, task, backend, session, source, row)
            for name, each in dealt.items():
                self._measure(each, task, session, source, row)
                if row["status"] != "ok":
                    if len(dealt) > 1:
                        row["partition"] = name
                    break
        except base.DeviceLimit as exc:
            return _skip(row, str(exc))
        except base.CompileError as exc:
            row.update(status="error", reason=f"compile error: {exc}")
        except DescriptionError as exc:
            row.update(status="error", reason=f"description error: {exc}")
        except base.DeviceOutOfMemory as exc:
            row.update(status="error", reason=f"out of memory: {exc}")
        except base.KernelFault as exc:
            # A simulator reports a process's first findings only (`Session.spent`):
            # a fresh worker takes the next row.
            self.lost = True
            row.update(status="fail", reason=f"undefined behaviour: {exc}")
        except base.DeviceLost as exc:
            self.lost = True
            if exc.earlier:
                reason = f"device lost: {exc}; without --in-process a fresh worker takes over"
            else:
                reason = f"device lost: {exc.fault} in {task.kernel} ({exc})"
            row.update(status="error", reason=reason)
        except BaseException as exc:
            # SystemExit: a user suite's function that calls sys.exit is its row's
            # error, not the end of the run (or of the worker, as a crash).
            where = traceback.extract_tb(exc.__traceback__)[-1]
            if not isinstance(exc, Exception | SystemExit) and (
                Path(where.filename) not in suite.LOADED
            ):
                # A stop signal's, raised in its handler: the run stops. One a user
                # suite's function raised itself (KeyboardInterrupt, GeneratorExit, a
                # BaseException of its own) stopped an --in-process run, as interrupted
                # or in a traceback, and crashed a worker.
                raise
            # One of no message was named with a dangling ': '.
            said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            row.update(
                status="error", reason=f"{said} ({Path(where.filename).name}:{where.lineno})"
            )
        return row

    def prepare(self, task: Task) -> dict[str, Any]:
        """Compile the kernel in each partition its row may take, and run the form
        its probe runs (the last of `_forms`) once at the task's size, untimed and unverified:
        a driver that keeps what it builds on disk (PoCL, Mesa) then has it ready
        for the row that probes and times the kernel (see `ahead`). The row says
        only whether that worked; a failure is the timed row's to report."""
        spec = task_spec(task)
        backend = self._backend(task.backend)
        row = base_row(task)
        try:
            session = self._session(backend, task.device)
            session.set_shader_checks(task.wgsl_checks != "off")
            session.keep_builds()
            source = sources.find(
                backend.language or "", backend.extension, spec.source_name, self.options.sources
            )
            if source is None:
                return _skip(row, "no source")
            forms = self._forms(spec, task, session, source)
            timed = self._inputs(spec, task)[0]
            arrays = {a.name: timed.inputs[a.name] for a in spec.arrays}
            for form in forms:
                execution = session.load(form, task.precision, source, arrays)
                try:
                    if form is forms[-1]:
                        execution.run(form.resolve(task.size, timed.inputs, task.precision))
                finally:
                    execution.close()
        except Exception as exc:
            row.update(status="error", reason=f"{type(exc).__name__}: {exc}")
        return row

    def _fitted_size(
        self, spec: KernelSpec, task: Task, session: base.Session, source: Path | None
    ) -> tuple[int | None, str] | None:
        """A smaller size for a timed row at a kernel's default size that would take
        more than `ROW_BUDGET_FACTOR` times ``--max-time`` (at least
        `ROW_BUDGET_MIN_S`) in all: its repetitions (the verification's, the
        warm-ups and the fewest timed) on the device, as a software device's would
        (a Polybench product through lavapipe: minutes), and the host's making of its
        inputs and reference outputs (Apps_INTSC_HEXHEX's in numpy: a minute). The
        largest of the size halved again and again that fits, and why; (None, why)
        where even a probe's size does not; None where the row keeps its size. The
        estimate scales both at a probe's size (a 64th) by the work (FLOPs, else bytes
        moved) the two sizes do, which overstates it where launching, not working,
        takes a probe's time: that errs towards sizing down only rows far over the
        budget."""
        options = self.options
        if not probed(options):
            return None
        probe = max(task.size // PROBE_FRACTION, 1)
        if probe >= task.size:
            return None
        form = self._forms(spec, task, session, source)[-1]
        device, host = self._probe(form, probe, task, session, source)
        reps = 1 + options.warmup + MIN_REPS
        budget = max(ROW_BUDGET_MIN_S, ROW_BUDGET_FACTOR * options.max_time)

        def scale(size: int) -> float:
            return _work(spec, size, task.precision) / _work(spec, probe, task.precision)

        def cost(size: int) -> float:
            return (reps * device + host) * scale(size)

        if cost(task.size) <= budget:
            return None
        size = task.size
        while size > probe and cost(size) > budget:
            size //= 2
        full = (
            f"at {task.size} one repetition would take about {device * scale(task.size):.3g} s "
            f"here and its inputs and reference {host * scale(task.size):.3g} s"
        )
        if cost(size) > budget or size < probe:
            return None, (
                f"{full}; with {reps} repetitions (verification, warm-up, the fewest timed) "
                f"more than {budget:g} s even at {probe}: run it with --size or a longer "
                "--max-time"
            )
        return size, (
            f"sized down from {task.size} to {size}: {full}, and a row needs {reps} "
            f"repetitions (a row may take {budget:g} s in all; --size {task.size} runs it "
            "as it is)"
        )

    def _forms(
        self, spec: KernelSpec, task: Task, session: base.Session, source: Path | None
    ) -> list[KernelSpec]:
        """The forms of the kernel its row may take, one per partition, the one a
        probe runs last: the last partition (``chunk`` on a CPU device), whose
        launches have as many work-items at a probe's size as at the row's, so
        that the driver builds it once for both (PoCL builds a kernel again for a
        grid of 64K work-items or more)."""
        backend = self._backend(task.backend)
        choices = partition_choices(task, backend, session, self.options.sources)
        if not choices or source is None:
            return [spec]
        walks = walking(source, session.info.kind)
        units = session.info.compute_units
        return [partition.partitioned(spec, p, walks, units) for p in choices]

    def _probe(
        self,
        form: KernelSpec,
        size: int,
        task: Task,
        session: base.Session,
        source: Path | None,
    ) -> tuple[float, float]:
        """Seconds one repetition of the kernel's ``form`` takes at a probe's
        ``size`` (after one untimed), and seconds the host takes to make its inputs
        and reference outputs there."""
        probe = replace(task, size=size)
        spec = task_spec(probe)
        start = time.perf_counter()
        timed = make_data(spec, probe, self.options.seed, check=False)[0]
        host = time.perf_counter() - start
        arrays = {a.name: timed.inputs[a.name] for a in spec.arrays}
        launches = form.resolve(probe.size, timed.inputs, probe.precision)
        execution = session.load(form, probe.precision, source, arrays)
        try:
            execution.run(launches)
            (seconds,) = execution.time(launches, 1, self.options.hold)
        except BaseException as exc:
            _close_after(execution, exc)
            raise
        execution.close()
        return max(seconds, 0.0), host

    def _deal(
        self,
        spec: KernelSpec,
        task: Task,
        backend: base.Backend,
        session: base.Session,
        source: Path | None,
        row: dict[str, Any],
    ) -> dict[str | None, KernelSpec]:
        """The kernel with its walking launches' items dealt to work-items, its
        partition in the row. Where ``auto`` leaves several candidates (on CPU
        devices) they take turns running the row's launches outside any timed
        region (`_trial`) and the fastest deals them; ``partition_trial`` gives
        what each took. A check verifies every candidate, since a timed run may
        take any of them: the row's partition names them all (joined by "+"),
        or the one that failed."""
        choices = partition_choices(task, backend, session, self.options.sources)
        if not choices:
            row["partition"] = None
            return {None: spec}
        walks = walking(source, session.info.kind) if source is not None else frozenset()
        units = session.info.compute_units
        dealt = {p: partition.partitioned(spec, p, walks, units) for p in choices}
        if self.options.check:
            row["partition"] = "+".join(choices)
            return dealt
        if len(dealt) > 1:
            trial = self._trial(dealt, task, session, source)
            row["partition_trial"] = "; ".join(f"{p} {t * 1e3:.4g} ms" for p, t in trial.items())
            choices = (min(trial, key=trial.__getitem__),)
        row["partition"] = choices[0]
        return {choices[0]: dealt[choices[0]]}

    def _trial(
        self,
        candidates: dict[str, KernelSpec],
        task: Task,
        session: base.Session,
        source: Path | None,
    ) -> dict[str, float]:
        """Seconds per repetition of each candidate on the row's inputs, over
        `TRIAL_ROUNDS` rounds in which each in turn runs once untimed, to win back
        the caches, and times a batch (about `TRIAL_SECONDS` per candidate in all),
        so that a moment of noise does not decide: each candidate's fastest
        round's median. A slow kernel's trial is one timed repetition each, after
        the warm-up (a trial of three at a third of a second each was a row's
        largest host cost). Each candidate's arrays are loaded once, since
        loading them took most of a fast kernel's trial."""
        spec = task_spec(task)
        timed = self._inputs(spec, task)[0]
        arrays = {a.name: timed.inputs[a.name] for a in spec.arrays}
        loaded: dict[str, tuple[base.Execution, list[ResolvedLaunch]]] = {}
        rounds: dict[str, list[float]] = {name: [] for name in candidates}
        hold = self.options.hold
        try:
            warm = 0.0
            for name, dealt in candidates.items():
                execution = session.load(dealt, task.precision, source, arrays)
                loaded[name] = (execution, dealt.resolve(task.size, timed.inputs, task.precision))
                # Fresh arrays and an idle device run slow at first (on PoCL a
                # batch or two at several times the pace): one run warms, and its
                # time, the longest a repetition takes, sizes the rounds.
                start = time.perf_counter()
                execution.run(loaded[name][1])
                warm = max(warm, time.perf_counter() - start)
            # A round: one untimed repetition, which takes back the caches the
            # other candidates took, then a timed batch.
            per_round = TRIAL_SECONDS / TRIAL_ROUNDS / max(warm, 1e-9) - 1
            reps = max(1, min(TRIAL_REPS, int(per_round)))
            for _ in range(TRIAL_ROUNDS if per_round >= 1 else 1):
                for name, (execution, launches) in loaded.items():
                    if per_round >= 1:
                        execution.run(launches)
                    rounds[name].append(float(np.median(execution.time(launches, reps, hold))))
        except BaseException as exc:
            for execution, _ in loaded.values():
                _close_after(execution, exc)
            raise
        for execution, _ in loaded.values():
            execution.close()
        return {name: min(medians) for name, medians in rounds.items()}

    def _verify(
        self,
        spec: KernelSpec,
        task: Task,
        session: base.Session,
        source: Path | None,
        case: Case,
    ) -> tuple[base.Execution, Verdict, dict[str, np.ndarray], float]:
        """One repetition on a case's inputs, each array followed by a guard zone
        (none on a device that reports overruns itself, `Session.reports_overruns`:
        there a read or write one past the end lands outside the array, and the
        device's report fails the row).

        Returns the execution (still open), the verdict, the verified outputs and
        how long the repetition took. The verdict fails for a write past an
        array's end, a change to an array the kernel only reads, or an output
        off the reference.
        """
        lengths = spec.lengths(task.size)
        launches = spec.resolve(task.size, case.inputs, task.precision)
        guards = {
            a.name: guard_zone(i, case.inputs[a.name].dtype, a.intent)[
                : 0 if session.reports_overruns else None
            ]
            for i, a in enumerate(spec.arrays)
        }
        guarded = {a.name: with_guard(case.inputs[a.name], guards[a.name]) for a in spec.arrays}
        execution = session.load(spec, task.precision, source, guarded)
        try:
            start = time.perf_counter()
            execution.run(launches)
            elapsed = time.perf_counter() - start
            # One array at a time, keeping only the outputs, so that the host
            # holds one more copy of the arrays, not two.
            problems: list[str | None] = []
            outputs = {}
            for a in spec.arrays:
                after = execution.read(a.name)
                length = lengths[a.name]
                problems.append(guard_problem(a.name, after, length, guards[a.name]))
                if a.intent == "in":
                    problems.append(input_problem(a.name, after[:length], case.inputs[a.name]))
                if a.name in case.reference:
                    outputs[a.name] = after[:length]
        except BaseException as exc:
            _close_after(execution, exc)
            raise
        verdict = judge(spec, task.precision, case, outputs)
        problem = next((p for p in problems if p), None) or verdict.problem
        if problem and case.name != TIMED:
            problem = f"check case {case.name!r}: {problem}"
        return execution, Verdict(verdict.max_rel_error, problem), outputs, elapsed

    def _measure(
        self,
        spec: KernelSpec,
        task: Task,
        session: base.Session,
        source: Path | None,
        row: dict[str, Any],
    ) -> None:
        timed, *checks = self._inputs(spec, task)
        execution, verdict, outputs, estimate = self._verify(spec, task, session, source, timed)
        if spec.image is not None and self.options.images is not None:
            row["image"] = save_images(spec, task, outputs, timed.reference, self.options.images)
        worst = verdict.max_rel_error
        failed: BaseException | None = None
        try:
            row["checksum"] = kernel_checksum(spec, outputs)
            for case in checks if verdict.ok else ():
                execution.close()
                execution, verdict, _, _ = self._verify(spec, task, session, source, case)
                worst = max(worst, verdict.max_rel_error)
                if not verdict.ok:
                    break
            row["max_rel_error"] = worst
            if not verdict.ok:
                row.update(status="fail", reason=verdict.problem)
                return
            # A check row with transfers verifies them too: it passed on the resident
            # path alone, labelled with transfers it never made.
            if self.options.check and task.transfers == "resident":
                return
            launches = spec.resolve(task.size, timed.inputs, task.precision)
            if not launches:
                if not self.options.check:
                    row["reason"] = "nothing to launch at this size, so nothing to time"
                return
            mover = None
            if checks or task.transfers != "resident":
                execution.close()
                arrays = {a.name: timed.inputs[a.name] for a in spec.arrays}
                execution = session.load(spec, task.precision, source, arrays)
            if task.transfers != "resident":
                mover = Mover(spec, launches, task.transfers, execution, arrays, self.options.hold)
                row["transfer_timer"] = session.transfer_timer
                problem = self._verify_moved(spec, task, mover, timed)
                if problem:
                    row.update(status="fail", reason=f"with {task.transfers} transfers: {problem}")
                    return
            if self.options.check:
                return
            times, stop, joules = self._sample(
                task, launches, execution, session, estimate, row, mover
            )
        except BaseException as exc:
            failed = exc
            raise
        finally:
            if failed is None:
                execution.close()
            else:
                _close_after(execution, failed)
        row.update(reps=len(times) * row["batch"], warmup=self.options.warmup)
        row.update(summarise(times, stop_rule(self.options), stop))
        row["samples_s"] = times
        row.update(
            energy.columns(
                joules,
                row["timed_wall_s"],
                row["time_median_s"],
                row["bytes_per_rep"],
                row["flops_per_rep"],
            )
        )
        if mover is None:
            row.update(h2d_s=0.0, kernel_s=row["time_median_s"], d2h_s=0.0)
            row.update(h2d_bytes_per_rep=0, d2h_bytes_per_rep=0)
        else:
            row.update(mover.columns())
        median = row["time_median_s"]
        if median > 0:
            row["gbytes_per_s"] = row["bytes_per_rep"] / median / 1e9
            row["gflops_per_s"] = row["flops_per_rep"] / median / 1e9
            if spec.items:
                row[f"{spec.items}_per_s"] = task.size / median

    def _verify_moved(self, spec: KernelSpec, task: Task, mover: Mover, timed: Case) -> str | None:
        """One repetition with its transfers, from fresh inputs: the outputs the
        host holds after it against the reference (a problem, or None)."""
        mover.rep()
        outputs = {a.name: mover.host[a.name] for a in spec.outputs}
        return judge(spec, task.precision, timed, outputs).problem

    def _sample(
        self,
        task: Task,
        launches: Sequence[ResolvedLaunch],
        execution: base.Execution,
        session: base.Session,
        estimate: float,
        row: dict[str, Any],
        mover: Mover | None = None,
    ) -> tuple[list[float], str, float | None]:
        """Warm up, then time repetitions: the fixed ``--reps`` count, or until the
        run's stop rule is met. A cold row flushes the cache before each one,
        outside the timed region; a row with transfers moves its data in each
        one (`harness.execution.transfers`). The device's clocks and energy
        counters are read before and after (`harness.execution.clocks`,
        `harness.execution.energy`), and ``timed_wall_s`` is the wall time between
        (batch calibration included). Returns the times, why sampling stopped and
        the joules the device used meanwhile (None where nothing tells)."""
        for _ in range(self.options.warmup):
            start = time.perf_counter()
            if mover is None:
                execution.run(launches)
            else:
                mover.rep()
            estimate = time.perf_counter() - start
        if mover is not None:
            mover.parts.clear()
        flusher = None
        if task.cache == "cold":
            backend = self._backend(task.backend)
            flusher = Flusher(
                session, backend.language, backend.extension, self.options.flush_bytes
            )
            row["flush_bytes"] = flusher.bytes
        if session.info.id not in self._probes:
            self._probes[session.info.id] = clocks.probe(session.info.as_dict())
        probe = self._probes[session.info.id]
        if session.info.id not in self.energy:
            self.energy[session.info.id] = energy.reader(session.info.as_dict())
        found = self.energy[session.info.id]
        meter = found if isinstance(found, energy.Reader) else None
        try:
            if probe:
                # A GPU whose clock follows the load (Vulkan, OpenCL) is timed at
                # the clock a steady load holds it at, as CUDA's is: batches of
                # about RAMP_WORK_S, which keep the device busy between readings.
                hold = self.options.hold
                most = max(1, base.HELD_LAUNCHES // max(1, len(launches)))
                chunk = min(most, math.ceil(RAMP_WORK_S / max(estimate, 1e-9)))
                device = session.info.id
                waited = clocks.ramp(
                    probe.read,
                    lambda: execution.time(launches, 1, hold, chunk),
                    ceiling=self._ceilings.get(device),
                )
                if waited:
                    row["clock_ramp_s"] = waited
            before = probe.read() if probe else {}
            # A clock held down by a power or thermal limit stays down for the
            # rows after; one the driver lowered for want of load (no throttle
            # reason: NVIDIA's under Vulkan, where a ramp's host fell behind) does not.
            limited = before.get("clock_mhz") and before.get("throttle")
            if probe and waited >= clocks.RAMP_S and limited:
                self._ceilings[device] = float(before["clock_mhz"])
            used = meter.read() if meter else None
            start = time.perf_counter()
            times, stop, batch = self._repeat(launches, execution, flusher, estimate, mover)
            row["timed_wall_s"] = time.perf_counter() - start
            joules = meter.joules(used, meter.read()) if meter else None
            row["queue"] = execution.queue
            row["batch"] = batch
            row.update(clocks.columns(before, probe.read() if probe else {}))
            return times, stop, joules
        finally:
            if flusher is not None:
                flusher.close()

    def _repeat(
        self,
        launches: Sequence[ResolvedLaunch],
        execution: base.Execution,
        flusher: Flusher | None,
        estimate: float,
        mover: Mover | None,
    ) -> tuple[list[float], str, int]:
        """The samples, why sampling stopped, and how many repetitions each sample
        batches (`sampling.batch_size`: only hot rows without transfers batch, and
        not under a fixed ``--reps``)."""
        rule = stop_rule(self.options)
        hold = self.options.hold
        batch = 1
        # A repetition whose wall time is far past a sample's needs no probe.
        short = estimate < 100 * rule.sample_time
        if flusher is None and mover is None and not self.options.reps and short:
            batch = self._calibrate(launches, execution, rule)

        def take(count: int) -> list[float]:
            if flusher is None and mover is None:
                return execution.time(launches, count, hold, batch)
            times = []
            for _ in range(count):
                if flusher is not None:
                    flusher.run()
                if mover is None:
                    times.extend(execution.time(launches, 1, hold))
                else:
                    times.append(mover.rep())
            return times

        if self.options.reps:
            return take(self.options.reps), "reps", batch
        sampler = Sampler(rule, batch)
        start = time.perf_counter()
        # The warm-up timed no flush: a cold row's first request is the fewest
        # samples, sized after (10,000 flushes of a microsecond kernel once
        # took minutes against a budget of seconds).
        per_sample = estimate * batch if flusher is None else 0.0
        while True:
            elapsed = time.perf_counter() - start
            stop = sampler.stop(elapsed)
            if stop is not None:
                return sampler.times, stop, batch
            count = sampler.next_count(per_sample, rule.max_time - elapsed)
            sampler.add(take(count))
            per_sample = (time.perf_counter() - start - elapsed) / count

    def _calibrate(
        self, launches: Sequence[ResolvedLaunch], execution: base.Execution, rule: StopRule
    ) -> int:
        """Repetitions per sample: sized from a repetition timed alone, then resized
        from the batch's own pace (a lone repetition carries overhead a batch
        spreads out), as pyperf calibrates its loops; at most `base.HELD_LAUNCHES`
        launches a sample. Each round takes its fastest sample's pace: on a busy
        host a preempted sample runs several times slower, and sizing from it
        would leave every later sample a fraction of the sample time."""
        most = max(1, base.HELD_LAUNCHES // max(1, len(launches)))
        batch = 1
        for _ in range(CALIBRATION_ROUNDS):
            times = execution.time(launches, MIN_REPS, self.options.hold, batch)
            wanted = min(most, batch_size(min(times), rule))
            if wanted <= batch:
                # Fewer where the batch's pace is slower than the lone repetition's
                # (each still covers the sample time), so that its samples fit the budget.
                return wanted
            batch = wanted
        return batch


def save_images(
    spec: KernelSpec,
    task: Task,
    outputs: dict[str, np.ndarray],
    reference: dict[str, np.ndarray],
    folder: Path,
) -> str:
    """Save a row's picture and its difference from the reference's as PNGs in
    ``folder``; return the picture's file name (the difference's ends ``-diff``)."""
    from matplotlib import image

    assert spec.image is not None
    got = spec.image(outputs).astype(np.float64)
    want = spec.image(reference).astype(np.float64)
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{spec.name}-{task.backend}{task.device}-{task.precision}-n{task.size}"
    stem += "".join(f"-{v}" for _, v in task.params)
    image.imsave(folder / f"{stem}.png", np.log1p(got - got.min()), cmap="magma", origin="lower")
    off = np.abs(got - want)
    image.imsave(
        folder / f"{stem}-diff.png", off, cmap="Reds", vmin=0, vmax=max(1.0, off.max()),
        origin="lower",
    )  # fmt: skip
    return f"{stem}.png"


def judge(spec: KernelSpec, precision: str, case: Case, outputs: dict[str, np.ndarray]) -> Verdict:
    """A case's outputs against its reference: the description's own verification,
    else the relative error within its tolerance."""
    if spec.verify is not None:
        return _checked_verdict(spec, spec.verify(case.inputs, outputs, case.reference))
    for name, expected in case.reference.items():
        # The outputs are the arrays' lengths at this size: another is the reference's.
        if np.size(expected) != outputs[name].size:
            raise DescriptionError(
                f"{spec.name}: reference gives {np.size(expected)} elements for {name!r}, "
                f"which holds {outputs[name].size} at this size"
            )
    tolerance = spec.tolerance
    return compare(outputs, case.reference, tolerance.at(precision), tolerance.floor)


def _checked_verdict(spec: KernelSpec, verdict: Any) -> Verdict:
    """A description's own ``verify``'s verdict, where it is one a row can hold: a
    worst error from 0 (inf included) and a problem that is None or text. Another
    was a row no reader takes (every reader skipped it, and the run passed)."""
    error = getattr(verdict, "max_rel_error", None)
    problem = getattr(verdict, "problem", "")
    try:
        number = not isinstance(error, (bool, np.bool_)) and float(error) >= 0
    except (TypeError, ValueError, OverflowError):
        number = False
    if (
        not isinstance(verdict, Verdict)
        or not number
        or not (problem is None or isinstance(problem, str))
    ):
        raise DescriptionError(
            f"{spec.name}: verify returned {_cut(repr(verdict))}; it returns a Verdict of a "
            "worst relative error from 0 and a problem that is None (verified) or text"
        )
    return Verdict(float(error), problem)


def _cut(text: str, most: int = 80) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."


def _close_after(execution: base.Execution, error: BaseException) -> None:
    """Close an execution while ``error`` is on its way up, so that a failure to free
    its arrays (a faulted context refuses every call after the fault) cannot take
    the place of the error that caused it: it becomes a note on that error."""
    try:
        execution.close()
    except Exception as exc:
        error.add_note(f"closing the kernel's arrays afterwards failed too: {exc}")


def _skip(row: dict[str, Any], reason: str) -> dict[str, Any]:
    row.update(status="skipped", reason=reason)
    return row

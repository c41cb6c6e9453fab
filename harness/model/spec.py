"""The shared kernel description: what a kernel is, independent of any backend.

A `KernelSpec` names its arrays and scalars, says how one repetition is launched
(`plan`), how inputs are made (`init`), what the right answer is (`reference`),
and carries a numpy version of each entry point so the CPU backend can execute
the very same plan. Backends only ever see resolved launches and arrays.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.model.verify import Verdict

#: Element types a description may use. ``real`` is f64 or f32 by run option.
DTYPES = ("real", "f32", "f64", "i32", "u32", "i64", "u64")
PRECISIONS = ("f64", "f32")
INTENTS = ("in", "out", "inout", "scratch")
#: What a run option's choices are to reports.
ROLES = ("case", "variant")
#: Work-group size of a kernel's launches unless its description says otherwise;
#: every backend accepts 256.
WORK_GROUP = 256

#: Prefix of a launch's entry that names a routine of the device's own library
#: (a vendor BLAS) rather than a kernel of the source: ``library:gemm``.
LIBRARY = "library:"
#: The library routines launches may call, with the arguments they take in order.
LIBRARY_ROUTINES = {
    "gemm": "C = alpha A B + beta C, row-major: arrays C, A, B; scalars alpha, beta, m, n, k",
    "gemv": "y = alpha A x + beta y, row-major: arrays y, A, x; scalars alpha, beta, m, n",
    "gemv_t": "y = alpha A^T x + beta y, row-major A of m x n: arrays y, A, x; scalars "
    "alpha, beta, m, n",
    "sort": "keys (and values beside them) sorted in the harness's sort order by the "
    "host's own sort (np.sort): arrays keys[, values]; scalars n, descending",
}


def library_routine(entry: str) -> str | None:
    """The library routine a launch's entry names (``gemm``); None for a kernel;
    ValueError for a routine not in `LIBRARY_ROUTINES`."""
    if not entry.startswith(LIBRARY):
        return None
    routine = entry[len(LIBRARY) :]
    if routine not in LIBRARY_ROUTINES:
        known = ", ".join(LIBRARY_ROUTINES)
        raise ValueError(f"launch {entry}: no library routine {routine!r}; there are {known}")
    return routine


#: Device features a kernel may need; a backend device lists the ones it has.
FEATURES = ("f64", "int64", "atomics", "atomics64", "local_memory")

_NUMPY_NAMES = {
    "f32": "float32",
    "f64": "float64",
    "i32": "int32",
    "u32": "uint32",
    "i64": "int64",
    "u64": "uint64",
}


def numpy_dtype(dtype: str, precision: str) -> np.dtype:
    """The numpy dtype of a description element type at a run precision."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown element type {dtype!r}; expected one of {', '.join(DTYPES)}")
    if dtype == "real":
        dtype = precision
    return np.dtype(_NUMPY_NAMES[dtype])


@dataclass(frozen=True)
class Array:
    """A device buffer: its element type, its length for a problem size, its intent.

    ``intent`` says how the kernel uses it: ``in`` is only read, ``out`` is
    written and verified, ``inout`` is read and verified, ``scratch`` is
    working memory whose contents after a repetition mean nothing.
    """

    name: str
    dtype: str
    length: Callable[[int], int]
    intent: str = "in"

    def __post_init__(self) -> None:
        if self.intent not in INTENTS:
            raise ValueError(f"array {self.name}: intent {self.intent!r} not in {INTENTS}")
        numpy_dtype(self.dtype, "f64")


@dataclass(frozen=True)
class Scalar:
    """A by-value argument; its value comes from `init` or from a launch."""

    name: str
    dtype: str


#: A launch's extent: an int for one axis, or a tuple of 2 or 3 (x first).
Extent = int | tuple[int, ...]


def axes(extent: Extent) -> tuple[int, int, int]:
    """An extent as (x, y, z), axes past the given ones counting 1."""
    given = (extent,) if isinstance(extent, int | np.integer) else tuple(extent)
    if not 1 <= len(given) <= 3:
        raise ValueError(f"an extent has 1 to 3 axes, not {len(given)}: {extent!r}")
    return tuple(int(v) for v in given) + (1,) * (3 - len(given))  # type: ignore[return-value]


class _Geometry:
    """Groups of a launch's extent: ceil(items / group) along every axis."""

    items: Extent
    group: Extent

    @property
    def dims(self) -> int:
        """How many axes the launch spans (1 for an int extent)."""
        return 1 if isinstance(self.items, int | np.integer) else len(self.items)

    @property
    def group_axes(self) -> tuple[int, int, int]:
        """Work-items of a work-group along x, y and z."""
        return axes(self.group)

    @property
    def threads(self) -> int:
        """Work-items of one work-group."""
        return math.prod(self.group_axes)

    @property
    def grid(self) -> tuple[int, int, int]:
        """Work-groups along x, y and z, at least one along each."""
        return tuple(  # type: ignore[return-value]
            max(1, -(-n // g)) for n, g in zip(axes(self.items), self.group_axes, strict=True)
        )

    @property
    def groups(self) -> int:
        """Number of work-groups the launch covers."""
        return math.prod(self.grid)


@dataclass(frozen=True)
class Launch(_Geometry):
    """One kernel launch of a repetition, as a description plans it.

    ``items`` is the number of work-items the kernel needs, along one axis (an
    int) or two or three (a tuple, x first); ``group`` is the work-group's shape
    with as many axes. Backends round each axis up to whole work-groups, so
    kernels guard their index. ``args`` are array names then scalar names, in
    the entry point's parameter order. ``values`` gives launch-specific scalar
    values; other scalars take the values `init` produced.
    """

    entry: str
    items: Extent
    group: Extent
    args: tuple[str, ...]
    values: Mapping[str, float | int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        same = isinstance(self.group, int | np.integer) == (self.dims == 1)
        if not same or (self.dims > 1 and len(self.group) != self.dims):  # type: ignore[arg-type]
            raise ValueError(
                f"launch {self.entry}: items {self.items!r} and group {self.group!r} "
                "must have the same number of axes"
            )
        if min(self.group_axes) < 1 or min(axes(self.items)) < 0:
            raise ValueError(
                f"launch {self.entry}: group {self.group!r} must be positive and "
                f"items {self.items!r} not negative"
            )


@dataclass(frozen=True)
class ResolvedLaunch(_Geometry):
    """A launch with its arrays and typed scalar values, ready for a backend."""

    entry: str
    items: Extent
    group: Extent
    arrays: tuple[str, ...]
    scalars: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Traffic:
    """Bytes one repetition moves, split as RAJAPerf splits them."""

    read: int = 0
    write: int = 0
    modify_write: int = 0
    atomic_modify_write: int = 0

    @property
    def moved(self) -> int:
        """RAJAPerf's BytesMoved: read-modify-write counts twice."""
        return self.read + self.write + 2 * self.modify_write + 2 * self.atomic_modify_write


@dataclass(frozen=True)
class Tolerance:
    """Largest accepted relative error per element, by run precision.

    ``floor`` is for outputs that cancel to near zero: an element's error is
    taken relative to at least ``floor`` times the array's largest magnitude,
    so rounding in a sum that cancels is not mistaken for a wrong answer.
    """

    f64: float
    f32: float
    floor: float = 0.0

    def at(self, precision: str) -> float:
        """The tolerance for one precision."""
        return self.f64 if precision == "f64" else self.f32


#: RAJAPerf's checksum tolerance classes, widened for single precision.
EXACT = Tolerance(0.0, 0.0)
TIGHT = Tolerance(1e-14, 1e-6)
NORMAL = Tolerance(1e-10, 1e-4)
LOOSE = Tolerance(5e-6, 1e-3)


@dataclass(frozen=True)
class Grid(_Geometry):
    """Launch geometry handed to the numpy entry points (for group-wise work)."""

    items: Extent
    group: Extent


@dataclass(frozen=True)
class Param:
    """A run option a kernel takes, such as a sort's strategy or input order.

    ``default`` lists the choices run when the user picks none. ``role`` tells
    reports what a choice is: a ``variant`` is another way to compute the same
    thing (a sort strategy: compared side by side, like devices), a ``case`` is
    another problem (an input order: a row of its own). ``checked`` lists the
    choices a verification-only run (``--check``, ``harness mutants``) covers
    when the user picks none, where that is more than the defaults: code that
    a choice outside the default runs is checked all the same. ``same_data``
    says every choice computes the same outputs from the same inputs (a sort
    strategy, a library call), so rows that differ only in it share their
    inputs and reference instead of each making its own. ``only_with`` names
    another option and the choices of it under which this one means anything (a
    sort's steps per launch, only for the strategies that take steps): under the
    others a row leaves this option out, so that it is not run once per choice
    of something it ignores. ``by_device`` gives other defaults to some
    devices, where what is fastest depends on the device: each entry is a key of
    words, all of which must be among the device's backend and kind words
    (``"cuda gpu"``, ``"gpu"``, ``"host"`` for the numpy backend), and its
    choices; the first matching entry wins. ``checked_by_device`` does the same
    for ``checked``: a choice some devices alone can run (a library's routine) is
    checked on them only.
    """

    name: str
    choices: tuple[str, ...]
    default: tuple[str, ...]
    help: str
    role: str = "case"
    checked: tuple[str, ...] = ()
    same_data: bool = False
    only_with: tuple[str, tuple[str, ...]] | None = None
    by_device: tuple[tuple[str, tuple[str, ...]], ...] = ()
    checked_by_device: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def unchosen(
        self,
        check: bool = False,
        device: frozenset[str] | None = None,
        every: bool = True,
        pick: int = 0,
    ) -> tuple[str, ...]:
        """The choices run when the user picks none, in a verification-only run or
        not, on a device with these words (`device_words`); with no device, those
        of any device. A verification-only run without ``checked`` choices checks
        what the device would time; with them, every one of them, or (not
        ``every``: a quick check) what the device would time and the ``pick``-th
        (modulo) of the others, so that kernels sharing an option check different ones."""
        checked = _for_device(self.checked, self.checked_by_device, device)
        if check and checked:
            if every:
                return checked
            timed = self.unchosen(False, device)
            others = [c for c in checked if c not in timed]
            return (*timed, others[pick % len(others)]) if others else timed
        return _for_device(self.default, self.by_device, device)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"param {self.name}: role {self.role!r} not in {ROLES}")


def _for_device(
    default: tuple[str, ...],
    by_device: tuple[tuple[str, tuple[str, ...]], ...],
    device: frozenset[str] | None,
) -> tuple[str, ...]:
    """The choices of the first ``by_device`` entry whose words the device has, else
    ``default``; with no device, every choice any device would get."""
    if device is None:
        return tuple(dict.fromkeys([*default, *(v for _, c in by_device for v in c)]))
    for key, choices in by_device:
        if set(key.split()) <= device:
            return choices
    return default


Inputs = dict[str, Any]


@dataclass(frozen=True)
class CheckCase:
    """Inputs the verification repetition also runs on, besides the timed ones.

    RAJAPerf's inputs fix the checksums and the timing, but some drive a kernel
    down one branch (ENERGY's energies all clamp to the floor) or make a term
    vanish, so a broken kernel would still match. A check case is an ``init``
    with the same signature whose inputs reach every branch and term; ``why``
    says what RAJAPerf's inputs miss.
    """

    name: str
    init: Callable[[int, int, str], Inputs]
    why: str


#: The name of the check case every kernel gets where an output starts constant:
#: RAJAPerf starts most at 0, where a kernel that adds to an output it should set
#: (or sets one it should add to) matches; there they start varied, as an earlier
#: repetition's contents would.
STALE = "stale"
#: The name of the case whose inputs are timed and checksummed (RAJAPerf's).
TIMED = "timed"


def constant(value: np.ndarray) -> bool:
    """Whether an array holds one value throughout (an empty one does)."""
    return value.size == 0 or bool((value == value.flat[0]).all())


def stale_inputs(
    arrays: Sequence[Array],
    inputs: Mapping[str, Any],
    seed: int,
    varied: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any] | None:
    """``inputs`` with every written array (``out`` or ``inout``) that holds one
    value throughout, here and in each of ``varied`` (the description's own check
    cases, whose varied start would show the same bugs), given varied contents of
    its type instead; None where no written array is so: the inputs of the
    `STALE` check case."""
    rng = np.random.default_rng([seed, zlib.crc32(STALE.encode())])
    stale = dict(inputs)
    for array in arrays:
        value = inputs[array.name]
        if array.intent not in ("out", "inout") or value.size == 0:
            continue
        if not all(constant(case[array.name]) for case in (inputs, *varied)):
            continue
        if value.dtype.kind == "f":
            contents = rng.uniform(0.5, 1.5, value.size)
        else:
            contents = rng.integers(1, 64, value.size)
        stale[array.name] = contents.astype(value.dtype)
    return stale if any(stale[a] is not inputs[a] for a in stale) else None


class DescriptionError(ValueError):
    """A kernel description's function returned what a row cannot use (an init
    without one of the arrays, a reference that is no dict of arrays): the row's
    error names the description and the field, not the harness line it broke."""


CpuEntry = Callable[..., None]
Verify = Callable[[Inputs, dict[str, np.ndarray], dict[str, np.ndarray]], Verdict]


@dataclass(frozen=True)
class KernelSpec:
    """Everything the harness knows about one kernel, for every backend.

    ``init(size, rng_seed, precision)`` returns array contents and scalar values
    by name; ``reference(inputs)`` returns the expected contents of the
    verified arrays; ``cpu`` maps each entry point to a numpy function taking
    ``(grid, *arrays, *scalars)`` in the launch's argument order.
    """

    name: str
    group: str
    summary: str
    arrays: tuple[Array, ...]
    scalars: tuple[Scalar, ...]
    plan: Callable[[int], Sequence[Launch]]
    init: Callable[[int, int, str], Inputs]
    reference: Callable[[Inputs], dict[str, np.ndarray]]
    cpu: Mapping[str, CpuEntry]
    traffic: Callable[[int, int], Traffic]
    flops: Callable[[int], int]
    default_size: int = 1_000_000
    default_reps: int = 100
    check_size: int = 10_007
    tolerance: Tolerance = TIGHT
    features: frozenset[str] = frozenset()
    #: Extra features needed at one precision only, e.g. {"f64": {"atomics64"}}
    #: for a kernel that adds doubles atomically.
    precision_features: Mapping[str, frozenset[str]] = field(default_factory=dict)
    rajaperf_features: tuple[str, ...] = ("Forall",)
    complexity: str = "N"
    checksum: Callable[[dict[str, np.ndarray]], float] | None = None
    #: Stem of the source file under kernels/<language>/ (default: the name), so
    #: kernels that differ only in compile-time constants share one source.
    source: str | None = None
    #: Compile-time constants and type aliases (to DTYPES names) every backend
    #: passes to the source, the way it passes ``REAL``: an int is an integer
    #: constant, a float one of type REAL (so the Python and every source share
    #: one value).
    constants: Mapping[str, int | float] = field(default_factory=dict)
    type_aliases: Mapping[str, str] = field(default_factory=dict)
    #: Shape of every launch's work-group: an int, or (x, y) or (x, y, z) for
    #: launches over 2 or 3 axes. Sources see its work-items as ``GROUP`` and
    #: its axes as ``GROUP_X``, ``GROUP_Y`` and ``GROUP_Z``.
    group_size: Extent = WORK_GROUP
    #: Other shapes some launches' work-groups take, which the sources build
    #: from the description's constants (a sort's passes in rows of LANES).
    other_groups: tuple[Extent, ...] = ()
    #: Work-group memory the kernel's largest entry declares, in bytes, where a
    #: run option sets it (a sort's tile); 0 where it is small and fixed. A
    #: backend whose API lets a kernel declare less than its devices allow
    #: (CUDA: 48 KiB) gives memory over that at launch instead.
    work_group_bytes: int = 0
    #: Run options the kernel takes, the function that makes the kernel for one
    #: choice of them, and (on a kernel so made) the choice.
    params: tuple[Param, ...] = ()
    bind: Callable[[Mapping[str, str]], KernelSpec] | None = None
    param_values: Mapping[str, str] = field(default_factory=dict)
    #: Verification replacing the per-element relative error (e.g. bit-exact).
    verify: Verify | None = None
    #: What the size counts (e.g. "keys"): rows then get a ``<items>_per_s`` rate.
    items: str | None = None
    #: Whether the kernel's GB/s is what a device's memory can do (Stream_COPY):
    #: reports draw its best as the bandwidth peak.
    peak_bandwidth: bool = False
    #: Inputs the verification repetition runs on as well as ``init``'s.
    check_cases: tuple[CheckCase, ...] = ()
    #: The largest size the check cases run at (None: every size). A check size
    #: past it is there for a layout the length reaches, which the timed inputs
    #: show as well as any, and verifies those alone.
    check_cases_up_to: int | None = None
    #: Sizes ``--check`` and mutation runs use (default: ``check_size`` alone);
    #: kernels whose edge cases depend on the length list odd ones here.
    check_sizes: tuple[int, ...] = ()
    #: The outputs as a 2-D picture (Mandelbrot's escape counts): runs save each
    #: device's as a PNG, with its difference from the reference's.
    image: Callable[[dict[str, np.ndarray]], np.ndarray] | None = None
    #: Why the kernel keeps its work-group size under ``--group`` (None: it can
    #: take any size the sweep offers).
    fixed_group: str | None = None

    def __post_init__(self) -> None:
        names = [a.name for a in self.arrays] + [s.name for s in self.scalars]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: argument names repeat: {names}")
        unknown = self.features - set(FEATURES)
        if unknown:
            raise ValueError(f"{self.name}: unknown features {sorted(unknown)}")

    @property
    def outputs(self) -> tuple[Array, ...]:
        """The arrays that are verified after a repetition."""
        return tuple(a for a in self.arrays if a.intent in ("out", "inout"))

    def array(self, name: str) -> Array:
        """The array of that name."""
        for a in self.arrays:
            if a.name == name:
                return a
        raise KeyError(f"{self.name} has no array {name!r}")

    def uses_real(self) -> bool:
        """Whether any array or scalar has the run-precision type."""
        return any(x.dtype == "real" for x in (*self.arrays, *self.scalars))

    def fixed_precision(self) -> str | None:
        """The precision of a kernel whose floating-point data has one fixed type
        (Demo_SGEMV's f32, Bitonic_F64's keys), whatever a run asks; None where its
        data takes the run's (``real``) or is integers alone."""
        if self.uses_real():
            return None
        floats = {x.dtype for x in (*self.arrays, *self.scalars)} & set(PRECISIONS)
        return floats.pop() if len(floats) == 1 else None

    def required_features(self, precision: str) -> frozenset[str]:
        """Device features this kernel needs at a precision."""
        needs_f64 = any(x.dtype == "f64" for x in (*self.arrays, *self.scalars))
        if precision == "f64" and self.uses_real():
            needs_f64 = True
        extra = self.precision_features.get(precision, frozenset())
        return self.features | extra | ({"f64"} if needs_f64 else set())

    def resolve(self, size: int, inputs: Inputs, precision: str) -> list[ResolvedLaunch]:
        """The plan of one repetition with every scalar typed and valued."""
        arrays = {a.name for a in self.arrays}
        types = {s.name: numpy_dtype(s.dtype, precision) for s in self.scalars}
        launches = []
        for launch in self.plan(size):
            bound = [n for n in launch.args if n in arrays]
            scalars = []
            for n in launch.args:
                if n in arrays:
                    continue
                if n not in types:
                    raise ValueError(f"{self.name}: launch {launch.entry} names unknown {n!r}")
                value = launch.values[n] if n in launch.values else inputs[n]
                scalars.append((n, types[n].type(value)))
            if launch.args[: len(bound)] != tuple(bound):
                raise ValueError(f"{self.name}: launch {launch.entry} must list arrays first")
            launches.append(
                ResolvedLaunch(
                    launch.entry, launch.items, launch.group, tuple(bound), tuple(scalars)
                )
            )
        return launches

    @property
    def group_names(self) -> dict[str, int]:
        """What sources see of the work-group's shape: ``GROUP``, its work-items,
        and ``GROUP_X``, ``GROUP_Y``, ``GROUP_Z``, its axes."""
        x, y, z = axes(self.group_size)
        return {"GROUP": x * y * z, "GROUP_X": x, "GROUP_Y": y, "GROUP_Z": z}

    @property
    def source_name(self) -> str:
        """The stem of this kernel's source files."""
        return self.source or self.name

    def with_params(self, values: Mapping[str, str]) -> KernelSpec:
        """The kernel for one choice of its run options (itself when it takes none)."""
        if not self.params:
            return self
        assert self.bind is not None, f"{self.name} declares params but no bind"
        return self.bind(values)

    @property
    def regroup_problem(self) -> str | None:
        """Why the kernel cannot run at another work-group size; None when it can."""
        if self.fixed_group:
            return self.fixed_group
        if not isinstance(self.group_size, int | np.integer):
            return f"its launches span several axes with work-groups of {self.group_size}"
        return None

    def with_group(self, size: int | None) -> KernelSpec:
        """The kernel with one-dimensional work-groups of ``size`` work-items: its
        launches at its own size take the new one, its sources see it as ``GROUP``
        (itself for None or its own size)."""
        if size is None or size == self.group_size:
            return self
        problem = self.regroup_problem
        if problem:
            raise ValueError(f"{self.name} keeps its work-group size: {problem}")
        own, plan = self.group_size, self.plan

        def regrouped(n: int) -> list[Launch]:
            return [
                dataclasses.replace(launch, group=size) if launch.group == own else launch
                for launch in plan(n)
            ]

        return dataclasses.replace(self, group_size=size, plan=regrouped)

    @property
    def sizes_for_check(self) -> tuple[int, ...]:
        """The sizes a verification-only run uses."""
        return self.check_sizes or (self.check_size,)

    def facts(self) -> dict[str, Any]:
        """What reports need to know of the kernel, for a run's metadata."""
        return {
            "group": self.group,
            "params": {p.name: p.role for p in self.params},
            "items": self.items,
            "peak_bandwidth": self.peak_bandwidth,
            "complexity": self.complexity,
            "tolerance": {p: self.tolerance.at(p) for p in PRECISIONS},
            # A kernel with a check of its own holds its rows' error to that check,
            # not to the tolerance: readers compare the error with it only where not.
            "own_check": self.verify is not None,
        }

    def lengths(self, size: int) -> dict[str, int]:
        """Element count of every array at a problem size."""
        return {a.name: int(a.length(size)) for a in self.arrays}


#: The backend that is the host itself (numpy), no offload: its devices have the word
#: ``host``, which no device of an API that runs on the CPU (PoCL, lavapipe) has.
HOST_BACKEND = "cpu"


def device_words(backend: str, kind: str) -> frozenset[str]:
    """What `Param.by_device` keys are matched against: the backend's name, the
    words of the device's kind ("discrete gpu"), and ``host`` for the host itself."""
    return frozenset([backend, *kind.split(), *(["host"] if backend == HOST_BACKEND else [])])


def param_choices(
    spec: KernelSpec,
    chosen: Mapping[str, Sequence[str]],
    check: bool = False,
    device: frozenset[str] | None = None,
    every: bool = True,
) -> list[tuple[tuple[str, str], ...]]:
    """Every combination of the kernel's run options: the user's, else those run
    when the user picks none (`Param.unchosen`), in a verification-only run or not
    (``every`` checked choice, or a quick check's few), on a device with these words
    (`device_words`; with none, any device's).
    A quick check takes two combinations of the options the user left: what the
    device would time, and one with every option at its other checked choice (so
    every option's other choice is checked once, not every pairing of them).
    An option that means nothing beside another's choice (`Param.only_with`) is
    left out of that combination, and a combination seen already is not repeated."""

    def axes(values: Callable[[Param], Sequence[str]]) -> list[list[tuple[str, str]]]:
        return [[(p.name, v) for v in chosen.get(p.name, values(p))] for p in spec.params]

    def picked(p: Param) -> tuple[str, ...]:
        # Kernels and devices sharing an option check different other choices.
        seed = f"{spec.name}:{p.name}:{' '.join(sorted(device or ()))}"
        return p.unchosen(check, device, every, zlib.crc32(seed.encode()))

    if check and not every:

        def other(p: Param) -> Sequence[str]:
            timed = p.unchosen(False, device)
            return picked(p)[len(timed) :] or timed

        products = [
            *itertools.product(*axes(lambda p: p.unchosen(False, device))),
            *itertools.product(*axes(other)),
        ]
    else:
        products = list(itertools.product(*axes(picked)))
    combos: dict[tuple[tuple[str, str], ...], None] = {}
    for combo in products:
        values = dict(combo)
        combos[
            tuple(pair for pair, p in zip(combo, spec.params, strict=True) if _applies(p, values))
        ] = None
    return list(combos)


def _applies(param: Param, values: Mapping[str, str]) -> bool:
    if param.only_with is None:
        return True
    other, choices = param.only_with
    return values.get(other) in choices

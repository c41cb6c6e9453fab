"""The kernel suite: every description, and selection by name, group or glob."""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import importlib.metadata
import importlib.util
import math
import numbers
import os
import re
import reprlib
import signal
import sys
import traceback
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.errors import UsageError
from harness.model import sources
from harness.model.spec import (
    DTYPES,
    FEATURES,
    PRECISIONS,
    STALE,
    TIMED,
    Array,
    CheckCase,
    DescriptionError,
    KernelSpec,
    Launch,
    Param,
    Scalar,
    Tolerance,
    Traffic,
    param_choices,
)
from harness.suite import (
    algorithm,
    apps,
    atomics,
    basic,
    basic_elementwise,
    basic_multidim,
    comm,
    demo,
    internal,
    lcals,
    polybench,
    polybench_linalg,
    polybench_steps,
    sort,
    stream,
)

#: RAJAPerf's groups, then this suite's own.
RAJAPERF_GROUPS = ("Stream", "Basic", "Lcals", "Polybench", "Apps", "Algorithm", "Comm")
_GROUP_ORDER = (*RAJAPERF_GROUPS, "Sort", "Demo")
#: RAJAPerf's kernels that run in one process (all but Comm's three MPI ones).
RAJAPERF_SINGLE_PROCESS = 79
ALL: tuple[KernelSpec, ...] = tuple(
    sorted(
        (
            *stream.KERNELS,
            *basic.KERNELS,
            *basic_elementwise.KERNELS,
            *basic_multidim.KERNELS,
            *lcals.KERNELS,
            *polybench.KERNELS,
            *polybench_linalg.KERNELS,
            *polybench_steps.KERNELS,
            *apps.KERNELS,
            *algorithm.KERNELS,
            *atomics.KERNELS,
            *comm.KERNELS,
            *sort.RAJAPERF_KERNELS,
            *sort.KERNELS,
            *demo.KERNELS,
        ),
        key=lambda k: _GROUP_ORDER.index(k.group),
    )
)
BY_NAME: dict[str, KernelSpec] = {k.name: k for k in ALL}
#: The shipped kernels' names: a user's kernel may join one of their groups.
SHIPPED = frozenset(BY_NAME)
#: Kernels the harness runs for itself (a cache flush): never listed or selected.
INTERNAL: tuple[KernelSpec, ...] = internal.KERNELS


def spec_of(name: str) -> KernelSpec:
    """A kernel of the suite, or one the harness runs for itself, by name."""
    found = BY_NAME.get(name) or next((k for k in INTERNAL if k.name == name), None)
    if found is None:
        raise KeyError(name)
    return found


#: The modules holding descriptions: by group or theme, and one per Apps kernel.
_MODULES = (
    stream,
    basic,
    basic_elementwise,
    basic_multidim,
    atomics,
    lcals,
    polybench,
    polybench_linalg,
    polybench_steps,
    *apps.MODULES,
    algorithm,
    comm,
    sort,
    demo,
)
GROUPS: tuple[str, ...] = tuple(dict.fromkeys(k.group for k in ALL))
#: Every run option some kernel takes, by name (the command line offers each).
PARAMS: dict[str, Param] = {p.name: p for k in ALL for p in k.params}
#: The names of the commands' own options (``size``, ``resume``), which a user
#: kernel's run option may not take: the command line fills it before it loads
#: suites (`harness.cli.load_suites`).
OPTION_NAMES: frozenset[str] = frozenset()
#: The long options of each command that offers the kernels' run options, less
#: those (`harness.cli.load_suites` fills it too).
OPTION_FLAGS: tuple[frozenset[str], ...] = ()


def module_file(spec: KernelSpec) -> Path:
    """The Python file that holds a kernel's description."""
    for module in _MODULES:
        held = (
            getattr(module, "KERNEL", None),
            *getattr(module, "KERNELS", ()),
            *getattr(module, "RAJAPERF_KERNELS", ()),
        )
        if any(k is spec for k in held):
            return Path(str(module.__file__))
    raise LookupError(f"{spec.name} is no kernel of the suite")


def takers(param: str) -> list[str]:
    """Names of the kernels that take a run option."""
    return [k.name for k in ALL if any(p.name == param for p in k.params)]


class SelectionError(UsageError, ValueError):
    """A selector that matches no kernel."""


def select(selectors: Iterable[str] | None = None) -> list[KernelSpec]:
    """Kernels matching any selector, in suite order; all kernels for none.

    A selector is a kernel name (``Stream_TRIAD``), either half of it
    (``TRIAD`` as RAJAPerf accepts, ``Bitonic`` for every bitonic sort), a group
    (``Stream``), or a shell-style glob over names (``Stream_*``, ``*DOT``);
    matching ignores case.
    """
    selectors = list(selectors or [])
    if not selectors:
        return list(ALL)
    chosen: set[str] = set()
    for sel in selectors:
        low = sel.lower()
        hits = {
            k.name
            for k in ALL
            if low in (k.name.lower(), k.group.lower(), *k.name.lower().split("_", 1))
            or fnmatch.fnmatchcase(k.name.lower(), low)
        }
        if not hits:
            raise SelectionError(
                f"no kernel matches {sel!r}; give a kernel name, a group "
                f"({', '.join(GROUPS)}) or a glob such as 'Stream_*' (see 'harness list')"
            )
        chosen |= hits
    return [k for k in ALL if k.name in chosen]


#: The entry-point group through which installed packages add kernels: each entry
#: names a module with ``KERNELS`` and its sources beside it.
ENTRY_POINTS = "harness.suites"
#: User suites loaded, by module file (`load_suite`).
LOADED: dict[Path, tuple[KernelSpec, ...]] = {}
#: Each loaded suite file's modification time and size as it was loaded.
_STAMPS: dict[Path, tuple[int, int] | None] = {}


class SuiteError(UsageError):
    """A user's suite that cannot be used: the message names its file, the kernel
    and what is wrong."""


def _import(path: Path) -> ModuleType:
    name = f"harness_user_suite_{len(LOADED)}_{path.stem}"
    loader = importlib.util.spec_from_file_location(name, path)
    if loader is None or loader.loader is None:
        # A file of another suffix (a kernel's source, kernels.txt) was said to be no
        # module, without what one is.
        raise SuiteError(
            f"--suite {path}: not a Python module (its name does not end in .py); give "
            "the Python file that defines KERNELS"
        )
    module = importlib.util.module_from_spec(loader)
    sys.modules[name] = module
    try:
        with _process_kept():
            loader.loader.exec_module(module)
    except Exception as exc:
        raise SuiteError(f"--suite {path}: {_raised(path, exc)}") from None
    except SystemExit:
        raise  # said by the command line's loader, with the file's exit status
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt) and not _raised_by(path, exc):
            raise  # a stop signal's, raised in its handler: the command stops
        # A KeyboardInterrupt the file raised itself stopped the command as interrupted,
        # no signal sent; another BaseException of its own (GeneratorExit, a class of
        # its own) ended it in a traceback, status 1.
        raised = _raised(path, exc)
    else:
        return module
    # Raised outside the handler: an error in the handling of a KeyboardInterrupt is
    # taken for a stop signal's.
    raise SuiteError(f"--suite {path}: {raised}")


@contextlib.contextmanager
def _process_kept() -> Iterator[None]:
    """The working folder and the standard streams as they were, after a suite
    file that changed them: relative paths given (--out) then named other folders
    than the user's, and a stream set to None ended the command in a traceback
    as it wrote its table."""
    try:
        before = os.getcwd()
    except OSError:
        before = None  # a folder removed: nothing to return to
    streams = sys.stdin, sys.stdout, sys.stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        if before is not None:
            with contextlib.suppress(OSError):
                os.chdir(before)


def _raised_by(path: Path, exc: BaseException) -> bool:
    """Whether the file at ``path`` raised ``exc`` itself: its last frame is the
    file's. A stop signal's KeyboardInterrupt is raised in the harness's handler,
    whose frame is last; Python's own SIGINT handler raises it in whatever frame
    runs, so under that handler no interrupt is taken as the file's."""
    frames = traceback.extract_tb(exc.__traceback__)
    return (
        bool(frames)
        and frames[-1].filename == str(path)
        and signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    )


def _raised(path: Path, exc: BaseException) -> str:
    """What the user's code raised, at the user's own line rather than the
    harness's: the deepest frame in their file."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    line = getattr(exc, "lineno", None) or (frames[-1].lineno if frames else "?")
    what = str(exc.msg if isinstance(exc, SyntaxError) else exc)
    # An exception of no message (a bare MemoryError) was named with a dangling ': '.
    return f"line {line}: {type(exc).__name__}" + (f": {what}" if what else "")


#: What a user's kernel may be called: RAJAPerf's names are of this form (Group_NAME).
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
#: The longest name of a user's kernel: it names source files and plots
#: (``sweep_NAME.svg``), whose names a file system takes up to 255 bytes.
MAX_NAME = 100


def _checked(path: Path, module: ModuleType) -> tuple[KernelSpec, ...]:
    """The module's KERNELS, each a new, well-formed description whose sources
    agree with it; SuiteError naming the first that is not."""
    if not hasattr(module, "KERNELS"):
        raise SuiteError(
            f"--suite {path}: it defines no KERNELS (a tuple of harness.model.spec.KernelSpec)"
        )
    kernels = module.KERNELS
    if not isinstance(kernels, list | tuple) or not kernels:
        # KERNELS = 5 or () was said to be no KERNELS at all.
        what = "empty" if isinstance(kernels, list | tuple) else type(kernels).__name__
        raise SuiteError(
            f"--suite {path}: KERNELS is {what} {reprlib.repr(kernels)}; give a tuple of one "
            "or more harness.model.spec.KernelSpec"
        )
    for item in kernels:
        if not isinstance(item, KernelSpec):
            raise SuiteError(
                f"--suite {path}: KERNELS holds {type(item).__name__} {item!r}, "
                "not a harness.model.spec.KernelSpec"
            )
        if not isinstance(item.name, str) or not NAME.fullmatch(item.name):
            raise SuiteError(
                f"--suite {path}: kernel name {item.name!r}: give letters, digits and "
                "underscores, from a letter (it names files, plots and -k choices)"
            )
        if len(item.name) > MAX_NAME:
            # Its source's file name was too long to look up: a traceback's words.
            raise SuiteError(
                f"--suite {path}: kernel name {item.name[:20]}... is {len(item.name)} "
                f"characters long; give at most {MAX_NAME} (it names files and plots)"
            )
        if not isinstance(item.group, str) or not NAME.fullmatch(item.group):
            raise SuiteError(
                f"--suite {path}: kernel {item.name}: group {item.group!r}: give letters, "
                "digits and underscores, from a letter (-k chooses groups by it)"
            )
        # -k ignores case: a name differing from another in case alone could never be
        # chosen without it (-k stream_triad ran Stream_TRIAD too), nor a group so.
        groups = [g for g in (*GROUPS, *(getattr(k, "group", None) for k in kernels)) if g]
        named = [k.name for k in kernels if isinstance(getattr(k, "name", None), str)]
        other = next(
            (g for g in groups if isinstance(g, str) and g.lower() == item.group.lower()),
            item.group,
        )
        if other != item.group:
            raise SuiteError(
                f"--suite {path}: kernel {item.name}: group {item.group!r}: the suite has "
                f"a group {other!r} (-k ignores case); give it that name or another"
            )
        low = item.name.lower()
        # -k chooses a kernel and a group by the same word: a kernel named as another
        # group (Stream), or a group named as a kernel (Stream_COPY), ran the other's
        # kernels beside the one asked for.
        clash = next((g for g in groups if g.lower() == low and g != item.group), None)
        if clash is not None:
            raise SuiteError(
                f"--suite {path}: kernel {item.name}: the suite has a group {clash!r}, which "
                "-k would choose with it; give the kernel another name"
            )
        clash = next(
            (
                k.name
                for k in (*ALL, *kernels)
                if isinstance(getattr(k, "name", None), str)
                and k.name.lower() == item.group.lower()
                and getattr(k, "group", None) != item.group
            ),
            None,
        )
        if clash is not None:
            raise SuiteError(
                f"--suite {path}: kernel {item.name}: group {item.group!r}: the suite has a "
                f"kernel {clash!r}, which -k would choose with it; give the group another name"
            )
        same = [k.name for k in ALL if k.name.lower() == low]
        if same:
            # One of another suite file this process loaded: named, as "the suite"
            # read as the shipped one, whose kernels have no such name.
            mine = [
                str(p) for p, loaded in LOADED.items() if any(k.name == same[0] for k in loaded)
            ]
            raise SuiteError(
                f"--suite {path}: kernel {item.name}: the suite has one so named"
                + ("" if same[0] == item.name else f" ({same[0]}: -k ignores case)")
                + (f", from {mine[0]}, loaded before it" if mine else "")
            )
        if [n.lower() for n in named].count(low) > 1:
            # Each would run as a row of its own: two measurements of one case.
            twice = "" if named.count(item.name) > 1 else " (-k ignores case)"
            raise SuiteError(f"--suite {path}: kernel {item.name}: KERNELS holds it twice{twice}")
        size = _bad_size(item) or _bad_kinds(item) or _bad_text(item) or _bad_params(item, kernels)
        if size:
            raise SuiteError(f"--suite {path}: kernel {item.name}: {size}")
        try:
            problem = _problem(path, item)
        except Exception as exc:  # the description's own functions (its plan) failed
            problem = _raised(path, exc)
        if problem:
            raise SuiteError(f"--suite {path}: kernel {item.name}: {problem}")
    return tuple(kernels)


def _bad_size(spec: KernelSpec) -> str | None:
    """What is wrong with a description's own sizes, none of which may be below 1: a
    default size of 0 ran rows of nothing, which every reader then skipped as damage."""
    sizes = spec.check_sizes
    if not isinstance(sizes, tuple | list):
        return f"check_sizes {sizes!r}: give a tuple of whole numbers, each 1 or more"
    for field, values in (
        ("default_size", (spec.default_size,)),
        ("check_size", (spec.check_size,)),
        ("check_sizes", sizes),
    ):
        for value in values:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                return f"{field} {value!r}: give a whole number, 1 or more"
    return None


def _bad_kinds(spec: KernelSpec) -> str | None:
    """What is of the wrong kind among a description's functions, numpy entries and
    tolerance: a tolerance of one number ended a run in a traceback, and a plan, init
    or numpy entry of None was a TypeError named at a line of the harness's."""
    # An image of no function was its rows' error at a line of the harness's.
    optional = ("checksum", "bind", "verify", "image")
    for field in ("plan", "init", "reference", "traffic", "flops", *optional):
        value = getattr(spec, field)
        if not callable(value) and (value is not None or field not in optional):
            return f"{field} {value!r}: give a function" + (", or None" * (field in optional))
    memory = spec.work_group_bytes
    if isinstance(memory, bool) or not isinstance(memory, numbers.Integral) or memory < 0:
        # Text was every WebGPU and CUDA row's TypeError; a negative count passed as none.
        return f"work_group_bytes {memory!r}: give a whole number of bytes, 0 or more"
    for field, kind in (("arrays", Array), ("scalars", Scalar)):
        given = getattr(spec, field)
        if not isinstance(given, tuple | list) or not all(isinstance(a, kind) for a in given):
            return f"{field} {given!r}: give a tuple of harness.model.spec.{kind.__name__}"
    for array in spec.arrays:
        if not callable(array.length):
            # A number ended run in a traceback as it planned its rows' memory.
            return (
                f"array {array.name}: length {array.length!r}: give a function of the "
                "problem size (lambda n: n)"
            )
    # Each was every row's error at a line of the harness's, or (an unknown feature
    # at one precision) its rows' skip for a feature no device has.
    extra = spec.precision_features
    if not isinstance(extra, Mapping) or any(
        p not in PRECISIONS
        or not isinstance(f, set | frozenset | tuple | list)
        or not all(isinstance(x, str) and x in FEATURES for x in f)
        for p, f in extra.items()
    ):
        return (
            f"precision_features {extra!r}: give a dict of precisions ({', '.join(PRECISIONS)}) "
            f"to sets of features ({', '.join(FEATURES)})"
        )
    aliases = spec.type_aliases
    if not isinstance(aliases, Mapping) or any(
        not (isinstance(k, str) and k.isascii() and k.isidentifier()) or v not in DTYPES
        for k, v in aliases.items()
    ):
        return f"type_aliases {aliases!r}: give a dict of C names to types ({', '.join(DTYPES)})"
    cases = spec.check_cases
    if not isinstance(cases, tuple | list):
        return f"check_cases {cases!r}: give a tuple of check cases"
    problem = _check_case_problem(cases)
    if problem is not None:
        return problem
    if not isinstance(spec.cpu, Mapping):
        return (
            f"cpu is {type(spec.cpu).__name__}: give a dict of each entry point's name "
            "to its numpy function"
        )
    for entry, function in spec.cpu.items():
        if not callable(function):
            return f"cpu[{entry!r}] {function!r}: give a numpy function"
    constants = spec.constants
    if not isinstance(constants, Mapping) or any(
        not (isinstance(k, str) and k.isascii() and k.isidentifier()) or _bad_constant(v)
        for k, v in constants.items()
    ):
        # None was each OpenCL and CUDA row's TypeError, at a line of the harness's.
        return (
            f"constants {constants!r}: give a dict of C names (letters, digits and "
            "underscores, not from a digit) to finite numbers"
        )
    shape = spec.group_size
    dims = shape if isinstance(shape, tuple) else (shape,)
    if not 1 <= len(dims) <= 3 or any(
        isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1 for d in dims
    ):
        # Text was each OpenCL row's ValueError at a line of the harness's, and 0 the
        # sources' GROUP.
        return (
            f"group_size {shape!r}: give a work-group's shape: a whole number, 1 or more, "
            "or a tuple of 2 or 3 of them"
        )
    for field, names in (("source", "its source files"), ("items", "its rate's column")):
        value = getattr(spec, field)
        if value is not None and not (isinstance(value, str) and NAME.fullmatch(value)):
            # A path (../../NAME) was looked up outside the suite's folders, and a number
            # as a file named by it; a rate's items name its column and its plot's file.
            return (
                f"{field} {value!r}: give a name of letters, digits and underscores, from a "
                f"letter (it names {names}), or None"
            )
    tolerance = spec.tolerance
    if not isinstance(tolerance, Tolerance) or any(
        _bad_count(getattr(tolerance, f.name)) for f in dataclasses.fields(tolerance)
    ):
        return (
            f"tolerance {tolerance!r}: give a harness.model.spec.Tolerance of finite numbers, "
            "0 or more (Tolerance(1e-13, 1e-5): the largest relative error at f64 and f32)"
        )
    return None


def _check_case_problem(cases: Sequence[Any]) -> str | None:
    """What is wrong with a description's check cases, which only --check reads
    (a timed run found nothing wrong with them); None if nothing."""
    names = {TIMED, STALE}
    for number, case in enumerate(cases):
        where = f"check_cases[{number}]"
        if not isinstance(case, CheckCase):
            return f"{where} is {reprlib.repr(case)}: give CheckCase(name, init, why) items"
        if not isinstance(case.name, str) or not case.name.strip() or case.name in names:
            return (
                f"{where} is named {case.name!r}: give each check case a name of its own, "
                f"other than {TIMED!r} and {STALE!r}"
            )
        names.add(case.name)
        if not callable(case.init):
            return (
                f"{where} ({case.name}) has init {reprlib.repr(case.init)}: give a function "
                "of (size, seed, precision) returning the inputs"
            )
    return None


def _bad_constant(value: object) -> bool:
    """Whether a description's compile-time constant is no finite int or float."""
    return (
        isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value)
    )


def _bad_text(spec: KernelSpec) -> str | None:
    """What is wrong with a description's words, which `harness list` and the reports
    print: a summary or complexity that is no line of text, or RAJAPerf features
    that are no tuple of words, ended `harness list` in a traceback (features given
    as one word, ``"Forall"``, were listed letter by letter)."""
    for field in ("summary", "complexity"):
        value = getattr(spec, field)
        if not isinstance(value, str) or "\n" in value or "\r" in value:
            return f"{field} {value!r}: give one line of text"
    fixed = spec.fixed_group
    if fixed is not None and (not isinstance(fixed, str) or not fixed.strip() or "\n" in fixed):
        # Why --group leaves the kernel's work-group as it is, printed as a row's note.
        return f"fixed_group {fixed!r}: give one line of text saying why, or None"
    features = spec.rajaperf_features
    if not isinstance(features, tuple | list) or not all(
        isinstance(f, str) and NAME.fullmatch(f) for f in features
    ):
        return f"rajaperf_features {features!r}: give a tuple of words, such as ('Forall',)"
    return None


def _bad_params(spec: KernelSpec, kernels: Iterable[KernelSpec]) -> str | None:
    """What is wrong with a description's run options (its ``params``), each of which
    becomes a ``--NAME`` option: a name that is no word or is a command's own option
    (``size`` ended every command in an argparse traceback), one the suite or the
    file's other kernels define otherwise (its choices replaced theirs), or defaults
    outside its choices (a row of a choice the option refuses)."""
    given = spec.params
    if not isinstance(given, (tuple, list)) or not all(isinstance(p, Param) for p in given):
        # None, or a name where a Param goes, ended every command in a traceback.
        return f"params is {reprlib.repr(given)}; a tuple of Param is accepted"
    for param in given:
        name = param.name
        if not isinstance(name, str) or not NAME.fullmatch(name):
            return f"run option {name!r}: give letters, digits and underscores, from a letter"
        if name in OPTION_NAMES:
            return f"run option {name!r}: harness has an option so named; give it another name"
        flag = f"--{name}"
        for flags in OPTION_FLAGS:
            # argparse takes a prefix of one option alone for it: --prec was --precision,
            # and became the user's option, whose choices f32 and f64 it took unsaid.
            longer = [f for f in {*flags, *(f"--{p}" for p in PARAMS)} if f.startswith(flag)]
            if len(longer) == 1 and longer[0] != flag:
                return (
                    f"run option {name!r}: {flag} abbreviates {longer[0]}, which it would "
                    "take the place of; give it another name"
                )
        others = [PARAMS.get(name), *(p for k in kernels for p in k.params if p.name == name)]
        if any(other is not None and other != param for other in others):
            return f"run option {name!r}: the suite has one so named, with other choices"
        choices = param.choices
        words = isinstance(choices, tuple) and all(isinstance(c, str) and c for c in choices)
        if not words or not choices or len(set(choices)) != len(choices):
            return f"run option {name}: choices {choices!r}: give a tuple of words, each once"
        for field in ("default", "checked"):
            outside = [c for c in getattr(param, field) if c not in choices]
            if outside:
                return f"run option {name}: {field} {outside[0]!r} is none of its choices"
    return None


def _bad_binding(spec: KernelSpec) -> str | None:
    """What is wrong with the kernels a description's ``bind`` makes, one per choice
    of its run options: another name or group ran rows that the run's table and
    counts left out (0 ok of 2 rows run), a field of the wrong kind (`_bad_kinds`)
    was each row's error, and no description was an AttributeError."""
    for combo in param_choices(spec, {p.name: p.choices for p in spec.params}):
        bound = spec.with_params(dict(combo))
        shown = ", ".join(f"{name}={value}" for name, value in combo)
        if not isinstance(bound, KernelSpec):
            return (
                f"its bind at {shown} returned {type(bound).__name__} {bound!r}: give a "
                "harness.model.spec.KernelSpec"
            )
        for field in ("name", "group"):
            if getattr(bound, field) != getattr(spec, field):
                return (
                    f"its bind at {shown} returned a kernel of {field} "
                    f"{getattr(bound, field)!r}: keep the kernel's own, {getattr(spec, field)!r}"
                )
        wrong = _bad_kinds(bound)
        if wrong:
            return f"its bind at {shown}: {wrong}"
    return None


def _bad_plan(spec: KernelSpec) -> str | None:
    """What is wrong with what a description's plan returns, at each choice of its
    run options and at its check and default sizes: one returning None was 'line ?:
    TypeError: 'NoneType' object is not iterable', naming no field."""
    for combo in param_choices(spec, {p.name: p.choices for p in spec.params}):
        bound = spec.with_params(dict(combo))
        for size in (*bound.sizes_for_check, bound.default_size):
            plan = bound.plan(size)
            if not isinstance(plan, list | tuple):
                said = _named(plan)
            else:
                said = next(
                    (
                        f"{type(plan).__name__} holding {_named(x)}"
                        for x in plan
                        if not isinstance(x, Launch)
                    ),
                    "",
                )
            if said:
                return (
                    f"its plan at size {size} returned {said}: give a list of "
                    "harness.model.spec.Launch"
                )
    return None


def _named(value: object) -> str:
    """A value's type, and its text where that is short and says more than an address."""
    text = repr(value)
    shown = len(text) <= 60 and " at 0x" not in text
    return f"{type(value).__name__} {text}" if shown else type(value).__name__


def _problem(path: Path, spec: KernelSpec) -> str | None:
    """The first thing wrong with a user's kernel: an entry its plan launches
    with no numpy function, or a source that disagrees with its description."""
    from harness.model import contract

    bound = _bad_binding(spec) or _bad_plan(spec)
    if bound:
        return bound
    missing = [e for e in _entries(spec) if e not in spec.cpu]
    if missing:
        return (
            f"no cpu entry for {', '.join(missing)} "
            "(its plan launches them; cpu maps each entry to a numpy function)"
        )
    for (entry, args), bound in contract.launches(spec).items():
        # One was "KeyError: 'x'", naming neither the launch nor what it may pass.
        names = [a.name for a in bound.arrays] + [s.name for s in bound.scalars]
        unknown = [a for a in args if a not in names]
        if unknown:
            return (
                f"its plan's launch of {entry} passes {unknown[0]!r}, none of its arrays "
                f"and scalars ({', '.join(names)})"
            )
    for language, extension in contract.LANGUAGES.items():
        try:
            # A source path that is a folder or a link to nothing was passed over as
            # no source: the kernel's rows were skipped, cuda-compile exited 0.
            sources.check_folder(
                path.parent, sources.places(language, extension), [spec.source_name]
            )
            problems = contract.problems(spec, language, (path.parent,))
        except ValueError as exc:  # a source that cannot be read as one (not UTF-8)
            return str(exc)
        if problems:
            return problems[0]
    for name, measure, wrong, expected in (
        (
            "traffic",
            lambda: spec.traffic(spec.default_size, 8),
            _bad_traffic,
            "a Traffic of byte counts, each a finite number, 0 or more",
        ),
        ("flops", lambda: spec.flops(spec.default_size), _bad_count, "a finite number, 0 or more"),
    ):
        try:
            value = measure()
        except Exception as exc:
            return f"its {name} at its default size {spec.default_size}: {_raised(path, exc)}"
        if wrong(value):
            return (
                f"its {name} at its default size {spec.default_size} returned {value!r}: "
                f"expected {expected}"
            )
    return None


def _bad_count(value: object) -> bool:
    """Whether a description's count (bytes or FLOPs of a repetition) is no finite
    number of 0 or more: a string, None, NaN or a negative one was taken, and every
    command that reads the counts (list, run, report) then ended in a traceback."""
    return (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
        or value < 0
    )


def _bad_traffic(value: object) -> bool:
    """Whether a description's traffic is no `Traffic` of counts (`_bad_count`)."""
    return not isinstance(value, Traffic) or any(
        _bad_count(getattr(value, f.name)) for f in dataclasses.fields(value)
    )


def _entries(spec: KernelSpec) -> list[str]:
    from harness.model.contract import launches

    return list(dict.fromkeys(entry for entry, _ in launches(spec)))


def load_suite(path: Path | str) -> tuple[KernelSpec, ...]:
    """Add the kernels of a user's module (its ``KERNELS``) to the suite, with their
    sources looked up beside it (``opencl/``, ``wgsl/``, ``cuda/``, ``c/``); once
    per file. SuiteError, naming the file and the kernel, for anything wrong."""
    global ALL, GROUPS
    path = Path(path).resolve()
    if path in LOADED:
        return LOADED[path]
    if path.is_dir():
        raise SuiteError(f"--suite {path}: is a folder; give the Python file that defines KERNELS")
    if path.exists() and not path.is_file():
        raise SuiteError(
            f"--suite {path}: not a regular file; give the Python file that defines KERNELS"
        )
    if not path.is_file():
        raise SuiteError(f"--suite {path}: no such file")
    stamp = _stamp(path)
    kernels = _checked(path, _import(path))
    LOADED[path] = kernels
    _STAMPS[path] = stamp
    for spec in kernels:
        sources.add_root(spec.source_name, path.parent)
    ALL = (*ALL, *kernels)
    BY_NAME.update((k.name, k) for k in kernels)
    GROUPS = tuple(dict.fromkeys(k.group for k in ALL))
    PARAMS.update((p.name, p) for k in kernels for p in k.params)
    return kernels


@contextlib.contextmanager
def only(paths: Iterable[Path | str]) -> Iterator[None]:
    """The suite inside the block as a new process that loads just these suite files
    (and the installed suites) has it: the kernels of another file this process loaded
    before (an earlier ``harness.run(suite=...)``) ran in a later call that did not
    name it, where the command line knows them not."""
    global ALL, GROUPS, LOADED
    kept = {Path(p).expanduser().resolve() for p in (*paths, *installed_suites())}
    hidden = {k.name for path, kernels in LOADED.items() if path not in kept for k in kernels}
    if not hidden:
        yield
        return
    saved = ALL, GROUPS, LOADED, dict(BY_NAME)
    ALL = tuple(k for k in ALL if k.name not in hidden)
    GROUPS = tuple(dict.fromkeys(k.group for k in ALL))
    LOADED = {path: kernels for path, kernels in LOADED.items() if path in kept}
    for name in hidden:
        del BY_NAME[name]
    try:
        yield
    finally:
        ALL, GROUPS, LOADED = saved[:3]
        BY_NAME.update(saved[3])


@contextlib.contextmanager
def blamed(spec: KernelSpec) -> Iterator[None]:
    """Turn an error that a user suite's description raises inside the block (its
    plan, traffic or FLOPs at a size the run asks for, which loading it could not
    try) into a SuiteError naming its file, the kernel and the line: the run's
    planning ended in a traceback. Errors of the harness's own go on as they are."""
    try:
        yield
    except BaseException as exc:
        path = next((p for p, ks in LOADED.items() if spec.name in {k.name for k in ks}), None)
        if path is not None and isinstance(exc, DescriptionError):
            # What a description's function returned, found wrong by the harness.
            raise SuiteError(f"--suite {path}: kernel {spec.name}: {exc}") from None
        frames = traceback.extract_tb(exc.__traceback__)
        if path is None or not any(f.filename == str(path) for f in frames):
            raise
        if not isinstance(exc, Exception) and not _raised_by(path, exc):
            raise  # a stop signal's, raised in its handler
        # SystemExit or another BaseException of the description's own ended the run
        # there, silent with its status or in a traceback.
        said = _raised(path, exc)
    else:
        return
    raise SuiteError(f"--suite {path}: kernel {spec.name}: {said}")


def is_rajaperf(spec: KernelSpec) -> bool:
    """Whether a kernel is one of RAJAPerf's: a shipped one of its groups. A user's
    kernel in group Stream was counted among RAJAPerf's by `harness list`."""
    return spec.group in RAJAPERF_GROUPS and spec.name in SHIPPED


def _stamp(path: Path) -> tuple[int, int] | None:
    """A file's modification time and size (None where it is gone): what an edit changes."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def edited(path: Path | str) -> bool:
    """Whether a suite file this process loaded has changed since: its kernels stay
    as first loaded (`load_suite` loads a file once). A name no file can have (a NUL
    in it) was never loaded: loading it names what is wrong."""
    try:
        path = Path(path).resolve()
    except (OSError, ValueError, RuntimeError):
        return False
    return path in LOADED and _stamp(path) != _STAMPS[path]


def installed_suites() -> list[Path]:
    """The module files of the suites installed packages register (`ENTRY_POINTS`)."""
    found = []
    for entry in importlib.metadata.entry_points(group=ENTRY_POINTS):
        spec = importlib.util.find_spec(entry.value.split(":")[0])
        if spec is not None and spec.origin:
            found.append(Path(spec.origin))
    return found

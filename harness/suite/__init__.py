"""The kernel suite: every description, and selection by name, group or glob."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from pathlib import Path

from harness.model.spec import KernelSpec, Param
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


class SelectionError(ValueError):
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

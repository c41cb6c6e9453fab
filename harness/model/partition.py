"""How a launch's items are dealt to work-items: the ``--partition`` run option.

An entry point that walks its items with the shared C dialect's ``FOR_EACH``
and reads no other id (no ``GLOBAL_ID``, no work-group memory, no barrier) is
correct at any number of work-items, so a backend may launch fewer than it has
items and give each several. There are three ways to deal them:

- ``item``: one item per work-item, the launch covering its items;
- ``stride``: `GROUPS_PER_UNIT` work-groups per compute unit, each work-item
  taking every global-size-th item: a GPU's grid-stride loop, whose neighbours
  read neighbouring addresses together;
- ``chunk``: as many work-items, each taking a contiguous run of items: what a
  CPU device's vector units and prefetchers want (on PoCL twice the speed of
  ``item`` for a copy that fits in the cache; ``stride`` is ten times slower
  there).

By default (``auto``) a CPU device runs each kernel both by ``item`` and by
``chunk`` for a moment and takes the faster (`candidates`); others take
``item``. A two-axis launch whose entry point walks with ``FOR_EACH_2D``
becomes a one-axis launch under ``chunk``, each work-item taking a run of
whole rows; under ``stride`` it keeps one item per work-item. Launches over
three axes, and entry points that use ids of their own, always take one item
per work-item.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable, Sequence

from harness.errors import UsageError
from harness.model.sources import taken_lines
from harness.model.spec import KernelSpec, Launch, axes

PARTITIONS = ("item", "stride", "chunk")
#: The default: the device kind's choice (`candidates`).
AUTO = "auto"
#: Work-groups per compute unit of a ``stride`` or ``chunk`` launch: enough to
#: fill a GPU's multiprocessors and to balance a CPU's threads.
GROUPS_PER_UNIT = 8
#: The macro that turns the dialect's FOR_EACH into the contiguous walk.
CHUNK_MACRO = "PARTITION_CHUNK"
#: The macro a backend defines for a CPU device, under which a body may have a
#: form of its own (`walking_entries` reads the branch the device compiles).
CPU_MACRO = "HARNESS_CPU_DEVICE"

#: Words of the dialect by which code depends on its work-item's place.
_PLACED = re.compile(
    r"\b(GLOBAL_ID|LOCAL_ID|GROUP_ID|GLOBAL_SIZE|NUM_GROUPS|BARRIER|GLOBAL_BARRIER|SHARED|"
    r"LOCAL|get_global_id|get_local_id|get_group_id|get_global_size|get_num_groups|barrier)\b"
)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_FUNCTION = re.compile(r"\b(KERNEL|DEVICE)\b[^;{}()]*?\b(\w+)\s*\([^;{}]*?\)\s*\{")
_CALL = re.compile(r"\b(\w+)\s*\(")


#: Environment variable that picks the form of C bodies every device compiles,
#: ``cpu`` or ``gpu``, whatever its kind: the GPU forms then run, and are
#: verified, on a CPU device (the tests do so on PoCL).
FORM_ENV = "HARNESS_FORM"


def form_override() -> str | None:
    """The form `FORM_ENV` asks for, or None; a UsageError for another value."""
    form = os.environ.get(FORM_ENV, "")
    if form not in ("", "cpu", "gpu"):
        raise UsageError(f"{FORM_ENV}={form!r}: expected cpu or gpu (or unset)")
    return form or None


def device_macros(kind: str) -> frozenset[str]:
    """The macros a device of this kind (`DeviceInfo.kind`) compiles C bodies with."""
    form = form_override() or ("cpu" if "cpu" in kind.split("/") else "gpu")
    return frozenset({CPU_MACRO}) if form == "cpu" else frozenset()


def compiled_lines(text: str, defined: frozenset[str]) -> str:
    """``text`` with the lines an ``#ifdef``/``#ifndef`` of a macro excludes where
    exactly ``defined`` are defined left out (their ``#else`` branches likewise);
    under any other condition, and from an ``#elif`` on, every branch is kept
    (`sources.taken_lines`)."""
    lines = text.split("\n")
    return "\n".join(
        line for line, taken in zip(lines, taken_lines(lines, defined), strict=True) if taken
    )


def candidates(kind: str, offered: Sequence[str]) -> tuple[str, ...]:
    """The partitions ``auto`` chooses among on a device of this kind
    (`DeviceInfo.kind`), of those its backend ``offered``: ``item`` and ``chunk``
    on a CPU device (neither wins for every kernel there: a branchy loop body that
    work-items vectorise together may not vectorise as a loop), ``item`` elsewhere."""
    wanted = ("item", "chunk") if "cpu" in kind.split("/") else ("item",)
    return tuple(p for p in wanted if p in offered) or tuple(offered[:1])


def body_end(text: str, opening: int) -> int:
    """Where the brace that closes the one at ``opening`` is (the text's end if none)."""
    depth, end = 0, opening
    for end in range(opening, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            break
    return end


def _functions(text: str) -> dict[str, tuple[bool, str]]:
    """Each function of a C source: (whether it is an entry point, its body); a
    function defined more than once (under conditions kept whole) gets every body."""
    text = _COMMENT.sub(" ", text)
    found: dict[str, tuple[bool, str]] = {}
    for match in _FUNCTION.finditer(text):
        end = body_end(text, match.end() - 1)
        before = found.get(match.group(2), (False, ""))[1]
        found[match.group(2)] = (match.group(1) == "KERNEL", before + text[match.end() : end])
    return found


def walking_entries(text: str, defined: frozenset[str] = frozenset()) -> frozenset[str]:
    """The entry points of a C-dialect source that walk their items with FOR_EACH
    and depend on their work-item's place in no other way, through the helpers
    they call either, as a device compiling with the macros ``defined`` sees them."""
    functions = _functions(compiled_lines(text, defined))
    placed = {name for name, (_, body) in functions.items() if _PLACED.search(body)}
    changed = True
    while changed:  # a function calling a placed helper is placed too
        changed = False
        for name, (_, body) in functions.items():
            if name not in placed and placed & set(_CALL.findall(body)):
                placed.add(name)
                changed = True
    return frozenset(
        name
        for name, (entry, body) in functions.items()
        if entry and name not in placed and "FOR_EACH" in body
    )


def partitioned(
    spec: KernelSpec, partition: str, walking: Iterable[str], compute_units: int
) -> KernelSpec:
    """The kernel with its walking launches dealt as ``partition`` says on a
    device of ``compute_units``: fewer work-items for ``stride`` and ``chunk`` (a
    two-axis walk, under ``chunk`` only, a one-axis launch of at most a work-item
    per row), and the contiguous walks for ``chunk`` (itself for ``item``)."""
    if partition not in PARTITIONS:
        raise ValueError(f"unknown partition {partition!r}; choose from {', '.join(PARTITIONS)}")
    if partition == "item":
        return spec
    walking, plan = frozenset(walking), spec.plan
    groups = max(1, compute_units) * GROUPS_PER_UNIT

    def dealt(n: int) -> list[Launch]:
        launches = []
        for launch in plan(n):
            most, walks = groups * launch.threads, launch.entry in walking
            if walks and launch.dims == 1 and launch.items > most:
                launch = dataclasses.replace(launch, items=most)
            elif walks and launch.dims == 2 and partition == "chunk":
                # FOR_EACH_2D deals a two-axis launch's rows along one axis, over
                # as many work-groups as a one-axis walk (on PoCL FLOYD_WARSHALL's
                # 1000 rows took 0.095 ms a step in 16 groups, 0.103 in 4 of 256).
                items = min(most, axes(launch.items)[1])
                group = min(launch.threads, max(1, -(-items // groups)))
                launch = dataclasses.replace(launch, items=items, group=group)
            launches.append(launch)
        return launches

    constants = dict(spec.constants)
    if partition == "chunk":
        constants[CHUNK_MACRO] = 1
    return dataclasses.replace(spec, plan=dealt, constants=constants)

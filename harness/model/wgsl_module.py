"""The WGSL a source leaves out, written from its description.

A WGSL source may hold only its kernel's code: where it declares no binding,
the backend declares, for each launch, every array as
``@group(0) @binding(i) var<storage, ACCESS> NAME: array<TYPE>;`` (i its
place among the launch's arguments, ACCESS ``read`` for an array of intent
``in``, else ``read_write``) and the launch's scalars as the fields of
``struct Scalars`` bound as ``s`` at the next binding. A declared name is the
description's argument name, so a source whose entry point is launched on
different arrays (a ping-pong between A and B), or that needs a type these
declarations cannot write (atomics, 64-bit keys), declares every binding
itself, as before.

Since two entry points of one source may bind different arrays at the same
binding, the module for one launch keeps only its entry point and the
functions it calls; the others' lines are blanked, so compiler messages keep
the source's line numbers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from harness.model.spec import KernelSpec

#: WGSL's name for each element type a declaration can be written for.
_TYPES = {"real": "REAL", "f32": "f32", "f64": "f64", "i32": "i32", "u32": "u32"}

_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_FUNCTION = re.compile(r"((?:@[\w]+(?:\([^)]*\))?\s*)*)\bfn\s+(\w+)\s*\(")


def without_comments(text: str) -> str:
    """The text with comments blanked, newlines kept, so offsets and lines still match."""
    return _COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), text)


@dataclass(frozen=True)
class Function:
    """A module-scope function: where it lies in the text, and whether it is an entry point."""

    name: str
    start: int
    end: int
    entry: bool


def functions(text: str) -> dict[str, Function]:
    """Every module-scope function of a WGSL text, attributes included in its span."""
    code = without_comments(text)
    found = {}
    for match in _FUNCTION.finditer(code):
        if any(f.start <= match.start() < f.end for f in found.values()):
            continue
        brace = code.index("{", match.end())
        depth, i = 0, brace
        while True:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
            if depth == 0:
                break
        found[match[2]] = Function(match[2], match.start(), i, "@compute" in match[1])
    return found


def called(text: str, entry: str) -> set[str]:
    """The functions an entry point reaches, itself included."""
    code = without_comments(text)
    table = functions(text)
    seen, todo = {entry}, [entry]
    while todo:
        f = table[todo.pop()]
        for word in set(re.findall(r"\w+", code[f.start : f.end])):
            if word in table and word not in seen:
                seen.add(word)
                todo.append(word)
    return seen


@dataclass(frozen=True)
class Argument:
    """One argument of a launch as a declaration needs it."""

    name: str
    dtype: str
    read_only: bool
    array: bool


def declarations(arguments: Sequence[Argument]) -> list[str]:
    """The declarations of one launch of these arguments.

    ValueError names an argument whose type WGSL cannot be written for here
    (64-bit integers, a type alias): the source must declare its bindings.
    """
    arrays = [a for a in arguments if a.array]
    scalars = [a for a in arguments if not a.array]
    lines = []
    for binding, array in enumerate(arrays):
        access = "read" if array.read_only else "read_write"
        lines.append(
            f"@group(0) @binding({binding}) var<storage, {access}> "
            f"{array.name}: array<{_wgsl_type(array)}>;"
        )
    if scalars:
        fields = " ".join(f"{s.name}: {_wgsl_type(s)}," for s in scalars)
        lines.append(f"struct Scalars {{ {fields} }}")
        lines.append(f"@group(0) @binding({len(arrays)}) var<uniform> s: Scalars;")
    return lines


def _wgsl_type(argument: Argument) -> str:
    if argument.dtype not in _TYPES:
        raise ValueError(
            f"{argument.name} is {argument.dtype}, which WGSL has no type for here: "
            "declare its binding in the source"
        )
    return _TYPES[argument.dtype]


def for_entry(text: str, entry: str) -> str:
    """The source with every function the entry point does not reach blanked out."""
    keep = called(text, entry)
    out = text
    for f in sorted(functions(text).values(), key=lambda f: -f.start):
        if f.name not in keep:
            out = out[: f.start] + re.sub(r"[^\n]", " ", out[f.start : f.end]) + out[f.end :]
    return out


def leaves_declarations(text: str) -> bool:
    """Whether a source leaves its bindings to the backend: it declares none."""
    return "@binding(" not in without_comments(text)


def arguments(spec: KernelSpec, names: Sequence[str]) -> list[Argument]:
    """A launch's arguments, by name, with the types and access the description gives."""
    arrays = {a.name: a for a in spec.arrays}
    scalars = {s.name: s for s in spec.scalars}
    return [
        Argument(n, arrays[n].dtype, arrays[n].intent == "in", True)
        if n in arrays
        else Argument(n, scalars[n].dtype, True, False)
        for n in names
    ]


def for_launch(
    text: str, spec: KernelSpec, entry: str, names: Sequence[str]
) -> tuple[list[str], str]:
    """What a backend compiles for one launch of ``entry`` on the arguments ``names``:
    the declaration lines to put first and the source text. A source that declares
    its bindings is taken as it is, with nothing put first."""
    if not leaves_declarations(text):
        return [], text
    return declarations(arguments(spec, names)), for_entry(text, entry)

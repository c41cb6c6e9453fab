"""The calling convention between a description and its sources, checked without a device.

A launch passes the description's arrays, then its scalars, in ``Launch.args``
order. In OpenCL C and CUDA C that is the entry point's parameter list: one
pointer per array (element type as the array's, ``const`` for arrays the
kernel only reads), then one value per scalar; a parameter named after another
argument of the same launch is a swap. In WGSL it is binding i
for array i (``read`` access exactly for arrays the kernel only reads), then
one uniform struct whose fields are the scalars in order. Types are compared
through ``REAL`` and the description's type aliases; an alias may stand for
any type of the same size (a sort reads keys as unsigned words).

A shared C body (kernels/c/) is checked once per language that compiles it,
through that language's prelude of the dialect's words.

`problems` lists every mismatch for one kernel and language, so a test can
hold every source to its description, and a user's new kernel gets the same
check.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.model import sources, wgsl_module
from harness.model.spec import KernelSpec, axes, library_routine, numpy_dtype, param_choices

#: Each language: its folder and file suffix (OpenCL and CUDA fall back on the
#: shared C bodies, see `sources.find`).
LANGUAGES = {"opencl": ".cl", "cuda": ".cu", "wgsl": ".wgsl"}

_C_WORDS = {
    "float": "f32",
    "double": "f64",
    "int": "i32",
    "uint": "u32",
    "unsigned": "u32",
    "unsigned int": "u32",
    "long": "i64",
    "long long": "i64",
    "ulong": "u64",
    "unsigned long": "u64",
    "unsigned long long": "u64",
    "f32": "f32",
    "f64": "f64",
    "i32": "i32",
    "u32": "u32",
    "REAL": "real",
}
_QUALIFIERS = {
    "__global",
    "global",
    "__constant",
    "constant",
    "const",
    "restrict",
    "__restrict__",
    "volatile",
}


@dataclass(frozen=True)
class Parameter:
    """One parameter of a C entry point, or one binding or field of a WGSL one."""

    name: str
    type: str
    pointer: bool
    read_only: bool


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def c_entries(text: str) -> dict[str, list[Parameter]]:
    """Entry points (``__kernel`` or ``__global__``) and their parameters."""
    found: dict[str, list[Parameter]] = {}
    pattern = re.compile(r"(?:__kernel|kernel|__global__)\s+void\s+(\w+)\s*\(([^)]*)\)", re.S)
    for match in pattern.finditer(sources.preprocess_c(text, markers=False)):
        params = []
        for part in match[2].split(","):
            words = re.findall(r"\w+|\*", part)
            if not words:
                continue
            pointer = "*" in words
            # const before the star (the elements), or OpenCL's constant space.
            before = words[: words.index("*")] if pointer else []
            read_only = bool({"const", "__constant", "constant"} & set(before))
            name = words[-1]
            kept = [w for w in words[:-1] if w not in _QUALIFIERS and w != "*"]
            params.append(Parameter(name, " ".join(kept), pointer, read_only))
        found[match[1]] = params
    return found


def wgsl_entries(text: str) -> dict[str, list[Parameter]]:
    """Entry points and what they bind, in binding order: storage arrays, then the
    uniform struct's fields (marked as not pointers)."""
    code = wgsl_module.without_comments(text)
    bindings = {}
    for m in re.finditer(
        r"@binding\((\d+)\)\s*var<\s*(\w+)\s*(?:,\s*(\w+))?\s*>\s*(\w+)\s*:\s*([^;]+);", code
    ):
        space, access, name, kind = m[2], m[3] or "read", m[4], m[5].strip()
        bindings[name] = (int(m[1]), "uniform" if space == "uniform" else access, kind)
    structs = {}
    for m in re.finditer(r"struct\s+(\w+)\s*\{([^}]*)\}", code):
        fields = re.findall(r"(\w+)\s*:\s*([\w<>, ]+?)\s*(?:,|$)", m[2].strip())
        structs[m[1]] = [(f, t.strip()) for f, t in fields]
    functions = wgsl_module.functions(text)
    found = {}
    for entry in (f.name for f in functions.values() if f.entry):
        used = set()
        for name in wgsl_module.called(text, entry):
            f = functions[name]
            body = code[code.index("{", f.start) : f.end]
            used |= set(re.findall(r"(?<![.\w])\w+", body)) & bindings.keys()
        params: list[Parameter] = []
        for name in sorted(used, key=lambda n: bindings[n][0]):
            binding, access, kind = bindings[name]
            if access == "uniform":
                for field, ftype in structs.get(kind, []):
                    params.append(Parameter(field, ftype, False, True))
                continue
            element = re.fullmatch(r"array<\s*(?:atomic<\s*)?([\w<>]+?)\s*>?\s*>", kind)
            element_type = element[1] if element else kind
            params.append(Parameter(f"{name}@{binding}", element_type, True, access == "read"))
        found[entry] = params
    return found


def _size(dtype: str) -> int:
    return numpy_dtype(dtype, "f64").itemsize


def _matches(spec: KernelSpec, written: str, wanted: str) -> bool:
    """Whether a source's type word stands for a description's element type."""
    if written in spec.type_aliases:
        alias = spec.type_aliases[written]
        return alias == wanted or (
            alias != "real" and wanted != "real" and _size(alias) == _size(wanted)
        )
    if written == "REAL_BITS":
        return wanted == "real"
    if written == "vec2<u32>":
        return wanted != "real" and _size(wanted) == 8
    return _C_WORDS.get(written) == wanted


def group_problems(spec: KernelSpec) -> list[str]:
    """Launches whose work-group's shape is not the description's ``group_size``,
    which every backend hands the sources as GROUP and GROUP_X, _Y, _Z, nor one
    of its ``other_groups``, which the sources build from its constants."""
    choices = {p.name: p.choices for p in spec.params}
    found = []
    for combo in param_choices(spec, choices):
        bound = spec.with_params(dict(combo))
        allowed = {axes(bound.group_size), *(axes(g) for g in bound.other_groups)}
        for size in (*bound.sizes_for_check, bound.default_size):
            for launch in bound.plan(size):
                if library_routine(launch.entry) is not None:
                    continue
                if launch.group_axes not in allowed:
                    found.append(
                        f"{bound.name}: launch {launch.entry} at size {size} has groups of "
                        f"{launch.group}, but the sources' GROUP is {bound.group_size}"
                    )
    return list(dict.fromkeys(found))


def launches(spec: KernelSpec) -> dict[tuple[str, tuple[str, ...]], KernelSpec]:
    """Every entry point a kernel's plans launch and the arguments it gets, over
    every choice of its run options and its check and default sizes."""
    choices = {p.name: p.choices for p in spec.params}
    found: dict[tuple[str, tuple[str, ...]], KernelSpec] = {}
    for combo in param_choices(spec, choices):
        bound = spec.with_params(dict(combo))
        for size in (*bound.sizes_for_check, bound.default_size):
            for launch in bound.plan(size):
                if library_routine(launch.entry) is None:
                    found.setdefault((launch.entry, launch.args), bound)
    return found


def problems(spec: KernelSpec, language: str, roots: Sequence[Path] = ()) -> list[str]:
    """Every way the source a language compiles (its own, else the shared C body,
    looked up in ``roots`` first as ``--sources`` does) disagrees with the
    description; [] if none, or if the kernel has no source for that language.

    A C source is read through its language's prelude, so a shared body is
    checked as OpenCL and as CUDA each sees it."""
    path = sources.find(language, LANGUAGES[language], spec.source_name, roots)
    if path is None:
        return []
    text = sources.expand(path).text
    prelude = sources.prelude(language)
    if prelude is not None:
        text = prelude.text + text
    entries = wgsl_entries(text) if language == "wgsl" else c_entries(text)
    found = []
    for (entry, args), bound in launches(spec).items():
        where = f"{path.name}: {entry}"
        arrays = {a.name: a for a in bound.arrays}
        scalars = {s.name: s for s in bound.scalars}
        if language == "wgsl":
            try:
                written, body = wgsl_module.for_launch(text, bound, entry, args)
                entries = wgsl_entries("\n".join(written) + "\n" + body)
            except ValueError as exc:
                found.append(f"{where}: {exc}")
                continue
        if entry not in entries:
            found.append(f"{where}: no such entry point")
            continue
        params = entries[entry]
        if len(params) != len(args):
            written = ", ".join(p.name for p in params)
            found.append(
                f"{where}: {len(params)} parameters ({written}), "
                f"the description passes {len(args)} ({', '.join(args)})"
            )
            continue
        for k, (param, arg) in enumerate(zip(params, args, strict=True)):
            label = f"{where}: parameter {k + 1} ({param.name}) gets {arg}"
            named = param.name.split("@")[0]
            if named != arg and named in args:
                found.append(f"{label}: the arguments are swapped")
            elif arg in arrays:
                array = arrays[arg]
                if language == "wgsl" and not param.name.endswith(f"@{k}"):
                    found.append(f"{label}, an array, at binding {k}; it is bound elsewhere")
                elif not param.pointer:
                    found.append(f"{label}, an array, but takes a value")
                elif not _matches(bound, param.type, array.dtype):
                    found.append(f"{label} of {array.dtype}, but its elements are {param.type}")
                elif array.intent == "in" and not param.read_only:
                    found.append(f"{label}, which it only reads, but is writable")
                elif language == "wgsl" and param.read_only and array.intent != "in":
                    found.append(f"{label} ({array.intent}), but binds it read-only")
            else:
                scalar = scalars[arg]
                if param.pointer:
                    found.append(f"{label}, a scalar, but takes an array")
                elif not _matches(bound, param.type, scalar.dtype):
                    found.append(f"{label} of {scalar.dtype}, but is {param.type}")
    return found


def repeated_lines(a: str, b: str) -> list[str]:
    """The lines of code two sources share word for word (stripped, leaving out
    blank lines, comments and lines of punctuation alone), for catching a body
    written twice where the shared dialect would do."""

    def code(text: str) -> list[str]:
        lines = (line.strip() for line in _strip_comments(text).splitlines())
        return [line for line in lines if re.search(r"\w", line)]

    theirs = set(code(b))
    return list(dict.fromkeys(line for line in code(a) if line in theirs))


def written_twice(root: Path, most: int = 5) -> list[str]:
    """Backend-only sources under a sources folder (``root/opencl/*.cl``,
    ``root/cuda/*.cu``) that share more than ``most`` lines of code with the
    shared body or the other backend's version of the same kernel: a body
    written twice where the dialect would have served both."""
    own = {"opencl": ".cl", "cuda": ".cu"}
    found = []
    for folder, suffix in own.items():
        for path in sorted((root / folder).glob(f"*{suffix}")):
            others = [root / "c" / f"{path.stem}.c"]
            others += [root / f / f"{path.stem}{x}" for f, x in own.items() if f != folder]
            for other in (o for o in others if o.is_file()):
                shared = repeated_lines(path.read_text(), other.read_text())
                if len(shared) > most:
                    found.append(
                        f"{folder}/{path.name} repeats {len(shared)} lines of "
                        f"{other.parent.name}/{other.name}"
                    )
    return found

"""Finding a kernel's source: ``kernels/<language>/<kernel name><extension>``.

OpenCL and CUDA share one body per kernel, ``kernels/c/<kernel>.c``, written in
a C dialect that each backend defines in its prelude (``kernels/opencl/dialect.clh``,
``kernels/cuda/dialect.cuh``); a file in the backend's own folder overrides the
shared body where a backend needs its own version.

The shipped sources live in the package (``harness.kernels``); extra folders
given with ``--sources`` are searched first, so a user can try a modified
kernel without touching the installation.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path


def shipped_root() -> Path:
    """The folder holding the shipped ``opencl/``, ``wgsl/`` and ``cuda/`` sources.

    Installed, that is the ``harness.kernels`` package; in a clone that was not
    installed it is the ``kernels/`` folder beside ``harness/``.
    """
    try:
        return Path(str(resources.files("harness.kernels")))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "kernels"


#: The folder and suffix of the bodies OpenCL and CUDA share.
SHARED_C = ("c", ".c")

#: Each language's prelude: the shared dialect's words in that language.
PRELUDES = {"opencl": "dialect.clh", "cuda": "dialect.cuh"}


def places(language: str, extension: str) -> tuple[tuple[str, str], ...]:
    """The (folder, suffix) pairs a language's sources are looked up in, in order:
    its own folder, then the shared C bodies for a language with a prelude."""
    return ((language, extension), *((SHARED_C,) if language in PRELUDES else ()))


#: Folders of user suites' sources, by kernel source stem (`add_root`).
_ROOTS: dict[str, Path] = {}


def add_root(kernel: str, root: Path) -> None:
    """Look up ``kernel``'s sources in ``root`` (a user suite's folder) before the
    shipped ones."""
    _ROOTS[kernel] = root


def find(language: str, extension: str, kernel: str, extra: Sequence[Path] = ()) -> Path | None:
    """The source a backend compiles for ``kernel``: at each root (the ``extra``
    folders, the kernel's user suite folder, then the shipped one) its own
    ``<language>/<kernel><extension>``, then the shared ``c/<kernel>.c``; None if
    there is neither."""
    own = (_ROOTS[kernel],) if kernel in _ROOTS else ()
    for root in (*extra, *own, shipped_root()):
        for folder, suffix in places(language, extension):
            path = Path(root) / folder / f"{kernel}{suffix}"
            if path.is_file():
                return path
    return None


def looked_for(language: str, extension: str, kernel: str) -> str:
    """Where `find` looked for ``kernel``'s source, in words for a skip reason: its
    user suite's folder where it has one (not the shipped ``kernels/``, which a
    user's kernel has no source in), else ``kernels/``."""
    root = str(_ROOTS[kernel]) if kernel in _ROOTS else "kernels"
    return " or ".join(
        f"{root}/{folder}/{kernel}{suffix}" for folder, suffix in places(language, extension)
    )


#: An ``#include "file"`` line, a comment after it allowed, as C allows it.
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*(?://.*|/\*.*\*/\s*)?$')


def lines_of(text: str) -> list[str]:
    """A source's lines as a C compiler counts them: split at newlines only (with a
    carriage return before one dropped), so that a form feed or U+2028 inside a
    comment, which `str.splitlines` would break at, stays in its line."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _kind(path: Path) -> str:
    """What a path that is not a regular file is, in words."""
    if path.is_symlink() and not path.exists():
        return "a link to nothing"
    return "a folder" if path.is_dir() else "not a regular file (a device, pipe or socket)"


def check_folder(root: Path, places: Sequence[tuple[str, str]], stems: Sequence[str]) -> None:
    """ValueError naming the first kernel source under ``root`` (a ``--sources``
    folder) that cannot be compiled: not a regular file, not UTF-8, empty, or
    including a file that is missing or in an include cycle. Found before any work,
    where a compiler would name none of it."""
    for folder, suffix in places:
        for stem in stems:
            path = root / folder / f"{stem}{suffix}"
            if path.is_file():
                expand(path)
            elif path.exists() or path.is_symlink():
                raise ValueError(f"{folder}/{path.name} is {_kind(path)}")


@dataclass(frozen=True)
class Expanded:
    """A source with its ``#include "file"`` lines replaced by the files' text.

    ``origin[k]`` is the (file name, line number) that output line k+1 came
    from, so a backend can point compiler messages at the file a user edits.
    """

    text: str
    origin: tuple[tuple[str, int], ...]

    def where(self, line: int) -> str:
        """``file:line`` for a 1-based line of the expanded text."""
        if 1 <= line <= len(self.origin):
            name, number = self.origin[line - 1]
            return f"{name}:{number}"
        return f"line {line}"

    def with_line_directives(self) -> str:
        """The text with C ``#line`` directives, so C compilers name the real file.

        A directive also follows every conditional (``#if`` ... ``#endif``): one
        inside a group the preprocessor skips is ignored, so an ``#include``
        there would otherwise leave every later line numbered as if the
        included file's lines had been counted.
        """
        out = []
        previous: tuple[str, int] | None = None
        for line, (name, number) in zip(lines_of(self.text), self.origin, strict=True):
            if previous is None or previous[0] != name or previous[1] + 1 != number:
                out.append(f'#line {number} "{name}"')
            out.append(line)
            previous = None if _CONDITION.match(line) else (name, number)
        return "\n".join(out) + "\n"


def expand(path: Path, _seen: tuple[Path, ...] = ()) -> Expanded:
    """The source at ``path`` with includes (relative to its folder) expanded.

    Kernels that share most of their code (the sorts of several key types)
    keep it in one included file; every backend compiles the expanded text, so
    this works the same for OpenCL C, CUDA C and WGSL.
    """
    if path in _seen:
        chain = " includes ".join(p.name for p in (*_seen[_seen.index(path) :], path))
        raise ValueError(f"an include cycle: {chain}")
    lines: list[str] = []
    origin: list[tuple[str, int]] = []
    if (path.exists() or path.is_symlink()) and not path.is_file():
        # A device or pipe would be read for ever (/dev/zero until memory runs out).
        raise ValueError(f"{path.name} is {_kind(path)}, where a source file is expected")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None
    if not _seen and not raw.strip():
        raise ValueError(f"{path.name}: empty, where a kernel's source is expected")
    try:
        # A byte-order mark, which some editors write, is no character of the source.
        whole = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ValueError(f"{path.name}:{line}: not UTF-8 text") from None
    dead: list[bool] = []  # per open conditional: whether it is an ``#if 0`` group
    for number, line in enumerate(lines_of(whole), 1):
        if _RENUMBER.match(line):
            raise ValueError(
                f"{path.name}:{number}: {line.strip()!r}: a #line directive renumbers the "
                "lines the harness numbers itself (compiler messages, mutants); a source "
                "without one is accepted"
            )
        _follow_if_0(line, dead)
        match = _INCLUDE.match(line)
        if match and not any(dead):
            inner = expand(path.parent / match.group(1), (*_seen, path))
            lines.extend(lines_of(inner.text))
            origin.extend(inner.origin)
        else:
            lines.append(line)
            origin.append((path.name, number))
    return Expanded("".join(f"{line}\n" for line in lines), tuple(origin))


def _follow_if_0(line: str, dead: list[bool]) -> None:
    """Keep ``dead`` (one flag per open conditional) up to date with a line: a C
    preprocessor skips an ``#include`` inside ``#if 0``, so the file it names
    need not exist, and it is left for the compiler to skip."""
    found = _CONDITION.match(line)
    if found is None:
        return
    word, name = found.groups()
    if word.startswith("if"):
        dead.append(word == "if" and name == "0" and _IF_0.match(line) is not None)
    elif dead and word in ("elif", "else"):
        dead[-1] = False
    elif dead and word == "endif":
        dead.pop()


#: A ``#line`` directive, or the ``# 12 "file"`` marker a preprocessor writes.
_RENUMBER = re.compile(r"^\s*#\s*(line\b|\d)")
#: ``#if 0``, with nothing after but a comment.
_IF_0 = re.compile(r"^\s*#\s*if\s+0\s*(?://.*|/\*.*)?$")
#: A conditional directive, with the macro an #ifdef or #ifndef names.
_CONDITION = re.compile(r"^\s*#\s*(ifdef|ifndef|if|elif|else|endif)\b\s*(\w*)")
#: The conditionals WGSL sources may use.
_WGSL_CONDITIONS = ("ifdef", "ifndef", "else", "endif")
#: A loop written out: ``#unroll NAME COUNT`` ... ``#endunroll``.
_UNROLL = re.compile(r"^\s*#\s*(unroll|endunroll)\b(.*)$")
_UNROLL_HEAD = re.compile(r"\s+([A-Za-z_]\w*)\s+(\d+)\s*(?://.*)?$")
#: The most copies one ``#unroll`` makes: a source's size is the driver's compile time.
MAX_UNROLL = 256


def taken_lines(lines: Sequence[str], defined: frozenset[str]) -> Iterator[bool | None]:
    """For each line, whether a preprocessor where exactly ``defined`` are
    defined compiles it, or None for a conditional directive itself. Only
    ``#ifdef``/``#ifndef`` are decided: under any other condition, and from an
    ``#elif`` on, every branch counts as compiled. A ValueError names the line
    number of an ``#else`` or ``#endif`` with nothing open, or of an opening
    left without its ``#endif``."""
    stack: list[list] = []  # per open condition: [known, taking, line, directive]
    for number, line in enumerate(lines, 1):
        found = _CONDITION.match(line)
        if found is None:
            yield all(taking for _, taking, _, _ in stack)
            continue
        word, name = found.groups()
        if word in ("ifdef", "ifndef"):
            stack.append([True, (name in defined) == (word == "ifdef"), number, word])
        elif word == "if":
            stack.append([False, True, number, word])
        elif not stack:
            raise ValueError(f"{number}: #{word} without #if, #ifdef or #ifndef")
        elif word == "elif":
            stack[-1][:2] = [False, True]
        elif word == "else":
            stack[-1][1] = not stack[-1][1] if stack[-1][0] else True
        else:
            stack.pop()
        yield None
    if stack:
        raise ValueError(f"{stack[-1][2]}: this #{stack[-1][3]} has no #endif")


def select_branches(expanded: Expanded, defined: frozenset[str]) -> Expanded:
    """The text with the lines of ``#ifdef NAME``/``#ifndef NAME``/``#else``/
    ``#endif`` blocks that ``defined`` excludes, and those directives, blanked:
    WGSL has no preprocessor, and a body whose CPU-device form differs
    (`harness.model.partition.CPU_MACRO`) needs one. Blank lines keep every
    line where it was, and ``origin`` names each line of the loops `unroll`
    writes out, so compiler messages still name the right file and line.
    """
    lines = expanded.text.split("\n")
    for number, line in enumerate(lines, 1):
        found = _CONDITION.match(line)
        if (
            line.lstrip().startswith("#")
            and (found is None or found[1] not in _WGSL_CONDITIONS)
            and not _UNROLL.match(line)
        ):
            raise ValueError(
                f"{expanded.where(number)}: {line.strip()!r}: WGSL sources take only "
                "#include, #ifdef NAME, #ifndef NAME, #else, #endif, #unroll NAME COUNT "
                "and #endunroll"
            )
    try:
        taken = list(taken_lines(lines, defined))
    except ValueError as exc:
        number, problem = str(exc).split(": ", 1)
        raise ValueError(f"{expanded.where(int(number))}: {problem}") from None
    out = [line if keep else "" for line, keep in zip(lines, taken, strict=True)]
    return unroll(Expanded("\n".join(out), expanded.origin))


def unroll(expanded: Expanded) -> Expanded:
    """The loops of ``#unroll NAME COUNT`` ... ``#endunroll`` written out: the
    lines between, COUNT times, each copy a block that begins ``const NAME = K;``
    (K from 0). naga bounds every loop with a counter and a second exit, which
    keeps drivers from unrolling it, and clamps each index it cannot see is in
    range; written out, a loop has neither, and its indices are constants. A
    source's constants are the description's: a ``const_assert`` beside the
    directive ties its COUNT to them. ``origin`` names each copied line's own.
    """
    lines = expanded.text.split("\n")
    # The text's last line break leaves an empty line that has no origin.
    extra = max(0, len(lines) - len(expanded.origin))
    origin = list(expanded.origin) + [("", 0)] * extra
    out: list[str] = []
    where: list[tuple[str, int]] = []
    # Per open #unroll: its name, count, line index, and where its copy starts.
    open_: list[tuple[str, int, int, int]] = []
    for i, line in enumerate(lines):
        found = _UNROLL.match(line)
        if found is None:
            out.append(line)
            where.append(origin[i])
            continue
        if found[1] == "unroll":
            head = _UNROLL_HEAD.match(found[2])
            if head is None or not 1 <= int(head[2]) <= MAX_UNROLL:
                raise ValueError(
                    f"{expanded.where(i + 1)}: {line.strip()!r}: give #unroll NAME COUNT, "
                    f"a loop variable's name and a count from 1 to {MAX_UNROLL}"
                )
            open_.append((head[1], int(head[2]), i, len(out)))
            continue
        if not open_:
            raise ValueError(f"{expanded.where(i + 1)}: #endunroll without #unroll")
        name, count, at, start = open_.pop()
        body, body_where = out[start:], where[start:]
        del out[start:], where[start:]
        for k in range(count):
            out += [f"{{ const {name} = {k};", *body, "}"]
            where += [origin[at], *body_where, origin[i]]
    if open_:
        raise ValueError(f"{expanded.where(open_[-1][2] + 1)}: this #unroll has no #endunroll")
    return Expanded("\n".join(out), tuple(where[: len(where) - extra]))


def prelude(language: str) -> Expanded | None:
    """The shipped prelude a backend puts in front of every C source, or None."""
    name = PRELUDES.get(language)
    return expand(shipped_root() / language / name) if name else None


def with_includes(path: Path) -> list[Path]:
    """A source and every file it includes, directly or not, each once, in order."""
    files = [path]
    for source in files:
        dead: list[bool] = []
        for line in lines_of(source.read_text(encoding="utf-8-sig")):
            _follow_if_0(line, dead)
            match = _INCLUDE.match(line)
            if match and not any(dead) and (source.parent / match[1]) not in files:
                files.append(source.parent / match[1])
    return files


def digest(path: Path) -> str:
    """A short SHA-256 of the source as compiled: its text with includes expanded,
    so that an edit to an included file counts as a change too."""
    return text_digest(expand(path).text)


def text_digest(text: str) -> str:
    """`digest` of a source's expanded text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def shown(path: Path) -> str:
    """The path a row records: relative to the shipped folder (``c/X.c``),
    or in full for a source from ``--sources``."""
    try:
        return path.resolve().relative_to(shipped_root().resolve()).as_posix()
    except ValueError:
        return str(path.resolve())


def preprocess_c(text: str, *, markers: bool, used: bool = False) -> str:
    """C text after the C preprocessor, with no system macros or headers (so the
    backends' own macros, REAL and the description's, stay words). With
    ``markers``, ``# line "file"`` lines say where the output came from and
    ``#define`` lines are kept; with ``used``, the ``#define`` lines of the macros
    expanded or tested alone are (where they were used, not defined)."""
    cpp = shutil.which("cpp")
    if cpp is None:
        raise RuntimeError("reading C sources needs the C preprocessor: install cpp (gcc)")
    flags = ["-dU"] if used else ["-dD"] if markers else ["-P"]
    done = subprocess.run(
        [cpp, *flags, "-undef", "-nostdinc", "-x", "c", "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    if -done.returncode in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        # Stopped by the signal that stops this command too (sent to its group): an
        # interrupt, not a source the preprocessor refused.
        raise KeyboardInterrupt
    if done.returncode != 0:
        raise ValueError(f"the C preprocessor failed: {done.stderr.strip()}")
    return done.stdout

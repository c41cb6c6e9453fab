"""Which rows of a kernel's check can tell a mutant from the kernel.

A row compiles the kernel's program for one choice of its run options, and at
its size launches some of its entry points. A mutant on a line that the row's
program leaves out (under a false ``#if``), or inside a function that none of
the row's entry points calls, leaves the row with the unmutated kernel's
behaviour: its verdict is the unmutated check's, ok. So a mutant's check runs
only the rows its line reaches. For a sort, whose strategies share one header
and whose small sizes launch a tile sort alone, that is a fraction of them.

The reading errs towards running a row: a line outside every function (a
``#define``, a declaration) reaches every row that compiles it; any word of a
body that names a function, or a macro whose text names one, counts as a
call; every branch of a condition counts. A row is left out only where it
cannot tell the mutant apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.backends.base import DeviceInfo
from harness.execution.runner import Task, task_spec
from harness.model import sources
from harness.model.partition import body_end
from harness.mutation.operators import Mutant, continued, live_lines

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_FUNCTION = re.compile(r"\b(?:KERNEL|DEVICE)\b[^;{}]*?\)\s*\{")
_ATTRIBUTE = re.compile(r"__attribute__\s*\(\(.*?\)\)", re.S)
_NAME = re.compile(r"(\w+)\s*\(")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)((?:[^\n]*\\\n)*[^\n]*)", re.M)
_WORD = re.compile(r"\b[A-Za-z_]\w*\b")


class CallGraph:
    """The functions of a C source: the lines each spans and what each may call."""

    def __init__(self, source: Path) -> None:
        expanded = sources.expand(source)
        text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), expanded.text)
        starts = [0]
        for line in text.split("\n"):
            starts.append(starts[-1] + len(line) + 1)
        origin = [(Path(name).name, number) for name, number in expanded.origin]
        macros = {m[1]: set(_WORD.findall(m[2])) for m in _DEFINE.finditer(text)}
        bodies: dict[str, set[str]] = {}
        #: The (file, line) pairs each function spans, signature to closing brace.
        self.lines: dict[str, set[tuple[str, int]]] = {}
        for match in _FUNCTION.finditer(text):
            end = body_end(text, match.end() - 1)
            first, last = (_line_at(starts, at) for at in (match.start(), end))
            name = _NAME.findall(_ATTRIBUTE.sub(" ", match[0]))[0]
            self.lines.setdefault(name, set()).update(origin[first : last + 1])
            bodies.setdefault(name, set()).update(_WORD.findall(text[match.end() : end]))
        self._calls = {name: self._called(words, macros) for name, words in bodies.items()}
        self._where = {at: name for name, spans in self.lines.items() for at in spans}

    def _called(self, words: set[str], macros: Mapping[str, set[str]]) -> set[str]:
        """The functions named in ``words``, through the macros they name."""
        seen, todo = set(), list(words)
        while todo:
            word = todo.pop()
            if word in seen:
                continue
            seen.add(word)
            todo.extend(macros.get(word, ()))
        return seen & set(self.lines)

    def reached(self, entries: set[str]) -> set[str]:
        """The functions ``entries`` run, themselves included."""
        found, todo = set(), [e for e in entries if e in self._calls]
        while todo:
            name = todo.pop()
            if name not in found:
                found.add(name)
                todo.extend(self._calls[name])
        return found

    def function_at(self, file: str, line: int) -> str | None:
        """The function a line lies in; None outside every function."""
        return self._where.get((file, line))


def _line_at(starts: list[int], offset: int) -> int:
    """The 0-based line of a character offset, given each line's first offset."""
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low


class Reach:
    """Whether a row of a check compiles and runs a mutant's line (see the module)."""

    def __init__(
        self, backend: Any, device: DeviceInfo, source: Path, texts: Mapping[str, str]
    ) -> None:
        self._backend = backend
        self._device = device
        self._source = source
        self._lines = {name: text.split("\n") for name, text in texts.items()}
        self._live: dict[tuple, dict[str, set[int]] | None] = {}
        self._graph: CallGraph | None = None
        #: The functions each row runs, by its run options, work-group and size.
        self._runs: dict[tuple, set[str]] = {}

    def __call__(self, task: Task, mutant: Mutant) -> bool:
        key = (task.params, task.group, task.precision)
        if key not in self._live:
            text = self._backend.compiled_text(
                task_spec(task), self._source, task.precision, self._device
            )
            self._live[key] = None if text is None else self._by_file(live_lines(text))
        live = self._live[key]
        if live is None:  # no C preprocessor (WGSL): every line in every row
            return True
        if mutant.line not in live.get(mutant.file, set()):
            return False
        if self._graph is None:
            self._graph = CallGraph(self._source)
        function = self._graph.function_at(mutant.file, mutant.line)
        if function is None:
            return True
        key = (task.params, task.group, task.size)
        if key not in self._runs:
            entries = {launch.entry for launch in task_spec(task).plan(task.size)}
            self._runs[key] = self._graph.reached(entries)
        return function in self._runs[key]

    def _by_file(self, live: set[tuple[str, int]]) -> dict[str, set[int]]:
        return {
            name: continued(lines, {line for file, line in live if file == name})
            for name, lines in self._lines.items()
        }

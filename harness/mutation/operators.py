"""Single-token mutants of a kernel source (OpenCL C, CUDA C or WGSL).

A mutant is the source with one small change a programmer could have made by
mistake: an arithmetic, comparison, logical or bitwise operator swapped, a
numeric constant moved by one, ``min`` for ``max``, or a statement deleted. A
check that lets a mutant pass has a blind spot: ``harness mutants`` runs the
verification on each one and reports those that survive.

The scanner is deliberately small: it knows comments, preprocessor lines,
WGSL attributes and template brackets, and which ``*``, ``&``, ``-`` and ``+``
are unary or part of a pointer type, so that few mutants fail to compile.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.model import sources

_TOKEN = re.compile(
    r"""
    (?P<number>0[xX][0-9a-fA-F]+[uUlL]*
      |(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFhHuUlLi]*)
    |(?P<name>[A-Za-z_]\w*)
    |(?P<op><<=|>>=|\+\+|--|&&|\|\||<<|>>|<=|>=|==|!=|\+=|-=|\*=|/=|%=|&=|\|=|\^=|->
      |[-+*/%<>=!&|^~?:;,.(){}\[\]@\#])
    """,
    re.VERBOSE,
)

#: Operator swaps: each maps to the one replacement it gets.
_SWAPS = {
    "+": "-",
    "-": "+",
    "*": "/",
    "/": "*",
    "%": "*",
    "+=": "-=",
    "-=": "+=",
    "*=": "/=",
    "/=": "*=",
    "++": "--",
    "--": "++",
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "==": "!=",
    "!=": "==",
    "&&": "||",
    "||": "&&",
    "&": "|",
    "|": "&",
    "^": "|",
    "<<": ">>",
    ">>": "<<",
    "&=": "|=",
    "|=": "&=",
}
#: Operators that may also be unary (or part of a pointer type in C).
_MAYBE_UNARY = {"+", "-", "*", "&"}
#: Function names swapped for their opposite.
_NAME_SWAPS = {"min": "max", "max": "min", "fmin": "fmax", "fmax": "fmin"}
#: Words after which ``*`` declares a pointer rather than multiplies.
_TYPE_WORDS = {
    "void",
    "char",
    "uchar",
    "short",
    "ushort",
    "int",
    "uint",
    "long",
    "ulong",
    "float",
    "double",
    "half",
    "bool",
    "size_t",
    "unsigned",
    "signed",
    "const",
    "restrict",
    "__restrict__",
    "volatile",
    "REAL",
}
#: WGSL words whose ``<`` opens a template list, not a comparison.
_TEMPLATED = {
    "array",
    "atomic",
    "bitcast",
    "ptr",
    "var",
    "vec2",
    "vec3",
    "vec4",
    "mat2x2",
    "mat3x3",
    "mat4x4",
    "template",
}
#: Address-space and other qualifiers (the dialect's and OpenCL's): the name after
#: one is a type, and a ``*`` after that declares a pointer (``LOCAL SCAN_T* tile``).
_QUALIFIERS = {
    "GLOBAL",
    "LOCAL",
    "CONSTANT",
    "PRIVATE",
    "DEVICE",
    "__global",
    "__local",
    "__constant",
    "__private",
    "const",
    "restrict",
    "volatile",
}
#: Words that start a declaration or a statement whose deletion cannot compile.
_NOT_DELETABLE = (
    {
        "let",
        "var",
        "const",
        "return",
        "break",
        "continue",
        "for",
        "while",
        "fn",
        "struct",
        "__local",
        "__shared__",
        "__global",
        "__private",
        "static",
        "typedef",
    }
    | _TYPE_WORDS
    | _QUALIFIERS
)
_ASSIGNMENT = re.compile(r"(?<![=!<>])=(?!=)|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<=|>>=|\+\+|--")


def line_text(line: str) -> str:
    """A line's text: without its indent, nor a macro line's continuation and the
    padding that aligns it (which a formatter moves)."""
    text = line.strip()
    return text[:-1].rstrip() if text.endswith("\\") else text


@dataclass(frozen=True)
class Mutant:
    """One changed line of one file."""

    file: str
    line: int
    column: int
    operator: str
    original: str
    mutated: str

    @property
    def key(self) -> tuple[str, str, str]:
        """What identifies the mutant across edits elsewhere in the file."""
        return (self.file, line_text(self.original), line_text(self.mutated))

    def describe(self) -> str:
        """``file:line: old -> new``, for tables."""
        return f"{self.file}:{self.line}: {line_text(self.original)}  ->  {line_text(self.mutated)}"

    def apply(self, text: str) -> str:
        """The file's text with this mutant's line changed."""
        lines = text.split("\n")
        assert lines[self.line - 1] == self.original, f"{self.describe()}: the file changed"
        lines[self.line - 1] = self.mutated
        return "\n".join(lines)


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    line: int
    start: int
    end: int


def _code_lines(text: str) -> list[str]:
    """The lines with comments blanked out (same lengths, so columns hold)."""
    out = []
    in_block = False
    for line in text.split("\n"):
        chars = list(line)
        i = 0
        while i < len(chars):
            if in_block:
                if line.startswith("*/", i):
                    chars[i : i + 2] = "  "
                    in_block = False
                    i += 2
                    continue
                chars[i] = " "
                i += 1
            elif line.startswith("/*", i):
                chars[i : i + 2] = "  "
                in_block = True
                i += 2
            elif line.startswith("//", i):
                chars[i:] = " " * (len(chars) - i)
                break
            else:
                i += 1
        out.append("".join(chars))
    return out


def _tokens(code: list[str]) -> list[_Token]:
    tokens = []
    for number, line in enumerate(code, 1):
        stripped = line.lstrip()
        # A #define's body is code, and so is a WGSL #unroll's count of copies.
        if stripped.startswith("#") and not stripped.startswith(("#define", "#unroll")):
            continue
        for match in _TOKEN.finditer(line):
            kind = match.lastgroup or "op"
            tokens.append(_Token(kind, match.group(), number, match.start(), match.end()))
    return tokens


def _skipped(tokens: list[_Token]) -> set[int]:
    """Indices of tokens never mutated: directive heads, attributes, template lists."""
    skip: set[int] = set()
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.text == "#" and (i == 0 or tokens[i - 1].line != t.line):
            # '#define NAME' or '#define NAME(params)': the body alone is code;
            # '#unroll NAME': the count alone.
            j = i + 3
            if j < len(tokens) and tokens[j].text == "(" and tokens[j].start == tokens[i + 2].end:
                while j < len(tokens) and tokens[j].text != ")":
                    j += 1
                j += 1
            skip.update(range(i, j))
            i = j
            continue
        if (t.text == "@" or t.text in ("__attribute__", "__launch_bounds__")) and i + 1 < len(
            tokens
        ):
            j = i + 1 if t.text == "@" else i
            j += 1
            if j < len(tokens) and tokens[j].text == "(":
                depth = 0
                while j < len(tokens):
                    depth += {"(": 1, ")": -1}.get(tokens[j].text, 0)
                    j += 1
                    if depth == 0:
                        break
            skip.update(range(i, j))
            i = j
            continue
        if t.text in _TEMPLATED and i + 1 < len(tokens) and tokens[i + 1].text == "<":
            j, depth = i + 1, 0
            while j < len(tokens):
                # Nested lists close with '>>' (array<atomic<u32>>).
                depth += {"<": 1, ">": -1, ">>": -2}.get(tokens[j].text, 0)
                skip.add(j)
                j += 1
                if depth == 0:
                    break
            i = j
            continue
        i += 1
    return skip


def _is_binary(previous: _Token | None, before: _Token | None = None) -> bool:
    """Whether an operator after ``previous`` (and ``before`` that) is binary: not
    after a type word, nor after a type a qualifier names."""
    if previous is None:
        return False
    if previous.kind == "name" and before is not None and before.text in _QUALIFIERS:
        return False
    if previous.kind == "number":
        return True
    if previous.kind == "name":
        return previous.text not in ("return", "case") and previous.text not in _TYPE_WORDS
    return previous.text in (")", "]")


def _number_changes(text: str) -> list[str]:
    match = re.fullmatch(r"(0[xX][0-9a-fA-F]+|[\d.]+(?:[eE][+-]?\d+)?)(\w*)", text)
    if match is None:
        return []
    body, suffix = match.groups()
    if body.lower().startswith("0x"):
        value = int(body, 16)
        return [f"{value + 1:#x}{suffix}"] + ([f"{value - 1:#x}{suffix}"] if value else [])
    if re.fullmatch(r"\d+", body) and not suffix.lower().startswith(("f", "h")):
        value = int(body)
        return [f"{value + 1}{suffix}"] + ([f"{value - 1}{suffix}"] if value else [])
    value = float(body)
    changed = repr(value + 1.0) if value != 0 else "1.0"
    return [f"{changed}{suffix}"]


def _statement_deletion(line: str, code: str) -> str | None:
    """The line with its one statement replaced by an empty one, when it holds exactly
    one deletable statement (an assignment or a call) and nothing else."""
    body = code.strip()
    if not body.endswith(";") or body.count(";") != 1 or "{" in body or "}" in body:
        return None
    first = re.match(r"[A-Za-z_]\w*", body)
    if first is None or first.group() in _NOT_DELETABLE:
        return None
    # A declaration: a type word followed by a name ('REAL e = ...', 'uint i;').
    if re.match(r"[A-Za-z_]\w*\s+\**\s*[A-Za-z_]\w*\s*(=|;|\[)", body):
        return None
    call = re.fullmatch(r"[A-Za-z_]\w*\s*\(.*\)\s*;", body)
    if not call and not _ASSIGNMENT.search(body):
        return None
    start = len(code) - len(code.lstrip())
    return line[:start] + ";" + line[start + len(body) :]


def mutants(file: str, text: str) -> Iterator[Mutant]:
    """Every single-token mutant of one source file, in file order."""
    lines = text.split("\n")
    code = _code_lines(text)
    tokens = _tokens(code)
    skip = _skipped(tokens)
    by_line: dict[int, list[Mutant]] = {}

    def add(token: _Token, operator: str, replacement: str) -> None:
        original = lines[token.line - 1]
        mutated = original[: token.start] + replacement + original[token.end :]
        by_line.setdefault(token.line, []).append(
            Mutant(file, token.line, token.start + 1, operator, original, mutated)
        )

    for i, token in enumerate(tokens):
        if i in skip:
            continue
        previous = tokens[i - 1] if i else None
        if token.kind == "number":
            for changed in _number_changes(token.text):
                add(token, "constant", changed)
        elif token.kind == "name" and token.text in _NAME_SWAPS:
            if i + 1 < len(tokens) and tokens[i + 1].text == "(":
                add(token, "min/max", _NAME_SWAPS[token.text])
        elif token.text in _SWAPS:
            before = tokens[i - 2] if i > 1 else None
            if token.text in _MAYBE_UNARY and not _is_binary(previous, before):
                continue
            kind = "comparison" if token.text in ("<", "<=", ">", ">=", "==", "!=") else "operator"
            add(token, kind, _SWAPS[token.text])
    previous = ";"
    for number, (line, code_line) in enumerate(zip(lines, code, strict=True), 1):
        stripped = code_line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        starts_statement = previous.endswith((";", "{", "}", ")", "else", ":"))
        previous = stripped
        deleted = _statement_deletion(line, code_line) if starts_statement else None
        if deleted is not None:
            by_line.setdefault(number, []).append(Mutant(file, number, 1, "delete", line, deleted))
    for number in sorted(by_line):
        yield from by_line[number]


def live_lines(text: str) -> set[tuple[str, int]]:
    """The (file, line) pairs of a C text with ``#line`` directives that the
    preprocessor keeps: code under a false ``#if`` is not compiled, so a mutant
    there cannot be told apart by any check and is not made. Lines of a kept
    ``#define`` of a macro the code expands (or a directive tests) count,
    continuation lines included: one never expanded compiles nothing."""
    live: set[tuple[str, int]] = set()
    marker = re.compile(r'#\s*(\d+)\s+"([^"]*)"')
    define = re.compile(r"#\s*define\s+(\w+)")
    used = {
        found[1]
        for out in sources.preprocess_c(text, markers=True, used=True).split("\n")
        if (found := define.match(out))
    }
    file, line = "", 0
    for out in sources.preprocess_c(text, markers=True).split("\n"):
        found = marker.match(out)
        if found:
            file, line = Path(found[2]).name, int(found[1])
            continue
        named = define.match(out)
        if out.strip() and (named is None or named[1] in used):
            live.add((file, line))
        line += 1
    return live


def continued(lines: list[str], live: set[int]) -> set[int]:
    """``live`` (1-based line numbers of one file) with the continuation lines of
    every kept line that ends in a backslash."""
    out = set(live)
    for number in sorted(live):
        while number <= len(lines) and lines[number - 1].rstrip().endswith("\\"):
            number += 1
            out.add(number)
    return out

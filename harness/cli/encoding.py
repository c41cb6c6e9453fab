"""Standard streams that can print every text the harness prints.

A terminal or file whose encoding lacks a character the tables use (``µs``,
``±``, ``…``), or a path holding bytes that are no UTF-8 (which Python keeps as
surrogate escapes), raised UnicodeEncodeError as the output was written: a
traceback once the work was done, and a message to standard error lost
without a word. Such characters are written in plain ASCII instead, and a
path's own bytes as they were.
"""

from __future__ import annotations

import codecs
import contextlib
import sys
from collections.abc import Iterator
from typing import Any

#: The name of the error handler the standard streams are given.
HANDLER = "harness.plain"

#: ASCII for the characters the harness prints itself.
_PLAIN = {
    "µ": "u",
    "…": "...",
    "±": "+-",
    "·": "-",
    "°": " deg",
    "²": "^2",
    "│": "|",
    "─": "-",
    "┌": "+",
    "╭": "+",
    "╰": "+",
}


def _escaped(char: str) -> bool:
    """Whether char stands for a byte a file name held that was no UTF-8."""
    return 0xDC80 <= ord(char) <= 0xDCFF


def _plain(exc: UnicodeError) -> tuple[str | bytes, int]:
    """The replacement of the first run of alike characters that could not be
    encoded: a surrogate escape's own bytes, others their ASCII (or escape)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start : exc.end]
    kind = _escaped(text[0])
    end = exc.start
    while end < exc.end and _escaped(exc.object[end]) == kind:
        end += 1
    part = exc.object[exc.start : end]
    if kind:
        return bytes(ord(c) - 0xDC00 for c in part), end
    plain = (_PLAIN.get(c) or c.encode("ascii", "backslashreplace").decode() for c in part)
    return "".join(plain), end


codecs.register_error(HANDLER, _plain)


def make_streams_printable() -> list[tuple[Any, str]]:
    """Give the standard output and error the plain handler; return each stream
    given it with the handler it had."""
    previous = []
    for stream in (sys.stdout, sys.stderr):
        errors = getattr(stream, "errors", None)
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors=HANDLER)
            previous.append((stream, errors))
    return previous


@contextlib.contextmanager
def printable_streams() -> Iterator[None]:
    """The standard streams printable while the block runs, and as they were after
    it (a caller of `harness.cli.main` keeps its streams)."""
    previous = make_streams_printable()
    try:
        yield
    finally:
        for stream, errors in previous:
            with contextlib.suppress(AttributeError, ValueError, OSError):
                stream.reconfigure(errors=errors)

"""Oclgrind, an OpenCL device simulator, as a checking device.

Oclgrind runs a kernel's work-items one at a time between barriers and
reports what a real device leaves undefined: data races in local and global
memory, and reads and writes outside a buffer or a private or local array.
Those are bugs the CPU devices hide (PoCL runs a work-group's
items as one loop, so a missing barrier or an array one short still gives the
right answer there) and a GPU shows only now and then. A session on it sets
the simulator's options before making its context, reads the simulator's log
after each command finishes, and raises `KernelFault` with what it found, so
that a ``--check`` row (and a mutant's check) fails on it. The simulator
reports a process's first `MAX_REPORTS` only, so the worker that saw a fault,
or half that many reports, ends and a fresh one takes the next row. Races on
a line whose comment says "benign race:" (the compare-and-swap loop's first
read) are not faults.

Debian's ``oclgrind`` package holds the simulator; the ICD loader sees it
once ``/etc/OpenCL/vendors/oclgrind.icd`` names its ``liboclgrind-rt-icd.so``
(``scripts/bootstrap.sh test`` does both). Its times say nothing of any
hardware, so it is never a default device: name it with ``--device oclgrind``.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from harness.backends.base import KernelFault

#: The simulator's OpenCL platform name.
PLATFORM = "Oclgrind"
#: The reports the simulator writes in a process before it stops. An atomics
#: kernel's accepted races reach 64,000 in one check row, a bug on every item
#: far more; at half the budget the session is spent and its worker ends.
MAX_REPORTS = 200_000
#: The simulator's checks a session turns on (out-of-bounds accesses are always on).
OPTIONS = {"OCLGRIND_DATA_RACES": "1", "OCLGRIND_MAX_ERRORS": str(MAX_REPORTS)}
#: The simulator's check of values used before any write (an accumulator a loop
#: started one late leaves unset, work-group memory no item zeroed, read by a
#: bound widened past it): at two to three times the simulator's time, it is
#: asked for where a check is rare, as for a mutant that survived another device.
STRICT_OPTIONS = {"OCLGRIND_UNINITIALIZED": "1"}
#: Work-group memory the simulated device offers, as AMD's GPUs do, rather than the
#: simulator's own 32 KiB: a kernel whose f64 tiles take more (MAT_MAT_SHARED's
#: 34 KiB) is then checked there, where it was skipped. The simulator reads it
#: as its platform is listed; a value the user set is kept.
LOCAL_MEM_BYTES = 65536
#: Distinct findings a row's reason names.
SHOWN = 2
#: A source line's comment that accepts the data races the simulator reports on
#: it, with the reason after it (the compare-and-swap loop's first read).
BENIGN_RACE = "benign race:"

#: How the simulator builds programs: unoptimised, so that it checks the source
#: as written. The optimiser deletes an exchange one past a private array as
#: undefined (another compiler may not), and makes of the float sorts' key
#: conversion a funnel shift Oclgrind 21.10 cannot run. Unoptimised code runs
#: about 3x slower there.
BUILD_OPTIONS = ["-cl-opt-disable"]

_ADDRESS = re.compile(r"\s*(at )?(\w+ memory )?address 0x[0-9a-fA-F]+")
_LINE = re.compile(r"At line (\d+) \(column \d+\) of (\S+?):")
_LINE_DIRECTIVE = re.compile(r'#line (\d+) "([^"]+)"')
#: A program's lines by (file name, line number), as its ``#line`` directives number them.
Lines = dict[tuple[str, int], str]


def is_simulator(device: Any) -> bool:
    """Whether a pyopencl device is Oclgrind's."""
    return device.platform.name.strip() == PLATFORM


def source_lines(text: str) -> Lines:
    """Each line of a program by the file and line its ``#line`` directives give it."""
    lines: Lines = {}
    name, number = "", 1
    for line in text.splitlines():
        directive = _LINE_DIRECTIVE.match(line)
        if directive:
            name, number = directive.group(2), int(directive.group(1))
            continue
        lines[(name, number)] = line
        number += 1
    return lines


def _places(report: list[str]) -> list[tuple[str, int]]:
    return [(m.group(2), int(m.group(1))) for line in report if (m := _LINE.search(line))]


def _benign(report: list[str], lines: Lines) -> bool:
    """A data race on a line whose comment accepts it (`BENIGN_RACE`)."""
    return "data race" in report[0] and any(
        BENIGN_RACE in lines.get(place, "") for place in _places(report)
    )


def _reports(log: str) -> list[list[str]]:
    """The log's reports: each a line at the margin and the indented lines under it."""
    reports: list[list[str]] = []
    for line in log.splitlines():
        if not line.strip():
            continue
        if line[0].isspace() and reports:
            reports[-1].append(line.strip())
        elif not line[0].isspace():
            reports.append([line.strip()])
    return reports


def _finding(report: list[str]) -> str:
    """One report as a line: what, in which kernel, where (the places of both sides
    of a race)."""
    space = re.search(r"(\w+) memory address", report[0])
    what = _ADDRESS.sub("", report[0].removeprefix("Oclgrind: ")).rstrip(":")
    if space:
        what += f" in {space.group(1)} memory"
    where = [f"kernel {line[7:].strip()}" for line in report if line.startswith("Kernel:")][:1]
    places = [f"{name}:{number}" for name, number in _places(report)]
    where += list(dict.fromkeys(places))
    return f"{what} ({', '.join(where)})" if where else what


def summary(log: str, lines: Lines | None = None) -> str | None:
    """The simulator's reports as one line, the first `SHOWN` distinct ones; None
    when there are none but races ``lines`` accepts."""
    return _summary(_reports(log), lines or {})


def _summary(every: list[list[str]], lines: Lines) -> str | None:
    reports = [r for r in every if not _benign(r, lines)]
    if not reports:
        return None
    found = [_finding(report) for report in reports]
    distinct = list(dict.fromkeys(found))
    text = "; ".join(distinct[:SHOWN])
    if len(found) > SHOWN:
        text += f" (and {len(found) - SHOWN} more reports)"
    return f"Oclgrind: {text}"


def set_device_limits() -> None:
    """Size the simulated device (`LOCAL_MEM_BYTES`), before any platform is listed."""
    os.environ.setdefault("OCLGRIND_LOCAL_MEM_SIZE", str(LOCAL_MEM_BYTES))


class Findings:
    """What the simulator reports for one context: its log, read as it grows."""

    def __init__(self) -> None:
        handle, path = tempfile.mkstemp(prefix="harness-oclgrind-", suffix=".log")
        os.close(handle)
        self._path = Path(path)
        self._log: TextIO | None = None
        #: Reports read so far, accepted races too: they count to `MAX_REPORTS`.
        self.reports = 0

    @contextmanager
    def options(self) -> Iterator[None]:
        """Make the context inside: the simulator reads its options and where to log
        from the environment as a context is made. After, the environment is put
        back, and the log is opened and unlinked, so that no file outlives the
        process, even one that is killed."""
        wanted = {**OPTIONS, "OCLGRIND_LOG": str(self._path)}
        saved = {name: os.environ.get(name) for name in wanted}
        os.environ.update(wanted)
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            self._log = self._path.open(errors="replace")
            self._path.unlink()

    def check(self, lines: Lines) -> None:
        """Raise `KernelFault` with what the simulator reported since the last
        check, but races that the program's ``lines`` accept."""
        reports = _reports(self._log.read()) if self._log is not None else []
        self.reports += len(reports)
        found = _summary(reports, lines) if reports else None
        if found:
            raise KernelFault(found)

    @property
    def spent(self) -> bool:
        """Whether half of the simulator's reports for this process are used."""
        return self.reports >= MAX_REPORTS // 2

    def close(self) -> None:
        """Stop reading the log."""
        if self._log is not None:
            self._log.close()

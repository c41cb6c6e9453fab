"""Argument types the commands share: each refuses a bad value with a message
naming it and what is accepted."""

from __future__ import annotations

import argparse
import errno
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from harness import suite
from harness.execution.ranks import BEAT_S
from harness.execution.results import MAX_COUNT
from harness.execution.runner import MAX_SECONDS
from harness.model.spec import KernelSpec

#: The largest whole number an option takes: a run folder holds no count past it.
MAX_WHOLE = int(MAX_COUNT)


#: A whole number as a user types one: ASCII digits, a sign at most. Python's int()
#: also takes other scripts' digits (٣) and underscores (1_000), which no other
#: tool reading the same option (RAJAPerf, a shell script) would.
WHOLE = re.compile(r"\s*[+-]?[0-9]+\s*")


def whole(text: str) -> int:
    """``text`` as a whole number written in ASCII digits; ValueError otherwise."""
    if not WHOLE.fullmatch(text):
        raise ValueError(f"not a whole number: {text!r}")
    return int(text)


def number(text: str) -> float:
    """``text`` as a number written in ASCII (``1e3``, ``nan`` and ``inf`` too, which
    the callers bound); ValueError for other scripts' digits and underscores."""
    if not text.isascii() or "_" in text:
        raise ValueError(f"not a number: {text!r}")
    return float(text)


def positive_int(text: str) -> int:
    """A whole number above 0 and at most `MAX_WHOLE` (sizes, repetitions, sample counts)."""
    try:
        value = whole(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive whole number")
    if value > MAX_WHOLE:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range: give 1 to {MAX_WHOLE:.0e}")
    return value


def count(text: str) -> int:
    """A whole number from 0 to `MAX_WHOLE` (warm-up repetitions)."""
    try:
        value = whole(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= MAX_WHOLE:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range: give 0 to {MAX_WHOLE:.0e}")
    return value


#: Largest seed: RAJAPerf's inputs seed the C library's generator, an unsigned int.
MAX_SEED = 2**32 - 1


def seed(text: str) -> int:
    """A seed for random inputs: a whole number from 0 to `MAX_SEED`."""
    try:
        value = whole(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range: give 0 to {MAX_SEED}")
    return value


#: The shortest silence after which a rank is lost (`lost_seconds`).
LEAST_LOST_S = 2 * BEAT_S


def seconds(text: str) -> float:
    """Seconds above 0, at most a week (longer waits overflow the workers' poll())."""
    try:
        value = number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is out of range: give more than 0 and at most {MAX_SECONDS} seconds "
            "(one week)"
        )
    return value


def lost_seconds(text: str) -> float:
    """Seconds of a rank's silence after which it is lost (``--lost-after``): at least
    two of its heartbeats, as a shorter silence is every rank's between two of them
    (all were lost while they planned, none stopped), at most a week."""
    value = seconds(text)
    if value < LEAST_LOST_S:
        raise argparse.ArgumentTypeError(
            f"{text!r} is out of range: give at least {LEAST_LOST_S:g} (two of a rank's "
            f"heartbeats, {BEAT_S:g} s apart) and at most {MAX_SECONDS} seconds (one week)"
        )
    return value


#: Longest device time one sample may be asked to cover (``--sample-time``).
MAX_SAMPLE_SECONDS = 10.0


def sample_seconds(text: str) -> float:
    """Seconds from 0 (time every repetition alone) to `MAX_SAMPLE_SECONDS`."""
    try:
        value = number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= MAX_SAMPLE_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is out of range: give 0 (each repetition timed alone) up to "
            f"{MAX_SAMPLE_SECONDS:g} seconds"
        )
    return value


def percent(text: str) -> float:
    """A percentage above 0 and below 100."""
    try:
        value = number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of percent") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(
            f"{text!r} is out of range: give more than 0 and under 100"
        )
    return value


#: Byte units a memory budget may carry, binary and decimal (up to tebibytes: a host
#: of a terabyte or more, where 1TiB was no byte count and 1024GiB was).
BYTE_UNITS = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gib": 1 << 30,
    "t": 1 << 40,
    "tib": 1 << 40,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
}


#: The largest power of two a size or byte count may be (2^K, K at most this): a bound
#: far past any device's memory, under which every value prints and doubles quickly
#: (2^20000 had no digits Python would print, and 2^3..2^2000000 never ended).
MAX_EXPONENT = 128
_DIGITS = len(str(2**MAX_EXPONENT))


def _bounded(value: float) -> int:
    """``value`` as a whole number; OverflowError past ``2^MAX_EXPONENT`` (an infinity too)."""
    if not value <= 2**MAX_EXPONENT:
        raise OverflowError
    return round(value)


def _power(exponent: str) -> int:
    """2 to the ASCII digits ``exponent``: ValueError for other text, OverflowError
    past `MAX_EXPONENT` (before so large a number is made)."""
    if not (exponent.isascii() and exponent.isdigit()):
        raise ValueError
    if len(exponent.lstrip("0")) > len(str(MAX_EXPONENT)) or int(exponent) > MAX_EXPONENT:
        raise OverflowError
    return 2 ** int(exponent)


def _bytes(text: str) -> int:
    found = re.fullmatch(
        r"(\d+)\^(\d+)|(\d+(?:\.\d+)?)\s*([a-zA-Z]*)", text.strip(), flags=re.ASCII
    )
    if not found:
        raise ValueError
    if found.group(1):
        if found.group(1) != "2":
            raise ValueError
        return _power(found.group(2))
    unit = BYTE_UNITS.get(found.group(4).lower())
    if unit is None:
        raise ValueError
    return _bounded(float(found.group(3)) * unit)


def _doubling(text: str, parse: Callable[[str], int], what: str, accepted: str) -> tuple[int, ...]:
    """Comma-separated values and ranges A..B that double from one power of two to
    another, each parsed by ``parse``; a bad one is named with what is accepted."""
    values: list[int] = []
    for part in text.split(","):
        low, dots, high = part.strip().partition("..")
        try:
            first = parse(low)
            last = parse(high) if dots else first
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} is not {accepted}") from None
        except OverflowError:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} is out of range: {what} go up to 2^{MAX_EXPONENT}"
            ) from None
        if first <= 0 or last < first:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r}: {what} must be positive and rising"
            )
        if dots and (first & (first - 1) or last & (last - 1)):
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r}: a range runs between powers of two"
            )
        while first <= last:
            values.append(first)
            first = first * 2 if dots else last + 1
    # Repeats are kept: the run says which it runs once (`--sizes 100,100`).
    return tuple(values)


def _power_or_int(text: str) -> int:
    base, caret, exponent = text.partition("^")
    if caret:
        if base != "2":
            raise ValueError
        return _power(exponent)
    if WHOLE.fullmatch(text) and len(text.strip().lstrip("+-").lstrip("0")) > _DIGITS:
        # Too many digits for int() to read (past 4300), and far past the bound.
        raise OverflowError
    return _bounded(whole(text))


def size(text: str) -> int:
    """One problem size (``--size``): a whole number from 1 to `MAX_WHOLE`, or 2^K as
    ``--sizes`` takes it (``--size 2^20`` was 'not a whole number')."""
    base, caret, exponent = text.strip().partition("^")
    if not caret:
        return positive_int(text)
    try:
        if base != "2":
            raise ValueError
        value = _power(exponent)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a size: give a whole number or 2^K"
        ) from None
    except OverflowError:
        value = MAX_WHOLE + 1
    if value > MAX_WHOLE:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range: give 1 to {MAX_WHOLE:.0e}")
    return value


def sizes(text: str) -> tuple[int, ...]:
    """A size sweep: comma-separated sizes or 2^K, and ranges 2^A..2^B that double."""
    return _doubling(text, _power_or_int, "sizes", "a size, 2^K, or a range 2^A..2^B")


#: The largest --size-factor: past it a kernel's default size overflows most devices.
MAX_SIZE_FACTOR = 1024.0


def size_factor(text: str) -> float:
    """A factor of each kernel's default size, RAJAPerf's --sizefact: above 0, at most
    `MAX_SIZE_FACTOR`."""
    try:
        value = number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number such as 0.5 or 2") from None
    if not 0 < value <= MAX_SIZE_FACTOR:
        raise argparse.ArgumentTypeError(
            f"{text!r} is out of range: give a factor above 0 and at most {MAX_SIZE_FACTOR:g}"
        )
    return value


def byte_sizes(text: str) -> tuple[int, ...]:
    """Memory budgets: comma-separated byte counts with an optional unit (64MiB,
    1GB, 4096) or 2^K, and ranges that double from one power of two to another
    (1MiB..1GiB)."""
    return _doubling(
        text,
        _bytes,
        "budgets",
        "a byte count: give e.g. 4096, 64MiB, 1GB, 2^26, or a range 1MiB..1GiB",
    )


def byte_size(text: str) -> int:
    """One positive byte count with an optional unit (64MiB, 1GB, 4096) or 2^K."""
    try:
        value = _bytes(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a byte count: give e.g. 4096, 64MiB, 1GB or 2^26"
        ) from None
    except OverflowError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is out of range: give a byte count up to 2^{MAX_EXPONENT}"
        ) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 bytes")
    return value


#: Work-group sizes ``--group`` accepts: powers of two over this range.
GROUP_SIZES = (32, 4096)


def is_group_size(value: object) -> bool:
    """Whether ``value`` is a work-group size ``--group`` takes: a whole number, a
    power of two within `GROUP_SIZES`."""
    low, high = GROUP_SIZES
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and low <= value <= high
        and value & (value - 1) == 0
    )


def group_sizes(text: str) -> tuple[int, ...]:
    """Comma-separated work-group sizes, each a power of two within `GROUP_SIZES`."""
    low, high = GROUP_SIZES
    values = []
    for part in text.split(","):
        part = part.strip()
        value = int(part) if part.isascii() and part.isdigit() and len(part) < 5 else 0
        if not is_group_size(value):
            raise argparse.ArgumentTypeError(
                f"{part!r} is not a work-group size: expected powers of two from {low} to "
                f"{high}, comma-separated, e.g. 64,128,256"
            )
        values.append(value)
    # Repeats are kept: the run says which it runs once (`--group 64,64`).
    return tuple(values)


def path(text: str) -> Path:
    """A file or folder name: not empty nor blank, which would name the current
    folder (``Path("")`` is ``.``) and write or read there unasked, nor holding a NUL,
    which no file name can (from Python, ``out="a\\0b"`` raised ValueError mid-run),
    nor a loop of symbolic links (which ``Path.resolve`` raises RuntimeError on).
    A leading ``~`` is the home folder, as a shell has it where it expands none
    (``--out=~/runs``, a script's quotes): not a folder named ``~`` made in the
    current one."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} is no path: give a file or folder name ('.' for the current folder)"
        )
    if "\0" in text:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no path: it holds a NUL character, which no file name can; give "
            "a file or folder name without it"
        )
    try:
        given = Path(text).expanduser()
    except RuntimeError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: no home folder for {text.split('/')[0]!r}; give a path without it"
        ) from None
    try:
        given.resolve()
    except RuntimeError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a loop of symbolic links, which names no file or folder; give the path "
            "of a real one"
        ) from None
    try:
        os.stat(given)
    except OSError as exc:
        # A name no file can have: its commands' first look at it raised a traceback.
        if exc.errno == errno.ENAMETOOLONG:
            raise argparse.ArgumentTypeError(
                f"{text!r}: a name longer than the file system takes ({exc.strerror}), which "
                "names no file or folder; give a shorter path"
            ) from None
    return given


def run_folder_out(parser: argparse.ArgumentParser, made: str = "the new run folder") -> None:
    """The --out of a command that makes a new folder of results (run, merge,
    import-rajaperf, mutants): where ``made`` goes, ./results by default."""
    parser.add_argument(
        "--out",
        type=path,
        default=Path("results"),
        metavar="DIR",
        help=f"folder that gets {made} (default ./results)",
    )


def kernel_options(parser: argparse.ArgumentParser) -> None:
    """A ``--NAME`` option for each run option a kernel takes (a sort's
    ``--strategy``...), with the kernels that take it."""
    for param in suite.PARAMS.values():
        parser.add_argument(
            f"--{param.name}",
            nargs="+",
            choices=param.choices,
            metavar=param.name.upper(),
            help=f"{param.help}; choices: {', '.join(param.choices)} (kernels that take it: "
            f"{', '.join(suite.takers(param.name))})",
        )


def _alternatives(words: tuple[str, ...]) -> str:
    """Words as a list of alternatives: "a", "a or b", "a, b or c"."""
    return " or ".join(filter(None, (", ".join(words[:-1]), words[-1])))


def chosen_params(
    args: argparse.Namespace, kernels: Sequence[KernelSpec], check: bool
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The kernels' run options the user chose (`kernel_options`), each once, with a
    note for an option no chosen kernel takes or that means nothing beside the
    choices of the option it goes with (`Param.only_with`)."""
    chosen = []
    for name in suite.PARAMS:
        values = getattr(args, name, None)
        if not values:
            continue
        if not any(name in (p.name for p in k.params) for k in kernels):
            print(f"note: no selected kernel takes --{name}; it is ignored", file=sys.stderr)
        chosen.append((name, tuple(dict.fromkeys(values))))
    picked = dict(chosen)
    for name in picked:
        param = suite.PARAMS[name]
        if param.only_with is None:
            continue
        other, meaningful = param.only_with
        under = picked.get(other) or suite.PARAMS[other].unchosen(check)
        if not set(under) & set(meaningful):
            print(
                f"note: --{name} applies only with --{other} {_alternatives(meaningful)}; "
                "it is ignored",
                file=sys.stderr,
            )
    return tuple(chosen)


def suite_files(parser: argparse.ArgumentParser) -> None:
    """Add ``--suite FILE`` (repeatable): kernels of one's own, for the commands that take them."""
    parser.add_argument(
        "--suite",
        type=path,
        action="append",
        default=[],
        metavar="FILE",
        help="a Python file describing your own kernels (its KERNELS), with their sources "
        "beside it in opencl/, wgsl/, cuda/ or c/; they run like the shipped ones "
        "(repeatable; examples/ has one)",
    )

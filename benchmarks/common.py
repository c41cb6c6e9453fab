"""Helpers the benchmark scripts share: running the harness and reading its rows."""

from __future__ import annotations

import argparse
import contextlib
import csv
import errno
import importlib.util
import math
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, NoReturn

#: The checkout the scripts are in: where the harness is not installed (a GPU
#: machine's own Python), it is imported from here, by the scripts and by the
#: harness processes they start, from whatever folder they were started in.
ROOT = Path(__file__).resolve().parent.parent
if importlib.util.find_spec("harness") is None:
    sys.path.insert(0, str(ROOT))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p
    )

from harness import cli  # noqa: E402
from harness.backends import BACKENDS  # noqa: E402
from harness.backends import get as get_backend  # noqa: E402
from harness.backends.base import BackendUnavailable, DeviceInfo  # noqa: E402
from harness.cli import encoding  # noqa: E402
from harness.cli.arguments import number  # noqa: E402
from harness.errors import OutputError, UsageError  # noqa: E402
from harness.execution.results import STOP_SIGNALS  # noqa: E402
from harness.model import partition  # noqa: E402


class Parser(cli.Parser):
    """Refuses bad arguments in one line, naming the value and what is accepted;
    as the harness's own parser, a single-valued option given twice too: its second
    value replaced the first, so that ``-b cpu -b opencl`` timed opencl alone."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def factor(text: str) -> float:
    """A positive, finite multiple (of a cache, say): ``0``, ``-1``, ``nan`` and
    ``inf`` name no amount of anything, and ended a script in a traceback."""
    try:
        value = number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number such as 0.5 or 4") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is out of range: give a number above 0")
    return value


def command(text: str) -> str:
    """A command line whose program exists (an executable file, or one on PATH): a
    missing one was found only after the harness's launches, in a traceback."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a command line: {exc}") from None
    if not words or shutil.which(words[0]) is None:
        program = words[0] if words else text
        raise argparse.ArgumentTypeError(
            f"{program!r} is no program: give an executable file or a command on PATH"
        )
    return text


def device(parser: argparse.ArgumentParser, text: str, option: str = "--device") -> DeviceInfo:
    """The device ``text`` names as BACKEND:INDEX (a backend alone: its first), given
    as ``option``; refused in one line where the backend is unknown or unavailable
    here (CUDA without a driver ended the scripts in a traceback) or has no such
    device."""
    try:
        return _device(text)
    except ValueError as exc:
        parser.error(f"{option} {text!r}: {exc}")


def _device(text: str) -> DeviceInfo:
    """The device ``text`` names (see `device`); ValueError saying why there is none."""
    backend, _, index = text.partition(":")
    try:
        found = get_backend(backend).devices()
    except BackendUnavailable as exc:
        raise ValueError(f"backend {backend} is unavailable: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"no such device: {exc}") from None
    if not (index or "0").isdecimal() or int(index or 0) >= len(found):
        have = ", ".join(d.id for d in found) or "no device"
        raise ValueError(f"no such device; {backend} has {have}")
    return found[int(index or 0)]


def refuse_size_past_memory(
    parser: argparse.ArgumentParser, size: int, kernels: Sequence[str], info: DeviceInfo
) -> None:
    """Refuse in one line a --size whose arrays (the largest of ``kernels``' at f64)
    the device, or the host holding about three copies of them, has no room for: it
    started the launches, which allocated and failed one by one."""
    from harness import suite
    from harness.execution.runner import array_bytes, host_available_bytes, largest_size_where

    specs = [suite.spec_of(name) for name in kernels]
    room = min(filter(None, (info.memory_bytes, host_available_bytes() // 3)), default=0)
    need = max(array_bytes(spec, size, "f64") for spec in specs)
    if room and need > room:
        most = largest_size_where(
            lambda n: max(array_bytes(spec, n, "f64") for spec in specs) <= room, low=1
        )
        parser.error(
            f"--size {size}: the arrays would take {need} bytes, more than {info.id} "
            f"({info.name}) has room for; give at most {most}"
        )


def device_id(text: str) -> str:
    """A --device value (an argparse type): the id of the device it names, refused
    as `device` refuses it. Passed on unchecked, a bad one was refused by harness
    run, under the harness's name, after the script had begun."""
    try:
        return _device(text).id
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None


def run_device(text: str) -> str:
    """A --device value of harness run (an argparse type): BACKEND:INDEX is refused
    as `device` refuses it; a word (all, host, default, part of a name) is left to
    harness run, which takes it."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} is empty; give BACKEND:INDEX as 'harness devices' lists it"
        )
    if ":" in text:
        device_id(text)
    return text


def backend_name(text: str) -> str:
    """A -b value (an argparse type): a backend's name. Passed on unchecked, an
    unknown one was refused by harness run, under the harness's name."""
    if text not in BACKENDS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no backend; choose from {', '.join(BACKENDS)}"
        )
    return text


#: What a script interrupted says, in place of its results.
INTERRUPTED = "interrupted: stopped before its results were printed"

#: The signals that interrupt a script, as they stop the harness: SIGHUP (its terminal
#: closed) among them killed the script and left its harness child running.
_STOPS = set(STOP_SIGNALS)
#: The interrupts this script has received, in order.
_RECEIVED: list[int] = []
#: The children running now, which an interrupt is passed on to (`run`).
_CHILDREN: list[subprocess.Popen] = []
#: Whether `run` is starting a child: an interrupt then waits for it to start.
_starting = False


def _interrupt(signum: int, _frame: object) -> None:
    """Count an interrupt and pass it on to the running children, whose end `run`
    waits for; with none running (or starting), stop the script here."""
    _RECEIVED.append(signum)
    for child in _CHILDREN:
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signum)
    if not (_CHILDREN or _starting):
        raise KeyboardInterrupt


class _Output:
    """The standard output, whose failures to write (but a reader gone:
    BrokenPipeError) are `OutputError`, told apart from those of other files."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc.errno, exc.strerror) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc.errno, exc.strerror) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _check_output() -> None:
    """OutputError where the standard output refuses even a write of nothing
    (/dev/full), or is a file on a disk with no block left (where a write of nothing
    succeeds, and the results measured were lost): found before the script measures
    anything."""
    fd = sys.stdout.fileno()
    try:
        os.write(fd, b"")
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
        if regular and hasattr(os, "fstatvfs") and not os.fstatvfs(fd).f_bfree:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(exc.errno, exc.strerror) from None


def run_main(main: Callable[[], int | None]) -> NoReturn:
    """Run a script's ``main`` and exit with its status, or 1 where a row that
    failed or errored was left out of its tables (`left_out`); at an interrupt (Ctrl-C,
    SIGTERM, SIGHUP) with 130 (143 after a second SIGTERM) and one line, where a
    traceback ended it. A standard output that cannot be written is one line, exit
    2 where that is found before the work and 1 after it (its results are lost); a
    reader gone (``| head -1``) ends the script quietly, 141: both were tracebacks."""
    for signum in _STOPS:
        signal.signal(signum, _interrupt)
    # Held to the exit: a table's µs or a path's undecodable bytes printed to a
    # narrower encoding were a traceback after the work.
    encoding.make_streams_printable()
    if sys.stdout is None:
        # Started with it closed (``>&-``): a traceback, exit 120, after the work.
        print(
            f"{Path(sys.argv[0]).name}: error: cannot write the standard output (it is "
            "closed); give the script one (a file, a pipe or the terminal)",
            file=sys.stderr,
        )
        raise SystemExit(2)
    try:
        # As harness does first: a script that compiles kernels itself erred each row
        # on it (fma_checks), or ran on past it.
        partition.form_override()
    except UsageError as exc:
        print(f"{Path(sys.argv[0]).name}: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    started = False
    sys.stdout = _Output(sys.stdout)
    try:
        _check_output()
        started = True
        status = main()
        sys.stdout.flush()
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        raise SystemExit(143 if _RECEIVED.count(signal.SIGTERM) > 1 else 130) from None
    except BrokenPipeError:
        # Nothing more is tried there at exit, where Python's own flush would fail too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.__stdout__.fileno())
        raise SystemExit(141) from None
    except OutputError as exc:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.__stdout__.fileno())
        print(
            f"{Path(sys.argv[0]).name}: error: cannot write the standard output "
            f"({exc.strerror or exc}); send it to a file on a disk with free space",
            file=sys.stderr,
        )
        raise SystemExit(1 if started else 2) from None
    failed = any(status != "skipped" for status in _LEFT_OUT.values())
    raise SystemExit(status or (1 if failed else 0))


def _start(command: list[str], **popen: Any) -> subprocess.Popen:
    """A child in a session of its own (a terminal's Ctrl-C reaches the script
    alone, which passes it on once), among `_CHILDREN` from its start: an
    interrupt that came while Popen ran is passed on once it returns, where it
    ended the script with the child left running."""
    global _starting
    seen = len(_RECEIVED)
    _starting = True
    try:
        child = subprocess.Popen(command, start_new_session=True, **popen)
    except BaseException:
        _starting = False
        raise
    # Held while the child joins the list, so that no interrupt is passed on twice
    # or not at all.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        _CHILDREN.append(child)
        for signum in _RECEIVED[seen:]:
            child.send_signal(signum)
        _starting = False
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return child


def run(
    command: list[str], *, check: bool = True, name: str = "", **popen: Any
) -> subprocess.CompletedProcess:
    """``subprocess.run`` for the scripts: an interrupt is passed on to the child (a
    harness run finishes its row; another program ends), and once it has ended
    the script ends as `run_main` says. subprocess.run killed the child at
    Ctrl-C, left it running at SIGTERM or where the signal came as it started.
    With ``check``, a child that fails ends the script in one line (``name``, else
    its program's; its exit status and last line on stderr, where that is captured)
    and status 1, where a CalledProcessError's traceback did."""
    seen = len(_RECEIVED)
    child = _start(command, **popen)
    try:
        out, err = child.communicate()
    finally:
        _CHILDREN.remove(child)
    if _RECEIVED[seen:]:
        raise KeyboardInterrupt
    if check and child.returncode != 0:
        said = (err or "").strip().splitlines() if isinstance(err, str) else []
        last = f": {said[-1]}" if said else ""
        name = name or Path(command[0]).name
        print(f"{name} exited {child.returncode}{last}", file=sys.stderr)
        raise SystemExit(1)
    return subprocess.CompletedProcess(command, child.returncode, out, err)


#: The rows left out of the script's tables: each one's line and status (`left_out`).
_LEFT_OUT: dict[str, str] = {}


def left_out(row: dict[str, str]) -> bool:
    """Whether a row has no time to set in a table (it failed, errored or was
    skipped); such a row is named once on stderr, and where it failed or errored
    the script exits 1. A failed row's empty time ended the scripts that read it
    in a ValueError."""
    if row.get("status") == "ok" and row.get("time_median_s"):
        return False
    usual = {"cache": "hot", "transfers": "resident"}
    options = [
        row[k]
        for k in ("strategy", "impl", "cache", "transfers")
        if row.get(k) and row[k] != usual.get(k)
    ]
    label = row.get("kernel", "?") + (f"[{','.join(options)}]" if options else "")
    line = (
        f"left out: {label} n={row.get('size')} on {row.get('device_id')}: "
        f"{row.get('status')}: {row.get('reason') or 'no time measured'}"
    )
    if line not in _LEFT_OUT:
        _LEFT_OUT[line] = str(row.get("status"))
        print(line, file=sys.stderr, flush=True)
    return True


def harness_rows(
    *args: str, tree: Path | None = None, failed_rows: bool = True
) -> tuple[list[dict[str, str]], float]:
    """Run ``harness run ARGS`` in a fresh process; its rows and its wall time.

    With ``tree``, the harness is the one in that checkout, run from it. Exit
    status 1 (some rows failed; they are in the table, and `left_out` names them)
    is accepted unless ``failed_rows`` is False; status 2 (an argument refused)
    ends the script with the harness's one line and status 2; any other failure
    ends it with the harness's last line and status 1.
    """
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", tempfile.gettempdir())
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as out:
        start = time.perf_counter()
        done = run(
            [sys.executable, "-m", "harness", "run", *args, "--out", out],
            check=False,
            cwd=tree,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wall = time.perf_counter() - start
        lines = done.stderr.strip().splitlines()
        if done.returncode == 2:
            # The harness refused an argument the script passed on: its one line
            # (naming the value and what is accepted) is the script's, as its exit 2.
            print(lines[-1] if lines else "harness run refused its arguments", file=sys.stderr)
            raise SystemExit(2)
        folders = list(Path(out).iterdir())
        if done.returncode not in (0, 1) or len(folders) != 1:
            where = f" in {tree}" if tree is not None else ""
            last = lines[-1] if lines else "no message"
            print(f"harness run{where} exited {done.returncode}: {last}", file=sys.stderr)
            raise SystemExit(1)
        with (folders[0] / "results.csv").open() as f:
            rows = list(csv.DictReader(f))
    if done.returncode == 1:
        for row in rows:
            left_out(row)
        if not failed_rows:
            raise SystemExit(1)
    return rows, wall


def run_options_given(run_args: Sequence[str]) -> list[tuple[str, int, int]]:
    """The ``harness run`` options in ``run_args`` as that command's parser reads
    them (an abbreviation such as ``--kern``, a value after ``=`` or joined to a
    short option): each one's dest and the span of words it and its values take."""
    parser = cli.build_parser().commands["run"]
    flags = parser._option_string_actions

    def is_option(word: str) -> bool:
        return word.startswith("-") and not parser._negative_number_matcher.match(word)

    found = []
    at = 0
    while at < len(run_args) and run_args[at] != "--":
        word = run_args[at]
        end = at + 1
        if not is_option(word):
            at = end
            continue
        name, joined, _ = word.partition("=")
        action = flags.get(name)
        if action is None and name.startswith("--"):
            matches = {flags[flag] for flag in flags if flag.startswith(name)}
            action = matches.pop() if len(matches) == 1 else None
        elif action is None and word[:2] in flags:
            action, joined = flags[word[:2]], word[2:]
        if action is not None and not joined and action.nargs != 0:
            if action.nargs in ("+", "*"):
                while end < len(run_args) and not is_option(run_args[end]):
                    end += 1
            elif action.nargs != "?" or (end < len(run_args) and not is_option(run_args[end])):
                end += 1
        if action is not None:
            found.append((action.dest, at, end))
        at = end
    return found


def without_run_options(run_args: Sequence[str], dests: Collection[str]) -> list[str]:
    """``run_args`` less the ``harness run`` options of these dests and their values
    (`run_options_given`)."""
    spans = [(start, end) for dest, start, end in run_options_given(run_args) if dest in dests]
    return [w for i, w in enumerate(run_args) if not any(s <= i < e for s, e in spans)]


def add_devices(parser: argparse.ArgumentParser) -> None:
    """The scripts' choice of devices: backends' defaults (-b), or devices by id."""
    parser.add_argument(
        "-b",
        "--backends",
        nargs="+",
        type=backend_name,
        default=["opencl", "wgpu"],
        help="backends whose default devices run (default: opencl wgpu)",
    )
    parser.add_argument(
        "--device",
        action="append",
        type=run_device,
        default=[],
        help="a harness device, such as cuda:0 (repeatable; instead of -b's devices)",
    )


def note_repeats(given: Sequence[tuple[str, Sequence[object]]]) -> None:
    """Say which values each option was given more than once: each runs once, as
    harness run says it, where the script took the repeat unsaid (harness run's
    note is not shown)."""
    for flag, values in given:
        shown = [f"{v:g}" if isinstance(v, float) else str(v) for v in values]
        twice = [v for v in dict.fromkeys(shown) if shown.count(v) > 1]
        if twice:
            print(
                f"note: {flag} {' '.join(twice)} given more than once; each value runs once",
                file=sys.stderr,
            )


def devices_chosen(args: argparse.Namespace) -> list[str]:
    """``harness run``'s arguments for the devices `add_devices` let the user choose."""
    return [w for d in args.device for w in ("--device", d)] or ["-b", *args.backends]

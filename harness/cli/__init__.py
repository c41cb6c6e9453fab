"""The command line: ``harness COMMAND``, a module per command (or family of commands).

Each module adds its command's options with ``register(sub)`` and holds what the
command does with them; this one builds the parser from them and runs ``main``.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import re
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from harness import __version__, suite
from harness.cli import (
    arguments,
    cuda_compile,
    devices,
    encoding,
    listing,
    mutants,
    peak,
    reports,
    run_options,
)
from harness.cli.devices import device_report
from harness.cli.run import Progress, run_command
from harness.errors import OutputError, UsageError
from harness.execution import ranks, results
from harness.model import partition

__all__ = [
    "Parser",
    "Progress",
    "build_parser",
    "device_report",
    "load_suites",
    "main",
    "run_command",
]

DESCRIPTION = """\
Benchmark GPU compute kernels on every backend this machine has (numpy on the
CPU, OpenCL, ...), verify each result against a CPU reference, and record
timings in a run folder (journal.jsonl, metadata.json, results.csv)."""


#: Where a parse keeps the options it has stored a value for (`_StoreOnce`).
_GIVEN = "_given_options"


class _StoreOnce(argparse._StoreAction):
    """argparse's ``store``, refusing an option given twice: the second value
    silently replaced the first, so ``-k A -k B`` ran B alone and ``-b cpu -b
    opencl`` opencl alone. Options meant to repeat use ``append`` or ``extend``."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = vars(namespace).setdefault(_GIVEN, {})
        shown = " ".join(map(str, values)) if isinstance(values, list) else str(values)
        if option_string is not None and self.dest in given:
            name = "/".join(self.option_strings)
            fix = (
                "give it once"
                if self.nargs in (None, "?")
                else f"give every value after one {name}"
            )
            raise argparse.ArgumentError(
                self, f"given twice ({given[self.dest]!r}, then {shown!r}); {fix}"
            )
        if option_string is not None:
            given[self.dest] = shown
        super().__call__(parser, namespace, values, option_string)


#: A word that begins as a negative number does (or is -inf, -nan): a value, such as
#: ``-1e3`` or a list ``-1,2``, not an option, none of which begins with a digit.
_NEGATIVE = re.compile(r"^-(inf(inity)?$|nan$|\.?\d)", re.I)


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, ``harness: error: ...``,
    and which refuses a single-valued option given twice (`_StoreOnce`)."""

    #: The top-level parser's sub-parser per command (set by `build_parser`).
    commands: dict[str, argparse.ArgumentParser]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)
        # What argparse takes as a negative number, not an option: its own -1 and -.5,
        # and -inf, -nan and -1e3 too, which it took for options ("expected one
        # argument"), so that an option's own check names the value.
        self._negative_number_matcher = _NEGATIVE

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """argparse's parse, less the record `_StoreOnce` keeps."""
        parsed, extra = super().parse_known_args(args, namespace)
        vars(parsed).pop(_GIVEN, None)
        return parsed, extra

    def error(self, message: str) -> NoReturn:
        """Raise a UsageError (one line, exit 2) instead of printing the usage block."""
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> Parser:
    """The argument parser, with a sub-parser per command."""
    parser = Parser(prog="harness", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for command in (devices, listing, run_options, reports, mutants, peak, cuda_compile):
        command.register(sub)
    parser.commands = dict(sub.choices)
    return parser


def load_suites(files: Sequence[str | Path]) -> None:
    """Add the kernels of installed suites (a broken one is a warning) and of the
    given files (a broken one a SuiteError) to the suite, before the parser, whose
    run options include theirs, is built."""
    installed = suite.installed_suites()
    if installed or files:
        suite.OPTION_NAMES = _option_names()
        suite.OPTION_FLAGS = _option_flags()
    for path in installed:
        try:
            _load_suite(path)
        except suite.SuiteError as exc:
            print(f"warning: installed suite left out: {exc}", file=sys.stderr)
    for path in files:
        if not str(path).strip():
            raise UsageError(f"--suite {str(path)!r}: no file named; give a Python file")
        try:
            _load_suite(arguments.path(str(path)))
        except argparse.ArgumentTypeError as exc:
            raise UsageError(f"--suite {exc}") from None


def _option_names() -> frozenset[str]:
    """The names of every command's own options (their dests, ``max_time`` for
    ``--max-time``), less the kernels' run options: what no user kernel's run option
    may be called."""
    names = set()
    for command in build_parser().commands.values():
        names.update(action.dest for action in command._actions)
    return frozenset(names - set(suite.PARAMS))


def _option_flags() -> tuple[frozenset[str], ...]:
    """The long options (``--precision``) of each command that offers the kernels'
    run options, less those: the options whose abbreviations a user kernel's run
    option would take."""
    params = {f"--{name}" for name in suite.PARAMS}
    return tuple(
        frozenset(flags - params)
        for command in build_parser().commands.values()
        for flags in [{s for a in command._actions for s in a.option_strings if s[:2] == "--"}]
        if params <= flags
    )


def _load_suite(path: str | Path) -> None:
    """`suite.load_suite`, with a file that exits as it is loaded (``sys.exit()``,
    ``exit()``) a SuiteError: the command ended there, with that file's status (0 for
    a run that ran nothing)."""
    try:
        suite.load_suite(path)
    except SystemExit as exc:
        raise suite.SuiteError(
            f"--suite {path}: it exits as it is loaded (SystemExit({exc.code!r})); "
            "give a file that defines KERNELS"
        ) from None


#: Commands that write one output from what they are given: under an MPI launcher
#: every rank would write it (two merged folders, two mutants folders, ranks
#: replacing each other's report files).
SINGLE_PROCESS = ("report", "plot", "merge", "import-rajaperf", "export", "mutants")


def _single_process(command: str, writes_csv: bool = False) -> None:
    """UsageError where a `SINGLE_PROCESS` command (or compare writing --csv) was
    started as several MPI ranks, or peak as several on one node (each would
    measure the devices under the others' load, and keep that as their peak)."""
    count = ranks.launched_ranks()
    writes = command in SINGLE_PROCESS or (command == "compare" and writes_csv)
    if writes and count > 1:
        raise UsageError(
            f"harness {command} was started as {count} MPI ranks, each of which would write "
            "its output: run it once, without mpirun or srun (harness run alone runs as ranks)"
        )
    here = ranks.launched_ranks(local=True)
    if command == "peak" and here > 1:
        raise UsageError(
            f"harness peak was started as {here} MPI ranks on this node, which would measure "
            "its devices at once, each under the others' load: run one rank per node"
        )


def _dashed_names(message: str, argv: Sequence[str]) -> str:
    """A parse error's message, naming a word of the command line that begins with
    '-' and names a file or folder here: read as an option, it left the command
    without the path it was meant to be ('the following arguments are required')."""
    named = [w for w in argv if w.startswith("-") and w != "--" and os.path.lexists(w)]
    if not named or "arguments are required" not in message:
        return message
    return f"{message}; {named[0]!r} is a file or folder here, read as an option: give it after --"


def _suite_files(argv: Sequence[str]) -> list[str]:
    """The values of every --suite in a command line, before it is parsed: under the
    abbreviations argparse takes for it too (``--su FILE``, ``--sui=FILE``), where the
    file went unloaded and a run ran without its kernels. A prefix that is another
    option's (``harness peak --s`` is ``--span``) is not one."""
    command = next((w for w in argv if not w.startswith("-")), None)
    parser = build_parser().commands.get(command or "")
    if parser is None:
        return []
    longs = [s for a in parser._actions for s in a.option_strings if s.startswith("--")]
    if "--suite" not in longs:
        # A command that takes none (report, devices) ran the file's code, and named a
        # broken one where it was to say that it takes no --suite.
        return []
    files = []
    for i, word in enumerate(argv):
        if word == "--":
            break
        name, sep, value = word.partition("=")
        if name != "--suite" and (
            len(name) < 3 or [o for o in longs if o.startswith(name)] != ["--suite"]
        ):
            continue
        if sep:
            files.append(value)
        elif i + 1 < len(argv):
            files.append(argv[i + 1])
    return files


#: The stop signals the command now running has received (`_terminable`).
_RECEIVED: list[int] = []


def stopped_status() -> int:
    """The exit status of a command a signal stopped: 143 where a second SIGTERM came
    (a batch system's stop, then its insistence), as it would have ended the
    process, else 130."""
    return 143 if _RECEIVED.count(signal.SIGTERM) > 1 else 130


class _LateSignal(KeyboardInterrupt):
    """A stop signal that arrived while the command ran but was swallowed where it
    was raised (a weakref callback or finalizer, which Python only reports), so
    that the command ran on to its end: its output is whole, and its status 130."""


def _signalled(exc: BaseException) -> bool:
    """Whether an exception was raised by, or while handling, a stop signal's
    KeyboardInterrupt (a library's cleanup failing on the interrupted state)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__context__ or exc.__cause__
    return False


@contextlib.contextmanager
def _terminable() -> Iterator[None]:
    """SIGTERM, SIGINT and SIGHUP (`results.STOP_SIGNALS`) raise KeyboardInterrupt
    while a command runs (``run`` and ``mutants`` put their own handlers over them
    while they measure). SIGINT too,
    since a command started in the background of a script inherits it ignored, and
    would then run on through an interrupt sent to its process group. Only the
    main thread may handle signals.

    Each signal is also counted, so that one is never lost: an error raised in the
    interrupted library's cleanup (matplotlib's half-saved figure) is the
    interrupt, and a KeyboardInterrupt swallowed where it was raised (in a weakref
    callback, which Python reports as unraisable) stops it at its next file, or
    ends it with `_LateSignal` once it is done. One a command chose to let pass
    (an MPI rank's signal after its run ended) is no interruption."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = _RECEIVED
    received.clear()
    # Each signal's arrival is written here: Python runs a handler once for two
    # SIGTERMs that came during one long C call (a plot's rendering), which ended 130.
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)

    def stop(signum: int, frame: Any) -> NoReturn:
        try:
            came = [s for s in os.read(read, 4096) if s in results.STOP_SIGNALS]
        except BlockingIOError:
            came = []
        received.extend(came or [signum])
        raise KeyboardInterrupt

    def unraisable(report: Any) -> None:
        # The signal is counted; the command stops at its next file instead of
        # printing a traceback and running on.
        if isinstance(report.exc_value, KeyboardInterrupt) and received:
            results.lost_stop()
        else:
            hook(report)

    previous = {signum: signal.signal(signum, stop) for signum in results.STOP_SIGNALS}
    before = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    hook, sys.unraisablehook = sys.unraisablehook, unraisable
    try:
        yield
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        if received or _signalled(exc):
            raise KeyboardInterrupt from exc
        raise
    else:
        if results.lost_stops():
            raise _LateSignal
    finally:
        sys.unraisablehook = hook
        results.forget_lost_stops()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(before)
        os.close(read)
        os.close(write)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``harness`` command; returns the exit status."""
    with encoding.printable_streams():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    """`main`, its standard streams able to print any text."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = "harness"
    parsed = False
    stdout, sys.stdout = sys.stdout, _Output(sys.stdout)
    stderr, sys.stderr = sys.stderr, _Diagnostics(sys.stderr)
    try:
        # From the start: a signal while suites load or the parser is built is one
        # line and 130 too, not a traceback (SIGINT) or a silent 143 (SIGTERM).
        with _terminable():
            load_suites(_suite_files(argv))
            try:
                args, extra = build_parser().parse_known_args(argv)
            except UsageError as exc:
                raise UsageError(_dashed_names(str(exc), argv)) from None
            except SystemExit:
                # --help: what it printed is written now, where a failure is caught
                # below (argparse swallows one of its own writes).
                sys.stdout.flush()
                if isinstance(sys.stdout, _Output) and sys.stdout.failed is not None:
                    raise sys.stdout.failed from None
                raise
            command = f"harness {args.command}"
            if extra:
                raise UsageError(
                    f"unrecognized arguments: {' '.join(extra)} (see '{command} --help')"
                )
            args.argv = argv
            partition.form_override()
            _single_process(args.command, bool(getattr(args, "csv", None)))
            parsed = True
            if stdout is None:
                # Closed (``>&-``): found before the work, not once a merge or a plot
                # is written and only its closing line is left to print.
                raise OutputError(errno.EBADF, "it is closed")
            status = args.handler(args)
            # What is still buffered is written now, where a failure is caught below.
            sys.stdout.flush()
            return status
    except KeyboardInterrupt as exc:
        # A second signal now ends the process as it would have without us.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if isinstance(exc, _LateSignal):
            said = (
                "stopped by a signal, which reached it only once its work was done: "
                "its output is whole"
            )
        elif not parsed:
            # While suites load or the command line is read: no work had begun.
            said = "interrupted while starting; nothing was done"
        else:
            said = "interrupted; what it was writing may be incomplete"
        print(f"\n{command}: {said}", file=sys.stderr)
        # Two SIGTERMs (a batch system's stop, then its insistence) end as the second
        # would have ended the process.
        return stopped_status()
    except (UsageError, suite.SelectionError, results.RunFolderError) as exc:
        # The command line is every MPI rank's, as a rule: rank 0 says what is wrong in
        # it, and another rank only where rank 0 has not ended the job by then.
        if not parsed and ranks.launched_rank() != 0:
            ranks.await_end(2)
        print(f"harness: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`harness show RUN | head`): what it read is all it
        # wanted. stdout goes to /dev/null, so that flushing it at exit says nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OutputError as exc:
        # stdout on a full disk (> /dev/full): one line, not a traceback, and nothing
        # more is tried there at exit (where there is a stdout at all).
        if stdout is not None:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        fix = (
            "give the command one (a file, a pipe or the terminal)"
            if exc.errno == errno.EBADF
            else "send it to a file on a disk with free space"
        )
        print(
            f"harness: error: cannot write the standard output ({exc.strerror or exc}); {fix}",
            file=sys.stderr,
        )
        return 2
    finally:
        sys.stdout = stdout
        sys.stderr = stderr


class _Diagnostics:
    """The standard error, whose failures to write are dropped: it carries notes and
    progress, and one that cannot be written (``2>&-``, a log on a full disk) ended a
    run in a traceback no one could read, its folder not ended. The command goes on
    without its messages, and its exit status says how it ended."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with contextlib.suppress(OSError, AttributeError, ValueError):
            self._stream.write(text)
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, AttributeError, ValueError):
            self._stream.flush()

    def isatty(self) -> bool:
        return self._stream is not None and self._stream.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Output:
    """The standard output, whose failures to write (but a reader gone: BrokenPipeError)
    are `OutputError`; everything else is the stream's own. The first failure is
    kept in ``failed``, for a writer that swallows it (argparse's help)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.failed: OutputError | None = None

    def write(self, text: str) -> int:
        try:
            return self._open().write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failure(exc) from exc

    def flush(self) -> None:
        try:
            self._open().flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failure(exc) from exc

    def _open(self) -> Any:
        """The stream; OSError (EBADF) where there is none: a process started
        with its standard output closed (``>&-``) has None for sys.stdout."""
        if self._stream is None:
            raise OSError(errno.EBADF, "it is closed")
        return self._stream

    def _failure(self, exc: OSError) -> OutputError:
        self.failed = self.failed or OutputError(exc.errno, exc.strerror)
        return self.failed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

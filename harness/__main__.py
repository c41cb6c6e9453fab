"""``python -m harness`` and the ``harness`` command.

The command's modules take a moment to import: a Ctrl-C or SIGTERM then (a job
cancelled as it starts) ends it with one line and exit 130, as one later does
(`harness.cli.main`), instead of a traceback or a silent 143.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from typing import Any, NoReturn

#: The signals that stop the command: Ctrl-C, SIGTERM and SIGHUP (a closed
#: terminal), as `harness.execution.results.STOP_SIGNALS`.
_STOPS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def _as_interrupt(signum: int, frame: Any) -> NoReturn:
    """SIGTERM or SIGHUP taken as Ctrl-C while the command starts."""
    raise KeyboardInterrupt


def entry() -> int:
    """Import the command line and run it; its exit status."""
    _stderr_held()
    main_thread = threading.current_thread() is threading.main_thread()
    if main_thread:
        # Registered first, so run last of the exit functions.
        atexit.register(_ignore_late_signals)
        if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
            # Started by nohup, to outlive its terminal.
            _STOPS.remove(signal.SIGHUP)
        for signum in _STOPS[1:]:
            signal.signal(signum, _as_interrupt)
        # Inherited ignored by a command started in a script's background.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        from harness.cli import main
    except KeyboardInterrupt:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        print("\nharness: interrupted while starting; nothing was done", file=sys.stderr)
        return 130
    status = main()
    if main_thread:
        _end_on_signal(status)
        _STATUS.append(status)
    return status


def _stderr_held() -> None:
    """Descriptor 2 on /dev/null where the command started with it closed (``2>&-``):
    the next file or pipe opened took it, and what a library or a child process
    writes to its standard error went into that."""
    try:
        os.fstat(2)
    except OSError:
        handle = os.open(os.devnull, os.O_WRONLY)
        if handle != 2:
            os.dup2(handle, 2)
            os.close(handle)


def _end_on_signal(status: int) -> None:
    """Once the command is over, SIGINT and SIGTERM end the process at once with the
    command's status: in the moments Python takes to exit after it (unloading
    pandas, joining a worker), one killed it by that signal (status 143, or 130 by
    a KeyboardInterrupt raised as it shut down) when everything was written and the
    status was 0. A hang there still ends at the signal. A SIGTERM after a command a
    signal stopped (130) is its second: 143, as during the command."""

    def end(signum: int, frame: Any) -> NoReturn:
        # os._exit leaves Python's buffers unwritten: a table printed into a pipe
        # would be lost with them.
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(143 if status == 130 and signum == signal.SIGTERM else status)

    for signum in _STOPS:
        signal.signal(signum, end)


#: The command's exit status, once it has one (for `_ignore_late_signals`).
_STATUS: list[int] = []


def _ignore_late_signals() -> None:
    """The last of Python's exit: SIGINT and SIGTERM ignored. Past its exit
    functions, Python gives signals it handled their default action back (a
    SIGTERM then killed the process, status 143, after all was written); an
    ignored one it leaves ignored. What can hang (a worker joined) is over. A
    command a signal stopped (130) is the exception: a SIGTERM is its second, which
    ends it by SIGTERM (143 to a shell), as it would a moment before (`main`);
    ignored, the process, still unloading its modules, exited 130."""
    stopped = _STATUS == [130]
    for signum in _STOPS:
        late = signal.SIG_DFL if stopped and signum == signal.SIGTERM else signal.SIG_IGN
        signal.signal(signum, late)


if __name__ == "__main__":
    sys.exit(entry())

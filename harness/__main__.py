"""``python -m harness`` and the ``harness`` command.

The command's modules take a moment to import: a Ctrl-C or SIGTERM then (a job
cancelled as it starts) ends it with one line and exit 130, as one later does
(`harness.cli.main`), instead of a traceback or a silent 143.
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import Any, NoReturn


def _as_interrupt(signum: int, frame: Any) -> NoReturn:
    """SIGTERM taken as Ctrl-C while the command starts."""
    raise KeyboardInterrupt


def entry() -> int:
    """Import the command line and run it; its exit status."""
    main_thread = threading.current_thread() is threading.main_thread()
    if main_thread:
        signal.signal(signal.SIGTERM, _as_interrupt)
        # Inherited ignored by a command started in a script's background.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        from harness.cli import main
    except KeyboardInterrupt:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        print("\nharness: interrupted while starting; nothing was done", file=sys.stderr)
        return 130
    try:
        return main()
    finally:
        if main_thread:
            _ignore_signals()


def _ignore_signals() -> None:
    """Ignore SIGINT and SIGTERM once the command is over, its status set: in the
    moments Python takes to exit after it (unloading pandas and matplotlib), one
    killed the process by that signal (status 143, or 130 by a KeyboardInterrupt
    raised as it shut down) when everything was written and the status was 0."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(entry())

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
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _as_interrupt)
        # Inherited ignored by a command started in a script's background.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        from harness.cli import main
    except KeyboardInterrupt:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        print("\nharness: interrupted while starting; nothing was done", file=sys.stderr)
        return 130
    return main()


if __name__ == "__main__":
    sys.exit(entry())

"""The ``harness`` command: starts the worker fork server first, when the
command will need workers, then loads and runs the command line."""

from __future__ import annotations

import sys


def main() -> int:
    """Entry point of the ``harness`` command; returns the exit status."""
    args = sys.argv[1:]
    if args[:1] == ["run"] and "--in-process" not in args:
        from harness import forkserver

        forkserver.start()
    from harness.cli import main as run_command_line

    return run_command_line()

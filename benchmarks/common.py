"""Helpers the benchmark scripts share: running the harness and reading its rows."""

from __future__ import annotations

import argparse
import contextlib
import csv
import math
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from harness.backends import get as get_backend
from harness.backends.base import BackendUnavailable, DeviceInfo
from harness.cli.arguments import number


class Parser(argparse.ArgumentParser):
    """Refuses bad arguments in one line, naming the value and what is accepted."""

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
    backend, _, index = text.partition(":")
    try:
        found = get_backend(backend).devices()
    except BackendUnavailable as exc:
        parser.error(f"{option} {text!r}: backend {backend} is unavailable: {exc}")
    except ValueError as exc:
        parser.error(f"{option} {text!r}: no such device: {exc}")
    if not (index or "0").isdecimal() or int(index or 0) >= len(found):
        have = ", ".join(d.id for d in found) or "no device"
        parser.error(f"{option} {text!r}: no such device; {backend} has {have}")
    return found[int(index or 0)]


#: What a script interrupted says, in place of its results.
INTERRUPTED = "interrupted: stopped before its results were printed"


def _raise_interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def run_main(main: Callable[[], int | None]) -> NoReturn:
    """Run a script's ``main`` and exit with its status; at an interrupt (Ctrl-C,
    SIGTERM) with 130 and one line, where a traceback ended it (and SIGTERM left
    a harness run it had started going: `harness_rows` stops it)."""
    signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        status = main()
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        raise SystemExit(130) from None
    raise SystemExit(status or 0)


def _interruptible(command: list[str], **popen: Any) -> subprocess.CompletedProcess:
    """Run a harness command, its stderr captured. At an interrupt it stops as the
    harness does (Ctrl-C reaches both; a SIGTERM is passed on): it finishes its
    row, or at a second interrupt stops at once, and the script then exits 130
    (143 after a second SIGTERM) in one line, where it ended in a traceback
    (subprocess.run's KeyboardInterrupt) with the harness run killed or, at
    SIGTERM, left running."""
    received: list[int] = []
    started: list[subprocess.Popen] = []

    def interrupt(signum: int, _frame: object) -> None:
        received.append(signum)
        if signum == signal.SIGTERM:
            for child in started:
                child.send_signal(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        with subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **popen
        ) as child:
            started.append(child)
            try:
                _, err = child.communicate()
            except KeyboardInterrupt:
                signal.signal(signal.SIGINT, interrupt)
                while child.poll() is None:
                    with contextlib.suppress(KeyboardInterrupt):
                        child.communicate()
                print(INTERRUPTED, file=sys.stderr)
                raise SystemExit(143 if received.count(signal.SIGTERM) > 1 else 130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    return subprocess.CompletedProcess(command, child.returncode, None, err)


def harness_rows(
    *args: str, tree: Path | None = None, failed_rows: bool = True
) -> tuple[list[dict[str, str]], float]:
    """Run ``harness run ARGS`` in a fresh process; its rows and its wall time.

    With ``tree``, the harness is the one in that checkout, run from it. Exit
    status 1 (some rows failed; they are in the table) is accepted unless
    ``failed_rows`` is False; status 2 (an argument refused) ends the script with
    the harness's one line and status 2; any other failure raises with the
    harness's error.
    """
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", tempfile.gettempdir())
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as out:
        start = time.perf_counter()
        done = _interruptible(
            [sys.executable, "-m", "harness", "run", *args, "--out", out], cwd=tree, env=env
        )
        wall = time.perf_counter() - start
        if done.returncode == 2:
            # The harness refused an argument the script passed on: its one line
            # (naming the value and what is accepted) is the script's, as its exit 2.
            lines = done.stderr.strip().splitlines()
            print(lines[-1] if lines else "harness run refused its arguments", file=sys.stderr)
            raise SystemExit(2)
        if done.returncode not in ((0, 1) if failed_rows else (0,)):
            where = f" in {tree}" if tree is not None else ""
            raise RuntimeError(
                f"harness run {' '.join(args)}{where} exited {done.returncode}:\n"
                + done.stderr[-2000:]
            )
        if done.returncode == 1:
            print(done.stderr[-2000:], file=sys.stderr)
        (folder,) = Path(out).iterdir()
        with (folder / "results.csv").open() as f:
            return list(csv.DictReader(f)), wall


def add_devices(parser: argparse.ArgumentParser) -> None:
    """The scripts' choice of devices: backends' defaults (-b), or devices by id."""
    parser.add_argument("-b", "--backends", nargs="+", default=["opencl", "wgpu"])
    parser.add_argument(
        "--device",
        action="append",
        default=[],
        help="a harness device, such as cuda:0 (repeatable; instead of -b's devices)",
    )


def devices_chosen(args: argparse.Namespace) -> list[str]:
    """``harness run``'s arguments for the devices `add_devices` let the user choose."""
    return [w for d in args.device for w in ("--device", d)] or ["-b", *args.backends]

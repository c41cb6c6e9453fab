"""Helpers the benchmark scripts share: running the harness and reading its rows."""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NoReturn


class Parser(argparse.ArgumentParser):
    """Refuses bad arguments in one line, naming the value and what is accepted."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


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
        done = subprocess.run(
            [sys.executable, "-m", "harness", "run", *args, "--out", out],
            cwd=tree,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
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

"""`harness mutants`: the command line of `harness.mutation.mutants`."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness import suite
from harness.backends import BACKENDS
from harness.backends import get as get_backend
from harness.cli import arguments
from harness.errors import UsageError
from harness.execution.workers import Workers
from harness.model import sources
from harness.model.spec import PRECISIONS, KernelSpec
from harness.mutation import mutants
from harness.mutation.mutants import (
    EQUIVALENTS,
    MIN_TIMEOUT,
    SIMULATOR_MAX_SIZE,
    TIMEOUT_FACTOR,
    Lines,
    Outcome,
    Tally,
    _Lab,
    all_mutants,
    format_summary,
    read_equivalents,
    run_kernel,
    sample,
    source_files,
    tally,
    write_folder,
)

EPILOG = """\
examples:
  harness mutants -k Apps_ENERGY -b opencl              every mutant of one kernel
  harness mutants -k Stream -b opencl wgpu --sample 20  20 random mutants per kernel
  harness mutants -b opencl --fail-under 90             the whole suite, as a gate
  harness mutants -k Bitonic_U32 -b opencl --lines bitonic.h:640-760 --strategy tiled
                                 the lines a change touched, checked by the rows that run them
  harness mutants -k Algorithm_SCAN -b opencl --device oclgrind --max-size 50000
                                                         on the simulator: races too

A mutant is killed when some row of its check fails, errors, crashes or times
out; it survives when every row verifies. Mutants that do not compile are not
counted, nor those listed with a reason in kernels/equivalent-mutants.txt.

Exit status: 0, or 1 when a backend's kill score is under --fail-under or an
unmutated kernel fails its own check; 2 for a usage error."""


def _devices(args: argparse.Namespace) -> list[str]:
    for name in args.backends:
        if name not in BACKENDS:
            raise UsageError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
        if get_backend(name).language is None:
            with_sources = [n for n in BACKENDS if get_backend(n).language is not None]
            raise UsageError(
                f"backend {name!r} runs the descriptions' numpy code, which has no kernel "
                f"source to mutate; choose from {', '.join(with_sources)}"
            )
    wanted = [_device_id(text, args.backends) for text in args.device]
    chosen = []
    for name in args.backends:
        mine = [d for d in wanted if d.partition(":")[0] == name]
        chosen.extend(mine or [f"{name}:0"])
    return chosen


def _device_id(text: str, backends: Sequence[str]) -> str:
    """A --device value as BACKEND:INDEX: given so, or the one device of the -b
    backends whose name contains it (oclgrind for the simulator)."""
    name, sep, index = text.partition(":")
    if sep:
        if not index.isdigit() or name not in backends:
            raise UsageError(
                f"--device {text!r}: expected BACKEND:INDEX with a backend given to -b"
            )
        return text
    workers = Workers()
    try:
        found = workers.catalogs(list(backends))
    finally:
        workers.close()
    listed = [d for c in found.values() for d in c.devices]
    named = [d.id for d in listed if text.lower() in d.name.lower()]
    if len(named) != 1:
        which = "no device's" if not named else f"{len(named)} devices' ({', '.join(named)})"
        every = ", ".join(f"{d.id} {d.name}" for d in listed) or "none"
        raise UsageError(
            f"--device {text!r}: {which} name contains it; give BACKEND:INDEX or part of "
            f"one device's name (devices of {', '.join(backends)}: {every})"
        )
    return named[0]


def _cmd_mutants(args: argparse.Namespace) -> int:
    kernels = suite.select(args.kernels)
    devices = _devices(args)
    try:
        equivalents = read_equivalents(sources.shipped_root() / EQUIVALENTS)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    _check_lines(args.lines or (), kernels, {d.partition(":")[0] for d in devices})
    params = arguments.chosen_params(args, kernels, check=True)
    capped: dict[str, int | None] = {}
    tallies: list[Tally] = []
    outcomes: list[Outcome] = []
    interrupted = False
    for device in devices:
        backend = device.partition(":")[0]
        for spec in kernels:
            if interrupted or not all_mutants(spec, backend)[0]:
                continue
            # A lab per kernel: its worker's compiled mutants go with it.
            lab = _Lab(device, args.precision, args.timeout, args.max_size, params)
            if lab.max_size != args.max_size and device not in capped:
                capped[device] = lab.max_size
                print(
                    f"note: {device} is a simulator: checks run at sizes up to "
                    f"{lab.max_size} (--max-size N to change)",
                    file=sys.stderr,
                )
            try:
                start = time.monotonic()
                every, dead = all_mutants(spec, backend, lab.info, lab.precisions, dict(params))
                if args.lines:
                    every = [m for m in every if any(lines.holds(m) for lines in args.lines)]
                found = sample(every, args.sample, args.seed)
                uncompiled = f" ({dead} more in code it does not compile)" if dead else ""
                print(
                    f"{spec.name} on {device}: {len(found)} mutants{uncompiled}",
                    file=sys.stderr,
                    flush=True,
                )
                done, problem = run_kernel(lab, spec, found, equivalents, args.verbose)
                counts = tally(spec.name, device, done, problem)
                tallies.append(counts)
                outcomes.extend(done)
                took = time.monotonic() - start
                print(
                    f"  {problem}"
                    if problem
                    else f"  {counts.killed} killed, {counts.survived} survived, "
                    f"{counts.stillborn} stillborn, {counts.equivalent} equivalent "
                    f"({took:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
            except KeyboardInterrupt:
                print("interrupted: writing what was measured", file=sys.stderr)
                interrupted = True
            finally:
                lab.close()
    if not tallies:
        raise UsageError("the selected kernels have no source on the selected backends")
    print(format_summary(tallies, outcomes))
    scope = _scope(args, params, capped)
    if scope:
        print(f"\n{scope}")
    folder = write_folder(args.out, tallies, outcomes, scope)
    print(f"\nmutants folder: {folder}")
    failing = any(t.problem for t in tallies)
    if args.fail_under is not None:
        for device in devices:
            mine = [t for t in tallies if t.device == device]
            killed = sum(t.killed for t in mine)
            counted = killed + sum(t.survived for t in mine)
            if counted and 100 * killed / counted < args.fail_under:
                print(
                    f"{device}: kill score {100 * killed / counted:.1f}% is under "
                    f"--fail-under {args.fail_under:g}%",
                    file=sys.stderr,
                )
                failing = True
    return 1 if failing else 0


def _lines(text: str) -> Lines:
    file, _, span = text.rpartition(":")
    first, _, last = span.partition("-")
    try:
        low, high = int(first), int(last or first)
    except ValueError:
        low = high = 0
    if not file or "/" in file or low < 1 or high < low:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not FILE:LINE or FILE:FIRST-LAST with a source file's name "
            "(as bitonic.h:640-760) and lines from 1"
        )
    return Lines(file, low, high)


def _scope(
    args: argparse.Namespace,
    params: Sequence[tuple[str, Sequence[str]]],
    capped: dict[str, int | None],
) -> str:
    """What narrowed the run (run options, ``--lines``, ``--max-size`` or a
    simulator's default cap, ``--sample``), so that a score is read for what it
    counts; empty where nothing did."""
    given = [f"--{name} {' '.join(values)}" for name, values in params]
    if args.lines:
        spans = (
            f"{s.file}:{s.first}" + (f"-{s.last}" if s.last > s.first else "") for s in args.lines
        )
        given.append(f"--lines {' '.join(spans)}")
    given += [f"--max-size {args.max_size}"] * (args.max_size is not None)
    given += [
        f"sizes up to {n} on {device} (a simulator's default)" for device, n in capped.items()
    ]
    given += [f"--sample {args.sample} --seed {args.seed}"] * (args.sample is not None)
    return f"narrowed by: {'; '.join(given)}" if given else ""


def _check_lines(lines: Sequence[Lines], kernels: Sequence[KernelSpec], backends: set[str]):
    """A usage error for ``--lines`` naming a file no chosen kernel compiles."""
    names: set[str] = set()
    for backend in sorted(backends):
        chosen = get_backend(backend)
        if chosen.language is not None:
            for spec in kernels:
                names.update(p.name for p in source_files(spec, chosen.language, chosen.extension))
    for each in lines:
        if each.file not in names:
            raise UsageError(
                f"--lines {each.file}:{each.first}-{each.last}: no chosen kernel's source "
                f"is named {each.file!r}; theirs: {', '.join(sorted(names)) or 'none'}"
            )


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage from 0 to 100")
    return value


def register(sub: Any) -> None:
    """Add the ``mutants`` command to the command line."""
    parser = sub.add_parser(
        "mutants",
        help="plant single-token bugs in kernel sources; report which the check misses",
        description=(mutants.__doc__ or "").split("\n\n", 1)[1],
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-k",
        "--kernels",
        nargs="+",
        metavar="SEL",
        help="kernel names, groups or globs, as for 'harness run'; default: all",
    )
    parser.add_argument(
        "-b",
        "--backends",
        nargs="+",
        required=True,
        metavar="BACKEND",
        help="backends whose sources are mutated (opencl, wgpu, cuda)",
    )
    parser.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="DEVICE",
        help="the device of a backend to use, as BACKEND:INDEX or part of its name "
        "(oclgrind: the simulator, where races and overruns are killed too); default: "
        "each backend's first",
    )
    parser.add_argument(
        "--suite",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="a Python file describing your own kernels, as for 'harness run' (repeatable)",
    )
    parser.add_argument(
        "--sample",
        type=arguments.positive_int,
        metavar="N",
        help="at most N mutants per kernel, picked at random (default: every one)",
    )
    parser.add_argument(
        "--seed", type=arguments.seed, default=1, help="seed for --sample (default 1)"
    )
    arguments.kernel_options(parser)
    parser.add_argument(
        "--lines",
        nargs="+",
        type=_lines,
        metavar="FILE:FIRST-LAST",
        help="only the mutants on these lines of these source files, named as in the "
        "table (bitonic.h:640-760, Apps_ENERGY.c:12): the code a change touched "
        "(default: every line)",
    )
    parser.add_argument(
        "--precision",
        nargs="+",
        choices=PRECISIONS,
        default=list(PRECISIONS),
        help="types of 'real' each mutant is checked at (default: f64 and f32, so code "
        "that only one precision compiles is tested too)",
    )
    parser.add_argument(
        "--timeout",
        type=arguments.seconds,
        metavar="SECONDS",
        help=f"per row of a mutant's check (default: {TIMEOUT_FACTOR:g} times the "
        f"unmutated kernel's, at least {MIN_TIMEOUT:g} s)",
    )
    parser.add_argument(
        "--max-size",
        type=arguments.positive_int,
        metavar="N",
        help="check only at the check sizes up to N (and the small odd one): for the "
        "simulator, which is over ten thousand times slower than a CPU device; the "
        "branches only larger sizes reach go unchecked (default: every check size; "
        f"{SIMULATOR_MAX_SIZE} on a simulator)",
    )
    parser.add_argument(
        "--fail-under",
        type=_percent,
        metavar="PCT",
        help="exit 1 when a backend kills fewer than PCT%% of the counted mutants",
    )
    arguments.run_folder_out(parser, "the mutants folder")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every mutant's fate")
    parser.set_defaults(handler=_cmd_mutants)

"""`harness mutants`: the command line of `harness.mutation.mutants`."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import suite
from harness.backends import BACKENDS
from harness.backends import get as get_backend
from harness.backends.base import DeviceInfo
from harness.cli import arguments
from harness.cli.devices import is_index
from harness.errors import OutputError, UsageError
from harness.execution import results
from harness.execution.workers import Workers
from harness.model import sources
from harness.model.spec import PRECISIONS, KernelSpec
from harness.mutation import mutants
from harness.mutation.mutants import (
    EQUIVALENTS,
    MIN_TIMEOUT,
    NOT_RUN,
    SIMULATOR,
    SIMULATOR_MAX_SIZE,
    SMALL_SIZE,
    TIMEOUT_FACTOR,
    Equivalent,
    Lines,
    Outcome,
    Tally,
    WriteFailed,
    _Lab,
    all_mutants,
    check_sizes,
    format_summary,
    read_equivalents,
    run_kernel,
    sample,
    source_files,
    tally,
    write_folder,
)
from harness.mutation.operators import Mutant

#: The seed of ``--sample`` where ``--seed`` is not given.
SEED = 1

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

Exit status: 0, or 1 when a backend's kill score is under --fail-under (or it
counted no mutant), an unmutated kernel fails its own check (or runs too
long for --timeout) or, with --stop-at-first-survivor, a mutant survives;
2 for a usage error (options that select no mutant, an --out that cannot be
written: found before any mutant runs; a mutants folder that cannot be
written at the end); 130 when interrupted (Ctrl-C or SIGTERM:
the current mutant finishes and what was measured is written, marked partial,
and never passes --fail-under; a second one stops at once, 143 for SIGTERM)."""


@dataclass
class _Job:
    """One kernel's chosen mutants on one device, and what became of them."""

    spec: KernelSpec
    device: DeviceInfo
    chosen: list[Mutant]
    dead: int
    outcomes: list[Outcome] = field(default_factory=list)
    #: How many mutants its code holds before --lines and --sample narrow them.
    made: int = 0
    #: Whether --sample left some of them out.
    sampled: bool = False
    problem: str | None = None
    finished: bool = False

    @property
    def left(self) -> list[Mutant]:
        """The chosen mutants an interrupt left unchecked (outcomes keep their order)."""
        return [] if self.finished else self.chosen[len(self.outcomes) :]


class _Stop:
    """SIGINT and SIGTERM while ``harness mutants`` runs: the first stops the run
    after the current mutant, a second stops it at once (exit status 143 for
    SIGTERM, else 130); either way what was measured is then written. Writing
    itself is not cut short."""

    def __init__(self) -> None:
        self.asked = False
        self.raising = True
        #: Whether the mutants run: before, as their folder is checked and they are
        #: made, a stop ends the command with nothing to finish.
        self.running = False
        self.status = 130
        # Only the main thread may handle signals (a notebook runs code there).
        main = threading.current_thread() is threading.main_thread()
        signals = results.STOP_SIGNALS if main else ()
        self.previous = {s: signal.signal(s, self._on_signal) for s in signals}

    def _on_signal(self, signum: int, frame: Any) -> None:
        name = results.stop_name(signum)
        if not self.asked:
            self.asked = True
            if not self.running:
                # It said 'after the current mutant' where none had begun.
                then = "before any mutant runs"
            elif self.raising:
                then = "after the current mutant"
            else:
                then = "once what was measured is written"
            print(
                f"\n{name}: stopping {then} ({name} again to stop now)", file=sys.stderr, flush=True
            )
            return
        if signum == signal.SIGTERM:
            self.status = 143
        if self.raising:
            self.raising = False
            print(f"\n{name}: stopping now; writing what was measured", file=sys.stderr)
            raise KeyboardInterrupt

    def restore(self) -> None:
        """Put back the handlers there were before."""
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)


def precisions(args: argparse.Namespace) -> tuple[str, ...]:
    """The precisions each mutant is checked at, each once, in the order given."""
    return tuple(dict.fromkeys(args.precision or PRECISIONS))


def _devices(args: argparse.Namespace) -> list[DeviceInfo]:
    """The devices to check on: each -b backend's first unless --device names
    others, each once; a usage error for a backend with no source to mutate or
    unavailable here, or a --device naming no one device of them."""
    backends = list(dict.fromkeys(args.backends))
    for name in backends:
        if name not in BACKENDS:
            raise UsageError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
        if get_backend(name).language is None:
            with_sources = [n for n in BACKENDS if get_backend(n).language is not None]
            raise UsageError(
                f"backend {name!r} runs the descriptions' numpy code, which has no kernel "
                f"source to mutate; choose from {', '.join(with_sources)}"
            )
    workers = Workers()
    try:
        found = workers.catalogs(backends)
    finally:
        workers.close()
    for name in backends:
        if found[name].reason is not None:
            raise UsageError(f"backend {name} is unavailable: {found[name].reason}")
    listed = {d.id: d for name in backends for d in found[name].devices}
    wanted = [_device_id(text, backends, list(listed.values())) for text in args.device]
    chosen = []
    for name in backends:
        mine = [d for d in wanted if d.partition(":")[0] == name] or [f"{name}:0"]
        for each in mine:
            if each not in listed:
                has = ", ".join(d for d in listed if d.partition(":")[0] == name) or "none"
                raise UsageError(f"--device {each!r}: no such device; {name} has {has}")
        chosen.extend(mine)
    return [listed[d] for d in dict.fromkeys(chosen)]


def _device_id(text: str, backends: Sequence[str], listed: Sequence[DeviceInfo]) -> str:
    """A --device value as BACKEND:INDEX: given so, or the one device of the -b
    backends whose name contains it (oclgrind for the simulator)."""
    every = ", ".join(f"{d.id} {d.name}" for d in listed) or "none"
    if not text.strip():
        raise UsageError(
            f"--device {text!r}: empty; give BACKEND:INDEX or part of one device's name "
            f"(devices of {', '.join(backends)}: {every})"
        )
    name, sep, index = text.partition(":")
    if sep:
        if not is_index(index) or name not in backends:
            raise UsageError(
                f"--device {text!r}: expected BACKEND:INDEX with a backend given to -b"
            )
        return f"{name}:{int(index)}"
    named = [d.id for d in listed if text.lower() in d.name.lower()]
    if len(named) != 1:
        which = "no device's" if not named else f"{len(named)} devices' ({', '.join(named)})"
        raise UsageError(
            f"--device {text!r}: {which} name contains it; give BACKEND:INDEX or part of "
            f"one device's name (devices of {', '.join(backends)}: {every})"
        )
    return named[0]


def _plan(
    args: argparse.Namespace,
    kernels: Sequence[KernelSpec],
    devices: Sequence[DeviceInfo],
    params: tuple[tuple[str, tuple[str, ...]], ...],
    stop: _Stop,
) -> list[_Job]:
    """Each kernel's chosen mutants on each device, before any runs: a usage error
    for a ``--lines`` value holding no mutant, a device left with none, or a
    ``--max-size`` under every check size; KeyboardInterrupt once stopped."""
    files = _check_lines(args.lines or (), kernels, {d.backend for d in devices})
    jobs = []
    for device in devices:
        chosen = get_backend(device.backend)
        assert chosen.language is not None
        for spec in kernels:
            if stop.asked:
                raise KeyboardInterrupt
            if source_files(spec, chosen.language, chosen.extension):
                every, dead = all_mutants(
                    spec, device.backend, device, precisions(args), dict(params)
                )
                jobs.append(_Job(spec, device, every, dead, made=len(every)))
            elif len(kernels) > 1:
                # Alone it is refused below; beside others it was left out unsaid,
                # and their gate passed as if it had been checked.
                print(
                    f"note: {spec.name} has no {chosen.language} source: no mutant of it "
                    f"on {device.id}",
                    file=sys.stderr,
                )
    for lines in args.lines or ():
        if not any(lines.holds(m) for job in jobs for m in job.chosen):
            raise UsageError(_no_mutant_on(lines, jobs, files[lines.file]))
    if args.lines and all(any(s.holds(m) for s in args.lines) for j in jobs for m in j.chosen):
        # It was said to narrow the run ('narrowed by: --lines ...') where it left out
        # no mutant.
        print(
            f"note: --lines {' '.join(dict.fromkeys(map(str, args.lines)))} hold every "
            "mutant of the chosen kernels, so it changes nothing",
            file=sys.stderr,
        )
        args.lines = None
    for job in jobs:
        if args.lines:
            job.chosen = [m for m in job.chosen if any(s.holds(m) for s in args.lines)]
        picked = sample(job.chosen, args.sample, SEED if args.seed is None else args.seed)
        job.chosen, job.sampled = picked, len(picked) < len(job.chosen)
    for device in devices:
        if not any(job.device == device for job in jobs):
            # It said none had 'a mutant in its source', of kernels with no source.
            language = get_backend(device.backend).language
            names = ", ".join(s.name for s in kernels)
            raise UsageError(
                f"{device.id}: none of the chosen kernels ({names}) has a source in {language} "
                f"(see 'harness list --files'); leave {device.backend} out of -b or choose "
                "other kernels"
            )
        if not any(job.chosen for job in jobs if job.device == device):
            names = ", ".join(s.name for s in kernels)
            which = " on the --lines given" if args.lines else ""
            raise UsageError(
                f"{device.id}: none of the chosen kernels ({names}) has a mutant{which} in "
                f"its {device.backend} source; leave {device.backend} out of -b or choose "
                "other kernels"
            )
    for job in jobs:
        if not job.made:
            # Beside kernels with mutants it was left out unsaid, as one without a
            # source was, and their gate passed as if it had been checked.
            where = f" ({job.dead} in code it does not compile)" if job.dead else ""
            print(
                f"note: {job.spec.name} has no mutant in its {job.device.backend} source"
                f"{where}: nothing of it is checked on {job.device.id}",
                file=sys.stderr,
            )
    jobs = [job for job in jobs if job.chosen]
    if args.sample is not None and not any(job.sampled for job in jobs):
        # Taken unsaid, and left out of the table's 'narrowed by:', as if it sampled.
        most = max(len(job.chosen) for job in jobs)
        seed = f" and --seed {args.seed} pick" if args.seed is not None else " picks"
        print(
            f"note: --sample {args.sample}{seed} every mutant: no chosen kernel has more "
            f"than {most}, so every one is checked and the score is not a sample's",
            file=sys.stderr,
        )
    if args.max_size is not None:
        sizes = {
            (s, job.spec.name) for job in jobs for s in check_sizes(job.spec, job.device, params)
        }
        if sizes and min(sizes)[0] > args.max_size:
            smallest, name = min(sizes)
            raise UsageError(
                f"--max-size {args.max_size} is under every check size of the chosen kernels "
                f"(the smallest: {smallest}, {name}'s), which would be checked at the small "
                f"size {SMALL_SIZE} alone; give --max-size {smallest} or more"
            )
        if (
            sizes
            and max(sizes)[0] <= args.max_size
            and all(job.device.kind != SIMULATOR for job in jobs)
        ):
            # It was said to narrow the run ('narrowed by: --max-size N') where it left
            # out no size; on a simulator it lifts the default cap, which is a change.
            largest, name = max(sizes)
            print(
                f"note: --max-size {args.max_size} is over every check size of the chosen "
                f"kernels (the largest: {largest}, {name}'s), so it changes nothing",
                file=sys.stderr,
            )
            args.max_size = None
    return jobs


def _note_idle(args: argparse.Namespace, devices: Sequence[DeviceInfo]) -> None:
    """Say which options change nothing here, as they were taken unsaid: a value
    given twice (each runs once), ``--seed`` without ``--sample``, and
    ``--no-simulator`` where no chosen device is an OpenCL device it would spare."""
    for flag, values in (
        ("--kernels", args.kernels or ()),
        ("--backends", args.backends),
        ("--device", args.device),
        ("--precision", args.precision or ()),
        ("--lines", [str(lines) for lines in args.lines or ()]),
    ):
        twice = [v for v, n in Counter(values).items() if n > 1]
        if twice:
            print(
                f"note: {flag} {' '.join(twice)} given more than once; each value runs once",
                file=sys.stderr,
            )
    if args.seed is not None and args.sample is None:
        print(
            f"note: --seed {args.seed} picks the mutants of --sample; without --sample every "
            "mutant is checked, so it changes nothing",
            file=sys.stderr,
        )
    if not args.simulator and not any(
        d.backend == "opencl" and d.kind != SIMULATOR for d in devices
    ):
        print(
            "note: --no-simulator spares an OpenCL device's survivors the simulator's "
            f"check; no chosen device ({', '.join(d.id for d in devices)}) is one, so it "
            "changes nothing",
            file=sys.stderr,
        )


def _no_mutant_on(lines: Lines, jobs: Sequence[_Job], path: Path) -> str:
    """Why ``--lines`` selects nothing: the file's length, the lines holding mutants."""
    held = sorted({m.line for job in jobs for m in job.chosen if m.file == lines.file})
    count = len(path.read_text(encoding="utf-8").splitlines())
    why = [f"{lines.file} has {count} lines"] if lines.last > count else []
    if held:
        spans: list[list[int]] = []
        for line in held:
            if spans and spans[-1][1] == line - 1:
                spans[-1][1] = line
            else:
                spans.append([line, line])
        text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)
        why.append(f"{lines.file}'s mutants are on line{'s' if len(held) > 1 else ''} {text}")
    else:
        why.append(f"no line of {lines.file} holds a mutant the chosen kernels compile")
    return f"--lines {lines}: no mutant of the chosen kernels is on these lines; {'; '.join(why)}"


def _cmd_mutants(args: argparse.Namespace) -> int:
    """`harness mutants`: the exit status, with SIGINT and SIGTERM handled (`_Stop`)."""
    stop = _Stop()
    try:
        return _mutants(args, stop)
    except KeyboardInterrupt:
        print("interrupted before any mutant ran: nothing written", file=sys.stderr)
        return stop.status
    finally:
        stop.restore()


def _show(table: str) -> OSError | None:
    """Print the table; the failure, where the standard output cannot take it (a full
    disk, or a reader gone: ``| true``), which is then sent nowhere: the check's
    minutes are still written to its folder, where an exit on it lost them."""
    try:
        print(table)
        sys.stdout.flush()
    except (OutputError, BrokenPipeError) as exc:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return exc
    return None


def _mutants(args: argparse.Namespace, stop: _Stop) -> int:
    """Check every input and the output folder, then run the mutants until done or
    stopped; write and print what was measured, and judge the gate on whole runs."""
    kernels = suite.select(args.kernels)
    # Before the devices are asked and every mutant is made (50 s for the suite on
    # opencl and wgpu), which an --out that cannot be written wasted; the folders it
    # makes are removed again where the command stops before any mutant runs.
    made = [p for p in (args.out, *args.out.parents) if not p.exists()]
    results.check_out(args.out, "--out")
    try:
        devices = _devices(args)
        _note_idle(args, devices)
        try:
            equivalents = read_equivalents(sources.shipped_root() / EQUIVALENTS)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        params = arguments.chosen_params(args, kernels, check=True)
        try:
            jobs = _plan(args, kernels, devices, params, stop)
        except ValueError:
            if stop.asked:  # the C preprocessor, stopped by the same Ctrl-C
                raise KeyboardInterrupt from None
            raise
    except BaseException:
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    capped: dict[str, int | None] = {}
    stop.running = True
    try:
        for job in jobs:
            if stop.asked or _survivor(jobs, args):
                break
            _run(job, args, params, equivalents, capped, stop, lambda: _survivor(jobs, args))
    except KeyboardInterrupt:
        pass
    stop.raising = False
    tallies = [tally(j.spec.name, j.device.id, j.outcomes, j.problem, len(j.left)) for j in jobs]
    outcomes = [o for job in jobs for o in job.outcomes]
    survivor = None if stop.asked else _survivor(jobs, args)
    stopped = "stopped at the first survivor" if survivor else None
    unchecked = [
        Outcome(job.spec.name, job.device.id, m, NOT_RUN, stopped or "interrupted")
        for job in jobs
        for m in job.left
    ]
    # An option no chosen kernel takes was noted as ignored: it narrowed nothing.
    taken = [(n, v) for n, v in params if any(n in (p.name for p in k.params) for k in kernels)]
    scope = _scope(args, taken, capped, any(job.sampled for job in jobs))
    unshown = _show(
        format_summary(tallies, outcomes + unchecked, stopped) + (f"\n\n{scope}" if scope else "")
    )
    cut = sum(1 for job in jobs if not job.finished)
    try:
        # Stopped at a survivor, summary.txt said it was interrupted.
        folder = write_folder(args.out, tallies, outcomes + unchecked, scope, stopped)
    except WriteFailed as exc:
        print(f"harness: error: {exc}", file=sys.stderr)
        return stop.status if cut and not survivor else 2
    if unshown is None:
        # Flushed and caught as the table is: a reader gone once it had the table
        # turned the verdict into 141 at the exit's flush.
        unshown = _show(f"\nmutants folder: {folder}")
    if unshown is not None and not isinstance(unshown, BrokenPipeError):
        # Not for a reader gone (``| true``), which is quiet as for any pipe: the
        # folder is whole and the status its verdict (the folder was lost, exit 141).
        print(
            f"harness: warning: cannot write the standard output ({unshown.strerror or unshown}); "
            f"the table is in {folder / 'summary.txt'}",
            file=sys.stderr,
        )
    if survivor:
        # As pytest -x: the first finding ends the run, which fails.
        left = sum(len(job.left) for job in jobs)
        print(
            f"stopped at the first survivor ({survivor}); {left} chosen mutant(s) not "
            "checked" + ("; the table is partial" if left else ""),
            file=sys.stderr,
        )
        return 1
    if cut:
        print(
            f"interrupted: {cut} of {len(jobs)} kernel runs not finished; the table is partial",
            file=sys.stderr,
        )
        if args.fail_under is not None:
            print(
                f"--fail-under {args.fail_under:g}: not judged on a partial run, which "
                "never passes",
                file=sys.stderr,
            )
        return stop.status
    if stop.asked:
        # The signal came during the last mutant, which it let finish: the table is
        # whole, but a job stopped says so by its status (it exited 0, gate passed).
        print("stopped after the last mutant: every chosen mutant was checked", file=sys.stderr)
        return stop.status
    failing = any(t.problem for t in tallies)
    if args.fail_under is not None:
        for device in devices:
            failing |= _under(device.id, [t for t in tallies if t.device == device.id], args)
    return 1 if failing else 0


def _survivor(jobs: Sequence[_Job], args: argparse.Namespace) -> str | None:
    """With --stop-at-first-survivor, the mutant that survived (which kernel, where,
    what), once one has; else None."""
    if not args.stop_at_first_survivor:
        return None
    found = (o for job in jobs for o in job.outcomes if o.status == "survived")
    first = next(found, None)
    return f"{first.kernel} on {first.device}: {first.mutant.describe()}" if first else None


def _run(
    job: _Job,
    args: argparse.Namespace,
    params: tuple[tuple[str, tuple[str, ...]], ...],
    equivalents: dict[tuple[str, ...], Equivalent],
    capped: dict[str, int | None],
    stop: _Stop,
    found: Callable[[], object] = lambda: None,
) -> None:
    """Check one kernel's mutants on one device in a lab of its own (its worker's
    compiled mutants go with it), recording into ``job`` as they end, until
    stopped or ``found()`` (a survivor, where the run stops at the first)."""
    device = job.device.id
    uncompiled = f" ({job.dead} more in code it does not compile)" if job.dead else ""
    count = len(job.chosen)
    # Of how many, where --lines or --sample narrowed them: a sample of 3 read as all.
    of = f"{count} of {job.made} mutants" if count < job.made else f"{count} mutants"
    print(
        f"{job.spec.name} on {device}: {of}{uncompiled}",
        file=sys.stderr,
        flush=True,
    )
    start = time.monotonic()
    try:
        lab = _Lab(device, precisions(args), args.timeout, args.max_size, params)
    except UsageError as exc:
        job.problem, job.finished = str(exc), True
        print(f"  {exc}", file=sys.stderr, flush=True)
        return
    try:
        if lab.max_size != args.max_size and device not in capped:
            capped[device] = lab.max_size
            print(
                f"note: {device} is a simulator: checks run at sizes up to "
                f"{lab.max_size} (--max-size N to change)",
                file=sys.stderr,
            )
        _, job.problem = run_kernel(
            lab,
            job.spec,
            job.chosen,
            equivalents,
            args.verbose,
            job.outcomes,
            lambda: stop.asked or bool(found()),
            recheck=args.simulator,
        )
    finally:
        lab.close()
    job.finished = job.problem is not None or len(job.outcomes) == len(job.chosen)
    if job.problem:
        print(f"  {job.problem}", file=sys.stderr, flush=True)
    elif job.finished:
        counts = tally(job.spec.name, device, job.outcomes, None)
        print(
            f"  {counts.killed} killed, {counts.survived} survived, {counts.stillborn} "
            f"stillborn, {counts.equivalent} equivalent ({time.monotonic() - start:.0f} s)",
            file=sys.stderr,
            flush=True,
        )


def _under(device: str, mine: Sequence[Tally], args: argparse.Namespace) -> bool:
    """Whether a device fails ``--fail-under``, saying why: a score under it, or no
    mutant counted at all (a gate does not pass on nothing)."""
    killed, survived = sum(t.killed for t in mine), sum(t.survived for t in mine)
    counted = killed + survived
    if not counted:
        stillborn, equal = sum(t.stillborn for t in mine), sum(t.equivalent for t in mine)
        unrun = sum(1 for t in mine if t.problem)
        more = f"; {unrun} kernel{'s' * (unrun != 1)} not run" if unrun else ""
        print(
            f"{device}: no mutant was counted ({killed} killed, {survived} survived, "
            f"{stillborn} stillborn, {equal} equivalent{more}): --fail-under "
            f"{args.fail_under:g} does not pass on nothing",
            file=sys.stderr,
        )
        return True
    if 100 * killed / counted < args.fail_under:
        print(
            f"{device}: kill score {100 * killed / counted:.1f}% is under "
            f"--fail-under {args.fail_under:g}%",
            file=sys.stderr,
        )
        return True
    return False


def _lines(text: str) -> Lines:
    file, _, span = text.rpartition(":")
    first, dash, last = span.partition("-")
    try:
        # "5-" names no last line (not "to the end"): as malformed as "-5".
        low, high = arguments.whole(first), arguments.whole(last if dash else first)
    except ValueError:
        low = high = 0
    if not file or "/" in file or low < 1 or high < low:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not FILE:LINE or FILE:FIRST-LAST with a source file's name "
            "(as bitonic.h:640-760) and lines from 1, FIRST at most LAST"
        )
    return Lines(file, low, high)


def _scope(
    args: argparse.Namespace,
    params: Sequence[tuple[str, Sequence[str]]],
    capped: dict[str, int | None],
    sampled: bool = False,
) -> str:
    """What narrowed the run (run options, ``--lines``, ``--max-size`` or a
    simulator's default cap, ``--sample`` where it left a mutant out), so that a
    score is read for what it counts; empty where nothing did."""
    given = [f"--{name} {' '.join(values)}" for name, values in params]
    if args.lines:
        given.append(f"--lines {' '.join(dict.fromkeys(map(str, args.lines)))}")
    given += [f"--max-size {args.max_size}"] * (args.max_size is not None)
    given += [
        f"sizes up to {n} on {device} (a simulator's default)" for device, n in capped.items()
    ]
    # A sample of every mutant narrowed nothing: the score is the whole run's.
    seed = SEED if args.seed is None else args.seed
    given += [f"--sample {args.sample} --seed {seed}"] * sampled
    return f"narrowed by: {'; '.join(given)}" if given else ""


def _check_lines(
    lines: Sequence[Lines], kernels: Sequence[KernelSpec], backends: set[str]
) -> dict[str, Path]:
    """The chosen kernels' source files on these backends, by name; a usage error
    for ``--lines`` naming a file none of them compiles."""
    files: dict[str, Path] = {}
    for backend in sorted(backends):
        chosen = get_backend(backend)
        if chosen.language is not None:
            for spec in kernels:
                files.update(
                    (p.name, p) for p in source_files(spec, chosen.language, chosen.extension)
                )
    for each in lines:
        if each.file not in files:
            raise UsageError(
                f"--lines {each}: no chosen kernel's source "
                f"is named {each.file!r}; theirs: {', '.join(sorted(files)) or 'none'}"
            )
    return files


def _percent(text: str) -> float:
    try:
        value = arguments.number(text)
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
        "--no-simulator",
        dest="simulator",
        action="store_false",
        help="leave the OpenCL survivors where they are: by default a mutant that "
        "survives an OpenCL device's check is checked again on the Oclgrind simulator, "
        "where it is installed, in the C form of that device, at the small size and the "
        "check sizes up to 5000, so that a read or write one past an array's end, a "
        "race or a value read before any write is killed",
    )
    arguments.suite_files(parser)
    parser.add_argument(
        "--sample",
        type=arguments.positive_int,
        metavar="N",
        help="at most N mutants per kernel, picked at random (default: every one)",
    )
    parser.add_argument("--seed", type=arguments.seed, help=f"seed for --sample (default {SEED})")
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
        action="extend",
        choices=PRECISIONS,
        help="types of 'real' each mutant is checked at, each once (default: f64 and f32, "
        "so code that only one precision compiles is tested too)",
    )
    parser.add_argument(
        "--timeout",
        type=arguments.seconds,
        metavar="SECONDS",
        help=f"per row of a mutant's check (default: {TIMEOUT_FACTOR:g} times the "
        f"unmutated kernel's slowest row, at least {MIN_TIMEOUT:g} s)",
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
    parser.add_argument(
        "--stop-at-first-survivor",
        action="store_true",
        help="stop once a mutant survives (as pytest -x): it is named, the table is "
        "partial, and the exit status is 1",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print every mutant's fate")
    parser.set_defaults(handler=_cmd_mutants)

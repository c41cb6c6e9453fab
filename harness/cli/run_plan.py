"""What a run will do: a new run's folder, metadata and rows, or what a resumed one has left."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shlex
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness import __version__, suite
from harness.backends import BACKENDS
from harness.backends import get as get_backend
from harness.backends.base import DeviceInfo
from harness.cli import arguments
from harness.cli.devices import Catalogs, choose_devices
from harness.errors import UsageError
from harness.execution import metadata, peaks, ranks, results
from harness.execution.flush import flush_length, last_level_cache
from harness.execution.runner import (
    MAX_SECONDS,
    MEMORY_MEASURES,
    WGSL_CHECKS,
    RunOptions,
    Task,
    base_row,
    largest_size_where,
    memory_bytes,
    past_every_size,
    plan,
    reaches,
    scaled_size,
    size_for_memory,
    size_groups,
    task_source,
)
from harness.execution.sampling import MAX_REPS, StopRule
from harness.execution.workers import CHECK_LANES
from harness.model import partition, sources
from harness.model.modes import CACHE_MODES, TRANSFER_MODES
from harness.model.spec import PRECISIONS, KernelSpec


def _options_meta(options: RunOptions, kernels: Sequence[Any], devices: Sequence[DeviceInfo]):
    return {
        "kernels": [k.name for k in kernels],
        "devices": [d.id for d in devices],
        "precision": options.precision,
        "precisions": list(options.precisions),
        "size": options.size,
        "sizes": list(options.sizes),
        "size_factors": list(options.size_factors),
        "reps": options.reps,
        "warmup": options.warmup,
        "seed": options.seed,
        "check": options.check,
        "check_all": options.check_all,
        "max_time": options.max_time,
        "min_time": options.min_time,
        "min_samples": options.min_samples,
        "max_noise": options.max_noise,
        "sample_time": options.sample_time,
        "caches": list(options.caches),
        "flush_bytes": options.flush_bytes,
        "transfers": list(options.transfers),
        "groups": list(options.groups),
        "partitions": list(options.partitions),
        "wgsl_checks": list(options.wgsl_checks),
        "memory": options.memory,
        "budgets": list(options.budgets),
        "params": {name: list(values) for name, values in options.params},
        # In full, as the suites are: a resume from another folder found a relative
        # one gone, and ran its rows on the shipped sources.
        "sources": [str(s.resolve()) for s in options.sources],
        "suites": [str(s) for s in options.suites],
        "timeout": options.timeout,
        "in_process": options.in_process,
        "hold": options.hold,
    }


def options_from_meta(saved: dict[str, Any]) -> RunOptions:
    return RunOptions(
        precision=saved["precision"],
        precisions=tuple(saved.get("precisions", ())),
        size=saved["size"],
        sizes=tuple(saved["sizes"]),
        size_factors=tuple(saved.get("size_factors", ())),
        reps=saved["reps"],
        warmup=saved["warmup"],
        seed=saved["seed"],
        check=saved["check"],
        check_all=saved.get("check_all", False),
        max_time=saved["max_time"],
        min_time=saved.get("min_time", RunOptions.min_time),
        min_samples=saved.get("min_samples", RunOptions.min_samples),
        max_noise=saved.get("max_noise", RunOptions.max_noise),
        sample_time=saved.get("sample_time", 0.0),
        caches=tuple(saved.get("caches", RunOptions.caches)),
        flush_bytes=saved.get("flush_bytes"),
        transfers=tuple(saved.get("transfers", RunOptions.transfers)),
        groups=tuple(saved.get("groups", RunOptions.groups)),
        partitions=tuple(saved.get("partitions", RunOptions.partitions)),
        wgsl_checks=tuple(saved.get("wgsl_checks", RunOptions.wgsl_checks)),
        memory=saved.get("memory"),
        budgets=tuple(saved.get("budgets", ())),
        params=tuple((name, tuple(values)) for name, values in saved["params"].items()),
        sources=tuple(Path(s) for s in saved["sources"]),
        suites=tuple(Path(s) for s in saved.get("suites", ())),
        timeout=saved["timeout"],
        in_process=saved["in_process"],
        hold=saved.get("hold", True),
    )


def _check_sources(
    folders: Sequence[Path], kernels: Sequence[Any], devices: Sequence[DeviceInfo]
) -> None:
    """Refuse a --sources folder holding a source that cannot be compiled
    (`sources.check_folder`), and warn about each that this run would take no source from:
    one that is gone (a resumed run's), empty, laid out wrongly, or for backends
    that compile none, since a run that silently uses the shipped sources
    instead measures something other than what the user meant to try."""
    backends = [get_backend(name) for name in dict.fromkeys(d.backend for d in devices)]
    languages = list(
        dict.fromkeys(
            place
            for b in backends
            if b.language
            for place in sources.places(b.language, b.extension)
        )
    )
    stems = list(dict.fromkeys(k.source_name for k in kernels))
    for folder in folders:
        if not folder.is_dir():
            why = "it no longer exists, so the shipped sources are used"
        elif not languages:
            names = ", ".join(b.name for b in backends)
            why = f"the backends of this run ({names}) compile no kernel sources"
        else:
            try:
                sources.check_folder(folder, languages, stems)
            except ValueError as exc:
                raise UsageError(f"--sources {str(folder)!r}: {exc}") from None
            if any(
                (folder / lang / f"{k}{ext}").is_file() for lang, ext in languages for k in stems
            ):
                continue
            looked = " or ".join(f"{folder / lang / stems[0]}{ext}" for lang, ext in languages)
            why = f"it holds no source this run uses (it looks for files such as {looked})"
        print(f"warning: --sources {str(folder)!r}: {why}", file=sys.stderr)


#: The options that set how long a row is timed, which fixed --reps (but for its
#: warm-up) or --check overrule.
_TIMING = ("warmup", "max_time", "min_time", "max_noise", "min_samples", "budget", "sample_time")


def _note_unused(args: argparse.Namespace, devices: Sequence[DeviceInfo]) -> None:
    """Say where an option for some backends' devices meets none of them: a run
    with ``--wgsl-checks off`` on the CPU alone measures what it would without it."""
    backends = [get_backend(d.backend) for d in devices]
    if args.wgsl_checks != [WGSL_CHECKS[0]] and not any(b.shader_checks for b in backends):
        print(
            f"note: --wgsl-checks {' '.join(args.wgsl_checks)} is for wgpu's devices (naga's "
            "runtime checks); none is selected, so it changes nothing",
            file=sys.stderr,
        )
    dealt = [p for p in args.partition if p != partition.AUTO]
    if dealt and not any(b.partitions for b in backends):
        print(
            f"note: --partition {' '.join(dealt)} is for devices with work-items (OpenCL, CUDA, "
            "wgpu); none is selected, so it changes nothing",
            file=sys.stderr,
        )
    if args.group and not any(b.partitions for b in backends):
        print(
            f"note: --group {','.join(map(str, args.group))} is for devices with work-groups "
            "(OpenCL, CUDA, wgpu); none is selected, so each row runs once, at no group size",
            file=sys.stderr,
        )
    if not args.hold and args.check is None and not any(b.holds_queue for b in backends):
        print(
            "note: --no-hold is for devices whose queue a repetition's launches are held in "
            "(OpenCL, CUDA); none is selected, so it changes nothing",
            file=sys.stderr,
        )
    if args.in_process and args.timeout is not None:
        print(
            f"note: --in-process runs every row in this process, where no row can be stopped "
            f"(nor a backend listing its devices): --timeout {args.timeout:g} changes nothing",
            file=sys.stderr,
        )
    from harness.cli import build_parser

    defaults = vars(build_parser().parse_args(["run"]))
    given = [
        f"--{name.replace('_', '-')}"
        for name in _TIMING
        # Warm-up repetitions run before a fixed --reps count too.
        if getattr(args, name, None) != defaults.get(name)
        and (name != "warmup" or args.check is not None)
    ]
    if args.check is not None:
        # Its one repetition has no flush before it and no queue to hold.
        given += ["--cache"] * (args.cache != defaults["cache"]) + ["--no-hold"] * (not args.hold)
        given += ["--flush-bytes"] * (args.flush_bytes is not None)
    if args.check is not None and args.reps is not None:
        given.insert(0, "--reps")
    if given and (args.check is not None or args.reps is not None):
        why = (
            "--check verifies and times nothing"
            if args.check is not None
            else f"--reps {args.reps} sets each row's repetitions"
        )
        verb = "changes" if len(given) == 1 else "change"
        print(f"note: {why}: {' '.join(given)} {verb} nothing", file=sys.stderr)
    elif "--sample-time" in given and ("hot" not in args.cache or "resident" not in args.transfers):
        # Only hot rows without transfers are timed in batches: each of these rows
        # times every repetition alone, whatever --sample-time says.
        print(
            "note: cold rows and rows with transfers time each repetition alone: "
            f"--sample-time {args.sample_time:g} changes nothing",
            file=sys.stderr,
        )


def _note_untimed(args: argparse.Namespace, world: ranks.World | None) -> None:
    """Say where --budget or --lost-after is given to a run that has no use for it:
    --budget under --max-time (each row's time is given), --lost-after outside
    mpirun (no rank to lose). Both were taken without a word."""
    timed = args.check is None and args.reps is None  # else --check or --reps says so
    if timed and args.max_time is not None and args.budget != RUN_BUDGET_S:
        print(
            f"note: --max-time {args.max_time:g} sets each row's time: --budget "
            f"{args.budget:g} changes nothing",
            file=sys.stderr,
        )
    if world is None and args.lost_after != ranks.LOST_AFTER_S:
        print(
            f"note: --lost-after {args.lost_after:g} is for the ranks of a run under mpirun; "
            "this run has none, so it changes nothing",
            file=sys.stderr,
        )


def _flags() -> dict[str, str]:
    """Each `harness run` option's long name by its dest, as a note names it: a
    kernel's run option keeps its underscores (``--multi_reduce_num_bins``), where
    notes named ``--multi-reduce-num-bins``, which is no option."""
    from harness.cli import build_parser

    run = build_parser().commands["run"]
    return {a.dest: max(a.option_strings, key=len) for a in run._actions if a.option_strings}


def _note_repeats(args: argparse.Namespace) -> None:
    """Say which values an option was given more than once: each runs once, so a
    user counting on rows of repeats (``--size-factor 1 1``) learns there are none."""
    flags = _flags()
    for name, values in vars(args).items():
        if name not in flags or not isinstance(values, list | tuple):
            continue
        counts = Counter(map(str, values))
        twice = [value for value, count in counts.items() if count > 1]
        if twice:
            print(
                f"note: {flags[name]} {' '.join(twice)} given more than once; each value runs once",
                file=sys.stderr,
            )


def _check_flush(flush_bytes: int | None, caches: Sequence[str], devices: Sequence[DeviceInfo]):
    """Warn where --flush-bytes is smaller than a device's last-level cache: its
    cold rows would find part of their data still in cache."""
    if flush_bytes is None:
        return
    if "cold" not in caches:
        print("note: --flush-bytes is for cold rows (--cache cold); it is ignored", file=sys.stderr)
        return
    for device in devices:
        cache, where = last_level_cache(device)
        kept = 4 * flush_length(device, None, flush_bytes)
        # Whole 4-byte words are flushed: a count rounded down to one is no cap.
        if kept < 4 * (flush_bytes // 4):
            print(
                f"note: --flush-bytes {flush_bytes / 2**20:g} MiB is more than a quarter of "
                f"{device.id}'s memory: its cold rows flush {kept / 2**20:g} MiB (each row's "
                "flush_bytes)",
                file=sys.stderr,
            )
        if flush_bytes < cache:
            print(
                f"warning: --flush-bytes {flush_bytes / 2**20:g} MiB is less than {device.id}'s "
                f"last-level cache ({cache / 2**20:g} MiB, {where}): its cold rows may find "
                "data in cache",
                file=sys.stderr,
            )


def selected(kernels: Sequence[str] | None, exclude: Sequence[str]) -> list[Any]:
    """The kernels ``-k`` selects, less those ``-x`` does (`harness run`'s, which
    `harness list` shows); a UsageError where none is left."""
    chosen = suite.select(kernels)
    left_out = {k.name for k in suite.select(exclude)} if exclude else set()
    kept = [k for k in chosen if k.name not in left_out]
    if not kept:
        raise UsageError(
            f"-x {' '.join(exclude)}: leaves out every kernel selected; nothing is left"
        )
    return kept


def _note_idle_excludes(kernels: Sequence[str] | None, exclude: Sequence[str]) -> None:
    """Say which -x values leave out no kernel -k selects (``-k Stream_COPY -x
    Basic_DAXPY``): taken without a word, as if they had left something out."""
    chosen = {k.name for k in suite.select(kernels)}
    idle = [x for x in dict.fromkeys(exclude) if not chosen & {k.name for k in suite.select([x])}]
    if idle:
        print(
            f"note: -x {' '.join(idle)} leaves out no kernel -k selects, so it changes nothing",
            file=sys.stderr,
        )


def new_run(
    args: argparse.Namespace, catalogs: Catalogs, world: ranks.World | None = None
) -> tuple[Path | None, dict[str, Any], list[Task]]:
    """A new run's folder, metadata and rows. In an MPI run each rank plans the
    rows of its own devices, and only rank 0 makes the folder (the others get None)."""
    kernels = selected(args.kernels, args.exclude)
    _note_repeats(args)
    _note_idle_excludes(args.kernels, args.exclude)
    if args.size_factor and (args.size is not None or args.memory_allocated or args.memory_moved):
        given = "--size" if args.size is not None else "--memory-*"
        raise UsageError(
            f"--size-factor with {given}: a factor scales each kernel's default size; "
            "give it alone or with --sizes"
        )
    if partition.AUTO in args.partition and len(set(args.partition)) > 1:
        # A sweep's rows are its partitions: auto among them was dropped unsaid.
        raise UsageError(
            f"--partition {' '.join(args.partition)}: auto is each device's own choice (the "
            "faster of item and chunk on a CPU, item elsewhere), not a row beside others; "
            f"give auto alone, or the partitions to sweep ({', '.join(partition.PARTITIONS)})"
        )
    timed = args.check is None and args.reps is None and not args.in_process
    if timed and args.timeout is not None and (args.max_time or 0) >= args.timeout:
        # Each row not quiet by then was killed at its timeout: an error row, unmeasured.
        raise UsageError(
            f"--max-time {args.max_time:g} with --timeout {args.timeout:g}: a row still "
            "timing when its timeout ends is killed, and is an error row; give a --timeout "
            "above --max-time (a row compiles, warms up and verifies besides)"
        )
    for folder in args.sources:
        if not folder.is_dir():
            raise UsageError(f"--sources {str(folder)!r}: not a folder")
    devices = choose_devices(args.backends, args.device, catalogs)
    if world is not None:
        devices = ranks.rank_devices(devices, world.local_rank)
    _check_sources(args.sources, kernels, devices)
    # A check's rows are hot alone: a cold one verified the same, unflushed, twice.
    caches = ("hot",) if args.check is not None else tuple(dict.fromkeys(args.cache))
    # Under --check, whose rows are hot, the --check note names --flush-bytes: this
    # one's "for cold rows (--cache cold)" misled where --cache cold was given.
    _check_flush(args.flush_bytes if args.check is None else None, caches, devices)
    _note_unused(args, devices)
    _note_untimed(args, world)
    memory, budgets = next(
        (
            (m, tuple(dict.fromkeys(b)))
            for m in MEMORY_MEASURES
            if (b := getattr(args, f"memory_{m}"))
        ),
        (None, ()),
    )
    options = RunOptions(
        precision=args.precision[0],
        precisions=tuple(dict.fromkeys(args.precision)) if len(set(args.precision)) > 1 else (),
        size=args.size,
        reps=args.reps,
        warmup=args.warmup,
        seed=args.seed,
        check=args.check is not None,
        check_all=args.check == "full",
        max_time=args.max_time or MAX_TIME_S,
        min_time=args.min_time,
        min_samples=args.min_samples,
        max_noise=args.max_noise / 100,
        sample_time=args.sample_time,
        caches=caches,
        flush_bytes=args.flush_bytes,
        transfers=tuple(dict.fromkeys(args.transfers)),
        groups=tuple(dict.fromkeys(args.group or ())),
        partitions=tuple(dict.fromkeys(p for p in args.partition if p != partition.AUTO)),
        wgsl_checks=tuple(dict.fromkeys(args.wgsl_checks)),
        memory=memory,
        budgets=budgets,
        sources=tuple(args.sources),
        # Every suite loaded (installed ones, --suite files): workers load them too.
        suites=tuple(suite.LOADED),
        sizes=tuple(dict.fromkeys(args.sizes or ())),
        size_factors=tuple(dict.fromkeys(args.size_factor)),
        params=arguments.chosen_params(args, kernels, args.check is not None),
        timeout=args.timeout,
        in_process=args.in_process,
        hold=args.hold,
    )
    _check_size_factors(kernels, options.size_factors, "--size-factor")
    tasks = []
    for spec in kernels:
        with suite.blamed(spec):
            _check_budgets([spec], options)
            planned = plan([spec], devices, options)
            _check_counts(planned)
        tasks += planned
    if not tasks:
        raise UsageError(_nothing_to_run(kernels, options))
    if args.max_time is None and not options.check and options.reps is None:
        options = dataclasses.replace(options, max_time=row_time(len(tasks), args.budget))
        if args.timeout is not None and not args.in_process and options.max_time >= args.timeout:
            # As for a --max-time given (above): a --timeout under the budget's share
            # killed each row still timing, an error row the command line made.
            raise UsageError(
                f"--timeout {args.timeout:g} with each row's --max-time of "
                f"{options.max_time:g} s (--budget {args.budget:g} over {len(tasks)} row(s)): a "
                "row still timing when its timeout ends is killed, and is an error row; give "
                f"a --timeout above {options.max_time:g}, or a --max-time below it"
            )
    if any((args.out / name).is_file() for name in (results.METADATA, results.JOURNAL)):
        # Made inside a run folder, a run was hidden: the folder's readers take it for
        # one run, and a listing of its parent's runs left the new one out.
        raise UsageError(
            f"--out {str(args.out)!r}: a run folder, in which a "
            f"new run would be hidden from its readers; give the folder that holds runs "
            f"({str(args.out.parent)!r}), or continue it with --resume {shlex.quote(str(args.out))}"
        )
    try:
        run_dir = results.create(args.out) if world is None or world.rank == 0 else None
    except OSError as exc:
        why = exc.strerror
        if isinstance(exc, FileExistsError):
            why = "it is a file, not a folder" if args.out.exists() else "a link to nothing"
        raise UsageError(
            f"--out {str(args.out)!r}: cannot make a run folder there ({why}); give --out a "
            "folder this user can write, on a disk with free space"
        ) from None
    try:
        meta = {
            "harness_version": __version__,
            "format": results.FORMAT,
            "git_commit": metadata.git_commit(),
            "command": ["harness", *args.argv],
            "run_id": metadata.new_id(),
            "start": metadata.now(),
            "end": None,
            "host": metadata.host(),
            "libraries": metadata.library_versions(),
            "devices": [d.as_dict() for d in devices],
            "options": _options_meta(options, kernels, devices),
            "kernels": {k.name: k.facts() for k in kernels},
            "peaks": _known_peaks(devices, options),
        }
        _note_unmet_budgets(kernels, options)
        _note_one_problem(kernels, options)
        if world is None or world.rank == 0:
            print(f"plan: {outline(tasks, options, devices)}", file=sys.stderr, flush=True)
    except BaseException:
        # Stopped while the metadata was gathered (a git call, the libraries'
        # versions; a second Ctrl-C), the folder just made was left empty, named as
        # a run.
        if run_dir is not None:
            results.discard(run_dir)
        raise
    return run_dir, meta, tasks


def _check_size_factors(kernels: Sequence[Any], factors: Sequence[float], given: str) -> None:
    """UsageError for a size factor that gives every kernel a size below 1 (``given``
    names where the factors came from); a note for one that gives some kernels a
    size below 1, which run at size 1."""
    for factor in factors:
        small = [k for k in kernels if scaled_size(k, factor) < 1]
        if len(small) == len(kernels):
            largest = max(kernels, key=lambda k: k.default_size)
            raise UsageError(
                f"{given} {factor:g} gives every selected kernel a size below 1 (the largest "
                f"default size, {largest.name}'s {largest.default_size}, times {factor:g}); a "
                f"factor of at least {1 / largest.default_size:.3g} is accepted"
            )
        if small:
            names = ", ".join(f"{k.name} (default size {k.default_size})" for k in small)
            print(
                f"note: {given} {factor:g} gives {names} a size below 1; "
                f"{'it runs' if len(small) == 1 else 'they run'} at size 1",
                file=sys.stderr,
            )


def _check_budgets(kernels: Sequence[Any], options: RunOptions) -> None:
    """UsageError for a --memory-* budget beyond a kernel's bytes at every size it
    is sought among, though they grow with the size (``2^70`` for ``2^27``): its
    row ran at the kernel's own size, noted as a kernel whose bytes stop growing."""
    for budget in options.budgets:
        for spec in kernels:
            most = past_every_size(spec, options.precision, options.memory, budget)
            if most is not None:
                raise UsageError(
                    f"--memory-{options.memory} {budget}: at or past the bytes of every size "
                    f"of {spec.name} ({most} at the largest); give a budget below that"
                )


def _check_counts(tasks: Sequence[Task]) -> None:
    """UsageError for a size whose row would hold a count a run folder refuses as
    damage (`results.implausible`: more than 1e18 FLOPs a repetition, say), before
    any row runs: its row would be written and then skipped as corrupt."""

    def problem(task: Task) -> str | None:
        for column, value in base_row(task).items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                found = results.implausible(column, value)
                if found:
                    return found
        return None

    seen = set()
    for task in tasks:
        key = (task.kernel, task.size, task.precision, task.params, task.group)
        if key in seen:
            continue
        seen.add(key)
        found = problem(task)
        if found:

            def fits(size: int, task: Task = task) -> bool:
                return problem(dataclasses.replace(task, size=size)) is None

            largest = largest_size_where(fits, low=1)
            if largest is None:
                # Not a size too large: no size from 1 up gives a row a run records.
                raise UsageError(
                    f"{task.kernel} at size {task.size}: its row would hold what a run "
                    f"folder refuses as damage ({found})"
                )
            raise UsageError(
                f"{task.kernel} at size {task.size} is past what a run records ({found}); "
                f"its sizes up to {largest} are accepted"
            )


#: Seconds a row takes besides its timed repetitions (inputs, verification,
#: compiling), for the plan's estimate.
ROW_OVERHEAD_S = 0.8
#: Host seconds a check row takes, compiles included: 300 to 350 s over the 1146
#: rows of a check of the three devices of a two-core CPU-only machine.
CHECK_ROW_S = 0.3
#: A run's timed repetitions take about this long in all where --max-time is not
#: given (``--budget``), each row's share kept within these bounds.
RUN_BUDGET_S = 150.0
MAX_TIME_S = 2.0
MIN_MAX_TIME_S = 0.2


def row_time(rows: int, budget: float) -> float:
    """Each row's --max-time where none is given: the run's budget less the rows'
    other costs, shared among them, from `MIN_MAX_TIME_S` to `MAX_TIME_S`."""
    share = budget / max(rows, 1) - ROW_OVERHEAD_S
    return round(min(MAX_TIME_S, max(MIN_MAX_TIME_S, share)), 2)


def outline(tasks: Sequence[Task], options: RunOptions, listed: Sequence[DeviceInfo] = ()) -> str:
    """What a run will do, in a line: rows, kernels, devices, and about how long;
    rows on a simulator among the ``listed`` devices are named apart, as no
    estimate fits them: a simulator's row takes seconds to many minutes."""
    simulated = {d.id for d in listed if d.kind == "simulator"}
    kernels = len({t.kernel for t in tasks})
    devices = list(dict.fromkeys(f"{t.backend}:{t.device}" for t in tasks))
    what = (
        f"{len(tasks)} row{'s' * (len(tasks) != 1)} ({kernels} kernel"
        f"{'s' * (kernels != 1)} on {', '.join(devices) or 'no device'})"
    )
    slow = [t for t in tasks if f"{t.backend}:{t.device}" in simulated]
    rows = len(tasks) - len(slow)
    apart = ""
    if slow:
        on = ", ".join(d for d in devices if d in simulated)
        apart = f"{len(slow)} row{'s' * (len(slow) != 1)} on the simulator {on}"
        apart = f"; {apart}, seconds to many minutes each" if rows else f"; {apart}"
    if options.check and not rows:
        return f"{what}, verification only{apart}, seconds to many minutes each"
    if options.check:
        return f"{what}, verification only: about {_minutes(check_seconds(rows))}{apart}"
    if options.reps is not None:
        return f"{what}, {options.reps} timed repetitions each{apart}"
    low = rows * (min(options.min_time, options.max_time / 2) + ROW_OVERHEAD_S)
    high = rows * (options.max_time + 2 * ROW_OVERHEAD_S)
    return (
        f"{what}: each timed for {min(options.min_time, options.max_time / 2):g} to "
        f"{options.max_time:g} s (--min-time, --max-time), about {_minutes(low)} to "
        f"{_minutes(high)} in all{apart}; -k or -x narrows it, --budget or --max-time sets "
        "its pace"
    )


def check_seconds(rows: int) -> float:
    """About how long a verification-only run of ``rows`` takes: `CHECK_ROW_S` a
    row, on as many rows at once as the host has cores (`CHECK_LANES`)."""
    return rows * CHECK_ROW_S / CHECK_LANES


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def _known_peaks(devices: Sequence[DeviceInfo], options: RunOptions) -> dict[str, Any]:
    """Each device's measured peaks (`harness peak`), by device id. A timed run says
    once which peak each device is placed against, naming a flagged or old one, and
    which devices have none; a damaged store places no row against a peak."""
    try:
        path = peaks.store_path()
        stored = peaks.read_store(path)
    except peaks.StoreError as exc:
        if not options.check:
            print(f"warning: {exc}; no row is placed against a peak", file=sys.stderr)
        # No `harness peak` to suggest: it refuses the same store before measuring.
        return {}
    # An entry with no figure (kept by an earlier harness) places no row: it is none.
    known = {
        d.id: peak
        for d in devices
        if (peak := peaks.lookup(d.as_dict(), stored)) and peaks.has_figures(peak)
    }
    missing = [d.id for d in devices if d.id not in known]
    if options.check:
        return known
    for device, peak in known.items():
        when, doubts = peaks.describe(peak)
        best = peaks.bandwidth(peak)
        which = f"peak{f' of {best:.3g} GB/s' if best else ''} from {path}"
        if doubts:
            print(
                f"warning: {device}'s rows are placed against a doubtful {which}, "
                f"measured {when}: {'; '.join(doubts)}; measure again with: harness peak "
                f"--device {device}",
                file=sys.stderr,
            )
        else:
            print(
                f"note: {device}'s rows are placed against its {which}, measured {when}",
                file=sys.stderr,
            )
    if missing:
        # Every device named: `--device` is one device, so naming the first alone
        # measured that one and left the others' rows without a peak.
        whose = "its" if len(missing) == 1 else "their"
        print(
            f"note: no measured peak for {', '.join(missing)}, so {whose} rows get no "
            f"pct_peak_bw or pct_peak_flops; measure with: harness peak "
            f"{' '.join(f'--device {d}' for d in missing)}",
            file=sys.stderr,
        )
    return known


def _nothing_to_run(kernels: Sequence[Any], options: RunOptions) -> str:
    """Why a new run's plan has no row, in a line."""
    if options.memory and kernels:
        least = min(kernels, key=lambda s: memory_bytes(s, 1, options.precision, options.memory))
        need = memory_bytes(least, 1, options.precision, options.memory)
        budgets = ", ".join(map(str, options.budgets))
        return (
            f"nothing to run: no selected kernel fits --memory-{options.memory} {budgets} "
            f"bytes (the least, {least.name}'s smallest size, needs {need})"
        )
    return "nothing to run: the options leave no row of the selected kernels"


def _note_one_problem(kernels: Sequence[Any], options: RunOptions) -> None:
    """A note per kernel whose asked sizes, factors or budgets build one problem (it
    runs once: rows of one problem at several sizes would draw a curve of noise),
    and notes naming the kernels whose data does not take the run's precisions."""
    for spec in kernels:
        for size, asked in size_groups(spec, options):
            if len(asked) > 1:
                said = {words: [v for w, v in asked if w == words] for words, _ in asked}
                what = " and ".join(
                    f"{words}{'s' * (len(v) > 1 and words[0] != '-')} {', '.join(v)}"
                    for words, v in said.items()
                )
                print(
                    f"note: {spec.name}: {what} build one problem (the same "
                    f"arrays, bytes and launches); it runs once, at size {size}",
                    file=sys.stderr,
                )
    if len(options.precisions) > 1:
        once: dict[str, list[str]] = {}
        for spec in kernels:
            if not spec.uses_real():
                own = spec.fixed_precision()
                once.setdefault(own or "", []).append(spec.name)
        for own, names in once.items():
            what = f"{own} data alone" if own else "no floating-point data (integers only)"
            print(
                f"note: {', '.join(names)} hold{'s' * (len(names) == 1)} {what}, so "
                f"{'it runs' if len(names) == 1 else 'they run'} once, at "
                f"{own or options.precisions[0]}, not at each of --precision "
                f"{' '.join(options.precisions)}",
                file=sys.stderr,
            )


def _note_unmet_budgets(kernels: Sequence[Any], options: RunOptions) -> None:
    """One note per kernel that no size fits within some --memory-* budget (its rows
    for that budget are left out: fixed tables can outweigh a small budget), and
    per kernel whose bytes never reach some budget (it runs at its own size there)."""
    if not options.memory:
        return
    for spec in kernels:
        never = [
            b for b in options.budgets if not reaches(spec, options.precision, options.memory, b)
        ]
        if never:
            print(
                f"note: {spec.name}: no size takes --memory-{options.memory} "
                f"{', '.join(map(str, never))} bytes (its bytes stop growing), so it runs at "
                "its own size there",
                file=sys.stderr,
            )
        unmet = [
            b
            for b in options.budgets
            if size_for_memory(spec, options.precision, options.memory, b) is None
        ]
        if unmet:
            least = memory_bytes(spec, 1, options.precision, options.memory)
            print(
                f"note: {spec.name}: no size fits --memory-{options.memory} "
                f"{', '.join(map(str, unmet))} (its smallest needs {least} bytes); "
                "those rows are left out",
                file=sys.stderr,
            )


def task_key(task: Task) -> tuple:
    """What identifies a planned row, to match it with a journal's (`row_key`)."""
    device = f"{task.backend}:{task.device}"
    return (
        task.kernel,
        device,
        task.size,
        task.precision,
        task.params,
        task.cache,
        task.transfers,
        task.group,
        task.partition,
        task.wgsl_checks,
    )


def row_key(row: dict[str, Any], partitions: Sequence[str] = ()) -> tuple:
    """The key of the task a row came from. ``partitions`` are the run's
    ``--partition`` choices: a row whose partition is not one of them was a
    device's default."""
    spec = suite.BY_NAME.get(row.get("kernel", ""))
    # An option that means nothing beside another's choice (`Param.only_with`) is
    # null in the row and left out of the task's options.
    params = tuple(
        (p.name, row[p.name]) for p in (spec.params if spec else ()) if row.get(p.name) is not None
    )
    kernel, device, size, precision = (
        row.get(k) for k in ("kernel", "device_id", "size", "precision")
    )
    # A row sized down to fit its device came from the task of the size it was planned at.
    if isinstance(row.get("sized_from"), int) and not isinstance(row["sized_from"], bool):
        size = row["sized_from"]
    cache, moved = row.get("cache", "hot"), row.get("transfers", "resident")
    group = row.get("work_group")
    dealt = row.get("partition")
    asked = dealt if dealt in partitions else partition.AUTO
    checks = row.get("wgsl_checks")
    if "wgsl_checks" not in row and _takes_wgsl_checks(row.get("backend")):
        checks = RunOptions.wgsl_checks[0]  # a row from before the option: the default
    return (kernel, device, size, precision, params, cache, moved, group, asked, checks)


def _takes_wgsl_checks(backend: Any) -> bool:
    """Whether a backend's rows have a ``--wgsl-checks`` choice."""
    try:
        return get_backend(str(backend)).shader_checks
    except ValueError:
        return False


#: Options of `harness run` that a resumed run takes from its own metadata instead.
_RESUME_KEEPS = ("resume", "in_process")


def _ignored_options(args: argparse.Namespace, ranked: bool = False) -> list[str]:
    """The options given with --resume that the resumed run ignores (it has its own).
    Under mpirun (``ranked``) --lost-after is not among them: it is how this job
    watches its ranks, and the resume's ranks take it, where it was named ignored."""
    from harness.cli import build_parser

    defaults = vars(build_parser().parse_args(["run"]))
    flags = _flags()
    keeps = (*_RESUME_KEEPS, "lost_after") if ranked else _RESUME_KEEPS
    return [
        flags[name]
        for name, default in defaults.items()
        if name not in keeps and getattr(args, name) != default
    ]


def note_ignored(args: argparse.Namespace, ranked: bool = False) -> None:
    """Say which options given with --resume the resumed run ignores (it has its own);
    ``ranked`` for a resume under mpirun (`_ignored_options`)."""
    ignored = _ignored_options(args, ranked)
    if ignored:
        print(
            f"note: --resume runs with the run's own options; ignored here: {' '.join(ignored)}",
            file=sys.stderr,
        )


#: The lists of a run's metadata that say when it was resumed (with --in-process).
RESUMES = ("resumed", "resumed_in_process")


def saved_run(run_dir: Path) -> dict[str, Any]:
    """A run folder's metadata, with the options a resume needs; UsageError where
    its metadata cannot be resumed from."""
    meta = results.read_metadata(run_dir)
    path = run_dir / results.METADATA
    saved = meta.get("options")
    made = next((k for k in ("merged_from", "imported_from") if meta.get(k)), None)
    if saved is None and made is not None:
        # No run of its own to finish: its rows came from other folders.
        how = "merged by harness merge" if made == "merged_from" else "imported from RAJAPerf"
        raise UsageError(
            f"--resume: {run_dir} was {how}, not measured by harness run, so there is "
            "no run to finish: resume its source runs instead"
        )
    if saved is None:
        raise UsageError(f"--resume: {path} is missing or has no 'options'")
    from harness.cli import load_suites

    _check_saved(saved, path)
    for name in RESUMES:
        if name in meta and not _each(lambda v: results.read_time(v) is not None)(meta[name]):
            # A resume adds its time to these lists: text there ended it in a traceback.
            raise UsageError(
                f"--resume: {path}: {name!r} is {meta[name]!r}; a list of times as "
                "2026-01-31T12:00:00+0000 (when each resume began) is accepted"
            )
    ranks = meta.get("ranks")
    if ranks is not None and not _each(_rank_entry)(ranks):
        # An MPI run's ranks and their devices, which each rank's resume runs on.
        raise UsageError(
            f"--resume: {path}: 'ranks' is {ranks!r}; a list of each MPI rank's "
            '{"rank": ..., "devices": [device ids]}, as harness run writes it, is accepted'
        )
    try:
        load_suites(saved.get("suites", ()))
    except UsageError as exc:
        # The run's own --suite, not one given here: say whose it is.
        raise UsageError(f"--resume: {path}: the run's {exc}") from None
    try:
        options_from_meta(saved)
        fits = all(isinstance(n, str) for n in [*saved["kernels"], *saved["devices"]])
    except (KeyError, TypeError, ValueError, AttributeError):
        fits = False
    if not fits:
        raise UsageError(f"--resume: {path}: 'options' is not what harness run writes")
    _check_params(saved["params"], path)
    _check_listed(meta, saved, path)
    return meta


def _check_listed(meta: dict[str, Any], saved: dict[str, Any], path: Path) -> None:
    """UsageError where the run's metadata does not describe a device or kernel of
    its options: a resume then ended in a traceback, or measured rows again whose
    device no reader takes (every one of them lost)."""
    listed = meta.get("devices")
    listed = listed if isinstance(listed, list) else []
    ids = {d.get("id") for d in listed if isinstance(d, dict)}
    device = next((d for d in saved["devices"] if d not in ids), None)
    if device is not None:
        raise UsageError(
            f"--resume: {path}: 'devices' does not describe {device}, a device of its "
            "'options' (edited by hand?); the metadata harness run wrote is accepted"
        )
    kernels = meta.get("kernels")
    kernel = next((k for k in saved["kernels"] if k not in (kernels or {})), None)
    if kernel is not None:
        raise UsageError(
            f"--resume: {path}: 'kernels' does not describe {kernel}, a kernel of its "
            "'options' (edited by hand?); the metadata harness run wrote is accepted"
        )


def _rank_entry(entry: Any) -> bool:
    """Whether an entry of an MPI run's ``ranks`` names its rank's devices."""
    return isinstance(entry, dict) and _each(lambda d: isinstance(d, str))(entry.get("devices"))


def _whole(low: int, high: float = arguments.MAX_WHOLE) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _number(low: float, high: float, *, low_in: bool = False) -> Callable[[Any], bool]:
    def fits(v: Any) -> bool:
        if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v):
            return False
        return (low <= v if low_in else low < v) and v <= high

    return fits


def _each(fits: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and all(fits(x) for x in v)


def _some(fits: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """A list of one or more values that each fit: a mode list that harness run always
    writes with a value (caches, transfers), which empty plans no row at all."""
    return lambda v: _each(fits)(v) and bool(v)


def _maybe(fits: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or fits(v)


def _text(v: Any) -> bool:
    return isinstance(v, str)


def _name(v: Any) -> bool:
    return isinstance(v, str) and bool(v)


def _switch(v: Any) -> bool:
    return isinstance(v, bool)


def _within(choices: Sequence[str]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and v in choices


_WHOLE = f"a whole number from 1 to {arguments.MAX_WHOLE:.0e}"
_WHOLES = f"whole numbers from 1 to {arguments.MAX_WHOLE:.0e}"
_SECONDS = f"seconds above 0, at most {MAX_SECONDS}"

#: What each saved option of a run's metadata may hold, and the words for it: a
#: resume reads its options from there, so a damaged value would run rows that
#: were never asked for (a cache mode of no meaning, a size below 1) or error
#: every row.
SAVED_OPTIONS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "kernels": (_some(_text), "a list of kernel names"),
    "devices": (_some(_text), "a list of device ids"),
    "precision": (_within(PRECISIONS), f"one of {', '.join(PRECISIONS)}"),
    "precisions": (_each(_within(PRECISIONS)), f"a list of {', '.join(PRECISIONS)}"),
    "size": (_maybe(_whole(1)), f"null or {_WHOLE}"),
    "sizes": (_each(_whole(1)), f"a list of {_WHOLES}"),
    "size_factors": (
        _each(_number(0, arguments.MAX_SIZE_FACTOR)),
        f"a list of factors above 0, at most {arguments.MAX_SIZE_FACTOR:g}",
    ),
    "reps": (_maybe(_whole(1, MAX_REPS)), f"null or a whole number from 1 to {MAX_REPS}"),
    "warmup": (_whole(0, MAX_REPS), f"a whole number from 0 to {MAX_REPS}"),
    "seed": (_whole(0, arguments.MAX_SEED), f"a whole number from 0 to {arguments.MAX_SEED}"),
    "check": (_switch, "true or false"),
    "check_all": (_switch, "true or false"),
    "max_time": (_number(0, MAX_SECONDS), _SECONDS),
    "min_time": (_number(0, MAX_SECONDS), _SECONDS),
    "min_samples": (
        _whole(1, StopRule.max_samples),
        f"a whole number from 1 to {StopRule.max_samples}",
    ),
    "max_noise": (_number(0, 1), "a fraction above 0, at most 1"),
    "sample_time": (
        _number(0, arguments.MAX_SAMPLE_SECONDS, low_in=True),
        f"seconds from 0 to {arguments.MAX_SAMPLE_SECONDS:g}",
    ),
    "caches": (_some(_within(CACHE_MODES)), f"a list of one or more of {', '.join(CACHE_MODES)}"),
    # As --flush-bytes takes it (a cold row flushes what its device holds, and says so).
    "flush_bytes": (
        _maybe(_whole(1, 2**arguments.MAX_EXPONENT)),
        f"null or a whole number from 1 to 2^{arguments.MAX_EXPONENT}",
    ),
    "transfers": (
        _some(_within(TRANSFER_MODES)),
        f"a list of one or more of {', '.join(TRANSFER_MODES)}",
    ),
    "groups": (
        _each(arguments.is_group_size),
        f"a list of powers of two from {arguments.GROUP_SIZES[0]} to {arguments.GROUP_SIZES[1]}",
    ),
    "partitions": (
        _each(_within(partition.PARTITIONS)),
        f"a list of {', '.join(partition.PARTITIONS)}",
    ),
    "wgsl_checks": (
        _some(_within(WGSL_CHECKS)),
        f"a list of one or more of {', '.join(WGSL_CHECKS)}",
    ),
    "memory": (_maybe(_within(MEMORY_MEASURES)), f"null or {', '.join(MEMORY_MEASURES)}"),
    "budgets": (_each(_whole(1)), f"a list of {_WHOLES}"),
    "sources": (_each(_name), "a list of folder names"),
    "suites": (_each(_name), "a list of file names"),
    "timeout": (_maybe(_number(0, MAX_SECONDS)), f"null or {_SECONDS}"),
    "in_process": (_switch, "true or false"),
    "hold": (_switch, "true or false"),
}


def _check_saved(saved: dict[str, Any], path: Path) -> None:
    """UsageError naming the first saved option of a run's metadata that holds what
    ``harness run`` never writes (`SAVED_OPTIONS`), before its suites are loaded
    or the resume runs a row with it."""
    for name, (fits, accepted) in SAVED_OPTIONS.items():
        if name in saved and not fits(saved[name]):
            raise UsageError(
                f"--resume: {path}: options.{name} is {saved[name]!r}; {accepted} is accepted"
            )
    if bool(saved.get("memory")) != bool(saved.get("budgets")):
        raise UsageError(
            f"--resume: {path}: options.memory is {saved.get('memory')!r} but options.budgets "
            f"{saved.get('budgets')!r}; both (a measure and its budgets, as --memory-* gives "
            "them) or neither is accepted"
        )
    sizing = [name for name in ("size", "sizes", "size_factors", "budgets") if saved.get(name)]
    if len(sizing) > 1 and sizing != ["sizes", "size_factors"]:
        given = [f"options.{name} {saved[name]!r}" for name in sizing]
        raise UsageError(
            f"--resume: {path}: {', '.join(given[:-1])} and {given[-1]} are given together; "
            "harness run takes one of size, sizes or budgets, and size_factors alone or "
            "beside sizes"
        )


def _check_params(params: dict[str, Any], path: Path) -> None:
    """UsageError naming a saved kernel run option (``options.params``) that no
    kernel takes, or a choice of one that it does not offer."""
    for name, values in params.items():
        param = suite.PARAMS.get(name)
        choices = param.choices if param else ()
        if not _each(_within(choices))(values):
            raise UsageError(
                f"--resume: {path}: options.params.{name} is {values!r}; "
                + (f"a list of {', '.join(choices)} is accepted" if param else "no such option")
            )


def _check_same_devices(listed: Any, devices: Sequence[DeviceInfo]) -> None:
    """UsageError where a device id of the run names another device here (a GPU
    added, an OpenCL platform installed, a driver updated): its remaining rows ran
    on that device under the id of the run's, and the run mixed two devices'."""
    was = (
        {d.get("id"): d for d in listed if isinstance(d, dict)} if isinstance(listed, list) else {}
    )
    for device in devices:
        for field in ("name", "driver"):
            before = was.get(device.id, {}).get(field)
            now = getattr(device, field)
            if isinstance(before, str) and before != now:
                raise UsageError(
                    f"--resume: the run's {device.id} has {field} {before!r} in its metadata, "
                    f"{now!r} here: its rows would be two devices' under one id; resume "
                    "where the run began, or begin a new run"
                )


def check_same_kernels(listed: Any, kernels: Sequence[KernelSpec]) -> None:
    """UsageError where a user suite's kernel of the run is described otherwise now
    (its file edited since: another tolerance, group or parameters): the rows left
    were checked and reported as another kernel's, under its name, beside the
    rows of the one the run began with."""
    if not isinstance(listed, dict):
        return
    users = {k.name: path for path, loaded in suite.LOADED.items() for k in loaded}
    for spec in kernels:
        before = listed.get(spec.name)
        if spec.name not in users or not isinstance(before, dict):
            continue
        now = json.loads(json.dumps(spec.facts()))
        changed = [f for f in now if f in before and before[f] != now[f]]
        if changed:
            field = changed[0]
            raise UsageError(
                f"--resume: the run's {spec.name} has {field} {before[field]!r} in its "
                f"metadata, {now[field]!r} in {users[spec.name]} now: its rows would be two "
                "descriptions' under one name; put the file back as the run began, or "
                "begin a new run"
            )


def check_same_sources(
    rows: Sequence[dict[str, Any]], kernels: Sequence[KernelSpec], extra: Sequence[Path]
) -> None:
    """UsageError where a kernel's source is not the one the run's rows of it ran
    (its ``source`` and ``source_sha256``): edited since, or another file found
    now (a ``--sources`` folder gone, the shipped source taken instead). The rows
    left would be another kernel's, measured and reported under its name beside
    the rows the run began with."""
    specs = {k.name: k for k in kernels}
    now: dict[tuple[str, str], tuple[str, str] | None] = {}
    for row in rows:
        then = (row.get("source"), row.get("source_sha256"))
        kernel, name = row.get("kernel"), row.get("backend")
        if not all(isinstance(t, str) for t in (kernel, name, *then)):
            continue
        spec, backend = specs.get(kernel), BACKENDS.get(name)
        if spec is None or backend is None:
            continue
        key = (spec.name, backend.name)
        if key not in now:
            path = task_source(spec, backend, extra)
            try:
                now[key] = None if path is None else (sources.shown(path), sources.digest(path))
            except ValueError as exc:
                raise UsageError(
                    f"--resume: the run's {spec.name} on {backend.name}: its source cannot be "
                    f"read now ({exc}); put it back as the run began, or begin a new run"
                ) from None
        found = now[key]
        if found is None or found == then:
            continue
        gone = [str(f) for f in extra if not f.is_dir()]
        if found[0] != then[0]:
            why = f"its rows ran {then[0]}, and {found[0]} would run now" + (
                f" (--sources {gone[0]!r} no longer exists)" if gone else ""
            )
        else:
            why = (
                f"{then[0]} has changed since its rows ran (sha256 {then[1]} then, {found[1]} now)"
            )
        raise UsageError(
            f"--resume: the run's {spec.name} on {backend.name}: {why}; its rows would be two "
            "sources' under one name; put the source back as the run began, or begin a new run"
        )


def check_resumable(
    run_dir: Path,
    meta: dict[str, Any],
    kernels: Sequence[KernelSpec],
    devices: Sequence[DeviceInfo],
    rows: Sequence[dict[str, Any]],
) -> RunOptions:
    """A resumed run's options, checked as a resume in one process and one under
    mpirun both check them: its kernels' descriptions and sources are the ones its
    ``rows`` ran, its size factors give a size (its metadata edited by hand), and
    its ``--sources`` folders can serve ``devices``."""
    check_same_kernels(meta.get("kernels"), kernels)
    options = options_from_meta(meta["options"])
    _check_size_factors(
        kernels,
        options.size_factors,
        f"--resume: {run_dir / results.METADATA}: options.size_factors",
    )
    check_same_sources(rows, kernels, options.sources)
    _check_sources(options.sources, kernels, devices)
    return options


def _note_another_host(run_dir: Path, meta: dict[str, Any]) -> None:
    """Warn of a resume on another host than the run began on, and keep its host in
    the metadata's ``resumed_on``: its devices have the same names (a node of one
    cluster), but the rows left are another machine's, under the run's host."""
    host = meta.get("host")
    began = host.get("hostname") if isinstance(host, dict) else None
    here = metadata.host()["hostname"]
    if not isinstance(began, str) or began == here:
        return
    print(
        f"warning: --resume: {run_dir} began on host {began!r}, this is {here!r}: the rows "
        f"left run on this host's devices of the same names, and the run says so "
        f"(resumed_on); resume on {began} to keep its rows one machine's",
        file=sys.stderr,
    )
    meta.setdefault("resumed_on", []).append({"host": here, "at": meta["resumed"][-1]})


def _note_other_code(run_dir: Path, meta: dict[str, Any]) -> None:
    """Warn of a resume by another harness version or commit than the run began
    with, and keep it in the metadata's ``resumed_with``: the rows left are
    measured by other code, where the metadata named the first for every row."""
    here = {"harness_version": __version__, "git_commit": metadata.git_commit()}
    other = {
        key: (meta.get(key), value)
        for key, value in here.items()
        if isinstance(value, str) and isinstance(meta.get(key), str) and meta[key] != value
    }
    if not other:
        return
    said = ", ".join(f"{key} {began!r}, now {now!r}" for key, (began, now) in other.items())
    print(
        f"warning: --resume: {run_dir} began with {said}: the rows left are measured by "
        "this code, and the run says so (resumed_with)",
        file=sys.stderr,
    )
    meta.setdefault("resumed_with", []).append({**here, "at": meta["resumed"][-1]})


def check_ranks_devices(
    numbered: Sequence[tuple[int, dict[str, Any]]], devices: Sequence[Sequence[dict[str, Any]]]
) -> None:
    """UsageError where a row of a resumed MPI run names a device other than its
    rank's under that id now (``devices``, each rank's as dictionaries): its rank's
    rows left would run on another device under the run's id. Ranks on several
    hosts may each have another device under one id, which the run's metadata,
    one device an id, cannot say; each row names its own."""
    for number, row in numbered:
        rank = row.get("rank", 0)
        if type(rank) is not int or not 0 <= rank < len(devices):
            continue
        now = {d.get("id"): d for d in devices[rank]}.get(row.get("device_id"))
        if now is None:
            continue
        for field, key in (("name", "device"), ("driver", "device_driver")):
            before = row.get(key)
            if isinstance(before, str) and before != now.get(field):
                raise UsageError(
                    f"--resume: the run's {row['device_id']} of rank {rank} has {field} "
                    f"{before!r} in its journal's line {number}, {now.get(field)!r} here: its "
                    "rows would be two devices' under one id; resume where the run began, or "
                    "begin a new run"
                )


def note_foreign(run_dir: Path, foreign: Sequence[tuple[int, dict[str, Any]]]) -> None:
    """Warn of a resumed run's journal rows (with their line numbers) that its own
    options never plan (a size or precision it did not ask for, a journal joined
    or edited by hand): no part of what it finishes, so not counted as done."""
    if foreign:
        number, row = foreign[0]
        print(
            f"warning: {run_dir / results.JOURNAL}:{number}: a row the run's options do not "
            f"plan ({row['kernel']} {row.get('precision')} n={row.get('size')} on "
            f"{row['device_id']}; {len(foreign)} such row(s)): not counted as done",
            file=sys.stderr,
        )


def resumed_run(
    args: argparse.Namespace,
    meta: dict[str, Any],
    catalogs: Catalogs,
    numbered: list[tuple[int, dict[str, Any]]] | None = None,
) -> tuple[Path, dict[str, Any], list[Task]]:
    """A resumed run's folder, metadata and the rows it has left to run, given its
    journal's rows with their line numbers where they were read already."""
    run_dir = args.resume
    asked = meta["options"].get("partitions", ())
    if numbered is None:
        numbered = results.read_numbered(run_dir)
    found = [(number, row, row_key(row, asked)) for number, row in numbered]
    note_ignored(args)
    saved = meta["options"]
    try:
        kernels = suite.select(saved["kernels"])
    except suite.SelectionError as exc:
        raise UsageError(f"--resume: the run's kernels are not all known here: {exc}") from None
    try:
        devices = choose_devices(None, saved["devices"], catalogs)
    except UsageError as exc:
        # The run's own --device values, not the user's: say whose they are.
        raise UsageError(f"--resume: the run's devices are not all here: {exc}") from None
    _check_same_devices(meta.get("devices"), devices)
    options = check_resumable(run_dir, meta, kernels, devices, [row for _, row, _ in found])
    tasks = []
    for spec in kernels:
        with suite.blamed(spec):
            tasks += plan([spec], devices, options)
    planned = {task_key(t) for t in tasks}
    note_foreign(run_dir, [(number, row) for number, row, key in found if key not in planned])
    done = {key for _, _, key in found} & planned
    meta.setdefault("resumed", []).append(metadata.now())
    _note_another_host(run_dir, meta)
    _note_other_code(run_dir, meta)
    print(f"resuming {run_dir}: {len(done)} rows done", file=sys.stderr)
    left = [t for t in tasks if task_key(t) not in done]
    if left and args.in_process and not saved["in_process"] and saved["timeout"] is not None:
        # As a new --in-process run with --timeout notes: its rows cannot be stopped.
        print(
            "note: --in-process runs the rows left in this process, where no row can be "
            f"stopped: the run's --timeout {saved['timeout']:g} changes nothing for them",
            file=sys.stderr,
        )
    return run_dir, meta, left

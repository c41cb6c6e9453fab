"""The command line: ``harness devices | list | run | show``."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness import __version__, metadata, reporting_cli, results, suite, table
from harness.backends import BACKENDS, Catalog
from harness.backends import get as get_backend
from harness.backends.base import DeviceInfo
from harness.errors import UsageError
from harness.runner import RunOptions, Task, plan
from harness.spec import PRECISIONS
from harness.workers import InProcess, Workers

DESCRIPTION = """\
Benchmark GPU compute kernels on every backend this machine has (numpy on the
CPU, OpenCL, ...), verify each result against a CPU reference, and record
timings in a run folder (journal.jsonl, metadata.json, results.csv)."""

RUN_EPILOG = """\
examples:
  harness run                                  every kernel, every available backend
  harness run -k Stream Basic_DAXPY -b opencl  a group and a kernel on OpenCL only
  harness run -k 'Stream_*' --device opencl:1  one device of a backend
  harness run --check                          verification only, small sizes (for CI)

Exit status: 0 when every row is ok or skipped, 1 when any failed or errored,
2 for a usage error."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive whole number")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def _power_or_int(text: str) -> int:
    base, caret, exponent = text.partition("^")
    if caret:
        if base != "2" or not exponent.isdigit():
            raise ValueError
        return 2 ** int(exponent)
    return int(text)


def _sizes(text: str) -> tuple[int, ...]:
    sizes: list[int] = []
    for part in text.split(","):
        low, dots, high = part.strip().partition("..")
        try:
            first = _power_or_int(low)
            last = _power_or_int(high) if dots else first
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} is not a size, 2^K, or a range 2^A..2^B"
            ) from None
        if first <= 0 or last < first:
            raise argparse.ArgumentTypeError(f"{part.strip()!r}: sizes must be positive and rising")
        if dots and (first & (first - 1) or last & (last - 1)):
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r}: a range runs between powers of two"
            )
        while first <= last:
            sizes.append(first)
            first = first * 2 if dots else last + 1
    return tuple(dict.fromkeys(sizes))


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 seconds")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with a sub-parser per command."""
    parser = argparse.ArgumentParser(prog="harness", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    devices = sub.add_parser(
        "devices", help="list every backend, whether it is available (and why not), its devices"
    )
    devices.add_argument("--json", action="store_true", help="print JSON instead of text")
    devices.set_defaults(handler=_cmd_devices)

    listing = sub.add_parser("list", help="list kernels with their group and backends")
    listing.add_argument("-k", "--kernels", nargs="+", metavar="SEL", help="kernels to list")
    listing.set_defaults(handler=_cmd_list)

    run = sub.add_parser(
        "run",
        help="run, verify and time kernels; write a run folder",
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "-k",
        "--kernels",
        nargs="+",
        metavar="SEL",
        help="kernel names, group names or globs ('Stream', 'Stream_*', '*DOT'); default: all",
    )
    run.add_argument(
        "-b",
        "--backends",
        nargs="+",
        metavar="BACKEND",
        help=f"backends to use ({', '.join(BACKENDS)}); default: every available one",
    )
    run.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="BACKEND:INDEX",
        help="a device to use, as listed by 'harness devices' (repeatable); "
        "default: each backend's default devices",
    )
    sizes = run.add_mutually_exclusive_group()
    sizes.add_argument("--size", type=_positive_int, help="problem size; default: each kernel's")
    sizes.add_argument(
        "--sizes",
        type=_sizes,
        metavar="LIST",
        help="a size sweep, one row per size: comma-separated sizes and power-of-two "
        "ranges, e.g. 1024,4096 or 2^10..2^24",
    )
    run.add_argument(
        "--reps",
        type=_positive_int,
        help="timed repetitions; default: the kernel's (RAJAPerf's) count, cut to fit --max-time",
    )
    run.add_argument(
        "--warmup", type=_count, default=2, help="untimed repetitions before timing (default 2)"
    )
    run.add_argument(
        "--max-time",
        type=_seconds,
        default=2.0,
        metavar="SECONDS",
        help="time budget for one row's timed repetitions when --reps is not given (default 2)",
    )
    run.add_argument(
        "--precision",
        choices=PRECISIONS,
        default="f64",
        help="type of 'real' arrays (default f64)",
    )
    run.add_argument("--seed", type=int, default=1, help="seed for random inputs (default 1)")
    for param in suite.PARAMS.values():
        run.add_argument(
            f"--{param.name}",
            nargs="+",
            choices=param.choices,
            metavar=param.name.upper(),
            help=f"{param.help}; choices: {', '.join(param.choices)} (kernels that take it: "
            f"{', '.join(suite.takers(param.name))})",
        )
    run.add_argument(
        "--out",
        type=Path,
        default=Path("results"),
        metavar="DIR",
        help="folder that gets the run folder (default ./results)",
    )
    run.add_argument(
        "--check",
        action="store_true",
        help="verification only: one repetition per row, no timing, small sizes",
    )
    run.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help="per row: a kernel still running after this long is killed with its worker "
        "and recorded as an error (default: 120 s plus 1 s per 100000 elements); "
        "also how long a backend may take to list its devices (default: 120 s)",
    )
    run.add_argument(
        "--in-process",
        action="store_true",
        help="run every kernel in this process instead of one worker process per device "
        "(for debugging: a driver crash then ends the run, and --timeout cannot act)",
    )
    run.add_argument(
        "--resume",
        type=Path,
        metavar="RUN_DIR",
        help="continue an interrupted run with its own selection and options (the others "
        "given here are ignored), skipping the rows its journal already has",
    )
    run.add_argument(
        "--sources",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="extra kernel folder searched before the shipped one "
        "(DIR/opencl/<kernel>.cl, ...); repeatable",
    )

    show = sub.add_parser("show", help="print a run folder's table (rebuilds results.csv)")
    show.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    show.set_defaults(handler=_cmd_show)
    run.set_defaults(handler=_cmd_run)
    reporting_cli.register(sub)
    return parser


def _parse_device(text: str) -> tuple[str, int]:
    name, sep, index = text.partition(":")
    if not sep or not index.isdigit():
        raise UsageError(f"--device {text!r}: expected BACKEND:INDEX such as opencl:0")
    if name not in BACKENDS:
        raise UsageError(
            f"--device {text!r}: unknown backend {name!r}; choose from {', '.join(BACKENDS)}"
        )
    return name, int(index)


#: How a run learns which devices backends have: names in, a catalog per name out.
Catalogs = Callable[[Sequence[str]], dict[str, Catalog]]


def choose_devices(
    backend_names: Sequence[str] | None,
    device_texts: Sequence[str],
    catalogs: Catalogs,
) -> list[DeviceInfo]:
    """The devices a run uses; a UsageError for anything asked for that is not here."""
    wanted = [_parse_device(t) for t in device_texts]
    for name in backend_names or []:
        if name not in BACKENDS:
            raise UsageError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    explicit = list(dict.fromkeys([*(backend_names or []), *(n for n, _ in wanted)]))
    chosen: list[DeviceInfo] = []
    for found in catalogs(explicit or list(BACKENDS)).values():
        if found.reason is not None:
            if explicit:
                raise UsageError(f"backend {found.backend} is unavailable: {found.reason}")
            print(f"note: skipping {found.backend}: {found.reason}", file=sys.stderr)
            continue
        indices = [i for n, i in wanted if n == found.backend]
        if not indices:
            chosen.extend(found.defaults)
            continue
        for index in dict.fromkeys(indices):
            if index >= len(found.devices):
                listed = ", ".join(d.id for d in found.devices)
                raise UsageError(
                    f"--device {found.backend}:{index}: no such device; "
                    f"{found.backend} has {listed}"
                )
            chosen.append(found.devices[index])
    if not chosen:
        raise UsageError("no backend is available; see 'harness devices'")
    return chosen


def _cmd_devices(args: argparse.Namespace) -> int:
    report = []
    workers = Workers()
    try:
        catalogs = workers.catalogs(list(BACKENDS))
    finally:
        workers.close()
    for name, found in catalogs.items():
        report.append(
            {
                "backend": name,
                "available": found.reason is None,
                "reason": found.reason,
                "devices": [d.as_dict() for d in found.devices],
            }
        )
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    for entry in report:
        if not entry["available"]:
            print(f"{entry['backend']}: unavailable: {entry['reason']}")
            continue
        print(f"{entry['backend']}: available, {len(entry['devices'])} device(s)")
        for d in entry["devices"]:
            print(f"  {d['id']}  {d['name']}  [{d['kind']}]")
            memory = (
                f"{d['memory_bytes'] / 2**30:.1f} GiB" if d["memory_bytes"] else "memory unknown"
            )
            units = d["compute_units"] or "unknown"
            print(f"      vendor {d['vendor']}; {memory}; {units} compute units")
            print(f"      driver {d['driver']}; {d['api']}")
            print(f"      features: {' '.join(d['features']) or '-'}")
            if d["limits"]:
                print("      limits: " + ", ".join(f"{k} {v}" for k, v in d["limits"].items()))
    return 0


def _implemented_backends(spec: Any) -> list[str]:
    from harness import sources

    names = []
    for name in BACKENDS:
        backend = get_backend(name)
        if backend.language is None or sources.find(
            backend.language, backend.extension, spec.source_name
        ):
            names.append(name)
    return names


def _cmd_list(args: argparse.Namespace) -> int:
    kernels = suite.select(args.kernels)
    header = ("kernel", "group", "backends", "features", "complexity", "summary")
    rows = [
        (
            k.name,
            k.group,
            ",".join(_implemented_backends(k)),
            ",".join(k.rajaperf_features),
            k.complexity,
            k.summary,
        )
        for k in kernels
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    for r in [header, *rows]:
        cells = zip(r[:-1], widths, strict=True)
        print("  ".join(cell.ljust(w) for cell, w in cells) + "  " + r[-1])
    print(f"\n{len(rows)} kernels")
    return 0


def _progress(total: int):
    def on_row(i: int, row: dict[str, Any]) -> None:
        line = (
            f"[{i + 1}/{total}] {table.label(row)} on {row['device_id']} "
            f"{row['precision']} n={row['size']}: {row['status']}"
        )
        if row.get("time_median_s"):
            line += f", median {table.format_time(row['time_median_s'])}"
            if row.get("gbytes_per_s"):
                line += f", {row['gbytes_per_s']:.3g} GB/s"
        if row["status"] != "ok" and row.get("reason"):
            line += f" ({row['reason']})"
        print(line, file=sys.stderr, flush=True)

    return on_row


def _chosen_params(
    args: argparse.Namespace, kernels: Sequence[Any]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    chosen = []
    for name in suite.PARAMS:
        values = getattr(args, name)
        if not values:
            continue
        if not any(name in (p.name for p in k.params) for k in kernels):
            print(f"note: no selected kernel takes --{name}; it is ignored", file=sys.stderr)
        chosen.append((name, tuple(dict.fromkeys(values))))
    return tuple(chosen)


def _options_meta(options: RunOptions, kernels: Sequence[Any], devices: Sequence[DeviceInfo]):
    return {
        "kernels": [k.name for k in kernels],
        "devices": [d.id for d in devices],
        "precision": options.precision,
        "size": options.size,
        "sizes": list(options.sizes),
        "reps": options.reps,
        "warmup": options.warmup,
        "seed": options.seed,
        "check": options.check,
        "max_time": options.max_time,
        "params": {name: list(values) for name, values in options.params},
        "sources": [str(s) for s in options.sources],
        "timeout": options.timeout,
        "in_process": options.in_process,
    }


def _options_from_meta(saved: dict[str, Any]) -> RunOptions:
    return RunOptions(
        precision=saved["precision"],
        size=saved["size"],
        sizes=tuple(saved["sizes"]),
        reps=saved["reps"],
        warmup=saved["warmup"],
        seed=saved["seed"],
        check=saved["check"],
        max_time=saved["max_time"],
        params=tuple((name, tuple(values)) for name, values in saved["params"].items()),
        sources=tuple(Path(s) for s in saved["sources"]),
        timeout=saved["timeout"],
        in_process=saved["in_process"],
    )


def _new_run(
    args: argparse.Namespace, catalogs: Catalogs
) -> tuple[Path, dict[str, Any], list[Task]]:
    kernels = suite.select(args.kernels)
    for folder in args.sources:
        if not folder.is_dir():
            raise UsageError(f"--sources {str(folder)!r}: not a folder")
    devices = choose_devices(args.backends, args.device, catalogs)
    options = RunOptions(
        precision=args.precision,
        size=args.size,
        reps=args.reps,
        warmup=args.warmup,
        seed=args.seed,
        check=args.check,
        max_time=args.max_time,
        sources=tuple(args.sources),
        sizes=args.sizes or (),
        params=_chosen_params(args, kernels),
        timeout=args.timeout,
        in_process=args.in_process,
    )
    try:
        run_dir = results.create(args.out)
    except OSError as exc:
        raise UsageError(
            f"--out {str(args.out)!r}: cannot make a run folder there ({exc.strerror})"
        ) from None
    meta = {
        "harness_version": __version__,
        "git_commit": metadata.git_commit(),
        "command": ["harness", *args.argv],
        "start": metadata.now(),
        "end": None,
        "host": metadata.host(),
        "libraries": metadata.library_versions(),
        "devices": [d.as_dict() for d in devices],
        "options": _options_meta(options, kernels, devices),
    }
    return run_dir, meta, plan(kernels, devices, options)


def _task_key(task: Task) -> tuple:
    return (task.kernel, f"{task.backend}:{task.device}", task.size, task.precision, task.params)


def _row_key(row: dict[str, Any]) -> tuple:
    spec = suite.BY_NAME.get(row.get("kernel", ""))
    params = tuple((p.name, row.get(p.name)) for p in spec.params) if spec else ()
    return (row.get("kernel"), row.get("device_id"), row.get("size"), row.get("precision"), params)


def _resumed_run(
    args: argparse.Namespace, catalogs: Catalogs
) -> tuple[Path, dict[str, Any], list[Task]]:
    run_dir = args.resume
    try:
        done = {_row_key(r) for r in results.read_journal(run_dir)}
    except results.RunFolderError as exc:
        raise UsageError(f"--resume: {exc}") from None
    meta = results.read_metadata(run_dir)
    if "options" not in meta:
        raise UsageError(f"--resume {str(run_dir)!r}: its metadata.json is missing or unreadable")
    saved = meta["options"]
    try:
        kernels = suite.select(saved["kernels"])
    except suite.SelectionError as exc:
        raise UsageError(f"--resume: the run's kernels are not all known here: {exc}") from None
    devices = choose_devices(None, saved["devices"], catalogs)
    tasks = plan(kernels, devices, _options_from_meta(saved))
    meta.setdefault("resumed", []).append(metadata.now())
    print(f"resuming {run_dir}: {len(done)} rows done", file=sys.stderr)
    return run_dir, meta, [t for t in tasks if _task_key(t) not in done]


def _in_process(args: argparse.Namespace) -> bool:
    """Whether the run keeps its tasks in this process: asked for, or how the
    resumed run was started."""
    if args.in_process or not args.resume:
        return args.in_process
    return bool(results.read_metadata(args.resume).get("options", {}).get("in_process"))


def _cmd_run(args: argparse.Namespace) -> int:
    executor = InProcess() if _in_process(args) else Workers(args.timeout)
    try:
        return _execute_run(args, executor)
    finally:
        executor.close()


def _execute_run(args: argparse.Namespace, executor: InProcess | Workers) -> int:
    make_run = _resumed_run if args.resume else _new_run
    run_dir, meta, tasks = make_run(args, executor.catalogs)
    options = _options_from_meta(meta["options"])
    names = {d["id"]: d["name"] for d in meta["devices"]}
    results.write_json(run_dir / results.METADATA, meta)
    journal = results.Journal(run_dir)
    print(f"run folder: {run_dir} ({len(tasks)} rows to run)", file=sys.stderr, flush=True)
    on_row = _progress(len(tasks))
    executor.start(options, names, tasks)
    stop = {"asked": False}

    def on_interrupt(signum: int, frame: Any) -> None:
        if stop["asked"]:
            raise KeyboardInterrupt
        stop["asked"] = True
        print(
            "\ninterrupt: stopping after the current row (interrupt again to stop now)",
            file=sys.stderr,
            flush=True,
        )

    previous = signal.signal(signal.SIGINT, on_interrupt)
    finished = 0
    try:
        for task in tasks:
            if stop["asked"]:
                break
            row = executor.execute(task)
            journal.append(row)
            on_row(finished, row)
            finished += 1
    except KeyboardInterrupt:
        stop["asked"] = True
    finally:
        signal.signal(signal.SIGINT, previous)
        journal.close()
        interrupted = finished < len(tasks)
        meta["end"] = metadata.now()
        meta["interrupted"] = interrupted
        results.write_json(run_dir / results.METADATA, meta)
        rows = results.read_journal(run_dir)
        summary = table.format_rows(rows)
        results.finish(run_dir, summary)
    print(summary)
    print(f"\nrun folder: {run_dir}")
    if interrupted:
        print(
            f"interrupted: {finished} of {len(tasks)} rows run; "
            f"continue with: harness run --resume {run_dir}",
            file=sys.stderr,
        )
        return 130
    return 1 if any(r["status"] in ("fail", "error") for r in rows) else 0


def _cmd_show(args: argparse.Namespace) -> int:
    try:
        rows = results.ensure_csv(args.run_dir)
    except results.RunFolderError as exc:
        raise UsageError(str(exc)) from None
    if not rows:
        raise UsageError(f"{args.run_dir}: the journal has no rows yet")
    print(table.format_rows(rows))
    print(f"\nresults: {args.run_dir / results.RESULTS}")
    return 1 if any(r.get("status") in ("fail", "error") for r in rows) else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``harness`` command; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv
    try:
        return args.handler(args)
    except (UsageError, suite.SelectionError) as exc:
        print(f"harness: error: {exc}", file=sys.stderr)
        return 2

"""The command line: ``harness devices | list | run | show``."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from harness import __version__, arguments, suite
from harness.backends import BACKENDS, Catalog
from harness.backends import get as get_backend
from harness.backends.base import DeviceInfo
from harness.errors import UsageError
from harness.execution import metadata, peaks, ranks, results
from harness.execution.flush import CACHE_MODES, last_level_cache
from harness.execution.runner import (
    MAX_SECONDS,
    MEMORY_MEASURES,
    RunOptions,
    Task,
    base_row,
    memory_bytes,
    plan,
    reaches,
    size_for_memory,
)
from harness.execution.sampling import StopRule
from harness.execution.transfers import TRANSFER_MODES
from harness.execution.workers import InProcess, Workers
from harness.model import partition, sources
from harness.model.spec import PRECISIONS
from harness.mutation import mutants
from harness.reporting import commands, table

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
2 for a usage error, a run folder another run is writing or one that cannot be
written (a full disk: the message says how to resume), 130 when interrupted
(Ctrl-C or SIGTERM: the current row finishes, the rows are kept; a second one
stops at once)."""


TIMING_HELP = """\
By default each row repeats until its timings are quiet: the relative standard
deviation of its samples (the noise) under --max-noise, judged after at least
--min-samples samples and --min-time seconds of measured time; or until the
noise stops changing; or until --max-time runs out. Each row says which
(columns noise, noise_met, stop), gives its median with quartiles and a 95%
interval, and keeps every sample in the run folder's samples.jsonl. A
repetition shorter than --sample-time is timed in back-to-back batches, each
sample a batch's mean (column batch): a clock's resolution and a launch's
jitter are then a small part of a sample. Cold rows and rows with transfers
time each repetition alone. --reps times a fixed count of single repetitions
instead."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, ``harness: error: ...``."""

    #: The top-level parser's sub-parser per command (set by `build_parser`).
    commands: dict[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        """Raise a UsageError (one line, exit 2) instead of printing the usage block."""
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> Parser:
    """The argument parser, with a sub-parser per command."""
    parser = Parser(prog="harness", description=DESCRIPTION)
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
    listing.add_argument(
        "--files",
        nargs="+",
        metavar="SEL",
        help="instead of the table, every file the selected kernels are made of: the "
        "module holding the description, and per backend the source it compiles, the "
        "files that includes and the backend's prelude",
    )
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
        metavar="DEVICE",
        help="a device to use (repeatable): BACKEND:INDEX as 'harness devices' lists it, "
        "part of a device's name (every device whose name contains it, e.g. llvmpipe, or "
        "oclgrind for the simulator that finds races in --check runs), "
        "all (every device of every available backend), host (the host itself, no "
        "offload: the cpu backend) or default (each backend's default devices, as without "
        "--device); with -b, among those backends",
    )
    sizes = run.add_mutually_exclusive_group()
    sizes.add_argument(
        "--size", type=arguments.positive_int, help="problem size; default: each kernel's"
    )
    sizes.add_argument(
        "--sizes",
        type=arguments.sizes,
        metavar="LIST",
        help="a size sweep, one row per size: comma-separated sizes and power-of-two "
        "ranges, e.g. 1024,4096 or 2^10..2^24",
    )
    for measure, what in (
        ("allocated", "all of its arrays take"),
        ("moved", "one repetition reads and writes"),
    ):
        sizes.add_argument(
            f"--memory-{measure}",
            type=arguments.byte_sizes,
            metavar="BYTES",
            help=f"pick each kernel's size from a byte budget, as RAJAPerf does: the largest "
            f"size whose bytes {what} stay within it (e.g. 16MiB to sit inside a cache, "
            "1GiB to sit outside); a list or range sweeps: 1MiB..1GiB",
        )
    timing = run.add_argument_group("timing", TIMING_HELP)
    timing.add_argument(
        "--reps",
        type=arguments.positive_int,
        help="a fixed number of timed repetitions per row instead of stopping on noise",
    )
    timing.add_argument(
        "--warmup",
        type=arguments.count,
        default=2,
        help="untimed repetitions before timing (default 2)",
    )
    timing.add_argument(
        "--max-time",
        type=arguments.seconds,
        default=2.0,
        metavar="SECONDS",
        help="wall-clock budget for one row's timed repetitions: a row stops when it runs "
        f"out, after at least 3 repetitions (default 2, at most {MAX_SECONDS})",
    )
    timing.add_argument(
        "--min-time",
        type=arguments.seconds,
        default=0.5,
        metavar="SECONDS",
        help="measured time a row gathers before its noise is judged (default 0.5, "
        "nvbench's; at most half of --max-time counts)",
    )
    timing.add_argument(
        "--min-samples",
        type=arguments.positive_int,
        default=10,
        metavar="N",
        help="samples a row gathers before its noise is judged (default 10)",
    )
    timing.add_argument(
        "--max-noise",
        type=arguments.percent,
        default=0.5,
        metavar="PERCENT",
        help="noise target: the samples' relative standard deviation, in percent "
        "(default 0.5, nvbench's)",
    )
    timing.add_argument(
        "--sample-time",
        type=arguments.sample_seconds,
        default=StopRule.sample_time,
        metavar="SECONDS",
        help="least device time one sample covers: shorter repetitions are timed back to "
        "back in batches, each sample their mean, as pyperf's loops and nvbench's batch "
        f"measurement do (default {StopRule.sample_time:g}; 0 times each repetition alone)",
    )
    timing.add_argument(
        "--cache",
        nargs="+",
        choices=CACHE_MODES,
        default=["hot"],
        help="hot: repetitions follow each other, data left in cache (default); cold: "
        "a kernel reads a scratch buffer twice the device's last-level cache before "
        "each repetition, outside the timed region; both: one row each",
    )
    timing.add_argument(
        "--flush-bytes",
        type=arguments.byte_size,
        metavar="BYTES",
        help="the scratch buffer a cold row reads between repetitions (e.g. 128MiB), "
        "where the device's own figure is wrong or to see how much flush the cache "
        "needs; default: twice its last-level cache as its API or host reports it, "
        "within its limit on one buffer (cold rows record it in flush_bytes)",
    )
    run.add_argument(
        "--group",
        type=arguments.group_sizes,
        metavar="SIZES",
        help="work-group sizes to run each kernel at, one row each, e.g. 64,128,256,512,1024 "
        "(powers of two from 32 to 4096); the report marks each kernel's best, as RAJAPerf's "
        "GPU block-size tunings do. Kernels whose work-groups span several axes or whose "
        "algorithm fixes the size keep theirs and say so; a size over a device's limit is "
        "a skipped row naming the limit. Default: each kernel's own (256 for most)",
    )
    run.add_argument(
        "--partition",
        nargs="+",
        choices=(partition.AUTO, *partition.PARTITIONS),
        default=[partition.AUTO],
        help="how a kernel that walks its items with the C dialect's FOR_EACH deals them "
        "to work-items (OpenCL and CUDA): item: one item per work-item; stride: "
        f"{partition.GROUPS_PER_UNIT} work-groups per compute unit, each work-item taking "
        "every global-size-th item (a GPU's grid-stride loop); chunk: as many work-items, "
        "each taking a contiguous run (what CPU devices vectorise); auto: chunk on CPU "
        "devices, item on others (default); several: one row each, in a partition column. "
        "Kernels with work-group memory or ids of their own keep one item per work-item "
        "and say so; wgpu takes item only",
    )
    timing.add_argument(
        "--transfers",
        nargs="+",
        choices=TRANSFER_MODES,
        default=["resident"],
        help="where the data lives while timed: resident: uploaded once, outside the "
        "timed region (default); per-rep: each repetition uploads what the kernel reads "
        "and downloads what it writes; per-launch: each launch does, as an offload "
        "runtime that neither fuses nor hoists transfers; several: one row each. Rows "
        "split their time into h2d_s, kernel_s and d2h_s (copies timed by the device's "
        "clock on OpenCL and CUDA, by the host's on wgpu and cpu: transfer_timer)",
    )
    timing.add_argument(
        "--no-hold",
        dest="hold",
        action="store_false",
        help="let the device start a repetition's launches as the host queues them; by "
        "default a repetition is held until all its launches are queued (a CUDA graph, an "
        "OpenCL user event; WebGPU submits each batch at once), so that many short launches "
        "time the device, not the host's rate of queueing them; the queue column says which",
    )
    run.add_argument(
        "--precision",
        choices=PRECISIONS,
        default="f64",
        help="type of 'real' arrays (default f64)",
    )
    run.add_argument("--seed", type=int, default=1, help="seed for random inputs (default 1)")
    arguments.kernel_options(run)
    arguments.run_folder_out(run)
    run.add_argument(
        "--check",
        action="store_true",
        help="verification only: one repetition per row, no timing, small sizes",
    )
    run.add_argument(
        "--timeout",
        type=arguments.seconds,
        metavar="SECONDS",
        help="per row: a kernel still running after this long is killed with its worker "
        "and recorded as an error (default: 120 s plus 1 s per 100000 elements, ten times "
        "that on a simulator); "
        "also how long a backend may take to list its devices (default: 120 s); "
        f"at most {MAX_SECONDS} (one week)",
    )
    run.add_argument(
        "--lost-after",
        type=arguments.seconds,
        default=ranks.LOST_AFTER_S,
        metavar="SECONDS",
        help="under mpirun: a rank not heard from for this long (it crashed, was killed or "
        "hangs) is lost, and its rows from then on are error rows while the other ranks go "
        f"on (default {ranks.LOST_AFTER_S:g}; Open MPI's mpirun needs --enable-recovery to "
        "let them)",
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
        "(DIR/opencl/<kernel>.cl, DIR/c/<kernel>.c, ...); repeatable",
    )
    for command in (run, listing):
        command.add_argument(
            "--suite",
            type=Path,
            action="append",
            default=[],
            metavar="FILE",
            help="a Python file describing your own kernels (its KERNELS), with their sources "
            "beside it in opencl/, wgsl/, cuda/ or c/; they run like the shipped ones "
            "(repeatable; examples/ has one)",
        )

    show = sub.add_parser("show", help="print a run folder's table (rebuilds results.csv)")
    show.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    show.set_defaults(handler=_cmd_show)
    run.set_defaults(handler=_cmd_run)
    commands.register(sub)
    mutants.register(sub)
    peaks.register(sub)
    parser.commands = dict(sub.choices)
    return parser


#: The words --device takes besides BACKEND:INDEX and a name's part.
DEVICE_WORDS = {
    "all": "every device of every available backend",
    "host": "the host itself, no offload (the cpu backend)",
    "default": "each backend's default devices",
}


def _parse_device(text: str) -> tuple[str, int] | None:
    """BACKEND:INDEX as (backend, index); None for a word or a part of a name."""
    name, sep, index = text.partition(":")
    if not sep or name not in BACKENDS:
        if sep and index.isdigit():
            raise UsageError(
                f"--device {text!r}: unknown backend {name!r}; choose from {', '.join(BACKENDS)}"
            )
        return None
    if not index.isdigit():
        raise UsageError(f"--device {text!r}: expected BACKEND:INDEX such as opencl:0")
    return name, int(index)


#: How a run learns which devices backends have: names in, a catalog per name out.
Catalogs = Callable[[Sequence[str]], dict[str, Catalog]]


def _listing(found: dict[str, Catalog]) -> str:
    listed = [f"{d.id} ({d.name})" for c in found.values() for d in c.devices]
    return ", ".join(listed) or "none"


def _pick(text: str, found: dict[str, Catalog]) -> list[DeviceInfo]:
    """The devices one --device value names among the catalogs' devices."""
    usable = {n: c for n, c in found.items() if c.reason is None}
    parsed = _parse_device(text)
    if parsed is not None:
        backend, index = parsed
        catalog = found[backend]
        if catalog.reason is not None:
            raise UsageError(
                f"--device {text!r}: backend {backend} is unavailable: {catalog.reason}"
            )
        if index >= len(catalog.devices):
            listed = ", ".join(d.id for d in catalog.devices)
            raise UsageError(f"--device {text!r}: no such device; {backend} has {listed}")
        return [catalog.devices[index]]
    word = text.lower()
    if word == "all":
        return [d for c in usable.values() for d in c.devices]
    if word == "default":
        return [d for c in usable.values() for d in c.defaults]
    if word == "host":
        if "cpu" not in usable:
            raise UsageError(f"--device host: the cpu backend is not among {', '.join(found)}")
        return list(usable["cpu"].defaults)
    named = [d for c in usable.values() for d in c.devices if word in d.name.lower()]
    if not named:
        words = ", ".join(DEVICE_WORDS)
        raise UsageError(
            f"--device {text!r}: no device's name contains it; expected {words}, "
            f"BACKEND:INDEX or part of a name: {_listing(usable)}"
        )
    return named


def choose_devices(
    backend_names: Sequence[str] | None,
    device_texts: Sequence[str],
    catalogs: Catalogs,
) -> list[DeviceInfo]:
    """The devices a run uses; a UsageError for anything asked for that is not here.

    Without --device, each backend's defaults (of the -b backends, or of every
    available one); each --device value adds the devices it names, among the
    -b backends where -b is given.
    """
    for name in backend_names or []:
        if name not in BACKENDS:
            raise UsageError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    wanted = [_parse_device(t) for t in device_texts]
    if device_texts and all(w is not None for w in wanted):
        # Only BACKEND:INDEX values: no other backend need list its devices.
        names = list(dict.fromkeys([*(backend_names or []), *(w[0] for w in wanted if w)]))
    else:
        names = list(backend_names or BACKENDS)
    found = catalogs(names)
    explicit = bool(backend_names) or bool(device_texts)
    for catalog in found.values():
        if catalog.reason is None:
            continue
        if backend_names and catalog.backend in backend_names:
            raise UsageError(f"backend {catalog.backend} is unavailable: {catalog.reason}")
        if not explicit:
            print(f"note: skipping {catalog.backend}: {catalog.reason}", file=sys.stderr)
    chosen: list[DeviceInfo] = []
    if device_texts:
        for text in device_texts:
            chosen.extend(_pick(text, found))
        # A -b backend no --device value named runs on its defaults.
        named = {d.backend for d in chosen}
        for name in backend_names or []:
            if name not in named and found[name].reason is None:
                chosen.extend(found[name].defaults)
    else:
        chosen = [d for c in found.values() if c.reason is None for d in c.defaults]
    if not chosen:
        raise UsageError("no backend is available; see 'harness devices'")
    return list({d.id: d for d in chosen}.values())


def device_report() -> list[dict[str, Any]]:
    """Every backend: whether it is available (and why not), and its devices, each
    with a note where it is not one of the backend's defaults (and why)."""
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
                "devices": [
                    {**d.as_dict(), "note": dict(found.notes).get(d.id)} for d in found.devices
                ],
            }
        )
    return report


def _cmd_devices(args: argparse.Namespace) -> int:
    report = device_report()
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
            if d["note"]:
                print(f"      {d['note']}")
    return 0


def _implemented_backends(spec: Any) -> list[str]:

    names = []
    for name in BACKENDS:
        backend = get_backend(name)
        if backend.language is None or sources.find(
            backend.language, backend.extension, spec.source_name
        ):
            names.append(name)
    return names


def _kernel_files(spec: Any) -> list[tuple[str, list[Path]]]:
    """What a kernel is made of: its description's module, then for each group of
    backends that compile the same source, that source with what it includes."""
    found: list[tuple[str, list[Path]]] = [("description", [suite.module_file(spec)])]
    by_source: dict[Path, list[str]] = {}
    for name in BACKENDS:
        backend = get_backend(name)
        if backend.language is not None:
            path = sources.find(backend.language, backend.extension, spec.source_name)
            if path is not None:
                by_source.setdefault(path, []).append(name)
    for path, names in by_source.items():
        files = sources.with_includes(path)
        for name in names:
            prelude = sources.PRELUDES.get(get_backend(name).language or "")
            if prelude:
                files.append(sources.shipped_root() / (get_backend(name).language or "") / prelude)
        found.append((", ".join(names), files))
    return found


def _cmd_list(args: argparse.Namespace) -> int:
    if args.files:
        for spec in suite.select(args.files):
            print(spec.name)
            for label, files in _kernel_files(spec):
                for k, path in enumerate(files):
                    print(f"  {label if k == 0 else '':<14}{path}")
        return 0
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
    ours = sum(k.group in suite.RAJAPERF_GROUPS for k in kernels)
    print(
        f"\n{len(rows)} kernels, {ours} of them RAJAPerf's "
        f"(of its {suite.RAJAPERF_SINGLE_PROCESS} that run in one process)"
    )
    return 0


class Progress:
    """How a run reports its rows as they finish: a line per row (a log, as in CI),
    or a live bar with the row in hand and the time left (tqdm: on a terminal, and
    in a notebook when the Python API asks), the lines of rows that are not ok
    printed above it."""

    def __init__(self, total: int, bar: bool | None = None) -> None:
        self.total = total
        self._bar = None
        if bar if bar is not None else sys.stderr.isatty():
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, unit="row", desc="harness run", file=sys.stderr)

    def row(self, i: int, row: dict[str, Any]) -> None:
        """Report the ``i``-th row (from 0), just finished."""
        line = (
            f"[{i + 1}/{self.total}] {table.label(row)} on {row['device_id']} "
            f"{row['precision']} n={row['size']}: {row['status']}"
        )
        if row.get("time_median_s"):
            line += f", median {table.format_time(row['time_median_s'])}"
            if row.get("gbytes_per_s"):
                line += f", {row['gbytes_per_s']:.3g} GB/s"
        if row["status"] != "ok" and row.get("reason"):
            line += f" ({row['reason']})"
        if self._bar is None:
            print(line, file=sys.stderr, flush=True)
            return
        if row["status"] not in ("ok", "skipped"):
            self._bar.write(line, file=sys.stderr)
        self._bar.set_postfix_str(f"{table.label(row)} on {row['device_id']}", refresh=False)
        self._bar.update(1)

    def close(self) -> None:
        """End the bar, if there is one."""
        if self._bar is not None:
            self._bar.close()


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
        "min_time": options.min_time,
        "min_samples": options.min_samples,
        "max_noise": options.max_noise,
        "sample_time": options.sample_time,
        "caches": list(options.caches),
        "flush_bytes": options.flush_bytes,
        "transfers": list(options.transfers),
        "groups": list(options.groups),
        "partitions": list(options.partitions),
        "memory": options.memory,
        "budgets": list(options.budgets),
        "params": {name: list(values) for name, values in options.params},
        "sources": [str(s) for s in options.sources],
        "suites": [str(s) for s in options.suites],
        "timeout": options.timeout,
        "in_process": options.in_process,
        "hold": options.hold,
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
        min_time=saved.get("min_time", RunOptions.min_time),
        min_samples=saved.get("min_samples", RunOptions.min_samples),
        max_noise=saved.get("max_noise", RunOptions.max_noise),
        sample_time=saved.get("sample_time", 0.0),
        caches=tuple(saved.get("caches", RunOptions.caches)),
        flush_bytes=saved.get("flush_bytes"),
        transfers=tuple(saved.get("transfers", RunOptions.transfers)),
        groups=tuple(saved.get("groups", RunOptions.groups)),
        partitions=tuple(saved.get("partitions", RunOptions.partitions)),
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
    """Warn about each --sources folder that this run would take no source from:
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
        elif not any(
            (folder / lang / f"{k}{ext}").is_file() for lang, ext in languages for k in stems
        ):
            looked = " or ".join(f"{folder / lang / stems[0]}{ext}" for lang, ext in languages)
            why = f"it holds no source this run uses (it looks for files such as {looked})"
        else:
            continue
        print(f"warning: --sources {str(folder)!r}: {why}", file=sys.stderr)


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
        if flush_bytes < cache:
            print(
                f"warning: --flush-bytes {flush_bytes / 2**20:g} MiB is less than {device.id}'s "
                f"last-level cache ({cache / 2**20:g} MiB, {where}): its cold rows may find "
                "data in cache",
                file=sys.stderr,
            )


def _new_run(
    args: argparse.Namespace, catalogs: Catalogs, world: ranks.World | None = None
) -> tuple[Path | None, dict[str, Any], list[Task]]:
    """A new run's folder, metadata and rows. In an MPI run each rank plans the
    rows of its own devices, and only rank 0 makes the folder (the others get None)."""
    kernels = suite.select(args.kernels)
    for folder in args.sources:
        if not folder.is_dir():
            raise UsageError(f"--sources {str(folder)!r}: not a folder")
    devices = choose_devices(args.backends, args.device, catalogs)
    if world is not None:
        devices = ranks.rank_devices(devices, world.local_rank)
    _check_sources(args.sources, kernels, devices)
    _check_flush(args.flush_bytes, args.cache, devices)
    memory, budgets = next(
        ((m, b) for m in MEMORY_MEASURES if (b := getattr(args, f"memory_{m}"))), (None, ())
    )
    options = RunOptions(
        precision=args.precision,
        size=args.size,
        reps=args.reps,
        warmup=args.warmup,
        seed=args.seed,
        check=args.check,
        max_time=args.max_time,
        min_time=args.min_time,
        min_samples=args.min_samples,
        max_noise=args.max_noise / 100,
        sample_time=args.sample_time,
        caches=tuple(dict.fromkeys(args.cache)),
        flush_bytes=args.flush_bytes,
        transfers=tuple(dict.fromkeys(args.transfers)),
        groups=args.group or (),
        partitions=tuple(dict.fromkeys(p for p in args.partition if p != partition.AUTO)),
        memory=memory,
        budgets=budgets,
        sources=tuple(args.sources),
        # Every suite loaded (installed ones, --suite files): workers load them too.
        suites=tuple(suite.LOADED),
        sizes=args.sizes or (),
        params=arguments.chosen_params(args, kernels, args.check),
        timeout=args.timeout,
        in_process=args.in_process,
        hold=args.hold,
    )
    try:
        run_dir = results.create(args.out) if world is None or world.rank == 0 else None
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
        "kernels": {k.name: k.facts() for k in kernels},
        "peaks": _known_peaks(devices, options),
    }
    _note_unmet_budgets(kernels, options)
    return run_dir, meta, plan(kernels, devices, options)


def _known_peaks(devices: Sequence[DeviceInfo], options: RunOptions) -> dict[str, Any]:
    """Each device's measured peaks (`harness peak`), by device id; a note names the
    devices of a timed run that have none."""
    known = {d.id: peak for d in devices if (peak := peaks.lookup(d.as_dict()))}
    missing = [d.id for d in devices if d.id not in known]
    if missing and not options.check:
        print(
            f"note: no measured peak for {', '.join(missing)}, so its rows get no pct_peak_bw "
            f"or pct_peak_flops; measure with: harness peak --device {missing[0]}",
            file=sys.stderr,
        )
    return known


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


def _task_key(task: Task) -> tuple:
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
    )


def _row_key(row: dict[str, Any], partitions: Sequence[str] = ()) -> tuple:
    """The key of the task a row came from. ``partitions`` are the run's
    ``--partition`` choices: a row whose partition is not one of them was a
    device's default."""
    spec = suite.BY_NAME.get(row.get("kernel", ""))
    params = tuple((p.name, row.get(p.name)) for p in spec.params) if spec else ()
    kernel, device, size, precision = (
        row.get(k) for k in ("kernel", "device_id", "size", "precision")
    )
    cache, moved = row.get("cache", "hot"), row.get("transfers", "resident")
    group = row.get("work_group")
    dealt = row.get("partition")
    asked = dealt if dealt in partitions else partition.AUTO
    return (kernel, device, size, precision, params, cache, moved, group, asked)


#: Options of `harness run` that a resumed run takes from its own metadata instead.
_RESUME_KEEPS = ("resume", "in_process")


def _ignored_options(args: argparse.Namespace) -> list[str]:
    """The options given with --resume that the resumed run ignores (it has its own)."""
    defaults = vars(build_parser().parse_args(["run"]))
    return [
        "--" + name.replace("_", "-")
        for name, default in defaults.items()
        if name not in _RESUME_KEEPS and getattr(args, name) != default
    ]


def _saved_run(run_dir: Path) -> dict[str, Any]:
    """A run folder's metadata, with the options a resume needs; UsageError where
    its metadata cannot be resumed from."""
    meta = results.read_metadata(run_dir)
    path = run_dir / results.METADATA
    saved = meta.get("options")
    if saved is None:
        raise UsageError(f"--resume: {path} is missing or has no 'options'")
    for suite_file in saved.get("suites", ()) if isinstance(saved, dict) else ():
        suite.load_suite(suite_file)
    try:
        _options_from_meta(saved)
        fits = all(isinstance(n, str) for n in [*saved["kernels"], *saved["devices"]])
    except (KeyError, TypeError, ValueError, AttributeError):
        fits = False
    if not fits:
        raise UsageError(f"--resume: {path}: 'options' is not what harness run writes")
    return meta


def _resumed_run(
    args: argparse.Namespace, meta: dict[str, Any], catalogs: Catalogs
) -> tuple[Path, dict[str, Any], list[Task]]:
    run_dir = args.resume
    asked = meta["options"].get("partitions", ())
    done = {_row_key(r, asked) for r in results.read_journal(run_dir)}
    ignored = _ignored_options(args)
    if ignored:
        print(
            f"note: --resume runs with the run's own options; ignored here: {' '.join(ignored)}",
            file=sys.stderr,
        )
    saved = meta["options"]
    try:
        kernels = suite.select(saved["kernels"])
    except suite.SelectionError as exc:
        raise UsageError(f"--resume: the run's kernels are not all known here: {exc}") from None
    devices = choose_devices(None, saved["devices"], catalogs)
    options = _options_from_meta(saved)
    _check_sources(options.sources, kernels, devices)
    tasks = plan(kernels, devices, options)
    meta.setdefault("resumed", []).append(metadata.now())
    print(f"resuming {run_dir}: {len(done)} rows done", file=sys.stderr)
    return run_dir, meta, [t for t in tasks if _task_key(t) not in done]


def _cmd_run(args: argparse.Namespace) -> int:
    return run_command(args)[0]


def run_command(args: argparse.Namespace, bar: bool | None = None) -> tuple[int, Path]:
    """`harness run` for parsed arguments: its exit status and run folder. ``bar``
    asks for a live progress bar (default: where stderr is a terminal); an
    ``args.quiet`` run prints no table at its end."""
    try:
        with contextlib.ExitStack() as held:
            meta: dict[str, Any] = {}
            if args.resume:
                results.check_folder(args.resume)
                held.enter_context(results.lock(args.resume))
                meta = _saved_run(args.resume)
            saved = meta.get("options", {})
            if args.in_process or saved.get("in_process"):
                executor: InProcess | Workers = InProcess()
            else:
                executor = Workers(saved["timeout"] if args.resume else args.timeout)
            held.callback(executor.close)
            world = ranks.world()
            if world is not None:
                return _execute_ranks(args, executor, held, world, bar)
            return _execute_run(args, meta, executor, held, bar)
    except results.WriteError as exc:
        raise UsageError(_write_failure(exc)) from None


def _write_failure(exc: results.WriteError) -> str:
    """What to say when the run folder cannot be written: what is kept and what to do."""
    full = exc.error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
    fix = "free some space" if full else "make it writable"
    if (exc.run_dir / results.METADATA).exists():
        return (
            f"{exc}; the rows finished so far are kept; {fix}, then continue with: "
            f"harness run --resume {exc.run_dir}"
        )
    results.discard(exc.run_dir)
    return f"{exc}; nothing was run and the empty folder is removed; {fix}, then run again"


def _execute_run(
    args: argparse.Namespace,
    saved: dict[str, Any],
    executor: InProcess | Workers,
    held: contextlib.ExitStack,
    bar: bool | None,
) -> tuple[int, Path]:
    """Run the tasks of a new run, or the rest of a resumed one (``saved``, its
    metadata), into its run folder, which ``held`` keeps locked; return the exit
    status and the folder."""
    if args.resume:
        run_dir, meta, tasks = _resumed_run(args, saved, executor.catalogs)
    else:
        new_dir, meta, tasks = _new_run(args, executor.catalogs)
        assert new_dir is not None
        run_dir = new_dir
        held.enter_context(results.lock(run_dir))
    options = dataclasses.replace(
        _options_from_meta(meta["options"]), images=run_dir / results.IMAGES
    )
    by_id = {d.get("id"): d for d in meta["devices"]}
    with results.writing(run_dir):
        results.write_json(run_dir / results.METADATA, meta)
        journal = results.Journal(run_dir)
    print(
        f"run folder: {run_dir} ({len(tasks)} row{'' if len(tasks) == 1 else 's'} to run)",
        file=sys.stderr,
        flush=True,
    )
    progress = Progress(len(tasks), bar)
    executor.start(options, by_id, tasks)
    stop = {"asked": False}

    def on_signal(signum: int, frame: Any) -> None:
        if stop["asked"]:
            raise KeyboardInterrupt
        stop["asked"] = True
        name = "interrupt" if signum == signal.SIGINT else signal.Signals(signum).name
        print(
            f"\n{name}: stopping after the current row ({name} again to stop now)",
            file=sys.stderr,
            flush=True,
        )

    # Only the main thread may handle signals (a notebook runs code there).
    main = threading.current_thread() is threading.main_thread()
    signals = (signal.SIGINT, signal.SIGTERM) if main else ()
    previous = {s: signal.signal(s, on_signal) for s in signals}
    finished = 0
    failure: results.WriteError | None = None
    try:
        for task in tasks:
            if stop["asked"]:
                break
            row = executor.execute(task)
            peaks.place(row, meta.get("peaks", {}).get(row["device_id"]))
            with results.writing(run_dir):
                journal.append(row)
            progress.row(finished, row)
            finished += 1
    except KeyboardInterrupt:
        stop["asked"] = True
    except results.WriteError as exc:
        failure = exc
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        progress.close()
        journal.close()
        interrupted = finished < len(tasks)
        meta["end"] = metadata.now()
        meta["interrupted"] = interrupted
        if failure is None:
            rows = results.read_journal(run_dir)
            summary = table.format_rows(rows)
            with results.writing(run_dir):
                results.write_json(run_dir / results.METADATA, meta)
                results.finish(run_dir, summary)
        else:
            # The journal already says what ran; the rest is derived from it later.
            with contextlib.suppress(OSError):
                results.write_json(run_dir / results.METADATA, meta)
    if failure is not None:
        raise failure
    if not getattr(args, "quiet", False):
        print(summary)
        print(f"\nrun folder: {run_dir}")
    if interrupted:
        print(
            f"interrupted: {finished} of {len(tasks)} rows run; "
            f"continue with: harness run --resume {run_dir}",
            file=sys.stderr,
        )
        return 130, run_dir
    return (1 if any(r["status"] in ("fail", "error") for r in rows) else 0), run_dir


def _execute_ranks(
    args: argparse.Namespace,
    executor: InProcess | Workers,
    held: contextlib.ExitStack,
    world: ranks.World,
    bar: bool | None,
) -> tuple[int, Path]:
    """This rank's part of an MPI run (`harness.execution.ranks`): its rows, in step
    with the other ranks, gathered by rank 0 into the one run folder."""
    if args.resume:
        raise UsageError(
            "--resume of a run under mpirun: resume it without mpirun (its rows are "
            "one run folder, which one process can finish)"
        )
    made, meta, tasks = _new_run(args, executor.catalogs, world)
    run_dir = Path(world.bcast(str(made) if made else ""))
    planned = world.gather((tasks, meta["devices"], world.host, os.getpid()))
    problem = None
    journal = None
    if world.rank == 0:
        assert planned is not None
        counts = [len(each) for each, *_ in planned]
        if len(set(counts)) > 1:
            problem = (
                f"the ranks planned different numbers of rows ({counts}): "
                "give them the same devices"
            )
        meta["ranks"] = [
            {"rank": r, "host": host, "pid": pid, "devices": [d["id"] for d in devices]}
            for r, (_, devices, host, pid) in enumerate(planned)
        ]
        meta["devices"] = list({d["id"]: d for _, devices, *_ in planned for d in devices}.values())
        held.enter_context(results.lock(run_dir))
        with results.writing(run_dir):
            results.write_json(run_dir / results.METADATA, meta)
            journal = results.Journal(run_dir)
        print(
            f"run folder: {run_dir} ({len(tasks)} rows on each of {world.size} ranks)",
            file=sys.stderr,
            flush=True,
        )
    problem = world.bcast(problem)
    if problem:
        raise UsageError(problem)
    options = dataclasses.replace(
        _options_from_meta(meta["options"]), images=run_dir / results.IMAGES
    )
    by_id = {d.get("id"): d for d in meta["devices"]}
    executor.start(options, by_id, tasks)
    progress = Progress(len(tasks) * world.size, bar) if journal is not None else None
    finished = 0
    lost: dict[int, str] = {}
    hosts = [host for _, _, host, _ in planned] if planned else []
    world.start(args.lost_after)
    try:
        for index, task in enumerate(tasks):
            # The ranks measure together, row by row, as RAJAPerf's MPI runs do.
            before = world.step()
            row = executor.execute(task)
            row.update(rank=world.rank, host=world.host)
            gathered, during = world.rows(row)
            if journal is None or progress is None or planned is None:
                continue
            for r in sorted(before | during):
                lost[r] = (
                    f"rank {r} on {hosts[r]} was lost at row {index + 1} "
                    f"({task.kernel}): nothing heard from it for {args.lost_after:g} s, "
                    "so it crashed, was killed or hangs"
                )
            for r in range(world.size):
                each = gathered.get(r)
                if each is None:
                    mine = planned[r][0][index]
                    each = base_row(
                        mine, by_id.get(f"{mine.backend}:{mine.device}", {}).get("name")
                    )
                    each.update(status="error", reason=lost[r], rank=r, host=hosts[r])
                peaks.place(each, meta.get("peaks", {}).get(each["device_id"]))
                with results.writing(run_dir):
                    journal.append(each)
                progress.row(finished, each)
                finished += 1
    except ranks.RankLost:
        print(
            f"rank {world.rank}: rank 0, which writes the run folder, was lost (nothing heard "
            f"from it for {args.lost_after:g} s); the rows it wrote are in {run_dir}: finish "
            f"the run with: harness run --resume {run_dir}",
            file=sys.stderr,
        )
        return world.finish(1), run_dir
    status = 0
    if journal is not None and progress is not None:
        progress.close()
        journal.close()
        meta["end"] = metadata.now()
        rows = results.read_journal(run_dir)
        summary = table.format_rows(rows) + "\n\n" + ranks.across(rows, table.label)
        with results.writing(run_dir):
            results.write_json(run_dir / results.METADATA, meta)
            results.finish(run_dir, summary)
        if not getattr(args, "quiet", False):
            print(summary)
            print(f"\nrun folder: {run_dir}")
        status = 1 if any(r["status"] in ("fail", "error") for r in rows) else 0
    return world.finish(status), run_dir


def _cmd_show(args: argparse.Namespace) -> int:
    rows = results.ensure_csv(args.run_dir)
    if not rows:
        raise UsageError(f"{args.run_dir}: the journal has no rows yet")
    print(table.format_rows(rows))
    print(f"\nresults: {args.run_dir / results.RESULTS}")
    return 1 if any(r.get("status") in ("fail", "error") for r in rows) else 0


def load_suites(files: Sequence[str | Path]) -> None:
    """Add the kernels of installed suites (a broken one is a warning) and of the
    given files (a broken one a SuiteError) to the suite, before the parser, whose
    run options include theirs, is built."""
    for path in suite.installed_suites():
        try:
            suite.load_suite(path)
        except suite.SuiteError as exc:
            print(f"warning: installed suite left out: {exc}", file=sys.stderr)
    for path in files:
        suite.load_suite(path)


def _suite_files(argv: Sequence[str]) -> list[str]:
    """The values of every --suite in a command line, before it is parsed."""
    files = []
    for i, word in enumerate(argv):
        if word == "--suite" and i + 1 < len(argv):
            files.append(argv[i + 1])
        elif word.startswith("--suite="):
            files.append(word.split("=", 1)[1])
    return files


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``harness`` command; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        load_suites(_suite_files(argv))
    except UsageError as exc:
        print(f"harness: error: {exc}", file=sys.stderr)
        return 2
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            command = f"harness {args.command}"
            raise UsageError(f"unrecognized arguments: {' '.join(extra)} (see '{command} --help')")
        args.argv = argv
        partition.form_override()
        return args.handler(args)
    except (UsageError, suite.SelectionError, results.RunFolderError) as exc:
        print(f"harness: error: {exc}", file=sys.stderr)
        return 2

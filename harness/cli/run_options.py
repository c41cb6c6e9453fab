"""The options of `harness run`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from harness.backends import BACKENDS
from harness.cli import arguments
from harness.cli.run import _cmd_run
from harness.cli.run_plan import MAX_TIME_S, MIN_MAX_TIME_S, RUN_BUDGET_S
from harness.execution import ranks
from harness.execution.runner import (
    CHECK_MODES,
    MAX_SECONDS,
    WGSL_CHECKS,
)
from harness.execution.sampling import MAX_REPS, StopRule
from harness.execution.workers import LIST_FLOOR_S
from harness.model import partition
from harness.model.modes import CACHE_MODES, TRANSFER_MODES
from harness.model.spec import PRECISIONS

RUN_EPILOG = """\
examples:
  harness run                                  every kernel, every available backend
  harness run -k Stream Basic_DAXPY -b opencl  a group and a kernel on OpenCL only
  harness run -k 'Stream_*' --device opencl:1  one device of a backend
  harness run --check                          verification only, each kernel's check
                                               sizes (for CI; --check full: every choice)
  harness run -x Bitonic --precision f64 f32   all but the sorts, at both precisions

A timed row at a kernel's default size whose repetitions would take more than
five times --max-time in all (a software device's matrix products) is sized
down, halving the size until it fits, and says so; --size keeps a size as it is.
Before such rows, the shipped kernels for CPU devices (PoCL, lavapipe) are built
first, as many at once as the host has cores (timed rows run one at a time), so
that a first run's compiling does not leave cores idle.

Exit status: 0 when every row is ok or skipped, 1 when any failed or errored
(or a --check verified nothing, every row skipped), 2 for a usage error, a run
folder another run is writing or one that cannot be written (a full disk: the
message says how to resume), 130 when interrupted (Ctrl-C or SIGTERM, to the
process or its group: the current row finishes, the rows are kept; a second one
stops the row at once and writes what there is: 130 for Ctrl-C, 143 for
SIGTERM)."""


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


def _at_most(parse: Callable[[str], int], least: int, most: int, why: str) -> Callable[[str], int]:
    """``parse`` (`arguments.positive_int`, `arguments.count`) bounded by ``most``, the
    refusal saying ``why``: a count a row cannot take is refused before any work. A
    count from 0 names its range for a negative one too (``parse`` named its own)."""

    def bounded(text: str) -> int:
        try:
            value = arguments.whole(text)
        except ValueError:
            return parse(text)  # not a whole number: ``parse`` says so
        if value > most or (least == 0 and value < 0):
            raise argparse.ArgumentTypeError(
                f"{text!r} is out of range: give {least} to {most} ({why})"
            )
        return parse(text)

    return bounded


#: ``--reps``, ``--warmup`` and ``--min-samples``: counts a row can take.
REPS = _at_most(arguments.positive_int, 1, MAX_REPS, "repetitions of one row")
WARMUP = _at_most(arguments.count, 0, MAX_REPS, "repetitions of one row")
MIN_SAMPLES = _at_most(
    arguments.positive_int, 1, StopRule.max_samples, "the most samples a row takes"
)


def register(sub: Any) -> None:
    """Add the ``run`` command with its options."""
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
        "-x",
        "--exclude",
        nargs="+",
        default=[],
        metavar="SEL",
        help="kernels to leave out, selected as -k selects (RAJAPerf's --exclude-kernels): "
        "-x Bitonic Polybench_3MM",
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
    _sizes(run)
    _timing(run)
    _work(run)
    _process(run)
    arguments.suite_files(run)
    run.set_defaults(handler=_cmd_run)


def _sizes(run: argparse.ArgumentParser) -> None:
    """How big each kernel's problem is: one size, a sweep, or a byte budget."""
    sizes = run.add_mutually_exclusive_group()
    sizes.add_argument(
        "--size",
        type=arguments.size,
        help="problem size, a whole number or 2^K (2^20); default: each kernel's",
    )
    sizes.add_argument(
        "--sizes",
        type=arguments.sizes,
        metavar="LIST",
        help="a size sweep, one row per size: comma-separated sizes and power-of-two "
        "ranges, e.g. 1024,4096 or 2^10..2^24",
    )
    run.add_argument(
        "--size-factor",
        nargs="+",
        type=arguments.size_factor,
        default=[],
        metavar="F",
        help="sizes as factors of each kernel's default, one row per factor, as RAJAPerf's "
        "--sizefact sweeps: --size-factor 0.125 0.25 0.5 1 2 4 8 (with --sizes, the rows "
        "of both; harness plot draws each kernel's throughput against its size)",
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


def _timing(run: argparse.ArgumentParser) -> None:
    """How rows are timed: when they stop, caches, transfers, queueing."""
    timing = run.add_argument_group("timing", TIMING_HELP)
    timing.add_argument(
        "--reps",
        type=REPS,
        help="a fixed number of timed repetitions per row instead of stopping on noise "
        f"(at most {MAX_REPS})",
    )
    timing.add_argument(
        "--warmup",
        type=WARMUP,
        default=2,
        help=f"untimed repetitions before timing (default 2, at most {MAX_REPS})",
    )
    timing.add_argument(
        "--max-time",
        type=arguments.seconds,
        metavar="SECONDS",
        help="wall-clock budget for one row's timed repetitions: a row stops when it runs "
        f"out, after at least 3 repetitions (at most {MAX_SECONDS}; default: --budget "
        f"shared among the run's rows, at most {MAX_TIME_S:g} and at least {MIN_MAX_TIME_S:g})",
    )
    timing.add_argument(
        "--budget",
        type=arguments.seconds,
        default=RUN_BUDGET_S,
        metavar="SECONDS",
        help="about how long the timed repetitions of the whole run may take where "
        "--max-time is not given: each row's --max-time is this over the run's rows "
        f"(default {RUN_BUDGET_S:g}: a default run of every kernel on a CPU-only machine's "
        "three devices times each row for about a quarter of a second; a run of a few "
        f"kernels times each for {MAX_TIME_S:g} s)",
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
        type=MIN_SAMPLES,
        default=10,
        metavar="N",
        help="samples a row gathers before its noise is judged (default 10; at most "
        f"{StopRule.max_samples}, the most a row takes)",
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


def _work(run: argparse.ArgumentParser) -> None:
    """How the work is shaped and fed: work-groups, partitions, precision, inputs."""
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
        "each taking a contiguous run (what CPU devices vectorise); auto (default): on CPU "
        "devices item and chunk are tried in turns for about a tenth of a second and the "
        "faster is timed (the row's partition_trial says what each took), on others item; "
        "several: one row each, in a partition column. "
        "Kernels with work-group memory or ids of their own keep one item per work-item "
        "and say so; wgpu takes item only",
    )
    run.add_argument(
        "--wgsl-checks",
        nargs="+",
        choices=WGSL_CHECKS,
        default=[WGSL_CHECKS[0]],
        help="on: wgpu compiles each WGSL module with the runtime checks naga adds to "
        "every shader (indices clamped into their arrays, a counter around every loop), "
        "as any WebGPU program gets them (default); off: through wgpu-native's trusted "
        "entry, without them; several: one row each, in a wgsl_checks column (empty on "
        "other backends). off is a skipped row where the installed wgpu-native lacks "
        "that entry",
    )
    run.add_argument(
        "--precision",
        nargs="+",
        choices=PRECISIONS,
        default=["f64"],
        help="type of 'real' arrays (default f64); f64 f32: both, a row each",
    )
    run.add_argument(
        "--seed",
        type=arguments.seed,
        default=1,
        help="seed for random inputs, 0 to 2^32-1 (default 1)",
    )
    arguments.kernel_options(run)
    arguments.run_folder_out(run)


def _process(run: argparse.ArgumentParser) -> None:
    """Checking, time-outs, MPI, workers, resuming and sources."""
    run.add_argument(
        "--check",
        nargs="?",
        const="quick",
        choices=CHECK_MODES,
        metavar="quick|full",
        help="verification only: one repetition per row, no timing, each kernel at its "
        "check sizes (odd lengths, whole work-groups, lengths around a sort's tile). quick "
        "(the default; for pull requests): of an option with many choices checked (a sort's "
        "strategy and steps), what each device would time and one other of each together, "
        "different per kernel and device, so the suite covers every choice; full (for "
        "nightly jobs): every choice on every kernel. The devices do not take turns: "
        "as many rows run at once as the host has cores, plus one; the rows keep the plan's order",
    )
    run.add_argument(
        "--timeout",
        type=arguments.seconds,
        metavar="SECONDS",
        help="per row: a kernel still running after this long is killed with its worker "
        "and recorded as an error (default: 120 s plus 1 s per 100000 elements, ten times "
        "that on a simulator, plus the row's --max-time; above a row's --max-time, given "
        "or its share of --budget, in a timed run); "
        "also how long a backend may take to list its devices (default: 120 s; at least "
        f"{LIST_FLOOR_S:g} s, which a driver needs to start); "
        f"at most {MAX_SECONDS} (one week)",
    )
    run.add_argument(
        "--lost-after",
        type=arguments.lost_seconds,
        default=ranks.LOST_AFTER_S,
        metavar="SECONDS",
        help="under mpirun: a rank not heard from for this long (it crashed, was killed or "
        "hangs) is lost, and its rows from then on are error rows while the other ranks go "
        f"on (default {ranks.LOST_AFTER_S:g}, at least {arguments.LEAST_LOST_S:g}: two "
        f"heartbeats; Open MPI's mpirun needs --enable-recovery to "
        "let them); one lost while the ranks plan ends the job",
    )
    run.add_argument(
        "--in-process",
        action="store_true",
        help="run every kernel in this process instead of one worker process per device "
        "(for debugging: a driver crash then ends the run, and --timeout cannot act)",
    )
    run.add_argument(
        "--resume",
        type=arguments.path,
        metavar="RUN_DIR",
        help="continue an interrupted run with its own selection and options (the others "
        "given here are ignored), skipping the rows its journal already has",
    )
    run.add_argument(
        "--sources",
        type=arguments.path,
        action="append",
        default=[],
        metavar="DIR",
        help="extra kernel folder searched before the shipped one "
        "(DIR/opencl/<kernel>.cl, DIR/c/<kernel>.c, ...); repeatable; its kernels "
        "are built in their rows, not first",
    )

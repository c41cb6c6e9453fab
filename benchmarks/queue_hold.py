"""Does holding a repetition's launches change what is measured? Held against
direct, on a kernel of many short launches.

A bitonic sort of 2^16 keys makes 136 launches a repetition with the global
strategy, each a few microseconds of device work, and fewer with the local one;
the two are timed by default (a device's own default strategy may make few).
Queued one by one (direct), a device faster than the host's queueing waits
between launches and the repetition times the host; held (an OpenCL user
event, a CUDA graph) it is timed on the device alone.
wgpu submits a batch at once either way, so its two should agree. This runs
the kernel held and with `--no-hold`, alternating, over several process
launches, and prints each row's median over the launches and the direct/held
ratio.

    python benchmarks/queue_hold.py -b opencl cuda --launches 3
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict

from common import Parser, backend_name, harness_rows, left_out, note_repeats, run_main

from harness import suite
from harness.cli.arguments import positive_int
from harness.suite.sort import STRATEGY


def main() -> None:
    """Run the launches and print the table."""
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-b",
        "--backend",
        nargs="+",
        type=backend_name,
        default=["opencl"],
        help="backends (default opencl)",
    )
    parser.add_argument("-k", "--kernel", default="Bitonic_U32", help="kernel (Bitonic_U32)")
    parser.add_argument(
        "--size", type=positive_int, default=65536, help="problem size (default 65536)"
    )
    parser.add_argument(
        "--strategy",
        nargs="+",
        choices=STRATEGY.choices,
        help="a sort's strategies, a row each (default: global local; another kernel takes none)",
    )
    parser.add_argument(
        "--launches", type=positive_int, default=3, help="process launches (default 3)"
    )
    args = parser.parse_args()
    try:
        chosen = suite.select([args.kernel])
    except suite.SelectionError as exc:
        parser.error(str(exc))
    if args.strategy and not any(k.name in suite.takers("strategy") for k in chosen):
        # Passed on, harness run ignored it with a note this script does not show.
        print(
            f"note: {args.kernel} takes no --strategy; --strategy {' '.join(args.strategy)} "
            "is ignored",
            file=sys.stderr,
        )
    strategies = args.strategy or ["global", "local"]
    note_repeats([("--backend", args.backend), ("--strategy", strategies)])

    medians: dict[tuple[str, str], list[float]] = defaultdict(list)
    queues: dict[tuple[str, str], str] = {}
    for launch in range(args.launches):
        for mode, extra in (("held", ()), ("direct", ("--no-hold",))):
            rows, _ = harness_rows(
                "-k", args.kernel, "-b", *args.backend, "--size", str(args.size),
                "--strategy", *strategies, *extra,
            )  # fmt: skip
            for row in rows:
                if left_out(row):
                    continue
                # The kernel too: -k Stream (a group or glob) put its kernels' medians
                # in one row per device.
                label = f"{row['kernel']} {row['device_id']} {row.get('strategy', '')}"
                key = (label.strip(), mode)
                medians[key].append(float(row["time_median_s"]))
                queues[key] = row["queue"]
        print(f"launch {launch + 1} of {args.launches} done", flush=True)
    both = {r for r, m in medians if m == "held"} & {r for r, m in medians if m == "direct"}
    if not both:
        return
    width = max(28, *(len(r) + 1 for r in both))
    print(f"\n{'row':{width}} {'held':>10} {'direct':>10} {'direct/held':>12}  queue")
    for row in sorted(both):
        held = statistics.median(medians[(row, "held")])
        direct = statistics.median(medians[(row, "direct")])
        times = f"{held * 1e3:8.3f}ms {direct * 1e3:8.3f}ms"
        print(f"{row:{width}} {times} {direct / held:12.3f}  {queues[(row, 'held')]}")


if __name__ == "__main__":
    run_main(main)

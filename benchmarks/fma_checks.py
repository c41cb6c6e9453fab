"""The FMA peak through wgpu with naga's runtime checks on and off.

`harness peak` measures the FMA throughput as a WebGPU program gets it, with
naga's checks (a counter and a second exit around each loop, which keeps
drivers from unrolling it; the kernel indexes no array at run time). This
runs the same PeakFMA kernel, at f64 and f32, with the checks on and off
(wgpu-native's trusted entry), alternating which goes first, and prints each
one's best and median GFLOP/s: whether the checks, rather than the device, set
the WGSL figure.

    python benchmarks/fma_checks.py --device wgpu:0 --rounds 3
"""

from __future__ import annotations

import statistics
from collections import defaultdict

from common import Parser, device, left_out, refuse_size_past_memory, run_main

from harness.cli.arguments import positive_int, seconds
from harness.execution.peaks import FMA, LEAST_FMA_SIZE
from harness.execution.runner import Runner, RunOptions, Task


def main() -> None:
    """Measure and print the table."""
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="wgpu:0", help="a wgpu device (default wgpu:0)")
    parser.add_argument(
        "--size", type=positive_int, default=2**20, help="work-items (default 2^20)"
    )
    parser.add_argument("--rounds", type=positive_int, default=3, help="rounds of both (default 3)")
    parser.add_argument(
        "--max-time", type=seconds, default=0.5, help="seconds of each row (default 0.5)"
    )
    args = parser.parse_args()
    if args.device.partition(":")[0] != "wgpu" or not args.device.partition(":")[2]:
        parser.error(f"--device {args.device!r}: give a wgpu device, such as wgpu:0")
    if args.size < LEAST_FMA_SIZE:
        parser.error(f"--size {args.size}: too small to measure at; give at least {LEAST_FMA_SIZE}")
    # A device wgpu has not (wgpu:9) was an error row per round, and an empty table
    # that exited 0.
    info = device(parser, args.device)
    # Each row of it was out of memory, and the table empty.
    refuse_size_past_memory(parser, args.size, [FMA], info)
    backend, index = info.backend, info.index
    runner = Runner(RunOptions(max_time=args.max_time))
    best: dict[tuple[str, str], list[float]] = defaultdict(list)
    median: dict[tuple[str, str], list[float]] = defaultdict(list)
    for round_ in range(args.rounds):
        for precision in ("f64", "f32"):
            order = ("on", "off") if round_ % 2 == 0 else ("off", "on")
            for checks in order:
                task = Task(FMA, backend, index, args.size, precision, wgsl_checks=checks)
                row = runner.execute(task)
                if row["status"] != "ok":
                    # On stderr, and a failed or errored row exits 1: it was a line of
                    # the table's output, and the script exited 0.
                    left_out({**row, "kernel": f"{FMA} {precision} checks {checks}"})
                    continue
                best[(precision, checks)].append(row["flops_per_rep"] / row["time_min_s"] / 1e9)
                median[(precision, checks)].append(row["gflops_per_s"])
    print(f"\nPeakFMA on {args.device}, {args.size} work-items, {args.rounds} rounds")
    print(f"{'precision':10}{'checks':>7}{'best GFLOP/s':>14}{'median GFLOP/s':>16}")
    for (precision, checks), rates in best.items():
        middle = statistics.median(median[(precision, checks)])
        print(f"{precision:10}{checks:>7}{max(rates):14.4g}{middle:16.4g}")
    for precision in ("f64", "f32"):
        on, off = best.get((precision, "on")), best.get((precision, "off"))
        if on and off:
            print(f"{precision}: checks off is {max(off) / max(on):.2f}x checks on")


if __name__ == "__main__":
    run_main(main)

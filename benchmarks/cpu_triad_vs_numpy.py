"""The CPU backend's Stream_TRIAD beside a plain numpy triad on the same arrays.

Each process launch builds the arrays once, then alternates repetitions of
the harness's numpy entry point (through the CPU backend, as a run executes
it) and of ``a[:] = b + alpha * c``; launches repeat because memory bandwidth
on shared machines changes between launches. Prints per launch the two
medians and their ratio, then the median ratio.

    python benchmarks/cpu_triad_vs_numpy.py --size 33554432 --launches 5
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from common import Parser, device, refuse_size_past_memory, run, run_main

from harness.cli.arguments import positive_int


def one_launch(size: int, reps: int) -> tuple[float, float]:
    """Median seconds per repetition: (harness CPU backend, plain numpy)."""
    from harness import suite
    from harness.backends.cpu import CpuBackend
    from harness.execution.runner import make_inputs

    spec = suite.BY_NAME["Stream_TRIAD"]
    inputs = make_inputs(spec, size, 1, "f64")
    launches = spec.resolve(size, inputs, "f64")
    execution = (
        CpuBackend().open(0).load(spec, "f64", None, {a.name: inputs[a.name] for a in spec.arrays})
    )
    a, b, c, alpha = inputs["a"].copy(), inputs["b"], inputs["c"], float(inputs["alpha"])
    ours, plain = [], []
    for _ in range(reps):
        ours.extend(execution.time(launches, 1))
        start = time.perf_counter()
        a[:] = b + alpha * c
        plain.append(time.perf_counter() - start)
    return statistics.median(ours), statistics.median(plain)


def main() -> None:
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--size", type=positive_int, default=2**25, help="doubles per array (default 2^25)"
    )
    parser.add_argument(
        "--reps", type=positive_int, default=20, help="repetitions of each per launch (default 20)"
    )
    parser.add_argument(
        "--launches", type=positive_int, default=5, help="process launches (default 5)"
    )
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(*one_launch(args.size, args.reps))
        return
    refuse_size_past_memory(parser, args.size, ["Stream_TRIAD"], device(parser, "cpu:0"))
    ratios = []
    print(f"{'launch':>6}{'harness cpu (ms)':>18}{'numpy (ms)':>12}{'ratio':>8}")
    for launch in range(args.launches):
        out = run(
            [sys.executable, __file__, "--one", "--size", str(args.size), "--reps", str(args.reps)],
            name=f"launch {launch + 1}",
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ).stdout.split()
        ours, plain = float(out[0]), float(out[1])
        ratios.append(ours / plain)
        print(f"{launch + 1:>6}{ours * 1e3:18.2f}{plain * 1e3:12.2f}{ours / plain:8.3f}")
    print(f"median ratio (harness / numpy): {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    run_main(main)

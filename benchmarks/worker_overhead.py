"""What worker processes cost: a run in workers beside the same run --in-process.

Alternates the two, several process launches each, and prints the median wall
time of each and their ratio.

    python benchmarks/worker_overhead.py --launches 7 -- -k Stream -b cpu opencl --check
"""

from __future__ import annotations

import argparse
import statistics

from common import Parser, harness_rows, run_main, run_options_given

from harness.cli.arguments import positive_int


def main() -> None:
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--launches", type=positive_int, default=7, help="launches of each (default 7)"
    )
    parser.add_argument(
        "run_args",
        nargs="*",
        default=["-k", "Stream", "-b", "cpu", "opencl", "--check"],
        help="harness run options (default: -k Stream -b cpu opencl --check)",
    )
    args = parser.parse_args()
    if any(dest == "in_process" for dest, _, _ in run_options_given(args.run_args)):
        # Both runs of each pair were then in-process, shown as workers beside it.
        parser.error(
            "run_args: --in-process is what this script adds to the second run of each "
            "pair; leave it out"
        )
    workers, in_process = [], []
    for _ in range(args.launches):
        workers.append(harness_rows(*args.run_args)[1])
        in_process.append(harness_rows(*args.run_args, "--in-process")[1])
    w, p = statistics.median(workers), statistics.median(in_process)
    print(f"workers: median {w:.2f} s over {args.launches} launches ({min(workers):.2f} best)")
    print(f"in-process: median {p:.2f} s ({min(in_process):.2f} best)")
    print(f"workers / in-process: {w / p:.3f}")


if __name__ == "__main__":
    run_main(main)

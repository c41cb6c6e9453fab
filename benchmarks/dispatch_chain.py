"""What one more dependent launch costs through each API.

Runs the chains of `benchmarks/dispatch_chain/kernels.py` (Chain_K: K launches a
repetition, each adding 1 to the array the one before wrote, at a size where a
launch does almost nothing) on the given devices, in several process launches,
and fits each device's median time per repetition against K: the slope is the
cost of a launch after the first, the intercept what a repetition costs
besides. A kernel of several launches (a reduction's group partials, then their
fold) pays the slope for each launch after its first; an API that puts a
barrier between dependent dispatches shows it there.

    python benchmarks/dispatch_chain.py --device wgpu:0 --device cuda:0
    python benchmarks/dispatch_chain.py -b opencl wgpu --launches 3
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np
from common import Parser, add_devices, devices_chosen, harness_rows, run_main

from harness.cli.arguments import positive_int, seconds

SUITE = Path(__file__).resolve().parent / "dispatch_chain" / "kernels.py"


def main() -> None:
    """Run the launches, fit and print each device's table."""
    parser = Parser(description=__doc__.split("\n\n")[0])
    add_devices(parser)
    parser.add_argument("--size", type=positive_int, default=1024, help="elements (default 1024)")
    parser.add_argument(
        "--launches", type=positive_int, default=3, help="process launches (default 3)"
    )
    parser.add_argument(
        "--max-time", type=seconds, default=0.5, help="seconds each row is timed (default 0.5)"
    )
    args = parser.parse_args()
    where = devices_chosen(args)
    times: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for launch in range(args.launches):
        rows, _ = harness_rows(
            "--suite", str(SUITE), "-k", "Chain", *where, "--size", str(args.size),
            "--max-time", str(args.max_time), "--min-time", str(args.max_time / 2),
            failed_rows=False,
        )  # fmt: skip
        for row in rows:
            if row["status"] == "ok":
                chain = int(row["kernel"].removeprefix("Chain_"))
                times[row["device_id"]][chain].append(float(row["time_median_s"]))
        print(f"launch {launch + 1} of {args.launches} done", flush=True)
    for device, by_length in times.items():
        lengths = sorted(by_length)
        medians = [statistics.median(by_length[k]) for k in lengths]
        print(f"\n{device}, {args.size} elements, medians over {args.launches} launches")
        print(f"{'launches':>9}{'µs a repetition':>17}{'µs a launch':>13}")
        for k, median in zip(lengths, medians, strict=True):
            print(f"{k:>9}{median * 1e6:>17.2f}{median * 1e6 / k:>13.2f}")
        if len(lengths) > 1:
            slope, intercept = np.polyfit(lengths, medians, 1)
            print(
                f"{device}: {slope * 1e6:.2f} µs per dependent launch after the first, "
                f"{intercept * 1e6:.2f} µs besides"
            )


if __name__ == "__main__":
    run_main(main)

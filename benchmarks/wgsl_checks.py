"""What naga's runtime checks cost, kernel by kernel: wgpu rows with
`--wgsl-checks on` (indices clamped, loops bounded: what a WebGPU program
gets) beside `off` (wgpu-native's trusted entry, without them).

Each process launch runs ``harness run -b wgpu --wgsl-checks on off`` over the
kernels, a kernel's two rows one after the other, alternating which goes first
(a shared machine's pace drifts). The table gives, per row, the median over
launches of each choice's median time per repetition and on/off (above 1: the
checks slow the kernel down), sorted by that ratio; then the median ratio.
Rows whose two choices ran at different sizes (a row sized down from its
default, or failed) are left out and named; ``--size`` keeps every row at one.

    python benchmarks/wgsl_checks.py --launches 3 -k Stream_TRIAD Apps_ENERGY
    python benchmarks/wgsl_checks.py -k Lcals -- --precision f32 --max-time 1
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict

from common import Parser, harness_rows, run_main

from harness import suite
from harness.cli.arguments import positive_int

CHOICES = ("on", "off")
#: Columns that say what a row measures (with the kernels' run options).
IDENTITY = ("kernel", "device_id", "precision", "size")


def key(row: dict[str, str]) -> tuple[str, ...]:
    """What a row measures, but for its wgsl_checks choice."""
    return tuple(row.get(c, "") for c in (*IDENTITY, *suite.PARAMS))


def main() -> int:
    """Run the launches and print the table."""
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", "--kernels", nargs="+", required=True, help="kernels, as -k takes")
    parser.add_argument("--device", help="a wgpu device, wgpu:INDEX (default: wgpu's default)")
    parser.add_argument(
        "--launches", type=positive_int, default=5, help="process launches (default 5)"
    )
    parser.add_argument("run_args", nargs=argparse.REMAINDER, help="-- then harness run args")
    args = parser.parse_args()
    if args.device is not None and args.device.partition(":")[0] != "wgpu":
        # Another backend's rows have no wgsl_checks choice: the table came out empty.
        parser.error(f"--device {args.device!r}: give a wgpu device, such as wgpu:0")
    device = ["--device", args.device] if args.device else ["-b", "wgpu"]
    extra = [a for a in args.run_args if a != "--"]
    times: dict[tuple[str, ...], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    problems: dict[str, str] = {}
    for launch in range(args.launches):
        order = CHOICES if launch % 2 == 0 else CHOICES[::-1]
        found, _ = harness_rows(*device, "-k", *args.kernels, "--wgsl-checks", *order, *extra)
        for row in found:
            if row["status"] == "ok" and row.get("time_median_s"):
                times[key(row)][row["wgsl_checks"]].append(float(row["time_median_s"]))
            elif row["status"] != "ok":
                problems[f"{row['kernel']} checks {row['wgsl_checks']}"] = row["reason"]
        print(f"launch {launch + 1} of {args.launches} done", file=sys.stderr)
    paired = []
    for k, by in times.items():
        if all(by.get(c) for c in CHOICES):
            on, off = (statistics.median(by[c]) for c in CHOICES)
            paired.append((on / off, k, on, off))
        else:
            problems.setdefault(" ".join(v for v in k if v), "only one choice timed at this size")
    paired.sort(reverse=True)
    print(f"{'row':<52} {'on':>11} {'off':>11} {'on/off':>7}")
    for ratio, k, on, off in paired:
        label = " ".join(v for v in k if v)
        print(f"{label:<52} {on * 1e3:>9.3f}ms {off * 1e3:>9.3f}ms {ratio:>7.3f}")
    if paired:
        ratios = [p[0] for p in paired]
        print(f"median on/off over {len(ratios)} rows: {statistics.median(ratios):.3f}")
    for what, reason in problems.items():
        print(f"left out: {what}: {reason}")
    if not paired:
        # A table of no row, every one left out, exited 0 as a comparison made.
        print("no row was timed with both choices: nothing is compared", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    run_main(main)

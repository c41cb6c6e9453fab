"""Bitonic sort strategies beside np.sort: time and keys/s at one size, in one run.

Runs one harness run of a bitonic kernel with both strategies on the given
devices, then times np.sort on the very same keys (same seed and
distribution) in this process.

    python benchmarks/sort_local_vs_global.py --size 4194304 -b opencl wgpu
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from common import harness_rows

from harness import suite
from harness.execution.runner import make_inputs


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--kernel", default="Bitonic_U32", help="a Bitonic_* kernel (default Bitonic_U32)"
    )
    parser.add_argument("--size", type=int, default=2**22, help="keys (default 2^22)")
    parser.add_argument("-b", "--backends", nargs="+", default=["opencl", "wgpu"])
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions (default 5)")
    args = parser.parse_args()
    rows, _ = harness_rows(
        "-k",
        args.kernel,
        "-b",
        *args.backends,
        "--size",
        str(args.size),
        "--reps",
        str(args.reps),
        "--warmup",
        "1",
        "--seed",
        "1",
    )
    spec = suite.BY_NAME[args.kernel].with_params(
        {"strategy": "global", "order": "asc", "dist": "uniform"}
    )
    keys = make_inputs(spec, args.size, 1, "f64")["keys"]
    times = []
    for _ in range(args.reps):
        start = time.perf_counter()
        np.sort(keys)
        times.append(time.perf_counter() - start)
    print(f"{'device':10}{'strategy':>10}{'launches':>10}{'median ms':>11}{'Mkeys/s':>9}  status")
    medians = {}
    for r in rows:
        median = float(r["time_median_s"]) if r["time_median_s"] else float("nan")
        medians[(r["device_id"], r["strategy"])] = median
        print(
            f"{r['device_id']:10}{r['strategy']:>10}{r['launches']:>10}{median * 1e3:11.1f}"
            f"{args.size / median / 1e6:9.1f}  {r['status']}"
        )
    np_median = statistics.median(times)
    print(
        f"{'np.sort':10}{'':>10}{'':>10}{np_median * 1e3:11.1f}{args.size / np_median / 1e6:9.1f}"
    )
    for device in dict.fromkeys(d for d, _ in medians):
        ratio = medians[(device, "global")] / medians[(device, "local")]
        print(f"{device}: local is {ratio:.2f}x as fast as global")


if __name__ == "__main__":
    main()

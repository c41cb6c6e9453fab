"""The harness's bitonic sorts beside np.sort (and cupy.sort, CUB, where a GPU is).

Each launch runs one harness run of a Bitonic_* kernel with every strategy on
the given devices (a fresh process), then times np.sort, and cupy.sort where
cupy finds a GPU, on the very same keys (same seed and distribution) in a
fresh process of its own. Over several launches, interleaved, it prints each
row's median time, keys/s, launches per sort, and its ratio to np.sort's time
(or why it failed); and for each device, how many times faster each strategy
is than global.

    python benchmarks/sort_vs_numpy.py --size 4194304 -b opencl wgpu --launches 3
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections import defaultdict

from common import (
    Parser,
    add_devices,
    device,
    devices_chosen,
    harness_rows,
    note_repeats,
    refuse_size_past_memory,
    run,
    run_main,
)

from harness import suite
from harness.cli.arguments import positive_int
from harness.suite.sort import STEPS, STRATEGY, TILE_SIZE

#: Times np.sort and cupy.sort on the kernel's keys; prints {"np.sort": s, ...}.
_PEERS = """
import json, sys, time
import numpy as np
from harness import suite
from harness.execution.runner import make_inputs
kernel, size, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spec = suite.BY_NAME[kernel].with_params({"strategy": "global", "order": "asc", "dist": "uniform"})
keys = make_inputs(spec, size, 1, "f64")["keys"]
def median(sort, data, sync=lambda: None):
    times = []
    for _ in range(reps + 1):
        sync()
        start = time.perf_counter()
        sort(data)
        sync()
        times.append(time.perf_counter() - start)
    return sorted(times[1:])[reps // 2]
found = {"np.sort": median(np.sort, keys)}
try:
    import cupy
    on_gpu = cupy.asarray(keys)
    sync = cupy.cuda.Device().synchronize
    found["cupy.sort"] = median(cupy.sort, on_gpu, sync)
except Exception:
    pass
print(json.dumps(found))
"""


def main() -> None:
    """Run the launches and print the table."""
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-k", "--kernel", default="Bitonic_U32", help="a Bitonic_* kernel (default Bitonic_U32)"
    )
    parser.add_argument("--size", type=positive_int, default=2**22, help="keys (default 2^22)")
    add_devices(parser)
    parser.add_argument(
        "--strategy",
        nargs="+",
        default=list(STRATEGY.choices),
        choices=STRATEGY.choices,
        help="the strategies to time (default: every one)",
    )
    parser.add_argument(
        "--steps",
        nargs="+",
        default=["4"],
        choices=STEPS.choices,
        help="the fused, tiled and wide strategies' steps (default 4)",
    )
    parser.add_argument(
        "--tile_bytes",
        nargs="+",
        default=[],
        choices=TILE_SIZE.choices,
        help="the local, tiled and wide strategies' tiles, in bytes of work-group memory "
        "(default: each device's own, 32768 on CUDA and 8192 elsewhere)",
    )
    parser.add_argument(
        "--wgsl-checks",
        nargs="+",
        default=["on"],
        choices=("on", "off"),
        help="wgpu's rows with naga's runtime checks on, off or both (default on)",
    )
    parser.add_argument(
        "--launches", type=positive_int, default=3, help="process launches (default 3)"
    )
    parser.add_argument(
        "--reps", type=positive_int, default=5, help="timed repetitions (default 5)"
    )
    args = parser.parse_args()
    sorts = suite.takers("order")
    if args.kernel not in sorts:
        # Any other kernel ended the script in a KeyError, after its first harness run.
        parser.error(f"-k {args.kernel!r}: give a bitonic sort ({', '.join(sorts)})")
    # The peers sort on the host: a size it cannot hold ran every harness launch, then
    # ended in numpy's allocation error.
    refuse_size_past_memory(parser, args.size, [args.kernel], device(parser, "cpu:0"))
    note_repeats([("--backends", args.backends), ("--device", args.device),
                  ("--strategy", args.strategy), ("--steps", args.steps),
                  ("--tile_bytes", args.tile_bytes or ()),
                  ("--wgsl-checks", args.wgsl_checks)])  # fmt: skip

    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    launches: dict[tuple[str, str], str] = {}
    failed: dict[tuple[str, str], str] = {}
    # The device's clock as the last launch's row began (where the device tells it).
    clocks: dict[tuple[str, str], str] = {}
    for launch in range(args.launches):
        where = devices_chosen(args)
        rows, _ = harness_rows(
            "-k", args.kernel, *where, "--size", str(args.size),
            "--strategy", *args.strategy, "--steps", *args.steps,
            *(["--tile_bytes", *args.tile_bytes] if args.tile_bytes else []),
            "--wgsl-checks", *args.wgsl_checks,
            "--reps", str(args.reps), "--warmup", "1", "--seed", "1",
        )  # fmt: skip
        for row in rows:
            options = (row["strategy"], row.get("steps"), row.get("tile_bytes"))
            off = ",checks off" if row.get("wgsl_checks") == "off" else ""
            key = (row["device_id"], ",".join(filter(None, options)) + off)
            launches[key] = row["launches"]
            clocks[key] = row.get("clock_mhz_before") or ""
            if row["status"] == "ok":
                times[key].append(float(row["time_median_s"]))
            else:
                failed[key] = f"{row['status']}: {row['reason']}"
        command = [sys.executable, "-c", _PEERS, args.kernel, str(args.size), str(args.reps)]
        done = run(
            command,
            name="the sort peers' launch",
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for peer, seconds in json.loads(done.stdout).items():
            times[(peer, "")].append(seconds)
        print(f"launch {launch + 1} of {args.launches} done", flush=True)

    numpy = statistics.median(times[("np.sort", "")])
    print(f"\n{args.kernel}, {args.size} keys, medians over {args.launches} launches")
    width = max(22, *(len(" ".join(key)) + 2 for key in launches))
    print(f"{'row':{width}}{'launches':>9}{'ms':>10}{'Mkeys/s':>10}{'x np.sort':>11}{'MHz':>7}")
    for key in dict.fromkeys([*launches, *times]):
        label = " ".join(key).strip()
        count = launches.get(key, "")
        if not times[key]:
            print(f"{label:{width}}{count:>9}  {failed[key]}")
            continue
        median = statistics.median(times[key])
        rate = args.size / median / 1e6
        clock = clocks.get(key, "")
        clock = f"{float(clock):.0f}" if clock not in ("", None) else ""
        print(
            f"{label:{width}}{count:>9}{median * 1e3:10.1f}{rate:10.1f}"
            f"{median / numpy:11.2f}{clock:>7}"
        )
    for each in dict.fromkeys(d for d, s in launches):
        if not times[(each, "global")]:
            continue
        base = statistics.median(times[(each, "global")])
        for (where, strategy), samples in times.items():
            if where == each and strategy != "global" and samples:
                faster = base / statistics.median(samples)
                print(f"{each}: {strategy} is {faster:.2f}x as fast as global")


if __name__ == "__main__":
    run_main(main)

"""What an OpenCL device does for a bare streaming loop, beside the harness's rows.

Small memory-bound kernels (a copy, a difference of neighbours) can run far
below a CPU's bandwidth on PoCL. This separates the device from the harness:
it times a bare kernel through pyopencl (no harness code between the
enqueue and the profiling event) for several work-group sizes, then the
harness's own rows of the named kernels, in alternation over process
launches. If the bare kernel is as slow as the harness row, the floor is the
device's, not the harness's.

    python benchmarks/opencl_stream_floor.py --size 1000000 --launches 3 \\
        -k Algorithm_MEMCPY Lcals_FIRST_DIFF
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict

import numpy as np
import pyopencl as cl
from common import Parser, harness_rows, left_out, run_main

from harness import suite
from harness.backends import get as get_backend
from harness.cli.arguments import positive_int

#: A copy and a difference of neighbours, as grid-stride loops (the dialect's
#: FOR_EACH) over doubles.
SOURCE = """
__kernel void copy(__global double* x, __global const double* y, const uint n) {
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) x[i] = y[i];
}
__kernel void first_diff(__global double* x, __global const double* y, const uint n) {
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) x[i] = y[i + 1] - y[i];
}
"""
GROUPS = (64, 256, 1024, 4096)


def first_device() -> cl.Device:
    """The device the bare kernels run on: the harness's opencl:0, whose rows they
    are set beside (the first platform's first device was a simulator's where one
    was installed, which lists its platform first)."""
    return get_backend("opencl").open(0).device


def bare(size: int, reps: int) -> dict[str, float]:
    """Median device time (s) of each bare kernel at each work-group size."""
    ctx = cl.Context([first_device()])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    program = cl.Program(ctx, SOURCE).build()
    flags = cl.mem_flags.READ_WRITE
    x = cl.Buffer(ctx, flags, 8 * size)
    y = cl.Buffer(ctx, flags, 8 * (size + 1))
    cl.enqueue_fill_buffer(queue, y, np.float64(1.5), 0, 8 * (size + 1)).wait()
    times = {}
    for name in ("copy", "first_diff"):
        kernel = cl.Kernel(program, name)
        kernel.set_args(x, y, np.uint32(size))
        for group in GROUPS:
            if group > ctx.devices[0].max_work_group_size:
                continue
            items = -(-size // group) * group
            seconds = []
            for _ in range(reps):
                event = cl.enqueue_nd_range_kernel(queue, kernel, (items,), (group,))
                event.wait()
                seconds.append((event.profile.end - event.profile.start) * 1e-9)
            times[f"bare {name}, group {group}"] = statistics.median(seconds[reps // 5 :])
    return times


def main() -> None:
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--size", type=positive_int, default=1_000_000, help="elements (default 1e6)"
    )
    parser.add_argument(
        "--launches", type=positive_int, default=3, help="process launches (default 3)"
    )
    parser.add_argument(
        "--reps", type=positive_int, default=50, help="bare repetitions per launch (default 50)"
    )
    parser.add_argument(
        "-k",
        "--kernels",
        nargs="+",
        default=["Algorithm_MEMCPY"],
        help="the harness kernels timed beside the bare ones (default Algorithm_MEMCPY)",
    )
    args = parser.parse_args()
    try:
        suite.select(args.kernels)
    except suite.SelectionError as exc:
        parser.error(str(exc))
    # The bare kernels take the length as a uint and a buffer of one more double.
    largest = min(2**32 - 1, first_device().max_mem_alloc_size // 8 - 1)
    if args.size > largest:
        parser.error(f"--size {args.size}: the bare kernels take at most {largest} elements here")
    found: dict[str, list[float]] = defaultdict(list)
    for launch in range(args.launches):
        for label, seconds in bare(args.size, args.reps).items():
            found[label].append(seconds)
        rows, _ = harness_rows(
            "-k", *args.kernels, "--device", "opencl:0", "--size", str(args.size), "--reps", "50"
        )
        for r in rows:
            # A skipped row was left out of the table unsaid, as if never asked for.
            if not left_out(r):
                found[f"harness {r['kernel']}"].append(float(r["time_median_s"]))
        print(f"launch {launch + 1} of {args.launches} done", flush=True)
    print(f"\n{'what':40}{'median':>12}  (n = {args.size}, medians over launches)")
    for label, seconds in found.items():
        print(f"{label:40}{statistics.median(seconds) * 1e3:10.3f}ms")


if __name__ == "__main__":
    run_main(main)

"""How OpenCL's compare-and-swap float add should start: a plain first read (a
race the swap then checks, as kernels/opencl/dialect.clh has it), an atomic
first read (atom_add of 0), or a guessed first value (the first swap then
fails and returns the value).

Times 2^20 work-items each adding to one double on the first PoCL device, the
median of 10 launches in each of 5 interleaved rounds, in milliseconds.

    python benchmarks/atomic_first_read.py
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
import pyopencl as cl
from common import Parser, run_main

SOURCE = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
void add(volatile __global double* p, const double v)
{
    volatile __global ulong* bits = (volatile __global ulong*)p;
    ulong seen, old = FIRST;
    do {
        seen = old;
        old = atom_cmpxchg(bits, seen, as_ulong(as_double(seen) + v));
    } while (old != seen);
}
__kernel void k(__global double* pi, const double dx, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        const double x = (i + 0.5) * dx;
        add(pi, dx / (1 + x * x));
    }
}
"""
FIRSTS = {"plain read": "*bits", "atomic read": "atom_add(bits, 0UL)", "guess 0": "0UL"}
ITEMS = 1 << 20


def main() -> None:
    """Build the three forms, time them in turns, print the medians."""
    # It takes no options: --help describes it, and any argument is refused
    # rather than ignored while the timing runs.
    Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    platform = next(p for p in cl.get_platforms() if "Portable" in p.name)
    context = cl.Context([platform.get_devices()[0]])
    queue = cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)
    kernels = {
        name: cl.Kernel(cl.Program(context, SOURCE.replace("FIRST", first)).build(), "k")
        for name, first in FIRSTS.items()
    }
    total = cl.Buffer(context, cl.mem_flags.READ_WRITE, 8)
    medians: dict[str, list[float]] = {name: [] for name in kernels}
    for _ in range(5):
        for name, kernel in kernels.items():
            kernel.set_args(total, np.float64(1.0 / ITEMS), np.uint32(ITEMS))
            cl.enqueue_fill_buffer(queue, total, np.float64(0), 0, 8)
            times = []
            for _ in range(10):
                event = cl.enqueue_nd_range_kernel(queue, kernel, (ITEMS,), (256,))
                event.wait()
                times.append((event.profile.end - event.profile.start) * 1e-6)
            medians[name].append(statistics.median(times))
    for name, values in medians.items():
        print(f"{name:12} {statistics.median(values):8.3f} ms")


if __name__ == "__main__":
    run_main(main)

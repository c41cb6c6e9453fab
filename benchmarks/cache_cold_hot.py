"""Does a cold-cache row measure what it claims? Hot against cold, inside and
outside the last-level cache.

A kernel whose arrays fit in the last-level cache runs from cache when its
repetitions follow each other (hot) and from memory when the cache is flushed
before each one (cold): cold should be measurably slower. At several times the
cache, both come from memory and should agree. This runs a kernel (Stream_TRIAD
by default) with `--cache hot cold` at memory budgets in multiples of the
device's last-level cache (half of it and four times it by default), over
several process launches, and prints each row's median over the launches and
the cold/hot ratio.

``--flushes`` adds cold rows whose flush reads other multiples of the cache
(`harness run --flush-bytes`): if cold stays the same as the flush grows, the
default flush already empties the cache, and what is left of a cold/hot gap
is what the hot repetitions find in it.

    python benchmarks/cache_cold_hot.py -b opencl --launches 3 --caches 0.5 4 8
    python benchmarks/cache_cold_hot.py -b opencl --caches 4 --flushes 8 16
"""

from __future__ import annotations

import statistics
from collections import defaultdict

from common import Parser, device, factor, harness_rows, left_out, note_repeats, run_main

from harness import suite
from harness.cli.arguments import positive_int, seconds
from harness.execution.flush import last_level_cache
from harness.execution.runner import host_available_bytes


def main() -> None:
    """Run the launches and print the table."""
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-b", "--backend", default="opencl", help="backend (default opencl)")
    parser.add_argument(
        "--device",
        help="a device, BACKEND:INDEX as 'harness devices' lists it (default: -b's first)",
    )
    parser.add_argument("-k", "--kernel", default="Stream_TRIAD", help="kernel (Stream_TRIAD)")
    parser.add_argument(
        "--launches", type=positive_int, default=3, help="process launches (default 3)"
    )
    parser.add_argument(
        "--max-time", type=seconds, default=2.0, help="each row's time budget (default 2 s)"
    )
    parser.add_argument(
        "--caches",
        type=factor,
        nargs="+",
        default=[0.5, 4.0],
        help="memory budgets, in last-level caches (default 0.5 4: inside it and outside)",
    )
    parser.add_argument(
        "--flushes",
        type=factor,
        nargs="+",
        default=[],
        help="more cold rows, each flushing this many last-level caches "
        "(default: only the harness's own flush, twice the cache)",
    )
    args = parser.parse_args()
    try:
        # Before the device's cache is read and its line printed.
        suite.select([args.kernel])
    except suite.SelectionError as exc:
        parser.error(str(exc))
    info = device(parser, args.device or f"{args.backend}:0")
    note_repeats([("--caches", args.caches), ("--flushes", args.flushes)])
    cache, source = last_level_cache(info)
    for option, factors in (("--caches", args.caches), ("--flushes", args.flushes)):
        small = next((m for m in factors if int(m * cache) < 1), None)
        if small is not None:
            # The harness refused the byte count 0 it made, after the rows before it ran.
            parser.error(
                f"{option} {small:g}: that many of {info.id}'s last-level cache ({cache} "
                f"bytes) is under a byte; give at least {1 / cache:.3g}"
            )
    # The host holds about three times the arrays: a budget past that ran every launch,
    # each row of it out of memory, to an empty table.
    room = min(filter(None, (info.memory_bytes, host_available_bytes() // 3)), default=0)
    large = next((m for m in args.caches if room and m * cache > room), None)
    if large is not None:
        parser.error(
            f"--caches {large:g}: {int(large * cache)} bytes of arrays, more than {info.id} "
            f"({info.name}) has room for; give at most {room / cache:.3g}"
        )
    budgets = {f"{m:g} x cache": int(m * cache) for m in args.caches}
    flushes = {f"cold {m:g}x": int(m * cache) for m in args.flushes}
    print(f"{info.id} ({info.name}): last-level cache {cache / 2**20:g} MiB ({source})")
    medians: dict[tuple[str, str], list[float]] = defaultdict(list)
    sizes: dict[str, str] = {}
    for launch in range(args.launches):
        for where, budget in budgets.items():
            common = ("-k", args.kernel, "--device", info.id, "--memory-allocated", str(budget),
                      "--max-time", str(args.max_time))  # fmt: skip
            rows, _ = harness_rows(*common, "--cache", "hot", "cold")
            for name, flush in flushes.items():
                more, _ = harness_rows(*common, "--cache", "cold", "--flush-bytes", str(flush))
                rows += [{**row, "cache": name} for row in more]
            for row in rows:
                if left_out(row):
                    continue
                medians[(where, row["cache"])].append(float(row["time_median_s"]))
                sizes[where] = row["size"]
        print(f"launch {launch + 1} of {args.launches} done", flush=True)
    columns = ["hot", "cold", *flushes]
    print(f"\n{'placement':14} {'size':>10}" + "".join(f"{c:>11}" for c in columns) + "  cold/hot")
    for where in budgets:
        times = {c: statistics.median(medians[(where, c)]) for c in columns if medians[(where, c)]}
        if not times:
            continue
        cells = "".join(f"{times[c] * 1e3:9.3f}ms" if c in times else f"{'-':>11}" for c in columns)
        ratio = f"{times['cold'] / times['hot']:9.2f}" if "cold" in times and "hot" in times else ""
        print(f"{where:14} {sizes[where]:>10} {cells} {ratio}")


if __name__ == "__main__":
    run_main(main)

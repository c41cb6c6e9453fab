"""Where a repetition's time goes: each launch of a kernel's plan timed on its own.

Times every launch of one repetition separately with the device's clock and
sums them per entry point, for each strategy (or other run option) given.
Useful to see why one plan beats another on a device. With ``--each``, every
launch on a line of its own, with its scalars and the GB/s it reached at an
equal share of the repetition's bytes (exact for the sorts, each of whose
launches reads and writes the whole array), so that a slow pass shows.

    python benchmarks/launch_breakdown.py -k Bitonic_U32 -b opencl --size 4194304 \\
        --param strategy=global --param strategy=local
    python benchmarks/launch_breakdown.py -k Apps_ENERGY --size 1000000 --reps 50 \\
        --partition item chunk
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys

from common import Parser, device, run_main

from harness import suite
from harness.backends import get
from harness.cli.arguments import positive_int
from harness.execution.runner import (
    array_bytes,
    host_available_bytes,
    largest_size_where,
    make_inputs,
    walking,
)
from harness.model import partition, sources


def breakdown(
    kernel: str,
    backend: str,
    size: int,
    params: dict[str, str],
    reps: int,
    dealt: str,
    each: bool = False,
) -> None:
    """Print per-entry-point device time of one repetition of the kernel's plan,
    its walking launches dealt as ``dealt`` says (`harness.model.partition`),
    and with ``each`` every launch's time and GB/s."""
    spec = suite.BY_NAME[kernel].with_params(params)
    impl = get(backend)
    session = impl.open(0)
    source = None
    if impl.language:
        source = sources.find(impl.language, impl.extension, spec.source_name)
    if source is not None and dealt != "item":
        walks = walking(source, session.info.kind)
        spec = partition.partitioned(spec, dealt, walks, session.info.compute_units)
    inputs = make_inputs(spec, size, 1, "f64")
    launches = spec.resolve(size, inputs, "f64")
    execution = session.load(spec, "f64", source, {a.name: inputs[a.name] for a in spec.arrays})
    execution.run(launches)
    per_entry: dict[str, float] = collections.defaultdict(float)
    count: dict[str, int] = collections.Counter()
    share = spec.traffic(size, 8).moved / max(len(launches), 1)
    lines = []
    for number, launch in enumerate(launches, start=1):
        seconds = statistics.median(execution.time([launch], reps))
        per_entry[launch.entry] += seconds
        count[launch.entry] += 1
        scalars = " ".join(f"{k}={v}" for k, v in launch.scalars if k not in ("n", "descending"))
        rate = share / seconds / 1e9 if seconds > 0 else float("inf")
        # Three figures below 1 GB/s: a small launch on a loaded CPU read "0.0".
        shown = f"{rate:8.1f}" if rate >= 1 else f"{rate:8.3g}"
        lines.append(
            f"  {number:4} {launch.entry:24} {scalars:28} {seconds * 1e3:9.3f} ms {shown} GB/s"
        )
    whole = statistics.median(execution.time(launches, reps))
    label = ",".join([*(f"{k}={v}" for k, v in params.items()), f"partition={dealt}"])
    print(
        f"{kernel} [{label}] on {backend}: {len(launches)} launches, "
        f"{whole * 1e3:.1f} ms per repetition"
    )
    for entry, seconds in per_entry.items():
        print(
            f"  {entry:24} {count[entry]:4} launches {seconds * 1e3:9.1f} ms "
            f"({seconds / count[entry] * 1e3:.2f} ms each)"
        )
    if each:
        print("\n".join(lines))


def _once(
    configs: list[dict[str, str]], given: list[str], partitions: list[str]
) -> list[dict[str, str]]:
    """Each --param's run options once, in the order given, saying which --param or
    --partition values came more than once: a --param repeated printed its breakdown
    twice, and a --partition repeated was dropped unsaid."""
    seen: dict[frozenset[tuple[str, str]], dict[str, str]] = {}
    twice = []
    for text, config in zip(given, configs, strict=True):
        key = frozenset(config.items())
        if key in seen:
            twice.append(text)
        seen.setdefault(key, config)
    dealt = [p for p in dict.fromkeys(partitions) if partitions.count(p) > 1]
    for flag, values in (("--param", twice), ("--partition", dealt)):
        if values:
            print(
                f"note: {flag} {' '.join(values)} given more than once; each is broken down once",
                file=sys.stderr,
            )
    return list(seen.values())


def main() -> None:
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", "--kernel", required=True, help="one kernel, by its name")
    parser.add_argument(
        "-b",
        "--backend",
        default="opencl",
        help="the backend whose first device runs it (default opencl)",
    )
    parser.add_argument("--size", type=positive_int, required=True, help="problem size")
    parser.add_argument(
        "--reps", type=positive_int, default=3, help="repetitions per launch (median; default 3)"
    )
    parser.add_argument(
        "--partition",
        nargs="+",
        default=["item"],
        choices=partition.PARTITIONS,
        help="how walking launches deal their items; several compare them (default item)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE[,NAME=VALUE]",
        help="run options of one breakdown, the others at their defaults (such as "
        "strategy=tiled,tile_bytes=32768); repeat to compare",
    )
    parser.add_argument(
        "--each",
        action="store_true",
        help="also list every launch: its scalars, time and GB/s (at an equal share of "
        "the repetition's bytes, exact for the sorts)",
    )
    args = parser.parse_args()
    spec = suite.BY_NAME.get(args.kernel)
    if spec is None:
        parser.error(
            f"-k {args.kernel!r}: no such kernel; give one name as 'harness list' lists it"
        )
    if ":" in args.backend:
        parser.error(f"-b {args.backend!r}: give a backend's name; its first device is timed")
    info = device(parser, args.backend, "-b")
    offered = get(args.backend).partitions
    other = [p for p in dict.fromkeys(args.partition) if p != "item" and p not in offered]
    if other:
        # Nothing was dealt so, yet each breakdown was labelled with it.
        parser.error(
            f"--partition {' '.join(other)}: {args.backend} takes item alone; give item, or "
            "a backend that deals items (opencl, cuda)"
        )
    # The host makes the inputs and keeps copies: about three times the arrays.
    room = min(filter(None, (info.memory_bytes, host_available_bytes() // 3)), default=0)
    need = array_bytes(spec, args.size, "f64")
    if room and need > room:
        # It ended in numpy's MemoryError, in a traceback.
        most = largest_size_where(lambda n: array_bytes(spec, n, "f64") <= room, low=1)
        parser.error(
            f"--size {args.size}: {args.kernel}'s arrays would take {need} bytes, more than "
            f"{info.id} ({info.name}) has room for; give at most {most}"
        )
    choices = {p.name: p.choices for p in spec.params}
    pairs = [[p.partition("=")[::2] for p in item.split(",")] for item in args.param]
    for item, given in zip(args.param, pairs, strict=True):
        names = [name for name, _ in given]
        twice = next((name for name in names if names.count(name) > 1), None)
        if twice is not None:
            # The last value silently replaced the others.
            parser.error(
                f"--param {item!r}: {twice} given twice; repeat --param to compare its values"
            )
    configs = [dict(given) for given in pairs]
    for item, config in zip(args.param, configs, strict=True):
        for name, value in config.items():
            if value not in choices.get(name, ()):
                takes = "; ".join(f"{n}: {', '.join(c)}" for n, c in choices.items())
                parser.error(f"--param {item!r}: {args.kernel} takes {takes or 'no run options'}")
    configs = _once(configs, args.param, args.partition)
    defaults = {p.name: p.default[0] for p in spec.params}
    for chosen in configs or [{}]:
        params = {**defaults, **chosen}
        for dealt in dict.fromkeys(args.partition):
            breakdown(args.kernel, args.backend, args.size, params, args.reps, dealt, args.each)


if __name__ == "__main__":
    run_main(main)

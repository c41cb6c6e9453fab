"""Stream kernels on one device: this harness beside BabelStream's build for its API.

BabelStream is not part of this project: build its model for the device's API
yourself (OpenCL for an OpenCL device, CUDA for cuda:0) and pass the command
that runs it (a binary, or a script that sets the loader's environment).
The two tools run alternately, several process launches each, since memory
bandwidth on shared machines changes between launches; the table gives, per
kernel, the median and best over launches of

- the harness: GB/s from each row's median and from its fastest repetition;
- BabelStream: GB/s from its average time and from its fastest iteration.

    python benchmarks/stream_vs_babelstream.py --babelstream ./ocl-stream --launches 5
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess

from common import (
    Parser,
    command,
    device,
    harness_rows,
    left_out,
    refuse_size_past_memory,
    run,
    run_main,
)

from harness.cli.arguments import positive_int

KERNELS = {
    "Copy": "Stream_COPY",
    "Mul": "Stream_MUL",
    "Add": "Stream_ADD",
    "Triad": "Stream_TRIAD",
    "Dot": "Stream_DOT",
}
ARRAYS = {"Copy": 2, "Mul": 2, "Add": 3, "Triad": 3, "Dot": 2}


def babelstream(command: str, size: int, reps: int) -> dict[str, tuple[float, float]]:
    """BabelStream's (average-time GB/s, best GB/s) per kernel, in doubles."""
    done = run(
        [*shlex.split(command), "--arraysize", str(size), "--numtimes", str(reps)],
        check=False,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # A failed or foreign command ended the scripts in a traceback (a
    # CalledProcessError, a KeyError, no median of no figures): one line instead.
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"--babelstream {command!r} exited {done.returncode}: {last}")
    figures = {}
    for line in done.stdout.splitlines():
        cells = line.split()
        if cells and cells[0] in KERNELS and len(cells) == 5:
            moved = ARRAYS[cells[0]] * 8 * size
            try:
                figures[cells[0]] = (
                    moved / float(cells[4]) / 1e9,
                    moved / float(cells[2]) / 1e9,
                )
            except (ValueError, ZeroDivisionError):
                continue
    missing = [k for k in KERNELS if k not in figures]
    if missing:
        raise SystemExit(
            f"--babelstream {command!r}: its output has no figures for {', '.join(missing)}, "
            "as BabelStream prints them (Function MBytes/sec Min Max Average)"
        )
    return figures


def main() -> None:
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--babelstream", type=command, required=True, help="command that runs BabelStream's build"
    )
    parser.add_argument(
        "--device",
        default="opencl:0",
        help="one device, BACKEND:INDEX as 'harness devices' lists it (default opencl:0)",
    )
    parser.add_argument(
        "--size", type=positive_int, default=2**25, help="doubles per array (default 2^25)"
    )
    parser.add_argument(
        "--reps",
        type=positive_int,
        default=20,
        help="timed repetitions per tool and launch (default 20)",
    )
    parser.add_argument(
        "--launches", type=positive_int, default=5, help="process launches per tool (default 5)"
    )
    args = parser.parse_args()
    # One device: `--device all` (or a name several share) ran each, and the
    # table set the last one's figures beside BabelStream's, naming none.
    info = device(parser, args.device)
    refuse_size_past_memory(parser, args.size, list(KERNELS.values()), info)
    where = info.id
    ours: dict[str, list[tuple[float, float]]] = {k: [] for k in KERNELS}
    theirs: dict[str, list[tuple[float, float]]] = {k: [] for k in KERNELS}
    for launch in range(args.launches):
        rows, _ = harness_rows(
            "-k",
            "Stream",
            "--device",
            where,
            "--size",
            str(args.size),
            "--reps",
            str(args.reps),
        )
        by_kernel = {r["kernel"]: r for r in rows if not left_out(r)}
        for short, name in KERNELS.items():
            if name not in by_kernel:
                continue
            r = by_kernel[name]
            best = float(r["bytes_per_rep"]) / float(r["time_min_s"]) / 1e9
            ours[short].append((float(r["gbytes_per_s"]), best))
        for short, figures in babelstream(args.babelstream, args.size, args.reps).items():
            theirs[short].append(figures)
        print(f"launch {launch + 1} of {args.launches} done", flush=True)
    print("\nGB/s, median over launches of each launch's figure; best over all launches")
    print(
        f"{'kernel':7}{'harness median':>16}{'harness best':>14}"
        f"{'Babel average':>15}{'Babel best':>12}{'ratio':>8}"
    )
    for short in (k for k in KERNELS if ours[k]):
        ours_median = statistics.median(m for m, _ in ours[short])
        theirs_average = statistics.median(a for a, _ in theirs[short])
        print(
            f"{short:7}{ours_median:16.2f}{max(b for _, b in ours[short]):14.2f}"
            f"{theirs_average:15.2f}{max(b for _, b in theirs[short]):12.2f}"
            f"{ours_median / theirs_average:8.2f}"
        )


if __name__ == "__main__":
    run_main(main)

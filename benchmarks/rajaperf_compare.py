"""RAJAPerf kernels: this harness on one device beside raja-perf.exe's own variants.

raja-perf.exe is not part of this project: build RAJAPerf yourself (with
OpenMP) and pass its path. For each process launch the harness runs the
kernels at their default sizes, then raja-perf.exe runs its Base_Seq and
Base_OpenMP variants of the same kernels; launches alternate because memory
bandwidth on shared machines changes between launches. The table gives the
median over launches of the time per repetition, and our time over
Base_OpenMP's. ``--checksums`` also compares our checksums after one
repetition with raja-perf.exe's ``--checkrun 1`` Base_Seq checksums, at each
kernel's default size or at ``--checksum-size``. A kernel with run options
(Algorithm_ATOMIC's replication, say) gives a row per choice, compared with
RAJAPerf's default tuning of that variant.

    OMP_NUM_THREADS=2 python benchmarks/rajaperf_compare.py --rajaperf ./raja-perf.exe \\
        --device opencl:0 --launches 3 --checksums
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from common import Parser, command, device, harness_rows, run, run_main

from harness import suite
from harness.cli.arguments import positive_int

GROUPS = suite.RAJAPERF_GROUPS
VARIANTS = ("Base_Seq", "Base_OpenMP")
#: The raja-perf.exe output files the script reads.
RUN_DATA = "RAJAPerf-kernel-run-data.csv"
CHECKSUMS = "RAJAPerf-checksum.txt"


def rajaperf(exe: str, kernels: list[str], *extra: str) -> Path:
    """Run raja-perf.exe; the folder holding its output files."""
    out = Path(tempfile.mkdtemp(prefix="rajaperf-"))
    run(
        [exe, "--kernels", *kernels, "--outdir", str(out), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    return out


def run_data(folder: Path) -> dict[tuple[str, str], float]:
    """Mean time per repetition by (kernel, variant) from RAJAPerf-kernel-run-data.csv.

    Of a variant's tunings the ``default`` one counts, else the first listed
    (ATOMIC's only OpenMP tuning is ``replicate_64``).
    """
    times: dict[tuple[str, str], float] = {}
    lines = [line for line in _output(folder, RUN_DATA).splitlines() if "," in line]
    rows = list(csv.reader(lines))
    header = [h.strip() for h in rows[0]] if rows else []
    column = next((i for i, h in enumerate(header) if h.startswith("Mean time per rep")), None)
    if column is None or not {"Kernel", "Variant", "Tuning"} <= set(header):
        raise ValueError(
            f"its {RUN_DATA} has no Kernel, Variant, Tuning and 'Mean time per rep' "
            "columns, as raja-perf.exe writes them"
        )
    kernel, variant = header.index("Kernel"), header.index("Variant")
    tuning = header.index("Tuning")
    for row in rows[1:]:
        cells = [c.strip() for c in row]
        try:
            seconds = float(cells[column])
        except (ValueError, IndexError):
            continue
        key = (cells[kernel], cells[variant])
        if key not in times or cells[tuning] == "default":
            times[key] = seconds
    return times


def checksums(folder: Path) -> dict[str, float]:
    """Base_Seq checksums by kernel from RAJAPerf-checksum.txt: the default
    tuning's, else the first tuning's.

    The report names a kernel alone on a line, then one line per variant:
    variant-tuning, result, tolerance, checksum, relative difference.
    """
    found: dict[str, float] = {}
    kernel = None
    for number, line in enumerate(_output(folder, CHECKSUMS).splitlines(), 1):
        cells = line.split()
        if len(cells) == 1 and cells[0] in suite.BY_NAME:
            kernel = cells[0]
        elif (
            kernel
            and len(cells) > 3
            and cells[0].startswith("Base_Seq-")
            and (kernel not in found or cells[0] == "Base_Seq-default")
        ):
            try:
                found[kernel] = float(cells[3])
            except ValueError:
                raise ValueError(f"its {CHECKSUMS}:{number} holds no checksum") from None
    return found


def _output(folder: Path, name: str) -> str:
    """The text of raja-perf.exe's output file ``name``; ValueError where there is
    none (another command's output: a FileNotFoundError's traceback once the
    harness's rows were measured)."""
    try:
        return (folder / name).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"it wrote no {name} ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"its {name} is no text ({exc.reason})") from None


def label(row: dict[str, str]) -> str:
    """A row's kernel, with its run options' choices: ``Algorithm_ATOMIC[64]``."""
    chosen = [row[p] for p in suite.PARAMS if row.get(p)]
    return f"{row['kernel']}[{','.join(chosen)}]" if chosen else row["kernel"]


def main() -> int:
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rajaperf", type=command, required=True, help="path of raja-perf.exe")
    parser.add_argument(
        "--device",
        default="opencl:0",
        help="one device, BACKEND:INDEX as 'harness devices' lists it (default opencl:0)",
    )
    parser.add_argument(
        "--launches", type=positive_int, default=3, help="launches of each tool (default 3)"
    )
    parser.add_argument("--checksums", action="store_true", help="also compare checksums")
    parser.add_argument(
        "--checksum-size",
        type=positive_int,
        help="problem size of the checksum comparison (default: each kernel's default)",
    )
    parser.add_argument(
        "-k",
        "--kernels",
        nargs="+",
        default=list(GROUPS),
        help="kernels or groups (default: the RAJAPerf groups)",
    )
    args = parser.parse_args()
    # One device: `--device all` (or a name several share) put every device's
    # times in one median per kernel.
    where = device(parser, args.device).id
    if args.checksum_size and not args.checksums:
        print(
            f"note: --checksum-size {args.checksum_size} sizes the checksum comparison, "
            "which --checksums asks for; without it, it changes nothing",
            file=sys.stderr,
        )
    try:
        names = [k.name for k in suite.select(args.kernels) if k.group in GROUPS]
    except suite.SelectionError as exc:
        parser.error(str(exc))
    if not names:
        parser.error(
            f"-k {' '.join(args.kernels)}: no RAJAPerf kernel selected; give kernels of the "
            f"groups {', '.join(GROUPS)}"
        )
    ours: dict[str, list[float]] = defaultdict(list)
    theirs: dict[tuple[str, str], list[float]] = defaultdict(list)
    for launch in range(args.launches):
        rows, _ = harness_rows("-k", *names, "--device", where)
        for r in rows:
            if r["status"] == "ok" and r["time_median_s"]:
                ours[label(r)].append(float(r["time_median_s"]))
        try:
            found = run_data(rajaperf(args.rajaperf, names, "--variants", *VARIANTS))
        except ValueError as exc:
            raise SystemExit(f"--rajaperf {args.rajaperf!r}: {exc}") from None
        for key, seconds in found.items():
            theirs[key].append(seconds)
        print(f"launch {launch + 1} of {args.launches} done", flush=True)
    print(f"\n{'kernel':32}{'harness':>12}{'Base_Seq':>12}{'Base_OpenMP':>13}{'ours/OpenMP':>13}")
    ratios = []
    for name in ours:
        kernel = name.split("[")[0]
        med = {v: statistics.median(theirs[(kernel, v)]) for v in VARIANTS if theirs[(kernel, v)]}
        mine = statistics.median(ours[name])
        omp = med.get("Base_OpenMP", float("nan"))
        ratios.append(mine / omp)
        print(
            f"{name:32}{mine * 1e3:10.3f}ms{med.get('Base_Seq', float('nan')) * 1e3:10.3f}ms"
            f"{omp * 1e3:11.3f}ms{mine / omp:13.2f}"
        )
    within = sum(r <= 1.2 for r in ratios)
    print(f"\n{within} of {len(ratios)} rows at most 1.2x Base_OpenMP")
    if not args.checksums:
        return 0
    sized = ("--size", str(args.checksum_size)) if args.checksum_size else ()
    try:
        reference = checksums(
            rajaperf(args.rajaperf, names, "--variants", "Base_Seq", "--checkrun", "1", *sized)
        )
    except ValueError as exc:
        raise SystemExit(f"--rajaperf {args.rajaperf!r}: {exc}") from None
    rows, _ = harness_rows("-k", *names, "--device", where, "--reps", "1", "--warmup", "0", *sized)
    print(
        f"\n{'kernel':32}{'harness checksum':>26}{'raja-perf.exe Base_Seq':>26}"
        f"{'diff':>10}  within tolerance"
    )
    differ = 0
    for r in rows:
        want = reference.get(r["kernel"], float("nan"))
        got = float(r["checksum"]) if r["checksum"] else float("nan")
        # RAJAPerf's rule: relative difference, absolute where the reference is 0.
        diff = abs(got - want) / (abs(want) or 1.0)
        ok = diff <= suite.BY_NAME[r["kernel"]].tolerance.f64
        differ += not ok
        name = label(r)
        print(f"{name:32}{got:26.17g}{want:26.17g}{diff:10.2g}  {'yes' if ok else 'NO'}")
    if differ:
        # A checksum outside tolerance (or none) was a 'NO' in the table, and exit 0.
        print(
            f"{differ} of {len(rows)} checksums differ from raja-perf.exe's beyond tolerance",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    run_main(main)

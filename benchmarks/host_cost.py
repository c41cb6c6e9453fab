"""What a row costs besides its timed repetitions (``host_s``), over a suite.

Runs the suite once (default: every kernel on OpenCL, 3 timed repetitions a
row, at default sizes; ``--check`` at check sizes; harness run options after
``--`` replace ``-b opencl``, so name the backend there too), prints the
median and total host cost per row and names the worst rows, then profiles the
worst few alone, in-process, and says which of a row's steps their time went to.

    python benchmarks/host_cost.py --worst 5 --profile 2
    python benchmarks/host_cost.py --check -- -b opencl -k Stream Basic
    python benchmarks/host_cost.py --tree ../before --profile 0 -- -b opencl -k Apps_EDGE3D
"""

from __future__ import annotations

import argparse
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import Parser, harness_rows, run, run_main, without_run_options

from harness.cli.arguments import count, positive_int

#: Timed repetitions a row, where --reps is not given.
REPS = 3
#: The worst rows profiled, where --profile is not given.
PROFILE = 2

#: A row's steps (functions of `harness.execution.runner` and what they call), in
#: the order a row takes them, for the profile's breakdown.
STEPS = (
    ("make_data", "inputs and references"),
    ("_fitted_size", "size fitting (a probe's compile and run)"),
    ("_deal", "partition trial"),
    ("load", "compiling and uploading (Session.load)"),
    ("_verify", "verification runs"),
    ("judge", "judging outputs"),
    ("kernel_checksum", "checksum"),
    ("_sample", "warm-up and timed repetitions"),
    ("_repeat", "timed repetitions"),
)


def _label(row: dict[str, str]) -> str:
    options = [row[k] for k in ("strategy", "impl", "order", "dist") if row.get(k)]
    return row["kernel"] + (f"[{','.join(options)}]" if options else "")


#: The run options that choose kernels and sizes, which a profile's ``-k`` and
#: ``--size`` replace: given twice, the harness refused the profiled run, which was
#: then shown as a row that took no time.
SELECTION = (
    "kernels",
    "exclude",
    "size",
    "sizes",
    "size_factor",
    "memory_allocated",
    "memory_moved",
)


def _profile(kernel: str, size: str, run_args: list[str], tree: Path | None = None) -> None:
    """Run one kernel alone in-process under cProfile and print its steps' times;
    with ``tree``, the harness of that checkout, as `harness_rows` runs it (the
    rows of --tree's harness were profiled in this one's). A profiled run the
    harness refuses ends the script with its line."""
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as out:
        stats = Path(out) / "row.prof"
        env = dict(os.environ)
        env.setdefault("XDG_RUNTIME_DIR", tempfile.gettempdir())
        if tree is not None:
            env["PYTHONPATH"] = str(tree)
        chosen = without_run_options(run_args, SELECTION)
        args = [*chosen, "-k", kernel, "--size", size, "--in-process", "--out", out]
        done = run(
            [sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "harness", "run", *args],
            cwd=tree,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        # cProfile exits 0 where the harness exited with a usage error: a run that
        # made no run folder is one the harness refused.
        if not any(p.is_dir() for p in Path(out).iterdir()) or not stats.is_file():
            said = done.stderr.strip().splitlines()
            last = said[-1] if said else "no message"
            raise SystemExit(f"profile of {kernel} n={size}: harness run refused it: {last}")
        found = pstats.Stats(str(stats))
    cumulative: dict[str, float] = {}
    for (file, _, name), (_, _, _, total, _) in found.stats.items():  # type: ignore[attr-defined]
        if "harness" in file:
            cumulative[name] = max(cumulative.get(name, 0.0), total)
    whole = cumulative.get("_execute", 0.0)
    print(f"  {kernel} n={size} alone, in-process: {whole:.2f} s in Runner._execute")
    for name, what in STEPS:
        if cumulative.get(name):
            print(f"    {what:42s} {cumulative[name]:7.3f} s  ({name})")


def _is_checkout(tree: Path) -> bool:
    """Whether ``tree`` holds the harness; False for a path the file system cannot
    look at (a name too long), which ended the script in an OSError traceback."""
    try:
        return (tree / "harness" / "__init__.py").is_file()
    except OSError:
        return False


def _note_idle(args: argparse.Namespace) -> None:
    """Say which options change nothing, as they were taken unsaid: --reps beside
    --check (a check times no repetition), and a --profile over --worst (only the
    rows named are profiled)."""
    if args.check and args.reps is not None:
        print(
            f"note: --reps {args.reps} changes nothing with --check, which times no repetition",
            file=sys.stderr,
        )
    if args.profile is not None and args.profile > args.worst:
        print(
            f"note: --profile {args.profile} profiles the rows --worst names, so at most "
            f"{args.worst}",
            file=sys.stderr,
        )


def main() -> None:
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # As harness run's --check, whose level was taken for a run option: --check quick
    # was refused as "harness: error: unrecognized arguments: quick".
    parser.add_argument(
        "--check",
        nargs="?",
        const="quick",
        choices=("quick", "full"),
        help="check sizes: a --check run, quick (the default) or full",
    )
    parser.add_argument(
        "--reps", type=positive_int, help=f"timed repetitions a row (default {REPS})"
    )
    parser.add_argument("--worst", type=count, default=5, help="rows to name (default 5)")
    parser.add_argument("--profile", type=count, help=f"worst rows to profile (default {PROFILE})")
    parser.add_argument(
        "--tree", type=Path, help="run the harness of this checkout (a before/after)"
    )
    parser.add_argument(
        "run_args",
        nargs="*",
        default=["-b", "opencl"],
        help="harness run options, after -- (default: -b opencl; options given replace it)",
    )
    args = parser.parse_args()
    if args.tree is not None and not _is_checkout(args.tree):
        # A missing folder ended in a traceback; one without the harness in it ran
        # the installed harness, as if it were that checkout's.
        parser.error(f"--tree {str(args.tree)!r}: not a checkout of the harness")
    _note_idle(args)
    checked = ["--check", args.check] if args.check else []
    run_args = [*args.run_args, *(checked or ["--reps", str(args.reps or REPS)])]
    rows, wall = harness_rows(*run_args, tree=args.tree)
    costs = [(float(r["host_s"]), r) for r in rows if r.get("host_s")]
    if not costs:
        raise SystemExit("no row has host_s")
    host = [c for c, _ in costs]
    timed = sum(float(r["timed_wall_s"]) for r in rows if r.get("timed_wall_s"))
    print(f"harness run {' '.join(run_args)}: {len(rows)} rows in {wall:.1f} s")
    print(
        f"host cost per row: median {statistics.median(host):.3f} s, mean "
        f"{statistics.fmean(host):.3f} s, total {sum(host):.1f} s "
        f"(timed repetitions {timed:.1f} s)"
    )
    worst = sorted(costs, key=lambda c: -c[0])[: args.worst]
    print(f"worst {len(worst)}:")
    for cost, row in worst:
        print(
            f"  {cost:6.2f} s  {_label(row)} n={row['size']} on {row['device_id']} "
            f"({row['status']}, timed {float(row.get('timed_wall_s') or 0):.2f} s)"
        )
    for _, row in worst[: PROFILE if args.profile is None else args.profile]:
        _profile(row["kernel"], row["size"], run_args, args.tree)


if __name__ == "__main__":
    run_main(main)

"""Kernel timings of this working tree beside those of an earlier revision.

A change to kernel sources or to how they are compiled should not slow a
kernel down. This script checks out ``--base`` (a git revision; ``--this``
too, where given) into a temporary worktree and, for each process launch,
runs ``harness run`` with the same arguments from both trees, alternating
which goes first (memory bandwidth on shared machines drifts between
launches). The base revision runs
its own code over its own sources. The table gives, per row, the median over
launches of each tree's median time per repetition, and this tree's time over
the base's; then the median ratio, and each tree's median wall time per
launch (what a change to the host's side of a run, such as verification,
shows in), and each tree's host cost per row (``host_s``, a row's time
besides its timed repetitions).

    python benchmarks/revision_ab.py --base HEAD~1 --launches 5 -- -k Stream -b opencl
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from common import Parser, harness_rows, run, run_main, run_options_given

from harness import suite
from harness.cli.arguments import positive_int

HERE = Path(__file__).resolve().parent.parent


def rows(tree: Path, args: list[str]) -> tuple[list[dict[str, str]], float]:
    """``harness run ARGS`` with the harness and kernel sources of ``tree``: its
    rows and its wall time in seconds."""
    # An installed harness resolves its sources to the installation; --sources
    # makes each tree compile its own.
    extra = ["--sources", str(tree / "kernels")] if tree != HERE else []
    return harness_rows(*args, *extra, tree=tree, failed_rows=False)


#: Columns that say what a row measures (with the kernels' run options).
IDENTITY = (
    "kernel", "device_id", "precision", "size", "cache", "transfers", "work_group", "wgsl_checks"
)  # fmt: skip


def key(row: dict[str, str], swept: bool) -> tuple[str, ...]:
    """What a row measures: kernel, device, precision, size and run options; its
    partition only where the run swept them (else each tree's device chose)."""
    chosen = tuple(row.get(c, "") for c in (*IDENTITY, *suite.PARAMS))
    return (*chosen, row.get("partition", "")) if swept else chosen


def _commit(revision: str) -> bool:
    """Whether ``revision`` names a commit of this repository."""
    known = subprocess.run(
        ["git", "-C", str(HERE), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        capture_output=True,
    )
    return known.returncode == 0


def main() -> int:
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="git revision to compare with")
    parser.add_argument(
        "--this", help="git revision to compare (default: this working tree, as it is)"
    )
    parser.add_argument(
        "--launches", type=positive_int, default=5, help="process launches per tree (default 5)"
    )
    parser.add_argument("run_args", nargs=argparse.REMAINDER, help="-- then harness run args")
    args = parser.parse_args()
    for option, revision in (("--base", args.base), ("--this", args.this)):
        # A revision git does not know failed only at its worktree, in a traceback,
        # after the other's worktree was made.
        if revision is not None and not _commit(revision):
            parser.error(f"{option} {revision!r}: no such commit in this repository")
    run_args = [a for a in args.run_args if a != "--"]
    # As the harness reads it (--part, --partition=chunk): rows of two partitions
    # under one key had their times mixed into one median.
    swept = any(dest == "partition" for dest, _, _ in run_options_given(run_args))
    trees = {"base": HERE, "this": HERE}
    times: dict[str, dict[tuple[str, ...], list[float]]] = {
        "base": defaultdict(list),
        "this": defaultdict(list),
    }
    walls: dict[str, list[float]] = {"base": [], "this": []}
    hosts: dict[str, list[float]] = {"base": [], "this": []}
    try:
        # Inside: an interrupt (or a failure) as the second worktree was made left
        # the first in the repository.
        for name, revision in (("base", args.base), ("this", args.this)):
            if revision:
                trees[name] = Path(tempfile.mkdtemp(prefix=f"harness-{name}-"))
                run(
                    ["git", "-C", str(HERE), "worktree", "add", "-f", str(trees[name]), revision],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
        for launch in range(args.launches):
            order = list(trees.items())
            for name, tree in order if launch % 2 == 0 else order[::-1]:
                found, wall = rows(tree, run_args)
                walls[name].append(wall)
                costs = [float(r["host_s"]) for r in found if r.get("host_s")]
                if costs:
                    hosts[name].append(statistics.median(costs))
                for row in found:
                    if row["status"] == "ok" and row.get("time_median_s"):
                        times[name][key(row, swept)].append(float(row["time_median_s"]))
            print(f"launch {launch + 1} of {args.launches} done", file=sys.stderr)
    finally:
        made = [tree for tree in trees.values() if tree != HERE]
        for tree in made:
            subprocess.run(
                ["git", "-C", str(HERE), "worktree", "remove", "--force", str(tree)],
                check=False,
                capture_output=True,
            )
            # One whose making was cut short is no worktree git removes.
            shutil.rmtree(tree, ignore_errors=True)
        if made:
            git = ["git", "-C", str(HERE), "worktree", "prune"]
            subprocess.run(git, check=False, capture_output=True)
    ratios = []
    print(f"{'row':<60} {'base':>11} {'this':>11} {'this/base':>9}")
    for k in times["this"]:
        if k not in times["base"]:
            continue
        a = statistics.median(times["base"][k])
        b = statistics.median(times["this"][k])
        ratios.append(b / a)
        label = " ".join(v for v in k if v)
        print(f"{label:<60} {a * 1e3:>9.3f}ms {b * 1e3:>9.3f}ms {b / a:>9.3f}")
    if ratios:
        print(f"median ratio over {len(ratios)} rows: {statistics.median(ratios):.3f}")
    base_wall, this_wall = (statistics.median(walls[n]) for n in ("base", "this"))
    print(
        f"wall time per launch, median: base {base_wall:.2f} s, this {this_wall:.2f} s, "
        f"this/base {this_wall / base_wall:.3f}"
    )
    if hosts["base"] and hosts["this"]:
        base_host, this_host = (statistics.median(hosts[n]) for n in ("base", "this"))
        print(
            f"host cost per row (median of each launch's median host_s): base "
            f"{base_host * 1e3:.0f} ms, this {this_host * 1e3:.0f} ms, "
            f"this/base {this_host / base_host:.3f}"
        )
    return 0


if __name__ == "__main__":
    run_main(main)

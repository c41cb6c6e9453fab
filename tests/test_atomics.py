"""The floating-point atomic kernels: their run options and check cases.

The verification matrix, the contract test and the checksum pins cover every
kernel; these tests cover what those do not: that ATOMIC's replication and
MULTI_REDUCE's bin count give one row per choice and change the kernel, and
that the check cases reach what their ``why`` claims.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from conftest import harness, run_folder

from harness import suite
from harness.execution import results
from harness.execution.runner import make_inputs
from harness.model.rajaperf import DataInit
from harness.suite.atomics import NUM_BINS, REPLICATION
from harness.suite.forall import GROUP


def _case_inputs(spec, case: str, size: int) -> dict:
    init = next(c.init for c in spec.check_cases if c.name == case)
    return make_inputs(spec, size, 1, "f64", init)


def _runs_random_sizes(n: int, num_bins: int) -> list[int]:
    """RAJAPerf's RunsRandomSizes loop, as MULTI_REDUCE::setUp writes it."""
    ends = sorted(DataInit().rand_value(num_bins))
    bins, b = [], 0
    for i in range(n):
        while b + 1 < num_bins and i / n >= ends[b]:
            b += 1
        bins.append(b)
    return bins


def test_choices_give_one_row_each(tmp_path: Path) -> None:
    proc = harness(
        "run",
        *("-k", "Algorithm_ATOMIC", "Basic_MULTI_REDUCE", "-b", "cpu", "--check"),
        *("--size", "1000", "--out", str(tmp_path)),
        *("--atomic_replication", "1", "64", "--multi_reduce_num_bins", "1", "1000"),
    )
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path))
    assert all(r["status"] == "ok" for r in rows), rows
    atomic = sorted(r["atomic_replication"] for r in rows if r["kernel"] == "Algorithm_ATOMIC")
    bins = sorted(r["multi_reduce_num_bins"] for r in rows if r["kernel"] == "Basic_MULTI_REDUCE")
    assert atomic == ["1", "64"] and bins == ["1", "1000"]


def test_defaults_are_rajaperfs() -> None:
    # ATOMIC: replicate_64 for CPU variants, replicate_4096 for GPU ones.
    assert REPLICATION.default == ("64", "4096")
    assert NUM_BINS.default == ("10",)
    atomic = suite.BY_NAME["Algorithm_ATOMIC"]
    assert atomic.lengths(100) == {"atomic": 64}
    assert atomic.with_params({"atomic_replication": "4096"}).lengths(100) == {"atomic": 4096}


def test_multi_reduce_bins_are_runs_random_sizes_of_the_chosen_count() -> None:
    spec = suite.BY_NAME["Basic_MULTI_REDUCE"]
    n = 2000
    for choice in ("1", "4", "10", "100"):
        bound = spec.with_params({NUM_BINS.name: choice})
        x = bound.init(n, 1, "f64")
        assert x["values"].size == x["num_bins"] == int(choice)
        assert list(x["bins"]) == _runs_random_sizes(n, int(choice))


def test_multi_reduce_check_case_changes_bin_at_most_items() -> None:
    spec = suite.BY_NAME["Basic_MULTI_REDUCE"]
    for size in spec.sizes_for_check:
        x = _case_inputs(spec, "random", size)
        bins = x["bins"]
        assert set(np.unique(bins)) == set(range(int(x["num_bins"])))
        # Next items of a work-item on a CPU device (i + 1) and on a GPU (i + GROUP).
        assert (bins[1:] != bins[:-1]).mean() > 0.5
        assert (bins[GROUP:] != bins[:-GROUP]).mean() > 0.5
        assert (x["values"] > 0).all()  # multi_reduce_clear must zero them
        # RAJAPerf's own bins change only at run ends.
        timed = spec.init(size, 1, "f64")["bins"]
        assert (np.diff(timed) != 0).sum() < int(x["num_bins"])


def test_atomic_check_sizes_spread_counts_unevenly() -> None:
    # Some check size leaves n % replication items over, so addresses get different
    # counts and an add to the wrong address shows.
    spec = suite.BY_NAME["Algorithm_ATOMIC"]
    for choice in REPLICATION.choices[1:]:
        bound = spec.with_params({REPLICATION.name: choice})
        assert any(n % int(choice) for n in bound.sizes_for_check)
        x = _case_inputs(bound, "stale", bound.sizes_for_check[0])
        assert (x["atomic"] > 0).all() and np.unique(x["atomic"]).size > 1

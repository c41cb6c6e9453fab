"""Single kernels on the real backends here: timing statistics, guarded sizes, check cases.

That every kernel verifies on every backend is tests/test_verification_matrix.py's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import need_backend, plant

from harness import suite
from harness.execution.runner import Runner, RunOptions, Task, make_inputs
from harness.suite.forall import GROUP

BACKENDS = ("cpu", "opencl")


@pytest.mark.parametrize("backend", BACKENDS)
def test_timed_row_has_consistent_statistics(backend: str) -> None:
    need_backend(backend)
    spec = suite.BY_NAME["Stream_TRIAD"]
    row = Runner(RunOptions(reps=7, warmup=1)).execute(Task(spec.name, backend, 0, 50_000, "f64"))
    assert row["status"] == "ok", row["reason"]
    assert row["reps"] == 7
    assert 0 < row["time_min_s"] <= row["time_median_s"] <= row["time_mean_s"] * 7
    assert row["time_std_s"] >= 0
    assert row["bytes_per_rep"] == 3 * 8 * 50_000
    assert row["gbytes_per_s"] == pytest.approx(row["bytes_per_rep"] / row["time_median_s"] / 1e9)
    assert row["timer"] == ("host" if backend == "cpu" else "device")


def test_sizes_that_are_not_multiples_of_the_group_are_guarded() -> None:
    need_backend("opencl")
    for size in (1, 255, 257, 100_003):
        row = Runner(RunOptions(check=True)).execute(Task("Stream_DOT", "opencl", 0, size, "f64"))
        assert row["status"] == "ok", (size, row["reason"])


ONE_LAUNCH = ("Stream_COPY", "Stream_MUL", "Stream_ADD", "Stream_TRIAD", "Basic_DAXPY")


@pytest.mark.parametrize("kernel", ONE_LAUNCH)
def test_one_launch_kernels_check_a_whole_number_of_groups(kernel: str) -> None:
    # Only at a multiple of the group size does a group one item short miss an element.
    sizes = suite.BY_NAME[kernel].sizes_for_check
    assert any(size % GROUP == 0 for size in sizes) and any(size % 2 for size in sizes)


def test_dot_check_case_starts_from_a_stale_dot(tmp_path: Path) -> None:
    need_backend("opencl")
    spec = suite.BY_NAME["Stream_DOT"]
    init = next(c.init for c in spec.check_cases if c.name == "random")
    x = make_inputs(spec, 10_007, 1, "f64", init)
    assert x["dot"][0] != 0 and np.unique(x["a"]).size == x["a"].size
    # Storing the sum instead of adding it: RAJAPerf's dot starts at 0, so only the
    # check case shows it.
    plant(tmp_path, "c", "Stream_DOT.c", "dot[0] += total;", "dot[0] = total;")
    task = Task("Stream_DOT", "opencl", 0, 10_007, "f64")
    row = Runner(RunOptions(check=True, sources=(tmp_path,))).execute(task)
    assert row["status"] == "fail"
    assert "check case 'random'" in row["reason"] and "dot" in row["reason"]
    # A timed row verifies its timed inputs alone: the check cases are --check's.
    timed = Runner(RunOptions(reps=2, warmup=0, sources=(tmp_path,))).execute(task)
    assert timed["status"] == "ok" and timed["max_rel_error"] < 1e-12

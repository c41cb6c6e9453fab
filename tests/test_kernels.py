"""Every kernel of the suite, on every real backend here, against its reference."""

from __future__ import annotations

import pytest
from conftest import need_backend

from harness import suite
from harness.runner import Runner, RunOptions, Task, task_size

BACKENDS = ("cpu", "opencl")


@pytest.mark.parametrize("precision", ["f64", "f32"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kernel", [k.name for k in suite.ALL])
def test_kernel_matches_reference(kernel: str, backend: str, precision: str) -> None:
    need_backend(backend)
    spec = suite.BY_NAME[kernel]
    options = RunOptions(precision=precision, check=True)
    row = Runner(options).execute(Task(kernel, backend, 0, task_size(spec, options), precision))
    assert row["status"] == "ok", row["reason"]
    if spec.verify is None:
        assert row["max_rel_error"] <= spec.tolerance.at(precision)
    assert row["checksum"] is not None


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

"""Bitonic sorts: any length, every key type, both orders and strategies, every backend."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import harness, need_backend, run_folder

from harness import results, suite
from harness.runner import Runner, RunOptions, Task, make_inputs
from harness.suite.sort import TILE_BYTES, bitonic_keys, bitonic_plan

BACKENDS = ("cpu", "opencl", "wgpu")
SORTS = ("Bitonic_U32", "Bitonic_I32", "Bitonic_F32", "Bitonic_F64", "Bitonic_PAIRS")


def run_sort(kernel: str, backend: str, n: int, **params: str) -> dict:
    need_backend(backend)
    values = {"strategy": "global", "order": "asc", "dist": "uniform", **params}
    task = Task(kernel, backend, 0, n, "f64", tuple(values.items()))
    return Runner(RunOptions(check=True)).execute(task)


def assert_sorted(row: dict) -> None:
    if row["status"] == "skipped":
        pytest.skip(row["reason"])
    assert row["status"] == "ok", row["reason"]
    assert row["max_rel_error"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kernel", SORTS)
@pytest.mark.parametrize("strategy", ["global", "local"])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_small_lengths(backend: str, kernel: str, strategy: str, order: str) -> None:
    for n in (0, 1, 2, 3, 1000, 4097):
        assert_sorted(run_sort(kernel, backend, n, strategy=strategy, order=order))


@pytest.mark.parametrize("backend", ["opencl", "wgpu"])
@pytest.mark.parametrize("kernel", ["Bitonic_U32", "Bitonic_I32", "Bitonic_F32", "Bitonic_PAIRS"])
@pytest.mark.parametrize("strategy", ["global", "local"])
def test_a_million_and_three(backend: str, kernel: str, strategy: str) -> None:
    assert_sorted(run_sort(kernel, backend, 1_000_003, strategy=strategy))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dist", ["uniform", "sorted", "reversed", "equal", "few", "special"])
@pytest.mark.parametrize("kernel", SORTS)
def test_every_distribution(backend: str, dist: str, kernel: str) -> None:
    for strategy in ("global", "local"):
        assert_sorted(run_sort(kernel, backend, 5000, strategy=strategy, dist=dist, order="desc"))


def test_sorted_output_is_np_sort_with_nans_last_and_signed_zeros_ordered() -> None:
    need_backend("opencl")
    spec = suite.BY_NAME["Bitonic_F32"].with_params(
        {"strategy": "local", "order": "asc", "dist": "special"}
    )
    inputs = make_inputs(spec, 20_000, 1, "f64")
    keys = inputs["keys"]
    assert np.isnan(keys).any() and np.isinf(keys).any() and (keys == 0).any()
    expected = spec.reference(inputs)["keys"]
    np.testing.assert_array_equal(expected, np.sort(keys))
    zeros = expected[expected == 0]
    assert np.signbit(zeros[: np.count_nonzero(np.signbit(zeros))]).all()
    assert np.isnan(expected[-np.count_nonzero(np.isnan(keys)) :]).all()
    descending = suite.BY_NAME["Bitonic_F32"].with_params(
        {"strategy": "local", "order": "desc", "dist": "special"}
    )
    np.testing.assert_array_equal(descending.reference(inputs)["keys"], np.sort(keys)[::-1])


def test_special_integer_keys_include_the_extremes() -> None:
    keys = bitonic_keys("special", 10_000, np.dtype(np.int32), 3)
    assert {np.iinfo(np.int32).min, np.iinfo(np.int32).max, 0, 1, -1} <= set(keys.tolist())


def test_same_seed_same_keys() -> None:
    a = bitonic_keys("uniform", 1000, np.dtype(np.float32), 7)
    assert np.array_equal(a, bitonic_keys("uniform", 1000, np.dtype(np.float32), 7))
    assert not np.array_equal(a, bitonic_keys("uniform", 1000, np.dtype(np.float32), 8))


@pytest.mark.parametrize("k", [12, 16, 22])
def test_launch_counts(k: int) -> None:
    tile = TILE_BYTES // 4
    m = k - (tile.bit_length() - 1)
    local = bitonic_plan(2**k, "local", tile, ("keys",), False)
    assert len(local) == 1 + m * (m + 3) // 2
    assert len(bitonic_plan(2**k, "global", tile, ("keys",), False)) == k * (k + 1) // 2


def test_no_padding_just_above_a_power_of_two() -> None:
    n = 2**20 + 1
    for launch in bitonic_plan(n, "global", 2048, ("keys",), False):
        assert launch.items <= n // 2 + launch.values["d"]


def test_a_pair_that_loses_its_value_is_caught() -> None:
    spec = suite.BY_NAME["Bitonic_PAIRS"]
    inputs = make_inputs(spec, 100, 1, "f64")
    outputs = spec.reference(inputs)
    outputs["values"] = outputs["values"].copy()
    outputs["values"][5] = outputs["values"][6]
    verdict = spec.verify(inputs, outputs, spec.reference(inputs))
    assert not verdict.ok and "pairs are not those of the input" in verdict.problem


def test_run_sweep_rows_carry_strategy_and_keys_per_second(tmp_path) -> None:
    need_backend("opencl")
    proc = harness(
        "run",
        "-k",
        "Bitonic_U32",
        "-b",
        "opencl",
        "--sizes",
        "2^10..2^12",
        "--reps",
        "2",
        "--warmup",
        "0",
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path))
    assert sorted((r["strategy"], r["size"]) for r in rows) == [
        (s, n) for s in ("global", "local") for n in (1024, 2048, 4096)
    ]
    for r in rows:
        assert r["keys_per_s"] == pytest.approx(r["size"] / r["time_median_s"])
        assert r["order"] == "asc" and r["dist"] == "uniform"

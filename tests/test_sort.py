"""Bitonic sorts: any length, every key type, both orders and strategies, every backend."""

from __future__ import annotations

import collections
import functools
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import harness, need_backend, plant, run_folder

from harness import suite
from harness.backends.base import DeviceInfo
from harness.execution import results, runner
from harness.execution.runner import Runner, RunOptions, Task, make_data, make_inputs
from harness.model.spec import Param, axes, param_choices
from harness.suite.sort import (
    DIST,
    FLOAT,
    LANES,
    SIGNED,
    STRATEGY,
    TILE_BYTES,
    UNSIGNED,
    bitonic_keys,
    bitonic_plan,
    order_words,
    row_steps,
)

BACKENDS = ("cpu", "opencl", "wgpu")
SORTS = ("Bitonic_U32", "Bitonic_I32", "Bitonic_F32", "Bitonic_F64", "Bitonic_PAIRS")
STRATEGIES = STRATEGY.choices
#: The fast tier sorts small lengths ascending with fused (the default on CPU
#: devices) and local (the default on a GPU through wgpu, and the quickest of
#: the others on CPU devices); the other strategies, the descending order, and
#: the larger lengths, distributions, step counts and tiles below are the full
#: tier's.
FAST_STRATEGIES = ("fused", "local")


@functools.cache
def sort_runner() -> Runner:
    """One verifying runner for the test process, so that a sort's programs are
    compiled once for all its lengths and distributions, not once a row: lavapipe
    takes about a second for each pipeline of the sort's shader, and keeps none."""
    return Runner(RunOptions(check=True))


def run_sort(kernel: str, backend: str, n: int, **params: str) -> dict:
    need_backend(backend)
    values = {"strategy": "global", "order": "asc", "dist": "uniform", **params}
    task = Task(kernel, backend, 0, n, "f64", tuple(values.items()))
    return sort_runner().execute(task)


def assert_sorted(row: dict) -> None:
    if row["status"] == "skipped":
        pytest.skip(row["reason"])
    assert row["status"] == "ok", row["reason"]
    assert row["max_rel_error"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kernel", SORTS)
@pytest.mark.parametrize(
    "strategy",
    [s if s in FAST_STRATEGIES else pytest.param(s, marks=pytest.mark.full) for s in STRATEGIES],
)
@pytest.mark.parametrize("order", ["asc", pytest.param("desc", marks=pytest.mark.full)])
def test_small_lengths(backend: str, kernel: str, strategy: str, order: str) -> None:
    for n in (0, 1, 2, 3, 1000, 4097):
        assert_sorted(run_sort(kernel, backend, n, strategy=strategy, order=order))


# A length past a power of two, so the padded network has every stage, on
# each device backend. The key type changes only the comparison, which smaller
# lengths test; pairs run on opencl alone, as on lavapipe they are the slowest case by far.
@pytest.mark.full
@pytest.mark.parametrize(
    ("backend", "kernel"),
    [("opencl", "Bitonic_U32"), ("wgpu", "Bitonic_U32"), ("opencl", "Bitonic_PAIRS")],
)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_million_and_three(backend: str, kernel: str, strategy: str) -> None:
    assert_sorted(run_sort(kernel, backend, 1_000_003, strategy=strategy))


@pytest.mark.full
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dist", ["uniform", "sorted", "reversed", "equal", "few", "special"])
@pytest.mark.parametrize("kernel", SORTS)
def test_every_distribution(backend: str, dist: str, kernel: str) -> None:
    for strategy in STRATEGIES:
        row = run_sort(kernel, backend, 5000, strategy=strategy, dist=dist, order="desc")
        if strategy == "library" and row["status"] == "skipped":
            # A backend with no vendor sort to call (OpenCL, wgpu) skips it alone.
            assert "library" in row["reason"], row["reason"]
            continue
        assert_sorted(row)


# The register passes at every number of steps, over lengths that leave a
# guarded tail (odd ones, one past a block) and one that does not; tiled, a
# tile's passes too (a stage's steps below a tile are no multiple of most).
@pytest.mark.full
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("steps", ["2", "3", "5", "6"])
@pytest.mark.parametrize("strategy", ["fused", "tiled", "wide"])
def test_registers_at_every_step_count(backend: str, steps: str, strategy: str) -> None:
    for kernel in ("Bitonic_F32", "Bitonic_PAIRS"):
        for n in (3, 65, 4096, 70_001):
            row = run_sort(kernel, backend, n, strategy=strategy, steps=steps, dist="special")
            assert_sorted(row)


@pytest.mark.full
@pytest.mark.parametrize("backend", ["opencl", "wgpu"])
def test_fused_at_four_million_keys(backend: str) -> None:
    assert_sorted(run_sort("Bitonic_U32", backend, 2**22, strategy="fused"))


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
    reversed_inputs = make_inputs(descending, 20_000, 1, "f64")
    assert reversed_inputs["descending"] == 1
    np.testing.assert_array_equal(
        descending.reference(reversed_inputs)["keys"], np.sort(keys)[::-1]
    )


@pytest.mark.parametrize(
    "key, kind",
    [("u32", UNSIGNED), ("i32", SIGNED), ("f32", FLOAT), ("f64", FLOAT)],
)
def test_the_keys_only_reference_is_the_stable_order_of_the_keys(key: str, kind: int) -> None:
    """The reference sorts the order words and maps them back where it can (no
    NaN): bit for bit what a stable argsort of the words gives, every
    distribution (signed zeros, infinities, extremes), both orders."""
    name = {"u32": "Bitonic_U32", "i32": "Bitonic_I32", "f32": "Bitonic_F32", "f64": "Bitonic_F64"}
    for dist in DIST.choices:
        for order in ("asc", "desc"):
            spec = suite.BY_NAME[name[key]].with_params({"order": order, "dist": dist})
            inputs = make_inputs(spec, 30_011, 1, "f64")
            keys = inputs["keys"]
            stable = keys[np.argsort(order_words(keys, kind, order == "desc"), kind="stable")]
            assert spec.reference(inputs)["keys"].tobytes() == stable.tobytes(), (dist, order)


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
    local = bitonic_plan(2**k, "local", tile, ("keys",))
    assert len(local) == 1 + m * (m + 3) // 2
    assert len(bitonic_plan(2**k, "global", tile, ("keys",))) == k * (k + 1) // 2


@pytest.mark.full
def test_a_larger_tile_sorts_everywhere_in_fewer_launches(tmp_path: Path) -> None:
    """A tile of 32 KiB (every API's GPUs allow it) leaves two fewer steps of each
    stage to global passes than the default 8 KiB: at 2^22 u32 keys the tiled
    sort makes 25 launches instead of 33. The kernels are the same, with a
    larger TILE; values fill the other half of the tile's memory."""
    plan = {b: bitonic_plan(2**22, "tiled", b // 4, ("keys",), steps=4) for b in (8192, 32768)}
    assert (len(plan[8192]), len(plan[32768])) == (33, 25)
    for backend in BACKENDS:
        need_backend(backend)
    out = tmp_path / "out"
    proc = harness(
        "run", "--check", "-k", "Bitonic_PAIRS", "-b", *BACKENDS, "--strategy", "local", "tiled",
        "--steps", "4", "--tile_bytes", "32768", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(out))
    assert {(r["strategy"], r["tile_bytes"]) for r in rows} == {
        ("local", "32768"),
        ("tiled", "32768"),
    }
    # Past 16 tiles of 4096 pairs, where the tile merges' first steps show.
    assert max(int(r["size"]) for r in rows) == 16 * 4096 + 3
    assert {r["status"] for r in rows} == {"ok"}


@pytest.mark.full
def test_a_tile_of_64_kib_sorts_on_pocl_and_is_skipped_where_the_device_has_less(
    tmp_path: Path,
) -> None:
    """PoCL gives a work-group 512 KiB, lavapipe 32: a 64 KiB tile of pairs sorts
    through every wide pass on the one, and is a skipped row naming both sizes
    on the other (wgpu itself would take the module and leave it to the driver)."""
    for backend in ("opencl", "wgpu"):
        need_backend(backend)
    out = tmp_path / "out"
    proc = harness(
        "run", "--check", "-k", "Bitonic_PAIRS", "-b", "opencl", "wgpu", "--strategy", "wide",
        "--steps", "4", "--tile_bytes", "65536", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(out))
    pocl = [r for r in rows if r["backend"] == "opencl"]
    # The first length with a pass that is not a stage's flip: 2^9 tiles of 8192 pairs.
    assert max(int(r["size"]) for r in pocl) == (8192 << 9) + 3
    assert {r["status"] for r in pocl} == {"ok"}
    assert {(r["status"], r["reason"]) for r in rows if r["backend"] == "wgpu"} == {
        (
            "skipped",
            "Bitonic_PAIRS needs 65536 bytes of workgroup memory; the adapter allows 32768 "
            "(max_compute_workgroup_storage_size)",
        )
    }


def test_a_sort_declares_the_work_group_memory_of_its_tile() -> None:
    """What a backend checks against its device's limit: the tile's bytes, keys and
    values together, for the strategies that have a tile."""
    pairs = suite.BY_NAME["Algorithm_SORTPAIRS"]
    for strategy, want in (("global", 0), ("fused", 0), ("local", 131072), ("wide", 131072)):
        spec = pairs.bind({"strategy": strategy, "tile_bytes": "131072"})
        assert spec.work_group_bytes == want, strategy
    keys = suite.BY_NAME["Bitonic_U32"].bind({"strategy": "tiled", "tile_bytes": "65536"})
    assert (keys.work_group_bytes, keys.constants["TILE"]) == (65536, 16384)


def test_an_option_without_checked_choices_is_checked_as_the_device_would_time_it() -> None:
    param = Param("x", ("a", "b", "c"), ("a",), "x", by_device=(("gpu", ("b",)),))
    gpu = frozenset({"cuda", "gpu"})
    assert param.unchosen(True, gpu) == param.unchosen(False, gpu) == ("b",)
    assert param.unchosen(True, frozenset({"cpu"})) == ("a",)
    checked = Param(
        "x", ("a", "b", "c"), ("a",), "x", checked=("a", "c"), by_device=(("gpu", ("b",)),)
    )
    assert checked.unchosen(True, gpu) == ("a", "c")


def test_fused_launches_at_2_22_are_under_a_third_of_global() -> None:
    fused = bitonic_plan(2**22, "fused", 2048, ("keys",), steps=4)
    assert len(fused) == 69 <= 253 // 3
    entries = collections.Counter(launch.entry for launch in fused)
    # Each stage past the presort ends with a merge; passes of smallest distance
    # 16 or more run in rows, the first of a stage flipped; the three whose
    # smallest distance is 2, 4 or 8 stay one-axis.
    assert entries == {
        "bitonic_presort": 1,
        "bitonic_merge": 18,
        "bitonic_flip_rows": 15,
        "bitonic_pass_rows": 32,
        "bitonic_pass": 3,
    }
    for launch in fused:
        if launch.entry.endswith("_rows"):
            assert launch.values["d"] >> 3 >= LANES
            assert launch.group == (LANES, 256 // LANES) and launch.items[0] == LANES


def test_tiled_launches_at_2_22_are_under_half_of_fused() -> None:
    """One tile sort, then per stage its passes of distances of a tile or more
    and one tile merge, the sort's last launch."""
    tiled = bitonic_plan(2**22, "tiled", 2048, ("keys",), steps=4)
    assert len(tiled) == 33
    entries = collections.Counter(launch.entry for launch in tiled)
    assert entries["bitonic_tile_sort"] == 1 and entries["bitonic_tile_merge"] == 22 - 11
    assert tiled[0].entry == "bitonic_tile_sort" and tiled[-1].entry == "bitonic_tile_merge"
    lasts = [launch.values["last"] for launch in tiled if "last" in launch.values]
    assert lasts[-1] == 1 and not any(lasts[:-1])
    for launch in tiled:
        if "tile" not in launch.entry:
            assert launch.values["d"] >= 2048  # a pass starts at a tile's distance or more
    for launch in bitonic_plan(2048, "tiled", 2048, ("keys",)):
        assert (launch.entry, launch.values["last"]) == ("bitonic_tile_sort", 1)


@pytest.mark.parametrize(
    ("k", "tile_bytes", "most"), [(26, 32768, 31), (22, 32768, 19), (26, 131072, 24)]
)
def test_wide_launches_fit_the_pass_budget(k: int, tile_bytes: int, most: int) -> None:
    """A wide pass does as many steps as its tile holds rows of 16 keys (9 for u32
    in 32 KiB, 11 in 128 KiB), so a stage of up to that many steps past the tile
    takes one pass and its tile merge: at most 31 launches at 2^26 u32 keys in
    32 KiB tiles (tiled at 6 steps: 35), 19 at 2^22 (22), 24 in 128 KiB tiles (28)."""
    tile = tile_bytes // 4
    plan = bitonic_plan(2**k, "wide", tile, ("keys",), steps=4)
    assert len(plan) <= most
    assert len(plan) < len(bitonic_plan(2**k, "tiled", tile, ("keys",), steps=6))
    rows = row_steps(tile, 4)
    assert (1 << rows) * LANES == tile
    stage_passes = []
    for launch in plan[1:]:
        if launch.entry == "bitonic_tile_merge":
            stage_passes.append([])
            continue
        assert launch.entry == "bitonic_wide_pass"
        d = launch.values["d"]
        assert d >> (rows - 1) >= 2 * LANES and d >= tile
        assert launch.items == 2**k // tile * 256 and launch.group == 256
        if not stage_passes or stage_passes[-1] == []:
            stage_passes.append([d])
            assert launch.values["flip"] == 1
        else:
            stage_passes[-1].append(d)
            assert launch.values["flip"] == 0
    passes = [p for p in stage_passes if p]
    assert len(passes) == k - (tile.bit_length() - 1)
    # Stage j past the tile has j + 1 steps of a tile's distance or more: its
    # passes follow one another from its top distance down, the last reaching
    # the tile.
    for j, distances in enumerate(passes):
        assert distances == [(tile << j) >> (i * rows) for i in range(len(distances))]
        assert len(distances) == -(-(j + 1) // rows)
        assert distances[-1] >> (rows - 1) <= tile


def test_a_wide_pass_launches_the_groups_whose_rows_start_below_n() -> None:
    """Odd lengths: one work-group per 16 neighbouring columns, those with a row
    that starts below n (the kernel guards each position)."""
    tile = TILE_BYTES // 4
    rows = row_steps(tile, 4)
    for n in (tile + 1, 6 * tile - 1, (tile << rows) + 3):
        for launch in bitonic_plan(n, "wide", tile, ("keys",)):
            if launch.entry != "bitonic_wide_pass":
                continue
            low = launch.values["d"] >> (rows - 1)
            column = np.arange(2 * n)
            start = ((column & ~(low - 1)) << rows) | (column & (low - 1))
            live = int((start < n).sum())
            assert (start[:live] < n).all()
            assert launch.items == -(-live // LANES) * 256


def test_a_fused_tail_is_guarded_and_starts_after_whole_groups() -> None:
    n = 2**20 + 3
    plan = bitonic_plan(n, "fused", 2048, ("keys",), steps=4)
    tails = [launch for launch in plan if launch.entry.endswith("_tail")]
    assert tails and all(t.values["first"] % 256 == 0 for t in tails)
    for launch in plan:
        if launch.entry in ("bitonic_pass", "bitonic_pass_rows", "bitonic_flip_rows"):
            low = launch.values["d"] >> 3
            items = math.prod(axes(launch.items))
            assert items * 16 <= n + 15 * low  # every position below n
        elif launch.entry in ("bitonic_presort", "bitonic_merge"):
            assert launch.items * 16 <= n


def test_no_padding_just_above_a_power_of_two() -> None:
    n = 2**20 + 1
    for launch in bitonic_plan(n, "global", 2048, ("keys",)):
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
    # Timed, a sort runs its default strategy only; --check covers every one.
    assert sorted((r["strategy"], r["size"]) for r in rows) == [
        ("fused", n) for n in (1024, 2048, 4096)
    ]
    for r in rows:
        assert r["keys_per_s"] == pytest.approx(r["size"] / r["time_median_s"])
        assert r["order"] == "asc" and r["dist"] == "uniform"


def case_data(kernel: str, size: int, **params: str) -> dict:
    """Inputs and references of every case of a kernel's check, by case name."""
    spec = suite.BY_NAME[kernel].with_params(params)
    task = Task(kernel, "cpu", 0, size, "f64", tuple(spec.param_values.items()))
    return {case.name: case for case in make_data(spec, task, 1)}


@pytest.mark.parametrize("kernel", SORTS)
@pytest.mark.parametrize("dist", DIST.choices)
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_check_covers_every_distribution_and_both_orders(
    kernel: str, dist: str, order: str
) -> None:
    other = "desc" if order == "asc" else "asc"
    cases = case_data(kernel, 101, dist=dist, order=order)
    sorted_as = {
        name: "desc" if case.inputs["descending"] else "asc" for name, case in cases.items()
    }
    assert sorted_as.pop("timed") == order
    assert {f"{d} {order}" for d in DIST.choices} - {f"{dist} {order}"} <= set(sorted_as)
    assert {f"special {other}", f"uniform {other}"} <= set(sorted_as)
    for name, sort_order in sorted_as.items():
        assert name.endswith(sort_order)


@pytest.mark.parametrize("kernel", ["Algorithm_SORT", "Algorithm_SORTPAIRS"])
def test_rajaperf_sorts_check_every_distribution_too(kernel: str) -> None:
    cases = case_data(kernel, 101)
    assert not cases["timed"].inputs["descending"]
    assert (cases["timed"].inputs["keys"] >= 0).all()
    expected = {f"{d} asc" for d in DIST.choices} | {"special desc", "uniform desc"}
    assert set(cases) - {"timed"} == expected
    assert (cases["uniform asc"].inputs["keys"] < 0).any()


@pytest.mark.parametrize("kernel", [*SORTS, "Algorithm_SORT", "Algorithm_SORTPAIRS"])
def test_check_sizes_are_odd_and_straddle_a_tile(kernel: str) -> None:
    spec = suite.BY_NAME[kernel]
    tile = spec.constants["TILE"]
    sizes = set(spec.sizes_for_check)
    assert {1, 2, 3, tile - 1, tile, tile + 1} <= sizes
    assert any(n > 2 * tile and n & (n - 1) for n in sizes)
    # Six tiles less one: local launches of 6 groups, a 3 x 2 grid in wgpu's check.
    assert 6 * tile - 1 in sizes
    # Past 16 tiles a tiled sort's merges take a stage's steps below a tile
    # whole (shorter, the global passes of the default 4 steps reach below it).
    assert max(sizes) == 16 * tile + 3
    # A wide sort's first pass that is no stage's flip is past 2^row_steps tiles.
    wide = spec.with_params({"strategy": "wide"}).sizes_for_check
    assert set(wide) == sizes | {(tile << row_steps(tile, 4)) + 3}
    plan = bitonic_plan(max(wide), "wide", tile, ("keys",))
    assert any(launch.values.get("flip") == 0 for launch in plan)
    below = bitonic_plan(max(wide) - 4, "wide", tile, ("keys",))
    assert all(launch.values.get("flip") != 0 for launch in below)
    # There the timed keys alone verify; every check case does up to 16 tiles.
    bound = spec.with_params({"strategy": "wide"})
    for size, cases in ((max(sizes), 1 + len(spec.check_cases)), (max(wide), 1)):
        task = Task(kernel, "cpu", 0, size, "f64", (("strategy", "wide"),))
        assert len(make_data(bound, task, 1)) == cases


def _failing_tiled_check(
    tmp_path: Path, old: str, new: str, *args: str, strategy: str = "tiled"
) -> list[dict]:
    """The rows of Bitonic_U32's tiled (or other) check on PoCL with ``old`` in
    bitonic.h planted as ``new``, which must fail it."""
    need_backend("opencl")
    plant(tmp_path / "src", "c", "bitonic.h", old, new)
    out = tmp_path / "out"
    proc = harness(
        "run", "--check", "full", "-k", "Bitonic_U32", "-b", "opencl", "--strategy", strategy,
        *args, "--sources", str(tmp_path / "src"), "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    return results.read_journal(run_folder(out))


def test_a_tile_merge_that_mirrors_its_first_step_fails_the_check(tmp_path: Path) -> None:
    """Below 16 tiles a tiled sort's global passes of the default 4 steps already
    did its merges' first step, so a merge that pairs mirror positions there
    still sorts; the check's length past 16 tiles is the one that fails."""
    merge = "tile_stage(lk PASS_VALUES, TILE / 2, 0, 1);"
    rows = _failing_tiled_check(tmp_path, merge, merge.replace("0, 1);", "1, 1);"), "--steps", "4")
    assert {r["size"] for r in rows if r["status"] == "fail"} == {16 * 2048 + 3}


def test_a_tile_pass_that_leaves_its_later_blocks_fails_the_check(tmp_path: Path) -> None:
    """A tile's work-items take more than one block of registers each only at
    2 steps (a u32 tile of 2048 keys is 512 blocks of 4, for 256 work-items):
    the check covers every step count, so a loop that stops after its first
    block fails there, and only there."""
    loop = "t += GROUP) {\n        const uint base = pass_base(t, d);"
    rows = _failing_tiled_check(tmp_path, loop, loop.replace("+=", "-="))
    assert {r["steps"] for r in rows} == {"2", "3", "4", "5", "6"}
    assert {r["steps"] for r in rows if r["status"] == "fail"} == {"2"}


@pytest.mark.full
def test_a_wide_pass_that_mirrors_every_pass_fails_the_check(tmp_path: Path) -> None:
    """Up to 2^7 tiles of u32 keys every wide pass starts with a stage's flip, so
    one that reads its upper rows from the mirror in the other passes too still
    sorts there; the check's length one past that is the one that fails."""
    upper = "const uint upper = flip ? base ^ (low - ROW_WIDTH) : base;"
    planted = "const uint upper = base ^ (low - ROW_WIDTH);"
    rows = _failing_tiled_check(tmp_path, upper, planted, "--steps", "4", strategy="wide")
    assert {r["size"] for r in rows if r["status"] == "fail"} == {(2048 << 7) + 3}


def test_steps_are_checked_at_every_count_and_left_out_where_they_mean_nothing() -> None:
    spec = suite.BY_NAME["Bitonic_U32"]
    combos = [dict(c) for c in param_choices(spec, {"order": ("asc",), "dist": ("uniform",)}, True)]
    # numpy's own sort (the host's) takes no steps either.
    stepless = [c["strategy"] for c in combos if "steps" not in c]
    assert list(dict.fromkeys(stepless)) == ["global", "local", "library"]
    for strategy in ("fused", "tiled", "wide"):
        steps = [c["steps"] for c in combos if c["strategy"] == strategy]
        assert list(dict.fromkeys(steps)) == ["2", "3", "4", "5", "6"]
    # On any device, the tiles every device checks and CUDA's own default.
    assert [c.get("tile_bytes") for c in combos if c["strategy"] == "local"] == ["8192", "32768"]
    chosen = {"strategy": ("global", "fused"), "steps": ("2", "4")}
    assert [dict(c) for c in param_choices(spec, chosen)] == [
        {"strategy": "global", "order": "asc", "dist": "uniform"},
        {"strategy": "fused", "steps": "2", "order": "asc", "dist": "uniform"},
        {"strategy": "fused", "steps": "4", "order": "asc", "dist": "uniform"},
    ]


def test_steps_beside_the_global_strategy_alone_is_one_row_and_a_note(tmp_path: Path) -> None:
    proc = harness(
        "run", "-k", "Bitonic_U32", "-b", "cpu", "--strategy", "global", "--steps", "2", "6",
        "--size", "100", "--reps", "1", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "note: --steps applies only with --strategy fused, tiled or wide; it is ignored" in (
        proc.stderr
    )
    (row,) = results.read_journal(run_folder(tmp_path))
    assert (row["strategy"], row.get("steps"), row["status"]) == ("global", None, "ok")


@pytest.mark.parametrize("key", ["f32", "f64"])
def test_special_float_keys_reach_every_branch_of_the_key_map(key: str) -> None:
    dtype = np.dtype({"f32": np.float32, "f64": np.float64}[key])
    word = np.dtype(f"u{dtype.itemsize}")
    keys = bitonic_keys("special", 4099, dtype, 1)
    nan = np.isnan(keys)
    sign = np.signbit(keys)
    assert (nan & sign).any() and (nan & ~sign).any()
    assert np.isposinf(keys).any() and np.isneginf(keys).any()
    assert (keys[(keys == 0) & sign].size > 0) and (keys[(keys == 0) & ~sign].size > 0)
    subnormal = (keys != 0) & (np.abs(keys) < np.finfo(dtype).tiny) & ~nan
    assert (subnormal & sign).any() and (subnormal & ~sign).any()
    magnitudes = keys[nan].view(word) & word.type(np.iinfo(word).max >> 1)
    assert len(set(magnitudes[sign[nan]].tolist()) & set(magnitudes[~sign[nan]].tolist())) == 0
    inf = int(np.array(np.inf, dtype).view(word))
    smallest_negative_nan = 1 << (dtype.itemsize * 8 - 1) | inf | 1
    assert smallest_negative_nan in set(keys.view(word).tolist())
    cases = case_data(f"Bitonic_{key.upper()}", 4099)
    for name, last in (
        ("special asc", slice(-nan.sum(), None)),
        ("special desc", slice(0, nan.sum())),
    ):
        got = cases[name].reference["keys"]
        assert np.isnan(got[last]).all(), name
        zeros = got[got == 0]
        negative_first = np.signbit(zeros) if name.endswith("asc") else ~np.signbit(zeros)
        assert negative_first[: negative_first.sum()].all(), name


def test_special_integer_keys_are_reached_in_both_orders() -> None:
    cases = case_data("Bitonic_I32", 4099)
    for name in ("special asc", "special desc"):
        got = cases[name].reference["keys"]
        extremes = (got[0], got[-1]) if name.endswith("asc") else (got[-1], got[0])
        assert extremes == (np.iinfo(np.int32).min, np.iinfo(np.int32).max), name


def test_a_nan_ordering_bug_fails_the_default_check(tmp_path: Path) -> None:
    """A key map that forgets NaNs orders them by sign: negative NaNs come first.
    Uniform keys have no NaN and the old special keys only positive ones. The
    quick check runs each sort's timed strategy and one other, different per
    kernel: across the sorts of floating-point keys, it meets the bug."""
    need_backend("opencl")
    nan_test = "(((w) & ~SIGN) > INF_BITS) ? ((w) | SIGN) : "
    plant(tmp_path / "src", "c", "bitonic.h", nan_test, "")
    out = tmp_path / "out"
    floats = ("Bitonic_F32", "Bitonic_F64", "Algorithm_SORT", "Algorithm_SORTPAIRS")
    proc = harness(
        *["run", "--check", "-k", *floats, "-b", "opencl"],
        *["--sources", str(tmp_path / "src"), "--out", str(out)],
    )
    assert proc.returncode == 1, proc.stderr
    rows = results.read_journal(run_folder(out))
    failed = [r for r in rows if r["status"] == "fail"]
    assert failed and all("check case 'special" in r["reason"] for r in failed), failed
    # The fused strategies keep order words between launches, so only the
    # strategies that map keys in every launch (global and local) meet the bug.
    assert {r["strategy"] for r in failed} <= {"global", "local"}


def test_a_bug_in_the_descending_path_fails_the_default_check(tmp_path: Path) -> None:
    """The default run sorts ascending; the other order is a check case."""
    need_backend("opencl")
    plant(tmp_path / "src", "c", "bitonic.h", "return descending ? ~k : k;", "return k;")
    params = (("strategy", "global"), ("order", "asc"), ("dist", "uniform"))
    task = Task("Bitonic_U32", "opencl", 0, 97, "f64", params)
    row = Runner(RunOptions(check=True, sources=(tmp_path / "src",))).execute(task)
    assert row["status"] == "fail"
    assert "check case 'special desc'" in row["reason"]


def test_a_mandelbrot_pixel_left_unwritten_fails(tmp_path: Path) -> None:
    """One missed pixel is far under the allowance for chaotic boundary pixels,
    but a count of 0 cannot come from rounding."""
    need_backend("opencl")
    loop = "FOR_EACH(i, (size_t)side * side) {"
    src = plant(tmp_path, "c", "Demo_MANDELBROT.c", loop, loop[:-1] + "if (i > 0) {")
    row = Runner(RunOptions(check=True, sources=(src,))).execute(
        Task("Demo_MANDELBROT", "opencl", 0, 40_000, "f64")
    )
    assert row["status"] == "fail"
    assert "1 of 40000 pixels were never written" in row["reason"]


def test_a_vadd_group_narrower_than_its_launch_fails_at_a_multiple_of_it(tmp_path: Path) -> None:
    need_backend("wgpu")
    src = plant(
        tmp_path, "wgsl", "Demo_VADD.wgsl", "@workgroup_size(GROUP)", "@workgroup_size(GROUP - 1u)"
    )
    assert 4096 in suite.BY_NAME["Demo_VADD"].sizes_for_check
    row = Runner(RunOptions(check=True, sources=(src,))).execute(
        Task("Demo_VADD", "wgpu", 0, 4096, "f64")
    )
    assert row["status"] == "fail", row["reason"]


def _device(backend: str, index: int, kind: str) -> DeviceInfo:
    return DeviceInfo(backend, index, f"a {kind}", "v", kind, 0, 0, "d", "a", frozenset())


def test_the_default_strategy_is_each_device_kinds_fastest() -> None:
    """Measured on an H200 (README): tiled on a GPU, local on a GPU through wgpu;
    fused on the CPU devices. A choice the user makes holds on every device."""
    spec = suite.BY_NAME["Bitonic_U32"]
    devices = [
        _device("cuda", 0, "gpu"),
        _device("wgpu", 0, "discrete gpu"),
        _device("opencl", 0, "gpu"),
        _device("opencl", 1, "cpu"),
        _device("wgpu", 1, "cpu"),
    ]
    tasks = runner.plan([spec], devices, RunOptions(size=1000))
    ran = {(t.backend, dict(t.params)["strategy"], dict(t.params).get("steps")) for t in tasks}
    assert ran == {
        ("cuda", "tiled", "4"),
        ("wgpu", "local", None),
        ("opencl", "tiled", "4"),
        ("opencl", "fused", "4"),
        ("wgpu", "fused", "4"),
    }
    # Tasks stay kernel-major, each variant's rows together: CUDA's tiled rows (in
    # 32 KiB tiles) are a variant of their own beside OpenCL's (in 8 KiB).
    assert [(t.backend, dict(t.params)["strategy"]) for t in tasks] == [
        ("cuda", "tiled"), ("wgpu", "local"), ("opencl", "tiled"), ("opencl", "fused"),
        ("wgpu", "fused"),
    ]  # fmt: skip
    chosen = RunOptions(size=1000, params=(("strategy", ("global",)),))
    assert {dict(t.params)["strategy"] for t in runner.plan([spec], devices, chosen)} == {"global"}


def test_cuda_tiles_are_32_kib_by_default_and_other_devices_8() -> None:
    """Measured on an H200 through CUDA (README): 32 KiB tiles sorted 2^26 and
    2^22 keys 1.8 and 2.1 times as fast as 8 KiB; other devices keep 8 KiB."""
    spec = suite.BY_NAME["Bitonic_U32"]
    devices = [_device("cuda", 0, "gpu"), _device("wgpu", 0, "discrete gpu")]
    devices += [_device("opencl", 0, "gpu"), _device("opencl", 1, "cpu")]
    tiles = {
        (t.backend, t.device): dict(t.params).get("tile_bytes")
        for t in runner.plan([spec], devices, RunOptions(size=1000))
    }
    assert tiles == {
        ("cuda", 0): "32768",
        ("wgpu", 0): "8192",
        ("opencl", 0): "8192",
        ("opencl", 1): None,  # fused: no tile
    }


def test_the_launch_breakdown_lists_every_launch_of_the_plan_with_its_rate() -> None:
    """`benchmarks/launch_breakdown.py --each`: one line per launch of the plan, in
    its order, with the launch's own scalars, so that a slow pass shows."""
    need_backend("opencl")
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "launch_breakdown.py"
    proc = subprocess.run(
        [sys.executable, str(script), "-k", "Bitonic_U32", "-b", "opencl", "--size", "9000",
         "--param", "strategy=wide", "--each", "--reps", "1"],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    listed = [line.split() for line in proc.stdout.splitlines() if line[:6].strip().isdigit()]
    plan = bitonic_plan(9000, "wide", TILE_BYTES // 4, ("keys",))
    assert [(int(w[0]), w[1]) for w in listed] == [
        (i, launch.entry) for i, launch in enumerate(plan, start=1)
    ]
    passes = [w for w in listed if w[1] == "bitonic_wide_pass"]
    assert [w[2:4] for w in passes] == [
        [f"d={launch.values['d']}", f"flip={launch.values['flip']}"]
        for launch in plan
        if launch.entry == "bitonic_wide_pass"
    ]
    assert all(w[-1] == "GB/s" and float(w[-2]) > 0 for w in listed)


@pytest.mark.full
def test_the_register_sorts_build_on_pocl_without_compiler_noise(tmp_path: Path) -> None:
    """At 64 keys a work-item (steps 6) PoCL's clang cannot unroll what the sort
    asks it to, and said so on every fresh build: "6 warnings generated." and
    pyopencl's CompilerWarning, with its own file and line, above the progress,
    which no user of the harness can act on."""
    need_backend("opencl")
    proc = harness(
        "run", "-k", "Bitonic_PAIRS", "-b", "opencl", "--check", "--strategy", "fused",
        "--steps", "6", "--sizes", "100", "--out", str(tmp_path / "out"),
        env={"POCL_CACHE_DIR": str(tmp_path / "pocl"), "XDG_CACHE_HOME": str(tmp_path / "cache")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in (proc.stdout + proc.stderr).lower(), proc.stderr

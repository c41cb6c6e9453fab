"""Asked sizes, factors, budgets and precisions that build one problem run it once:
rows of one problem at several sizes (or precisions) would be noise drawn as a curve."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import harness, run_folder

from harness import suite
from harness.execution import results
from harness.execution.runner import RunOptions, problem_signature, task_precisions

#: Sizes at which descriptions round to whole elements, squares and cubes.
SIZES = (1, 2, 3, 8, 27, 28, 100, 101, 1000, 1010, 4096, 4100)


def _same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
    return a == b


@pytest.mark.parametrize("spec", suite.ALL, ids=lambda s: s.name)
def test_sizes_of_one_signature_build_the_same_inputs(spec) -> None:
    """The signature (lengths, bytes, FLOPs, launches) is a safe test of one problem:
    wherever two sizes share it, the description makes the same inputs of them."""
    by_signature: dict = {}
    for size in SIZES:
        by_signature.setdefault(problem_signature(spec, size), []).append(size)
    for sizes in by_signature.values():
        for a, b in itertools.pairwise(sizes):
            left, right = spec.init(a, 7, "f64"), spec.init(b, 7, "f64")
            assert left.keys() == right.keys(), (spec.name, a, b)
            for name in left:
                assert _same(left[name], right[name]), (spec.name, a, b, name)


def test_sizes_that_round_to_one_problem_run_once_with_a_note(tmp_path) -> None:
    out = harness(
        "run", "-k", "Apps_MASS3DEA", "Stream_COPY", "-b", "cpu", "--sizes", "5,10,1000,10000",
        "--size-factor", "0.0001", "--reps", "2", "--out", str(tmp_path),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert (
        "note: Apps_MASS3DEA: sizes 5, 10, 1000 and factor 0.0001 build one problem (the same "
        "arrays, bytes and launches); it runs once, at size 5"
    ) in out.stderr
    # Stream_COPY's factor 0.0001 is size 100, another problem: no note of it.
    assert "Stream_COPY:" not in out.stderr
    rows = results.read_journal(run_folder(tmp_path))
    sizes = sorted((r["kernel"], r["size"]) for r in rows)
    assert sizes == [
        ("Apps_MASS3DEA", 5),
        ("Apps_MASS3DEA", 10000),
        *[("Stream_COPY", s) for s in (5, 10, 100, 1000, 10000)],
    ]
    assert all(r["status"] == "ok" for r in rows)


def test_budgets_that_pick_one_problem_run_once_with_a_note(tmp_path) -> None:
    out = harness(
        "run", "-k", "Basic_NESTED_INIT", "-b", "cpu", "--memory-allocated",
        "27KiB,28KiB,30KiB,1MiB", "--reps", "2", "--out", str(tmp_path),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "note: Basic_NESTED_INIT: --memory-allocated 27648, 28672, 30720 build one" in (
        out.stderr
    )
    rows = results.read_journal(run_folder(tmp_path))
    assert len(rows) == 2 and rows[0]["bytes_allocated"] < rows[1]["bytes_allocated"]


def test_kernels_of_fixed_types_run_at_one_precision_of_several(tmp_path) -> None:
    """Integer kernels ran once per precision asked, alike; Demo_SGEMV's f32 data
    was labelled f64 in an f64 run, so two runs of it had no row in common."""
    integers, reals = suite.spec_of("Basic_REDUCE3_INT"), suite.spec_of("Stream_COPY")
    both = RunOptions(precisions=("f32", "f64"))
    assert task_precisions(integers, both) == ("f32",)
    assert task_precisions(reals, both) == ("f32", "f64")
    assert task_precisions(suite.spec_of("Demo_SGEMV"), RunOptions(precision="f64")) == ("f32",)
    assert task_precisions(suite.spec_of("Algorithm_SORT"), both) == ("f64",)
    out = harness(
        "run", "-k", "Basic_REDUCE3_INT", "Stream_COPY", "Demo_SGEMV", "-b", "cpu",
        "--size", "1000", "--precision", "f64", "f32", "--reps", "2", "--out", str(tmp_path),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    notes = [line for line in out.stderr.splitlines() if " data" in line]
    assert notes == [
        "note: Basic_REDUCE3_INT holds no floating-point data (integers only), so it runs "
        "once, at f64, not at each of --precision f64 f32",
        "note: Demo_SGEMV holds f32 data alone, so it runs once, at f32, not at each of "
        "--precision f64 f32",
    ]
    rows = results.read_journal(run_folder(tmp_path))
    assert sorted((r["kernel"], r["precision"]) for r in rows) == [
        ("Basic_REDUCE3_INT", "f64"),
        ("Demo_SGEMV", "f32"),
        ("Demo_SGEMV", "f32"),
        ("Stream_COPY", "f32"),
        ("Stream_COPY", "f64"),
    ]

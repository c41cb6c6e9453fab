"""Sizes picked from a byte budget (--memory-allocated, --memory-moved), as
RAJAPerf 2025.12 picks them."""

from __future__ import annotations

import argparse
import csv

import pytest
from conftest import harness, run_folder

from harness import suite
from harness.cli.arguments import byte_sizes
from harness.execution import results
from harness.execution.runner import (
    MEMORY_MEASURES,
    memory_bytes,
    reaches,
    size_for_memory,
)

BUDGET = 16 << 20


@pytest.mark.parametrize("measure", MEMORY_MEASURES)
@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_every_kernel_gets_the_largest_size_within_the_budget(measure, precision) -> None:
    for spec in suite.ALL:
        if not reaches(spec, precision, measure, BUDGET):
            for size in (1, 10**3, 10**6, 10**8):
                assert memory_bytes(spec, size, precision, measure) <= BUDGET, spec.name
            continue
        size = size_for_memory(spec, precision, measure, BUDGET)
        if size is None:
            assert memory_bytes(spec, 1, precision, measure) > BUDGET, spec.name
            continue
        assert memory_bytes(spec, size, precision, measure) <= BUDGET, spec.name
        assert memory_bytes(spec, size + 1, precision, measure) > BUDGET or (
            memory_bytes(spec, 2 * size + 2, precision, measure) > BUDGET
        ), f"{spec.name}: size {size} is not the largest within the budget"


@pytest.mark.parametrize(
    ("text", "budgets"),
    [
        ("4096", (4096,)),
        ("64MiB", (64 << 20,)),
        ("1GB,1.5k", (10**9, 1536)),
        ("2^20..2^22", (1 << 20, 1 << 21, 1 << 22)),
        ("1MiB..4MiB", (1 << 20, 2 << 20, 4 << 20)),
    ],
)
def test_byte_budgets_parse(text, budgets) -> None:
    assert byte_sizes(text) == budgets


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("lots", "'lots' is not a byte count"),
        ("5 parsecs", "'5 parsecs' is not a byte count"),
        ("3MiB..4MiB", "'3MiB..4MiB': a range runs between powers of two"),
        ("0", "'0': budgets must be positive and rising"),
    ],
)
def test_bad_budgets_say_what_is_accepted(text, message) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        byte_sizes(text)


def test_a_run_by_memory_moved_sweeps_and_notes_what_cannot_fit(tmp_path) -> None:
    proc = harness(
        "run", "-k", "Stream_TRIAD", "Apps_MASS3DPA", "Basic_PI_ATOMIC", "-b", "cpu", "--check",
        "--memory-moved", "1KiB,8MiB", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "note: Apps_MASS3DPA: no size fits --memory-moved 1024" in proc.stderr
    assert "note: Basic_PI_ATOMIC: no size takes --memory-moved 1024, 8388608 bytes" in proc.stderr
    with (run_folder(tmp_path) / results.RESULTS).open() as f:
        rows = list(csv.DictReader(f))
    fixed = [r for r in rows if r["kernel"] == "Basic_PI_ATOMIC"]
    assert [int(r["size"]) for r in fixed] == [suite.BY_NAME["Basic_PI_ATOMIC"].check_size]
    picked = [r for r in rows if r not in fixed]
    assert [r["kernel"] for r in picked] == ["Stream_TRIAD", "Stream_TRIAD", "Apps_MASS3DPA"]
    for row, budget in zip(picked, (1024, 8 << 20, 8 << 20), strict=True):
        spec, size = suite.BY_NAME[row["kernel"]], int(row["size"])
        assert int(row["bytes_per_rep"]) <= budget < memory_bytes(spec, size + 1, "f64", "moved")
    assert all(int(r["bytes_allocated"]) > 0 for r in rows)


def test_memory_budgets_exclude_sizes(tmp_path) -> None:
    proc = harness("run", "--size", "10", "--memory-allocated", "1MiB", "--out", str(tmp_path))
    assert proc.returncode == 2
    assert "not allowed with argument" in proc.stderr

"""Basic NESTED_INIT and MAT_MAT_SHARED, Algorithm MEMSET and MEMCPY.

That every kernel verifies on every backend is tests/test_verification_matrix.py's;
here: RAJAPerf's inputs hide these bugs (equal edges, all-ones matrices, a zero
value, a zero source), so each check case must catch one that the timed inputs pass.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import need_backend, plant

from harness import suite
from harness.execution.runner import Runner, RunOptions, Task, make_inputs


def _planted_row(tmp_path: Path, kernel: str, size: int, original: str, planted: str) -> dict:
    """The verification row of ``kernel`` on OpenCL with one bug planted in its C source."""
    need_backend("opencl")
    folder = plant(tmp_path, "c", f"{kernel}.c", original, planted)
    return Runner(RunOptions(check=True, sources=(folder,))).execute(
        Task(kernel, "opencl", 0, size, "f64")
    )


@pytest.mark.parametrize(
    "kernel, size, case, original, planted",
    [
        # ni = nj = nk and a body symmetric in i, j, k: swapped strides or indices pass.
        (
            "Basic_NESTED_INIT",
            4_096,
            "edges",
            "array[i + ni * (j + nj * k)]",
            "array[i + nj * (j + ni * k)]",
        ),
        (
            "Basic_NESTED_INIT",
            4_096,
            "edges",
            "array[i + ni * (j + nj * k)]",
            "array[j + ni * (i + nj * k)]",
        ),
        # A = B = 1: B read transposed gives the same C.
        (
            "Basic_MAT_MAT_SHARED",
            5_000,
            "random",
            "B[(k * TL_SZ + ty) * N + Col]",
            "B[Col * N + k * TL_SZ + ty]",
        ),
        ("Algorithm_MEMSET", 4_096, "value", "x[i] = val;", "x[i] = (REAL)0;"),
        ("Algorithm_MEMCPY", 4_096, "random", "y[i] = x[i];", "y[i] = x[0];"),
    ],
)
def test_check_case_catches_what_rajaperf_inputs_hide(
    tmp_path: Path, kernel: str, size: int, case: str, original: str, planted: str
) -> None:
    row = _planted_row(tmp_path, kernel, size, original, planted)
    assert row["status"] == "fail", row["reason"]
    assert f"check case '{case}'" in row["reason"] and "timed" not in row["reason"]


def test_nested_init_check_case_edges_differ_and_keep_a_stale_tail() -> None:
    spec = suite.BY_NAME["Basic_NESTED_INIT"]
    init = next(c.init for c in spec.check_cases if c.name == "edges")
    for size in spec.sizes_for_check:
        x = make_inputs(spec, size, 1, "f64", init)
        ni, nj, nk = int(x["ni"]), int(x["nj"]), int(x["nk"])
        assert len({ni, nj, nk}) == 3 and min(ni, nj, nk) > 0
        out = spec.reference(x)["array"]
        inside = ni * nj * nk
        assert inside < out.size
        np.testing.assert_array_equal(out[inside:], x["array"][inside:])
        assert len(np.unique(out[:inside])) > 1

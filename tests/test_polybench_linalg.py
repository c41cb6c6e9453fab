"""The Polybench linear algebra check cases see what RAJAPerf's inputs hide: an
index off by one into an input moves the reference by less than the f32
tolerance on RAJAPerf's inputs, and by far more on the check case's."""

from __future__ import annotations

import numpy as np
import pytest

from harness.suite import polybench_linalg

BY_NAME = {spec.name: spec for spec in polybench_linalg.KERNELS}
#: (kernel, input) pairs whose check case claims an index off by one into the
#: input hides in RAJAPerf's inputs.
OFF_BY_ONE = (
    ("Polybench_2MM", "A"),
    ("Polybench_3MM", "A"),
    ("Polybench_3MM", "C"),
    ("Polybench_ATAX", "x"),
    ("Polybench_GEMVER", "y"),
    ("Polybench_GESUMMV", "x"),
    ("Polybench_GESUMMV", "A"),
    ("Polybench_GESUMMV", "B"),
    ("Polybench_MVT", "y1"),
)


def _moved(name: str, inputs: dict, array: str) -> float:
    """Largest relative change of any reference output when ``array`` is read one
    element along (rolled by one)."""
    spec = BY_NAME[name]
    shifted = {**inputs, array: np.roll(inputs[array], 1)}
    want, got = spec.reference(inputs), spec.reference(shifted)
    return max(float(np.max(np.abs(got[k] - want[k]) / np.abs(want[k]))) for k in want)


@pytest.mark.parametrize(("name", "array"), OFF_BY_ONE)
def test_check_case_shows_an_index_off_by_one(name: str, array: str) -> None:
    spec = BY_NAME[name]
    size = spec.check_sizes[0]
    (case,) = spec.check_cases
    f32 = spec.tolerance.f32
    assert _moved(name, spec.init(size, 1, "f64"), array) < f32
    assert _moved(name, case.init(size, 1, "f64"), array) > 10 * f32

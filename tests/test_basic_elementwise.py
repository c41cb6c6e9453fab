"""Basic's elementwise kernels: their check cases reach what RAJAPerf's inputs miss.

That every kernel verifies on every backend is tests/test_verification_matrix.py's;
here: IF_QUAD's check case takes both branches for either sign of a and has exact
zero discriminants, and COPY8's has eight distinct sources where RAJAPerf's repeat.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness import suite
from harness.execution.runner import make_inputs

SIZE = 4_096


def _case(kernel: str, name: str):
    """The check case of that name of a kernel."""
    spec = suite.BY_NAME[kernel]
    return spec, next(c for c in spec.check_cases if c.name == name)


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_if_quad_check_case_takes_every_branch(precision: str) -> None:
    spec, case = _case("Basic_IF_QUAD", "branches")
    timed = make_inputs(spec, SIZE, 1, precision)
    s = timed["b"] * timed["b"] - 4 * timed["a"] * timed["c"]
    # RAJAPerf's inputs: the branch follows the sign of a, and s is never 0.
    assert np.array_equal(s >= 0, timed["a"] < 0) and not (s == 0).any()
    x = make_inputs(spec, SIZE, 1, precision, case.init)
    a, s = x["a"], x["b"] * x["b"] - 4 * x["a"] * x["c"]
    assert s.dtype == np.dtype(precision.replace("f", "float"))
    for sign in (a > 0, a < 0):
        assert (sign & (s > 0)).any() and (sign & (s < 0)).any() and (sign & (s == 0)).any()
    expected = spec.reference(x)
    assert np.unique(expected["x1"]).size > SIZE // 2


def test_copy8_check_case_copies_distinct_arrays() -> None:
    spec, case = _case("Basic_COPY8", "random")
    timed = make_inputs(spec, SIZE, 1, "f64")
    assert np.array_equal(timed["x0"], timed["x2"])
    x = make_inputs(spec, SIZE, 1, "f64", case.init)
    sources = np.stack([x[f"x{k}"] for k in range(8)])
    assert all(np.unique(column).size == 8 for column in sources.T)

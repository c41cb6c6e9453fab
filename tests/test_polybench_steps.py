"""Polybench's time-stepped kernels and FLOYD_WARSHALL: what their checks rely on."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.suite.polybench_steps import ADI, FLOYD_WARSHALL


@pytest.mark.parametrize("size", [s for s in FLOYD_WARSHALL.sizes_for_check if s > 1])
def test_floyd_warshall_inputs_take_both_sides_of_the_min(size: int) -> None:
    """RAJAPerf's random signs make pin[i][j] the smaller for some (i, j) and the
    path through k for others, at the k that decides pout: no check case needed."""
    pin = FLOYD_WARSHALL.init(size, 1, "f64")["pin"]
    n = math.isqrt(pin.size)
    a = pin.reshape(n, n)
    direct_smaller = a < a[:, -1:] + a[-1:, :]
    assert direct_smaller.any() and not direct_smaller.all()


def test_adi_check_case_solves_stably_with_distinct_coefficients() -> None:
    """The check case's c and f differ from a and d, and its solution is finite
    and varies, so a coefficient or term read in the wrong place shows."""
    case = ADI.check_cases[0]
    inputs = case.init(ADI.check_sizes[0], 1, "f64")
    assert inputs["c"] != inputs["a"] and inputs["f"] != inputs["d"]
    u = ADI.reference(inputs)["U"]
    assert np.isfinite(u).all() and np.ptp(u) > 0

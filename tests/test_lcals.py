"""Lcals DIFF_PREDICT, EOS, FIRST_SUM, GEN_LIN_RECUR, HYDRO_2D, INT_PREDICT,
PLANCKIAN and TRIDIAG_ELIM: what their check cases and sizes claim to reach.

That every kernel verifies on every backend is tests/test_verification_matrix.py's;
here: each check case's inputs make the terms RAJAPerf's inputs hide count,
the check sizes reach the edges the descriptions name, and the constants of
PLANCKIAN's exp are what its comment says.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from harness import suite
from harness.execution.runner import make_inputs
from harness.suite import lcals
from harness.suite.forall import GROUP

SIZE = 4_096


def _case_inputs(kernel: str, case: str = "random", size: int = SIZE) -> dict:
    """A check case's inputs as the runner makes them (cast to the run types)."""
    spec = suite.BY_NAME[kernel]
    init = next(c.init for c in spec.check_cases if c.name == case)
    return make_inputs(spec, size, 1, "f64", init)


def _timed_inputs(kernel: str, size: int = SIZE) -> dict:
    return make_inputs(suite.BY_NAME[kernel], size, 1, "f64")


def _far(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two outputs differ by far more than any tolerance, somewhere."""
    return bool(np.abs(a - b).max() > 1e-3 * np.abs(b).max())


def test_diff_predict_random_planes_all_end_different() -> None:
    spec = suite.BY_NAME["Lcals_DIFF_PREDICT"]
    timed = spec.reference(_timed_inputs("Lcals_DIFF_PREDICT"))["px"].reshape(-1, SIZE)
    assert (timed == timed[0]).all()  # RAJAPerf's: every plane ends equal to cx
    planes = spec.reference(_case_inputs("Lcals_DIFF_PREDICT"))["px"].reshape(-1, SIZE)
    for a, b in itertools.combinations(planes, 2):
        assert (np.abs(a - b) > 0).all()
    assert np.abs(planes).min() >= 0.5  # running differences add up: no cancellation


def test_int_predict_random_case_weighs_every_plane_and_coefficient() -> None:
    spec = suite.BY_NAME["Lcals_INT_PREDICT"]
    x = _case_inputs("Lcals_INT_PREDICT")
    out = spec.reference(x)["px"][:SIZE]
    for a, b in itertools.combinations(lcals.INT_PREDICT_COEFFS, 2):
        swapped = {**x, a: x[b], b: x[a]}
        assert _far(spec.reference(swapped)["px"][:SIZE], out), (a, b)
    for plane in (2, 4, 5, 6, 7, 8, 9, 10, 11, 12):
        moved = x["px"].copy()
        moved[plane * SIZE : (plane + 1) * SIZE] = np.roll(
            moved[plane * SIZE : (plane + 1) * SIZE], 1
        )
        assert _far(spec.reference({**x, "px": moved})["px"][:SIZE], out), plane


def test_eos_random_case_has_distinct_scalars() -> None:
    timed = _timed_inputs("Lcals_EOS")
    assert timed["q"] == timed["t"]  # why RAJAPerf's inputs cannot tell q from t
    x = _case_inputs("Lcals_EOS")
    spec = suite.BY_NAME["Lcals_EOS"]
    out = spec.reference(x)["x"]
    for a, b in itertools.combinations("qrt", 2):
        assert _far(spec.reference({**x, a: x[b], b: x[a]})["x"], out), (a, b)


@pytest.mark.parametrize("kernel, out", [("Lcals_FIRST_SUM", "x"), ("Lcals_TRIDIAG_ELIM", "xout")])
def test_loops_from_one_keep_a_stale_first_element(kernel: str, out: str) -> None:
    spec = suite.BY_NAME[kernel]
    x = _case_inputs(kernel)
    got = spec.reference(x)[out]
    assert x[out][0] != 0 and got[0] == x[out][0]
    assert (np.sign(x["y"]) < 0).any() and (np.sign(x["y"]) > 0).any()
    # One of the check sizes makes i = 1 .. n-1 whole work-groups, one does not.
    items = {(lcals.from_one_length(s) - 1) % GROUP for s in spec.sizes_for_check}
    assert 0 in items and len(items) > 1


def test_gen_lin_recur_random_case_does_not_cancel() -> None:
    spec = suite.BY_NAME["Lcals_GEN_LIN_RECUR"]
    out = spec.reference(_case_inputs("Lcals_GEN_LIN_RECUR"))
    assert out["b5"].min() > 0 and out["stb5"].min() > 0


def test_planckian_random_case_spreads_y() -> None:
    y = lcals.PLANCKIAN.reference(_case_inputs("Lcals_PLANCKIAN"))["y"]
    timed = lcals.PLANCKIAN.reference(_timed_inputs("Lcals_PLANCKIAN"))["y"]
    assert np.ptp(timed) < 1e-12  # RAJAPerf's u/v is one value
    assert y.min() < 0.5 and y.max() > 3.0


def test_planckian_exp_constants() -> None:
    c = lcals.PLANCKIAN_CONSTANTS
    assert c["LN2_HI"] + c["LN2_LO"] == pytest.approx(math.log(2), rel=1e-16)
    assert c["LOG2E"] == pytest.approx(1 / math.log(2), rel=1e-16)
    assert c["EXP_SHIFT"] == 1.5 * 2**52
    # k * LN2_HI is exact in f64 for |k| < 2^21: its last 21 bits are zero.
    assert (int(c["LN2_HI"] * 2**53) & (2**21 - 1)) == 0
    # The first Taylor term left out is below f64's rounding on |r| <= ln2/2;
    # one term fewer would not be.
    terms = c["EXP_TERMS"]
    r = math.log(2) / 2
    assert r ** (terms + 1) / math.factorial(terms + 1) < 2**-53
    assert r**terms / math.factorial(terms) > 2**-60


def test_hydro_2d_sizes() -> None:
    assert lcals.hydro_2d_edge(lcals.HYDRO_2D.default_size) == 1000  # RAJAPerf's kn = jn
    inner = {lcals.hydro_2d_edge(s) - 2 for s in lcals.HYDRO_2D.sizes_for_check}
    assert {-1, 1} <= inner  # no interior point, and one
    assert any(m > 0 and m * m % GROUP == 0 for m in inner)


def test_hydro_2d_random_case_weighs_the_updates() -> None:
    spec = lcals.HYDRO_2D
    x = _case_inputs("Lcals_HYDRO_2D", size=310)
    timed = _timed_inputs("Lcals_HYDRO_2D", size=310)
    assert min(x["s"], x["t"]) > 50 * max(timed["s"], timed["t"])
    out = spec.reference(x)
    for name in ("zu", "zv"):
        assert _far(out[name], x[name])  # the flux update moves zu, zv by far more than tolerance
    for name, base in (("zrout", "zr"), ("zzout", "zz")):
        assert _far(out[name], x[base])

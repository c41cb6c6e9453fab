"""Apps_FEMSWEEP: its check cases reach what they claim, and its f32 verification judges."""

from __future__ import annotations

import numpy as np
import pytest

from harness.model.spec import Grid
from harness.suite.apps import femsweep as F

SIZE = F.KERNEL.check_sizes[0]


def _x(inputs: dict) -> np.ndarray:
    return F.KERNEL.reference(inputs)["Xdat"]


def test_check_meshes_have_every_upwind_face() -> None:
    """Every local face is upwind for some angle, from either element's side (type 1
    or 2), on some check mesh: on 2^3 elements faces 2 and 4 each miss a side."""
    seen: list[set] = [set() for _ in range(F.NLF)]
    for size in F.KERNEL.check_sizes:
        types = F.KERNEL.init(size, 1, "f64")["AngleElem2FaceType"].reshape(F.ANGLES, -1, F.NLF)
        for lf in range(F.NLF):
            seen[lf] |= set(np.unique(types[:, :, lf]).tolist())
    assert all({1, 2} <= s for s in seen)


@pytest.mark.parametrize("case", F.KERNEL.check_cases, ids=lambda c: c.name)
def test_coupling_moves_every_element_with_an_upwind_neighbour(case) -> None:
    """Ffactor is exactly 1 at every angle, and X moves wherever an upwind face is,
    against the same inputs with RAJAPerf's Ffactor of 0."""
    inputs = case.init(SIZE, 1, "f64")
    ne, na = inputs["ne"], F.ANGLES
    a0 = inputs["Adat"][(inputs["order_r"][np.arange(na) * ne] + np.arange(na) * ne) * F.ND**2]
    assert np.all(np.maximum(np.sin(a0) - inputs["fshift"], 0.0) == 1.0)
    uncoupled = {**inputs, "fshift": 2.0}
    moved = (_x(inputs) != _x(uncoupled)).reshape(na, F.GROUPS, ne, F.ND).all(axis=(1, 3))
    types = inputs["AngleElem2FaceType"].reshape(na, ne, F.NLF)
    assert np.array_equal(moved, (types != 0).any(axis=2))


def test_f32_verification_holds_each_solve_not_the_answer() -> None:
    """RAJAPerf's systems solved in f32 land far from f64's X at some elements, yet pass;
    X off by one part in 1e4 where it is largest does not."""
    inputs = F.KERNEL.init(SIZE, 1, "f32")
    small = {k: v.astype(np.float32) if getattr(v, "dtype", None) == np.float64 else v
             for k, v in inputs.items()}  # fmt: skip
    small["fshift"] = np.float32(2.0)
    launch = F.KERNEL.plan(SIZE)[0]
    F.KERNEL.cpu["femsweep"](Grid(launch.items, launch.group), *(small[n] for n in F._ARGS))
    reference = _x(inputs)
    X = small["Xdat"]
    assert np.max(np.abs(X - reference) / np.abs(reference)) > F.KERNEL.tolerance.f32
    assert F.KERNEL.verify(inputs, {"Xdat": X}, reference).ok
    X[np.argmax(np.abs(X))] *= 1 + 1e-4
    assert not F.KERNEL.verify(inputs, {"Xdat": X}, reference).ok

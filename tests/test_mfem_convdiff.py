"""CONVECTION3DPA's and DIFFUSION3DPA's check cases tell apart the mistakes RAJAPerf's
all-ones inputs hide: a basis swapped for another or read transposed, the quadrature
data's components mixed up, Y overwritten instead of updated."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from harness.suite.apps import convection3dpa, diffusion3dpa
from harness.suite.apps.mfem_3d import D1D, Q1D

SIZE = 100


def _transposed(basis: np.ndarray) -> np.ndarray:
    """A Q1D x D1D basis stored row-major instead of column-major."""
    return basis.reshape(Q1D, D1D).T.ravel().copy()


def _rolled(components: int) -> Callable[[np.ndarray], np.ndarray]:
    """The quadrature data with its components shifted by one place."""
    return lambda d: np.roll(d.reshape(-1, components, Q1D**3), 1, axis=1).ravel()


SPECS = {spec.name: spec for spec in (convection3dpa.KERNEL, diffusion3dpa.KERNEL)}
MISTAKES = {
    convection3dpa.KERNEL.name: {
        "B for G": lambda x: {**x, "dBasis": x["Basis"]},
        "B for Bt": lambda x: {**x, "tBasis": x["Basis"]},
        "B transposed": lambda x: {**x, "Basis": _transposed(x["Basis"])},
        "Bt transposed": lambda x: {**x, "tBasis": _transposed(x["tBasis"])},
        "velocity components": lambda x: {**x, "D": _rolled(convection3dpa.VDIM)(x["D"])},
        "Y overwritten": lambda x: {**x, "Y": np.zeros_like(x["Y"])},
    },
    diffusion3dpa.KERNEL.name: {
        "G transposed": lambda x: {**x, "dBasis": _transposed(x["dBasis"])},
        "coefficients": lambda x: {**x, "D": _rolled(diffusion3dpa.DPA_SYM)(x["D"])},
        "Y overwritten": lambda x: {**x, "Y": np.zeros_like(x["Y"])},
    },
}


@pytest.mark.parametrize(
    ("kernel", "mistake"), [(k, name) for k, mistakes in MISTAKES.items() for name in mistakes]
)
def test_check_case_shows_what_rajaperf_inputs_hide(kernel: str, mistake: str) -> None:
    spec, change = SPECS[kernel], MISTAKES[kernel][mistake]
    timed = spec.init(SIZE, 1, "f64")
    checked = spec.check_cases[0].init(SIZE, 1, "f64")
    same = spec.reference(timed)["Y"], spec.reference(change(timed))["Y"]
    differ = spec.reference(checked)["Y"], spec.reference(change(checked))["Y"]
    np.testing.assert_allclose(*same, rtol=1e-12)
    assert not np.allclose(*differ, rtol=1e-6)

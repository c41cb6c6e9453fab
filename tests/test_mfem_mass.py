"""The MFEM mass kernels' check case: its inputs tell apart what RAJAPerf's cannot."""

from __future__ import annotations

import numpy as np
import pytest

from harness.model.spec import KernelSpec
from harness.suite.apps import mass3dea, mass3dpa, mass3dpa_atomic, massvec3dpa

KERNELS = [m.KERNEL for m in (mass3dpa, mass3dpa_atomic, massvec3dpa, mass3dea)]


@pytest.mark.parametrize("spec", KERNELS, ids=lambda spec: spec.name)
def test_check_case_sees_every_input_reversed(spec: KernelSpec) -> None:
    """Reversing any real input the kernel reads (a basis transposed, points or dofs in
    the wrong order) leaves the reference's output unchanged on RAJAPerf's constant
    inputs, and changes it on the check case's."""
    size = spec.check_sizes[-1]
    (output,) = (a.name for a in spec.outputs)
    read = [a.name for a in spec.arrays if a.dtype == "real" and a.intent in ("in", "inout")]
    for init, tells in ((spec.init, False), (spec.check_cases[0].init, True)):
        inputs = init(size, 1, "f64")
        base = spec.reference(inputs)[output]
        for name in read:
            flipped = spec.reference({**inputs, name: inputs[name][::-1].copy()})[output]
            assert (not np.allclose(flipped, base, rtol=1e-12, atol=0)) == tells, (name, tells)

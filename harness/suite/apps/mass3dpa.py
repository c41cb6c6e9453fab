"""Apps_MASS3DPA (RAJAPerf's MASS3DPA.cpp): MFEM's 3-D mass operator applied element
by element, by partial assembly and sum factorisation.

RAJAPerf reads Bt as Bt(q, d) = Bt[q + D1D*d] (its MPA_Bt macro strides by D1D,
not Q1D), so the entries it uses overlap and the last three are never read; the
kernel reads exactly those, and the reference does too.
"""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import NORMAL, KernelSpec, Traffic
from harness.suite.apps import mfem
from harness.suite.apps.mfem import NE, basis, by_element, mass_apply, mass_flops
from harness.suite.apps.shared import GROUP_NAME, real

#: Degrees of freedom and quadrature points along an axis (RAJAPerf's mpa::).
D1D = 4
Q1D = 5
_DOFS = D1D**3
_ARGS = ("B", "Bt", "D", "X", "Y")


def _elements(size: int) -> int:
    return mfem.elements(size, _DOFS)


def _init(size: int, seed: int, precision: str) -> dict:
    ne = _elements(size)
    d = DataInit()
    return {
        "B": d.const(Q1D * D1D, 1.0),
        "Bt": d.const(Q1D * D1D, 1.0),
        "D": d.const(Q1D**3 * ne, 1.0),
        "X": d.const(_DOFS * ne, 1.0),
        "Y": d.const(_DOFS * ne, 0.0),
    }


def _apply(B, Bt, D, X, Y, ne: int) -> None:
    """Y += the mass operator on X over ne elements; Bt read as RAJAPerf reads it."""
    bt = Bt[np.arange(Q1D)[None, :] + D1D * np.arange(D1D)[:, None]]
    by_element(Y, ne, D1D, D1D, D1D)[...] += mass_apply(
        basis(B, Q1D, D1D),
        bt,
        by_element(X, ne, D1D, D1D, D1D),
        by_element(D, ne, Q1D, Q1D, Q1D),
    )


def _traffic(size: int, b: int) -> Traffic:
    ne = _elements(size)
    return Traffic(read=b * (2 * Q1D * D1D + _DOFS * ne + Q1D**3 * ne), modify_write=b * _DOFS * ne)


KERNEL = KernelSpec(
    name="Apps_MASS3DPA",
    group=GROUP_NAME,
    summary="MFEM 3-D mass operator by partial assembly: Y += Bt D B X per element",
    arrays=(
        real("B", lambda size: Q1D * D1D),
        real("Bt", lambda size: Q1D * D1D),
        real("D", lambda size: Q1D**3 * _elements(size)),
        real("X", lambda size: _DOFS * _elements(size)),
        real("Y", lambda size: _DOFS * _elements(size), "inout"),
    ),
    scalars=(NE,),
    plan=mfem.element_plan("mass3dpa", _ARGS, (Q1D, Q1D), _elements),
    init=_init,
    reference=mfem.reference(_apply, _ARGS, output="Y", counted="X", per_element=_DOFS),
    cpu={"mass3dpa": mfem.cpu(_apply)},
    traffic=_traffic,
    flops=lambda size: _elements(size) * (mass_flops(D1D, Q1D) + _DOFS),
    default_size=8_000 * _DOFS,
    default_reps=50,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Launch",),
    constants={"D1D": D1D, "Q1D": Q1D},
    group_size=(Q1D, Q1D),
    check_cases=(
        mfem.random_case(
            _init,
            "RAJAPerf's B, Bt, X and D are all ones and Y zero, so B read transposed, "
            "Bt for B, an index order swapped or an overwrite of Y gives the same Y; "
            "these are random, Y stale",
        ),
    ),
    check_sizes=mfem.check_sizes(_DOFS, mfem.CHECK_ELEMENTS),
)

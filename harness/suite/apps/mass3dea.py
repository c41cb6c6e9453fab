"""Apps_MASS3DEA (RAJAPerf's MASS3DEA.cpp): MFEM's 3-D mass matrix assembled element
by element (element assembly): every element's D1D^3 x D1D^3 matrix entry summed
over the Q1D^3 quadrature points."""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import NORMAL, KernelSpec, Traffic
from harness.suite.apps import mfem
from harness.suite.apps.mfem import NE, basis, by_element
from harness.suite.apps.shared import GROUP_NAME, real

#: Degrees of freedom and quadrature points along an axis (RAJAPerf's mea::).
D1D = 4
Q1D = 5
#: Entries of one element's matrix.
_ENTRIES = D1D**6
_ARGS = ("B", "D", "M")


def _elements(size: int) -> int:
    return mfem.elements(size, _ENTRIES)


def _init(size: int, seed: int, precision: str) -> dict:
    ne = _elements(size)
    d = DataInit()
    return {
        "B": d.const(Q1D * D1D, 1.0),
        "D": d.const(Q1D**3 * ne, 1.0),
        "M": d.const(_ENTRIES * ne, 0.0),
    }


def _assemble(B, D, M, ne: int) -> None:
    """M[e][j3][j2][j1][i3][i2][i1] = sum over points (k1, k2, k3) of
    B(k1, i1) B(k1, j1) B(k2, i2) B(k2, j2) B(k3, i3) B(k3, j3) D[e][k3][k2][k1]."""
    b = basis(B, Q1D, D1D)
    bb = np.einsum("ki,kj->kij", b, b)
    by_element(M, ne, *(D1D,) * 6)[...] = np.einsum(
        "ecba,aiI,bjJ,ckK->eKJIkji", by_element(D, ne, Q1D, Q1D, Q1D), bb, bb, bb, optimize=True
    )


KERNEL = KernelSpec(
    name="Apps_MASS3DEA",
    group=GROUP_NAME,
    summary="MFEM 3-D mass matrix by element assembly: M_e = Bt D B, entry by entry",
    arrays=(
        real("B", lambda size: Q1D * D1D),
        real("D", lambda size: Q1D**3 * _elements(size)),
        real("M", lambda size: _ENTRIES * _elements(size), "out"),
    ),
    scalars=(NE,),
    plan=mfem.element_plan("mass3dea", _ARGS, (D1D, D1D, D1D), _elements),
    init=_init,
    reference=mfem.reference(_assemble, _ARGS, output="M", counted="M", per_element=_ENTRIES),
    cpu={"mass3dea": mfem.cpu(_assemble)},
    traffic=lambda size, b: Traffic(
        read=b * (Q1D * D1D + Q1D**3 * _elements(size)), write=b * _ENTRIES * _elements(size)
    ),
    flops=lambda size: 7 * _ENTRIES * _elements(size),
    default_size=8_000 * D1D**3,
    default_reps=1,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Launch",),
    constants={"D1D": D1D, "Q1D": Q1D},
    group_size=(D1D, D1D, D1D),
    check_cases=(
        mfem.random_case(
            _init,
            "RAJAPerf's B and D are all ones, so every entry of M is Q1D^3: B read "
            "transposed, a row index for a column one, or a point's D taken from "
            "another gives the same M; these are random",
        ),
    ),
    check_sizes=mfem.check_sizes(_ENTRIES, mfem.CHECK_ELEMENTS),
)

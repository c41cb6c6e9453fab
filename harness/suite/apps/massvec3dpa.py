"""Apps_MASSVEC3DPA (RAJAPerf's MASSVEC3DPA.cpp): MFEM's 3-D vector mass operator
applied element by element, each of DIM components by partial assembly and sum
factorisation, Y overwritten."""

from __future__ import annotations

from harness.model.rajaperf import DataInit
from harness.model.spec import NORMAL, KernelSpec, Traffic
from harness.suite.apps import mfem
from harness.suite.apps.mfem import NE, basis, by_element, mass_apply, mass_flops
from harness.suite.apps.shared import GROUP_NAME, real

#: Degrees of freedom and quadrature points along an axis, components (RAJAPerf's mvpa::).
D1D = 3
Q1D = 4
DIM = 3
_DOFS = DIM * D1D**3
_ARGS = ("B", "D", "X", "Y")


def _elements(size: int) -> int:
    """RAJAPerf's NE: the size over DIM * Q1D^3 (points, not dofs), rounded."""
    return mfem.elements(size, DIM * Q1D**3)


def _init(size: int, seed: int, precision: str) -> dict:
    ne = _elements(size)
    d = DataInit()
    return {
        "B": d.const(Q1D * D1D, 1.0),
        "D": d.const(Q1D**3 * ne, 1.0),
        "X": d.const(_DOFS * ne, 1.0),
        "Y": d.const(_DOFS * ne, 0.0),
    }


def _apply(B, D, X, Y, ne: int) -> None:
    """Y = the mass operator on each component of X over ne elements."""
    b = basis(B, Q1D, D1D)
    x = by_element(X, ne, DIM, D1D, D1D, D1D)
    d = by_element(D, ne, 1, Q1D, Q1D, Q1D)
    y = by_element(Y, ne, DIM, D1D, D1D, D1D)
    for c in range(DIM):
        y[:, c] = mass_apply(b, b.T, x[:, c], d[:, 0])


def _traffic(size: int, b: int) -> Traffic:
    ne = _elements(size)
    return Traffic(read=b * (Q1D * D1D + _DOFS * ne + Q1D**3 * ne), write=b * _DOFS * ne)


KERNEL = KernelSpec(
    name="Apps_MASSVEC3DPA",
    group=GROUP_NAME,
    summary="MFEM 3-D vector mass operator by partial assembly: Y = Bt D B X per component",
    arrays=(
        real("B", lambda size: Q1D * D1D),
        real("D", lambda size: Q1D**3 * _elements(size)),
        real("X", lambda size: _DOFS * _elements(size)),
        real("Y", lambda size: _DOFS * _elements(size), "out"),
    ),
    scalars=(NE,),
    plan=mfem.element_plan("massvec3dpa", _ARGS, (Q1D, Q1D, Q1D), _elements),
    init=_init,
    reference=mfem.reference(_apply, _ARGS, output="Y", counted="X", per_element=_DOFS),
    cpu={"massvec3dpa": mfem.cpu(_apply)},
    traffic=_traffic,
    flops=lambda size: _elements(size) * DIM * mass_flops(D1D, Q1D),
    default_size=5_208 * _DOFS,
    default_reps=50,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Launch",),
    constants={"D1D": D1D, "Q1D": Q1D, "DIM": DIM},
    group_size=(Q1D, Q1D, Q1D),
    check_cases=(
        mfem.random_case(
            _init,
            "RAJAPerf's B, X and D are all ones and Y zero, so B read transposed, an "
            "index order swapped, components mixed up or Y added to instead of "
            "overwritten gives the same Y; these are random, Y stale",
        ),
    ),
    check_sizes=mfem.check_sizes(DIM * Q1D**3, mfem.CHECK_ELEMENTS),
)

"""Apps_MASS3DPA_ATOMIC (RAJAPerf's MASS3DPA_ATOMIC.cpp): MFEM's 3-D mass operator
on a structured hexahedral mesh whose elements share dofs, by partial assembly and
sum factorisation, each element gathering X through its dof map and adding to Y
atomically.

RAJAPerf builds a cube of Nx^3 elements of order P = D1D - 1 from the target size
(Nx the floored cube root of size / P^3); the problem size is the dof count,
(Nx P + 1)^3. Its dof map is 64-bit; here it is 32-bit (4 bytes each).
"""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import NORMAL, Array, CheckCase, KernelSpec, Traffic
from harness.suite.apps import mfem
from harness.suite.apps.mesh import INDEX, INDEX_BYTES
from harness.suite.apps.mfem import NE, basis, by_element, mass_apply, mass_flops
from harness.suite.apps.shared import GROUP_NAME, real

#: Degrees of freedom and quadrature points along an axis (RAJAPerf's mpa_at::).
D1D = 3
Q1D = 4
#: Polynomial order.
P = D1D - 1
_ARGS = ("B", "D", "X", "ElemToDoF", "Y")


def mesh_elements(size: int) -> int:
    """Elements along each axis: the cube root of size / P^3, floored as RAJAPerf's
    std::cbrt and cast do."""
    return int(np.cbrt(float(max(size // P**3, 1))))


def _elements(size: int) -> int:
    return mesh_elements(size) ** 3


def _dofs(size: int) -> int:
    return (mesh_elements(size) * P + 1) ** 3


def elem_to_dof(nx: int) -> np.ndarray:
    """RAJAPerf's buildElemToDofTable for an nx^3 mesh: element ex + nx (ey + nx ez)
    lists its nodes kx + D1D (ky + D1D kz), node (ix, iy, iz) being dof ix + n (iy + n iz)
    with n = nx P + 1 nodes along each axis."""
    n = nx * P + 1
    e = np.arange(nx)
    k = np.arange(D1D)
    ez, ey, ex, kz, ky, kx = np.ix_(e, e, e, k, k, k)
    dofs = (ex * P + kx) + n * ((ey * P + ky) + n * (ez * P + kz))
    return dofs.reshape(-1).astype(np.int32)


def _init(size: int, seed: int, precision: str) -> dict:
    ne, dofs = _elements(size), _dofs(size)
    d = DataInit()
    return {
        "B": d.const(Q1D * D1D, 1.0),
        "D": d.const(Q1D**3 * ne, 1.0),
        "X": d.const(dofs, 1.0),
        "Y": d.const(dofs, 0.0),
        "ElemToDoF": elem_to_dof(mesh_elements(size)),
    }


def _contended_init(size: int, seed: int, precision: str) -> dict:
    """Random inputs, every entry of every element at one dof."""
    inputs = mfem.randomised(_init)(size, seed, precision)
    inputs["ElemToDoF"] = np.full_like(inputs["ElemToDoF"], inputs["ElemToDoF"][0])
    return inputs


def _apply(B, D, X, ElemToDoF, Y, ne: int) -> None:
    """Y += each element's mass operator on its gathered X, at its dofs."""
    b = basis(B, Q1D, D1D)
    dofs = by_element(ElemToDoF, ne, D1D, D1D, D1D)
    ye = mass_apply(b, b.T, X[dofs], by_element(D, ne, Q1D, Q1D, Q1D))
    np.add.at(Y, dofs, ye)


def _traffic(size: int, b: int) -> Traffic:
    ne, dofs = _elements(size), _dofs(size)
    return Traffic(
        read=b * Q1D * D1D + INDEX_BYTES * D1D**3 * ne + b * dofs + b * Q1D**3 * ne,
        atomic_modify_write=b * dofs,
    )


KERNEL = KernelSpec(
    name="Apps_MASS3DPA_ATOMIC",
    group=GROUP_NAME,
    summary="MFEM 3-D mass operator on shared dofs: Y[dofs] += Bt D B X[dofs] per element, atomic",
    arrays=(
        real("B", lambda size: Q1D * D1D),
        real("D", lambda size: Q1D**3 * _elements(size)),
        real("X", _dofs),
        Array("ElemToDoF", INDEX, lambda size: D1D**3 * _elements(size)),
        real("Y", _dofs, "inout"),
    ),
    scalars=(NE,),
    plan=mfem.element_plan("mass3dpa_atomic", _ARGS, (Q1D, Q1D, Q1D), _elements),
    init=_init,
    reference=mfem.reference(_apply, _ARGS, output="Y", counted="ElemToDoF", per_element=D1D**3),
    cpu={"mass3dpa_atomic": mfem.cpu(_apply)},
    traffic=_traffic,
    flops=lambda size: _elements(size) * (mass_flops(D1D, Q1D) + D1D**3),
    default_size=1_000_000,
    default_reps=50,
    tolerance=NORMAL,
    features=frozenset({"local_memory", "atomics"}),
    # Doubles are added by a 64-bit compare-and-swap loop.
    precision_features={"f64": frozenset({"atomics64"})},
    rajaperf_features=("Launch", "Atomic"),
    constants={"D1D": D1D, "Q1D": Q1D},
    group_size=(Q1D, Q1D, Q1D),
    check_cases=(
        mfem.random_case(
            _init,
            "RAJAPerf's B, X and D are all ones and Y zero, so B read transposed, an "
            "index order swapped, a dof taken from a neighbour's place or an add "
            "that loses to another element's gives a Y too near the right one to "
            "tell; these are random, Y stale",
        ),
        CheckCase(
            "contended",
            _contended_init,
            "RAJAPerf's mesh shares a dof among at most 8 elements and no two work-items "
            "of a group add to the same dof; here every work-item of every group adds to "
            "one dof, so an atomic add that drops or repeats a concurrent update shows",
        ),
    ),
    # 5^3 elements over a 12 x 11 grid (7 groups idle), one element, 2^3 over 3 x 3.
    check_sizes=(125 * P**3, 1 * P**3, 8 * P**3),
)

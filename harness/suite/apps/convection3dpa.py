"""Apps_CONVECTION3DPA (RAJAPerf's CONVECTION3DPA.cpp): MFEM's 3-D convection operator
applied element by element, by partial assembly and sum factorisation."""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import NORMAL, CheckCase, Grid, KernelSpec
from harness.suite.apps.mfem import NE, by_element, random_inputs
from harness.suite.apps.mfem_3d import (
    CHECK_SIZES,
    CONSTANTS,
    D1D,
    DEFAULT_ELEMENTS,
    ELEMENT_GROUP,
    Q1D,
    basis,
    basis_length,
    dofs,
    element_plan,
    elements,
    pa_traffic,
    quad_length,
    transposed_basis,
)
from harness.suite.apps.shared import GROUP_NAME, real, wide

#: Components of the velocity at each quadrature point (RAJAPerf's conv::VDIM).
VDIM = 3
_ARGS = ("Basis", "tBasis", "dBasis", "D", "X", "Y")


def _init(size: int, seed: int, precision: str) -> dict:
    ne = elements(size)
    d = DataInit()
    return {
        "Basis": d.const(Q1D * D1D, 1.0),
        "tBasis": d.const(Q1D * D1D, 1.0),
        "dBasis": d.const(Q1D * D1D, 1.0),
        "D": d.const(VDIM * Q1D**3 * ne, 1.0),
        "X": d.const(D1D**3 * ne, 1.0),
        "Y": d.const(D1D**3 * ne, 0.0),
    }


def _check_init(size: int, seed: int, precision: str) -> dict:
    return random_inputs(_init(size, seed, precision), seed)


def _apply(Basis, tBasis, dBasis, D, X, Y, ne: int) -> None:
    """Y += the operator on X over ne elements, RAJAPerf's stages 2 to 8 one
    contraction each (element e, dofs d, points q; z, y, x axes in that order)."""
    B, Bt, G = basis(Basis), transposed_basis(tBasis), basis(dBasis)
    u = by_element(X, ne, D1D, D1D, D1D)
    op = by_element(D, ne, VDIM, Q1D, Q1D, Q1D)
    Bu = np.einsum("qx,ezyx->ezyq", B, u)
    Gu = np.einsum("qx,ezyx->ezyq", G, u)
    BBu = np.einsum("qy,ezyx->ezqx", B, Bu)
    GBu = np.einsum("qy,ezyx->ezqx", G, Bu)
    BGu = np.einsum("qy,ezyx->ezqx", B, Gu)
    GBBu = np.einsum("qz,ezyx->eqyx", G, BBu)
    BGBu = np.einsum("qz,ezyx->eqyx", B, GBu)
    BBGu = np.einsum("qz,ezyx->eqyx", B, BGu)
    DGu = op[:, 0] * BBGu + op[:, 1] * BGBu + op[:, 2] * GBBu
    BDGu = np.einsum("dz,ezyx->edyx", Bt, DGu)
    BBDGu = np.einsum("dy,ezyx->ezdx", Bt, BDGu)
    by_element(Y, ne, D1D, D1D, D1D)[...] += np.einsum("dx,ezyx->ezyd", Bt, BBDGu)


def _cpu(grid: Grid, Basis, tBasis, dBasis, D, X, Y, NE) -> None:
    _apply(Basis, tBasis, dBasis, D, X, Y, NE)


def _reference(inputs: dict) -> dict:
    a = wide(inputs)
    _apply(*(a[name] for name in _ARGS), a["X"].size // D1D**3)
    return {"Y": a["Y"]}


def _flops(size: int) -> int:
    """RAJAPerf's count, stage by stage (2 to 8)."""
    d, q = D1D, Q1D
    per_element = (
        4 * d * q * d * d
        + 6 * d * q * q * d
        + 6 * d * q * q * q
        + 5 * q * q * q
        + 2 * q * d * q * q
        + 2 * q * d * q * d
        + (1 + 2 * q) * d * d * d
    )
    return elements(size) * per_element


KERNEL = KernelSpec(
    name="Apps_CONVECTION3DPA",
    group=GROUP_NAME,
    summary="MFEM 3-D convection operator by partial assembly: Y += Bt^3 (D . grad(B^3 X))",
    arrays=(
        real("Basis", basis_length),
        real("tBasis", basis_length),
        real("dBasis", basis_length),
        real("D", quad_length(VDIM)),
        real("X", dofs),
        real("Y", dofs, "inout"),
    ),
    scalars=(NE,),
    plan=element_plan("convection3dpa", _ARGS),
    init=_init,
    reference=_reference,
    cpu={"convection3dpa": _cpu},
    traffic=pa_traffic(3, VDIM),
    flops=_flops,
    default_size=DEFAULT_ELEMENTS * D1D**3,
    default_reps=50,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Launch",),
    constants={**CONSTANTS, "VDIM": VDIM},
    group_size=ELEMENT_GROUP,
    check_cases=(
        CheckCase(
            "random",
            _check_init,
            "RAJAPerf's bases, X and D are all ones and Y zero, so B, Bt and G, their "
            "index orders and the three velocity components are interchangeable and an "
            "overwrite of Y looks like an update; these are random, Y stale",
        ),
    ),
    check_sizes=CHECK_SIZES,
)

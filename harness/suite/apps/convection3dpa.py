"""Apps_CONVECTION3DPA (RAJAPerf's CONVECTION3DPA.cpp): MFEM's 3-D convection operator
applied element by element, by partial assembly and sum factorisation."""

from __future__ import annotations

import numpy as np

from harness.suite.apps.mfem import by_element
from harness.suite.apps.mfem_3d import D1D, Q1D, basis, kernel, transposed_basis

#: Components of the velocity at each quadrature point (RAJAPerf's conv::VDIM).
VDIM = 3


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


def _flops_per_element() -> int:
    """RAJAPerf's count, stage by stage (2 to 8)."""
    d, q = D1D, Q1D
    return (
        4 * d * q * d * d
        + 6 * d * q * q * d
        + 6 * d * q * q * q
        + 5 * q * q * q
        + 2 * q * d * q * q
        + 2 * q * d * q * d
        + (1 + 2 * q) * d * d * d
    )


KERNEL = kernel(
    name="Apps_CONVECTION3DPA",
    summary="MFEM 3-D convection operator by partial assembly: Y += Bt^3 (D . grad(B^3 X))",
    entry="convection3dpa",
    bases=("Basis", "tBasis", "dBasis"),
    components=VDIM,
    args=("Basis", "tBasis", "dBasis", "D", "X", "Y"),
    apply=_apply,
    flops=_flops_per_element(),
    constants={"VDIM": VDIM},
    why="RAJAPerf's bases, X and D are all ones and Y zero, so B, Bt and G, their "
    "index orders and the three velocity components are interchangeable and an "
    "overwrite of Y looks like an update; these are random, Y stale",
)

"""Apps_DIFFUSION3DPA (RAJAPerf's DIFFUSION3DPA.cpp): MFEM's 3-D diffusion operator
applied element by element, by partial assembly and sum factorisation.

RAJAPerf stages the bases in one shared array, ``sBG``, that its B, G, Bt and Gt
all point to: each load writes B then G (Bt then Gt) to the same place, so G's
value stays. Base_Seq and the GPU variants therefore use dBasis for all four, B
= G = dBasis and Bt = Gt = its transpose, and never use Basis's values; this
kernel computes exactly that, and allocates Basis (RAJAPerf counts its bytes) without
passing it.
"""

from __future__ import annotations

import numpy as np

from harness.suite.apps.mfem import by_element
from harness.suite.apps.mfem_3d import D1D, Q1D, basis, kernel

#: Values of the symmetric 3 x 3 coefficient per quadrature point (RAJAPerf's
#: diff::DPA_SYM): O11, O12, O13, O22, O23, O33.
DPA_SYM = 6


def _apply(dBasis, D, X, Y, ne: int) -> None:
    """Y += the operator on X over ne elements, RAJAPerf's stages 3 to 9 one
    contraction each (element e, dofs d, points q; z, y, x axes in that order)."""
    B = G = basis(dBasis)
    Bt = Gt = B.T
    s_X = by_element(X, ne, D1D, D1D, D1D)
    O11, O12, O13, O22, O23, O33 = np.moveaxis(by_element(D, ne, DPA_SYM, Q1D, Q1D, Q1D), 1, 0)
    DDQ0 = np.einsum("ezyx,qx->ezyq", s_X, B)
    DDQ1 = np.einsum("ezyx,qx->ezyq", s_X, G)
    DQQ0 = np.einsum("ezyx,qy->ezqx", DDQ1, B)
    DQQ1 = np.einsum("ezyx,qy->ezqx", DDQ0, G)
    DQQ2 = np.einsum("ezyx,qy->ezqx", DDQ0, B)
    gX = np.einsum("ezyx,qz->eqyx", DQQ0, B)
    gY = np.einsum("ezyx,qz->eqyx", DQQ1, B)
    gZ = np.einsum("ezyx,qz->eqyx", DQQ2, G)
    QQQ0 = O11 * gX + O12 * gY + O13 * gZ
    QQQ1 = O12 * gX + O22 * gY + O23 * gZ
    QQQ2 = O13 * gX + O23 * gY + O33 * gZ
    QQD0 = np.einsum("ezyx,dx->ezyd", QQQ0, Gt)
    QQD1 = np.einsum("ezyx,dx->ezyd", QQQ1, Bt)
    QQD2 = np.einsum("ezyx,dx->ezyd", QQQ2, Bt)
    QDD0 = np.einsum("ezyx,dy->ezdx", QQD0, Bt)
    QDD1 = np.einsum("ezyx,dy->ezdx", QQD1, Gt)
    QDD2 = np.einsum("ezyx,dy->ezdx", QQD2, Bt)
    by_element(Y, ne, D1D, D1D, D1D)[...] += (
        np.einsum("ezyx,dz->edyx", QDD0, Bt)
        + np.einsum("ezyx,dz->edyx", QDD1, Bt)
        + np.einsum("ezyx,dz->edyx", QDD2, Gt)
    )


def _flops_per_element() -> int:
    """RAJAPerf's count, stage by stage (3, 4, 5, 7, 8, 9)."""
    d, q = D1D, Q1D
    return (
        4 * d * d * d
        + 6 * d * q * q
        + (6 * d + 15) * q * q * q
        + 6 * q * d * q * q
        + 6 * q * d * d * q
        + (6 * q + 1) * d * d * d
    )


KERNEL = kernel(
    name="Apps_DIFFUSION3DPA",
    summary="MFEM 3-D diffusion operator by partial assembly: Y += G^T D G X per element",
    entry="diffusion3dpa",
    bases=("Basis", "dBasis"),
    components=DPA_SYM,
    # Not Basis, whose values RAJAPerf overwrites before any use.
    args=("dBasis", "D", "X", "Y"),
    apply=_apply,
    flops=_flops_per_element(),
    constants={"DPA_SYM": DPA_SYM},
    why="RAJAPerf's dBasis, X and D are all ones and Y zero, so a basis index read "
    "transposed, a coefficient of the wrong place in the symmetric 3 x 3, or an "
    "overwrite of Y gives the same Y; these are random, Y stale",
)

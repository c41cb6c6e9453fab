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
)
from harness.suite.apps.shared import GROUP_NAME, real, wide

#: Values of the symmetric 3 x 3 coefficient per quadrature point (RAJAPerf's
#: diff::DPA_SYM): O11, O12, O13, O22, O23, O33.
DPA_SYM = 6
#: What the launch passes: not Basis, whose values RAJAPerf overwrites before any use.
_ARGS = ("dBasis", "D", "X", "Y")


def _init(size: int, seed: int, precision: str) -> dict:
    ne = elements(size)
    d = DataInit()
    return {
        "Basis": d.const(Q1D * D1D, 1.0),
        "dBasis": d.const(Q1D * D1D, 1.0),
        "D": d.const(DPA_SYM * Q1D**3 * ne, 1.0),
        "X": d.const(D1D**3 * ne, 1.0),
        "Y": d.const(D1D**3 * ne, 0.0),
    }


def _check_init(size: int, seed: int, precision: str) -> dict:
    return random_inputs(_init(size, seed, precision), seed)


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


def _cpu(grid: Grid, dBasis, D, X, Y, NE) -> None:
    _apply(dBasis, D, X, Y, NE)


def _reference(inputs: dict) -> dict:
    a = wide(inputs)
    _apply(*(a[name] for name in _ARGS), a["X"].size // D1D**3)
    return {"Y": a["Y"]}


def _flops(size: int) -> int:
    """RAJAPerf's count, stage by stage (3, 4, 5, 7, 8, 9)."""
    d, q = D1D, Q1D
    per_element = (
        4 * d * d * d
        + 6 * d * q * q
        + (6 * d + 15) * q * q * q
        + 6 * q * d * q * q
        + 6 * q * d * d * q
        + (6 * q + 1) * d * d * d
    )
    return elements(size) * per_element


KERNEL = KernelSpec(
    name="Apps_DIFFUSION3DPA",
    group=GROUP_NAME,
    summary="MFEM 3-D diffusion operator by partial assembly: Y += G^T D G X per element",
    arrays=(
        real("Basis", basis_length),
        real("dBasis", basis_length),
        real("D", quad_length(DPA_SYM)),
        real("X", dofs),
        real("Y", dofs, "inout"),
    ),
    scalars=(NE,),
    plan=element_plan("diffusion3dpa", _ARGS),
    init=_init,
    reference=_reference,
    cpu={"diffusion3dpa": _cpu},
    traffic=pa_traffic(2, DPA_SYM),
    flops=_flops,
    default_size=DEFAULT_ELEMENTS * D1D**3,
    default_reps=50,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Launch",),
    constants={**CONSTANTS, "DPA_SYM": DPA_SYM},
    group_size=ELEMENT_GROUP,
    check_cases=(
        CheckCase(
            "random",
            _check_init,
            "RAJAPerf's dBasis, X and D are all ones and Y zero, so a basis index read "
            "transposed, a coefficient of the wrong place in the symmetric 3 x 3, or an "
            "overwrite of Y gives the same Y; these are random, Y stale",
        ),
    ),
    check_sizes=CHECK_SIZES,
)

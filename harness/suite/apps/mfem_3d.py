"""What CONVECTION3DPA and DIFFUSION3DPA share beyond `mfem` (element counts and
launches): their shape, arrays, inputs, bytes, the transposed basis, and the rest of
their descriptions (`kernel`).

Both apply a 3-D operator element by element with D1D degrees of freedom and
Q1D quadrature points along each axis, by sum factorisation: tensor
contractions one axis at a time, RAJAPerf's GPU variants giving each element a
Q1D x Q1D x Q1D thread block whose stages meet in shared memory between
barriers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import NORMAL, KernelSpec, Launch, Traffic
from harness.suite.apps import mfem
from harness.suite.apps.shared import GROUP_NAME, real

#: Degrees of freedom and quadrature points along an axis (RAJAPerf's conv:: and diff::).
D1D = 3
Q1D = 4
#: Every launch's work-group: one element, RAJAPerf's dim3(Q1D, Q1D, Q1D).
ELEMENT_GROUP = (Q1D, Q1D, Q1D)
#: What every source needs of the shape: shared arrays are MDQ^3, as RAJAPerf's.
CONSTANTS = {"D1D": D1D, "Q1D": Q1D, "MDQ": max(D1D, Q1D)}
#: RAJAPerf's default element count.
DEFAULT_ELEMENTS = 15_625
#: Sizes `--check` runs: `mfem`'s element counts (a ragged grid, one element, a full one).
CHECK_SIZES = mfem.check_sizes(D1D**3, mfem.CHECK_ELEMENTS)


def elements(size: int) -> int:
    """RAJAPerf's NE for a target size in degrees of freedom: size / D1D^3, rounded."""
    return mfem.elements(size, D1D**3)


def element_plan(entry: str, args: tuple[str, ...]) -> Callable[[int], list[Launch]]:
    """A plan of one launch of ``entry``, a Q1D^3 work-group per element, passing NE last."""
    return mfem.element_plan(entry, args, ELEMENT_GROUP, elements)


def dofs(size: int) -> int:
    """Length of X and Y: D1D^3 degrees of freedom per element."""
    return D1D**3 * elements(size)


def basis_length(size: int) -> int:
    """Length of a 1-D basis matrix: Q1D x D1D."""
    return Q1D * D1D


def quad_length(components: int) -> Callable[[int], int]:
    """Length of the quadrature data: ``components`` values per point per element."""
    return lambda size: components * Q1D**3 * elements(size)


def pa_traffic(bases: int, components: int) -> Callable[[int, int], Traffic]:
    """RAJAPerf's bytes: the bases, X and the quadrature data read, Y modified."""

    def traffic(size: int, b: int) -> Traffic:
        ne = elements(size)
        read = b * (bases * Q1D * D1D + D1D**3 * ne + components * Q1D**3 * ne)
        return Traffic(read=read, modify_write=b * D1D**3 * ne)

    return traffic


def basis(a: np.ndarray) -> np.ndarray:
    """A Q1D x D1D basis stored column-major (B(q, d) = B[q + Q1D*d]) as [q][d]."""
    return mfem.basis(a, Q1D, D1D)


def transposed_basis(a: np.ndarray) -> np.ndarray:
    """A D1D x Q1D basis stored column-major (Bt(d, q) = Bt[d + D1D*q]) as [d][q]."""
    return a[: Q1D * D1D].reshape(Q1D, D1D).T


def init(bases: tuple[str, ...], components: int) -> Callable[[int, int, str], dict]:
    """RAJAPerf's inputs: the ``bases`` and D (``components`` values per point) ones,
    X ones and Y zeros."""

    def make(size: int, seed: int, precision: str) -> dict:
        ne = elements(size)
        d = DataInit()
        return {
            **{name: d.const(Q1D * D1D, 1.0) for name in bases},
            "D": d.const(components * Q1D**3 * ne, 1.0),
            "X": d.const(D1D**3 * ne, 1.0),
            "Y": d.const(D1D**3 * ne, 0.0),
        }

    return make


def kernel(
    *,
    name: str,
    summary: str,
    entry: str,
    bases: tuple[str, ...],
    components: int,
    args: tuple[str, ...],
    apply: Callable[..., None],
    flops: int,
    constants: dict[str, int],
    why: str,
) -> KernelSpec:
    """The description of an operator Y += A X: arrays the 1-D ``bases`` (all allocated
    and counted, ``args`` naming those the launch of ``entry`` passes), D with
    ``components`` values per point, X and Y; ``apply(*args, ne)`` the reference and
    numpy entry point, ``flops`` RAJAPerf's count per element, ``constants`` those beyond
    the shape, ``why`` what the random check case shows that RAJAPerf's inputs hide."""
    inputs = init(bases, components)
    return KernelSpec(
        name=name,
        group=GROUP_NAME,
        summary=summary,
        arrays=(
            *(real(b, basis_length) for b in bases),
            real("D", quad_length(components)),
            real("X", dofs),
            real("Y", dofs, "inout"),
        ),
        scalars=(mfem.NE,),
        plan=element_plan(entry, args),
        init=inputs,
        reference=mfem.reference(apply, args, output="Y", counted="X", per_element=D1D**3),
        cpu={entry: mfem.cpu(apply)},
        traffic=pa_traffic(len(bases), components),
        flops=lambda size: elements(size) * flops,
        default_size=DEFAULT_ELEMENTS * D1D**3,
        default_reps=50,
        tolerance=NORMAL,
        features=frozenset({"local_memory"}),
        rajaperf_features=("Launch",),
        constants={**CONSTANTS, **constants},
        group_size=ELEMENT_GROUP,
        check_cases=(mfem.random_case(inputs, why),),
        check_sizes=CHECK_SIZES,
    )

"""What CONVECTION3DPA and DIFFUSION3DPA share beyond `mfem` (element counts and
launches): their shape, lengths, bytes and the transposed basis.

Both apply a 3-D operator element by element with D1D degrees of freedom and
Q1D quadrature points along each axis, by sum factorisation: tensor
contractions one axis at a time, RAJAPerf's GPU variants giving each element a
Q1D x Q1D x Q1D thread block whose stages meet in shared memory between
barriers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from harness.model.spec import Launch, Traffic
from harness.suite.apps import mfem

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

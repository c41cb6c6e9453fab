"""What the MFEM kernels share (MASS3DPA, MASS3DPA_ATOMIC, MASSVEC3DPA, MASS3DEA, and
through `mfem_3d` CONVECTION3DPA and DIFFUSION3DPA).

Each applies or assembles a finite-element operator on hexahedra element by
element, with D1D degrees of freedom and Q1D quadrature points along each axis.
RAJAPerf's GPU variants give each element one thread block whose stages meet in
shared memory between barriers; the launches here keep that work-group, over a
2-D grid of groups (x first, element ``gx + GX * gy``) so that no axis passes the
65535 groups a dispatch allows. Groups past the last element compute element
``g % NE`` and skip their writes: PoCL gives wrong results where a whole group
returns before its barriers, even a group that is never launched.

Arrays are per element, the x index fastest: X[e][dz][dy][dx], D[e][qz][qy][qx].
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from harness.model.spec import CheckCase, Extent, Grid, Launch, Scalar
from harness.suite.apps.shared import wide

#: Element count, every entry point's last argument.
NE = Scalar("NE", "u32")


def elements(size: int, per_element: int) -> int:
    """RAJAPerf's element count for a target size: size / per_element, rounded, at least 1."""
    return max((size + per_element // 2) // per_element, 1)


def element_grid(ne: int) -> tuple[int, int]:
    """Work-groups along x and y for ne elements: a near-square grid covering them."""
    gx = math.isqrt(ne - 1) + 1
    return gx, -(-ne // gx)


def element_plan(
    entry: str, args: tuple[str, ...], group: tuple[int, ...], count: Callable[[int], int]
) -> Callable[[int], list[Launch]]:
    """A plan of one launch of ``entry``, one work-group of shape ``group`` per
    element (``count(size)`` of them), passing NE last."""

    def plan(size: int) -> list[Launch]:
        ne = count(size)
        gx, gy = element_grid(ne)
        items: Extent = (group[0] * gx, group[1] * gy, *group[2:])
        return [Launch(entry, items, group, (*args, "NE"), {"NE": ne})]

    return plan


def check_sizes(per_element: int, counts: tuple[int, ...]) -> tuple[int, ...]:
    """Sizes that give these element counts (size = count * per_element)."""
    return tuple(n * per_element for n in counts)


#: Element counts `--check` runs: 151 over a 13 x 12 grid (5 groups idle; the axes differ,
#: so a group numbered along the wrong one shows), one element, and 4 filling a 2 x 2 grid.
CHECK_ELEMENTS = (151, 1, 4)


def by_element(a: np.ndarray, ne: int, *shape: int) -> np.ndarray:
    """The first ne elements' part of a per-element array as (element, *shape)."""
    return a[: ne * math.prod(shape)].reshape(ne, *shape)


def basis(a: np.ndarray, q1d: int, d1d: int) -> np.ndarray:
    """A Q1D x D1D basis stored column-major (RAJAPerf's B(q, d) = B[q + Q1D*d]) as [q][d]."""
    return a[: q1d * d1d].reshape(d1d, q1d).T


def mass_apply(B: np.ndarray, Bt: np.ndarray, X: np.ndarray, D: np.ndarray) -> np.ndarray:
    """The mass operator on each element by sum factorisation, RAJAPerf's stages.

    B is [q][d], Bt [d][q], X (element, dz, dy, dx), D (element, qz, qy, qx);
    returns (element, dz, dy, dx): X contracted with B along x, y, z, times D at
    each point, then contracted with Bt along x, y, z.
    """
    DDQ = np.einsum("ezyx,qx->ezyq", X, B)
    DQQ = np.einsum("ezyx,qy->ezqx", DDQ, B)
    QQQ = np.einsum("ezyx,qz->eqyx", DQQ, B) * D
    QQD = np.einsum("ezyx,dx->ezyd", QQQ, Bt)
    QDD = np.einsum("ezyx,dy->ezdx", QQD, Bt)
    return np.einsum("ezyx,dz->edyx", QDD, Bt)


def mass_flops(d1d: int, q1d: int) -> int:
    """RAJAPerf's FLOPs of one mass application on one element, stage by stage:
    three contractions from dofs to points, the product with D, three back."""
    d, q = d1d, q1d
    return (
        2 * (d**3 * q + d * d * q * q + d * q**3) + q**3 + 2 * (q**3 * d + q * q * d * d + q * d**3)
    )


def random_inputs(inputs: dict, seed: int) -> dict:
    """``inputs`` with every real array replaced by random values in [0.5, 1.5].

    RAJAPerf fills the bases, X and D with ones (and Y with zeros), so every
    basis entry and every point weighs the same: B read transposed, B for Bt,
    an index order swapped or a point's D taken from another gives the same
    output. Independent values in [0.5, 1.5] tell each apart without the sums
    cancelling, and a stale Y shows an overwrite where Y is added to (or the
    reverse). Integer arrays (a dof map) are kept.
    """
    rng = np.random.default_rng(seed)
    return {
        name: rng.uniform(0.5, 1.5, value.size)
        if isinstance(value, np.ndarray) and value.dtype.kind == "f"
        else value
        for name, value in inputs.items()
    }


def randomised(init: Callable[[int, int, str], dict]) -> Callable[[int, int, str], dict]:
    """An init giving ``init``'s inputs with every real array random (`random_inputs`)."""

    def check_init(size: int, seed: int, precision: str) -> dict:
        return random_inputs(init(size, seed, precision), seed)

    return check_init


def random_case(init: Callable[[int, int, str], dict], why: str) -> CheckCase:
    """The check case "random": ``init``'s inputs made random; ``why`` says what
    RAJAPerf's constant inputs hide."""
    return CheckCase("random", randomised(init), why)


def cpu(apply: Callable[..., None]) -> Callable[..., None]:
    """A numpy entry point: ``apply`` on the launch's arrays and NE, in order."""

    def entry(grid: Grid, *arguments) -> None:
        apply(*arguments)

    return entry


def reference(
    apply: Callable[..., None],
    args: tuple[str, ...],
    *,
    output: str,
    counted: str,
    per_element: int,
) -> Callable[[dict], dict]:
    """A reference: ``apply`` on wide copies of the arrays ``args`` and the element
    count (the length of ``counted`` over ``per_element``); returns ``output``."""

    def run(inputs: dict) -> dict:
        a = wide(inputs)
        apply(*(a[name] for name in args), a[counted].size // per_element)
        return {output: a[output]}

    return run

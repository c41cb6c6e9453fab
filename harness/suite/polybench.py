"""RAJAPerf's Polybench group (src/polybench/*.cpp).

Matrices are row-major, ``A[i][j] = A[j + i*ncols]``. Each kernel's edge
lengths come from the problem size exactly as RAJAPerf's ``setSize`` computes
them (floating-point expression, then truncation to an integer). The
stencils launch over 2 or 3 axes with RAJAPerf's thread blocks, the interior
starting at 1.
"""

from __future__ import annotations

import math

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import (
    LIBRARY,
    NORMAL,
    Array,
    CheckCase,
    Extent,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Traffic,
)
from harness.suite.forall import GROUP, as_f64
from harness.suite.library import with_library

GROUP_NAME = "Polybench"
EDGE = Scalar("n", "u32")


def ping_pong(entry: str, items: Extent, n: int, group: Extent = GROUP) -> list[Launch]:
    """One time step of a two-array stencil: B from A, then A from B."""
    return [
        Launch(entry, items, group, ("A", "B", "n"), {"n": n}),
        Launch(entry, items, group, ("B", "A", "n"), {"n": n}),
    ]


#: RAJAPerf's thread blocks for the stencils: 32 along a row, the rest of 256
#: along the next axis.
STENCIL_2D_GROUP = (32, 8)
STENCIL_3D_GROUP = (32, 8, 1)


# --- JACOBI_2D ----------------------------------------------------------------


def jacobi_2d_edge(size: int) -> int:
    """RAJAPerf's N for a target size: interior (N-2)^2 is about ``size``."""
    return int(math.sqrt(size) + 2 + math.sqrt(2) - 1)


def _jacobi_2d_sweep(a: np.ndarray) -> np.ndarray:
    """The 5-point average of a 2-D array's interior, summed in RAJAPerf's order."""
    return 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])


def _jacobi_2d_cpu(grid: Grid, src: np.ndarray, dst: np.ndarray, n: int) -> None:
    dst[: n * n].reshape(n, n)[1:-1, 1:-1] = _jacobi_2d_sweep(src[: n * n].reshape(n, n))


def _jacobi_2d_init(size: int, seed: int, precision: str) -> dict:
    n = jacobi_2d_edge(size)
    d = DataInit()
    return {"A": d.data(n * n), "B": d.data(n * n)}


def _jacobi_2d_check_init(size: int, seed: int, precision: str) -> dict:
    """Independent random A and B in [0.5, 1.5]: every neighbour differs from the centre."""
    n = jacobi_2d_edge(size)
    rng = np.random.default_rng(seed)
    return {"A": rng.uniform(0.5, 1.5, n * n), "B": rng.uniform(0.5, 1.5, n * n)}


def _jacobi_2d_reference(x: dict) -> dict:
    n = math.isqrt(x["A"].size)
    a = as_f64(x["A"]).reshape(n, n).copy()
    b = as_f64(x["B"]).reshape(n, n).copy()
    b[1:-1, 1:-1] = _jacobi_2d_sweep(a)
    a[1:-1, 1:-1] = _jacobi_2d_sweep(b)
    return {"A": a.ravel(), "B": b.ravel()}


def _jacobi_2d_traffic(size: int, real_bytes: int) -> Traffic:
    n = jacobi_2d_edge(size)
    return Traffic(read=2 * (n * n - 4) * real_bytes, write=2 * (n - 2) ** 2 * real_bytes)


JACOBI_2D = KernelSpec(
    name="Polybench_JACOBI_2D",
    group=GROUP_NAME,
    summary="one Jacobi step: B = 5-point average of A, then A of B (interior)",
    arrays=(
        Array("A", "real", lambda s: jacobi_2d_edge(s) ** 2, "inout"),
        Array("B", "real", lambda s: jacobi_2d_edge(s) ** 2, "inout"),
    ),
    scalars=(EDGE,),
    plan=lambda s: ping_pong(
        "jacobi_2d", (jacobi_2d_edge(s) - 2,) * 2, jacobi_2d_edge(s), STENCIL_2D_GROUP
    ),
    init=_jacobi_2d_init,
    reference=_jacobi_2d_reference,
    cpu={"jacobi_2d": _jacobi_2d_cpu},
    traffic=_jacobi_2d_traffic,
    flops=lambda s: 10 * (jacobi_2d_edge(s) - 2) ** 2,
    default_reps=2000,
    check_size=5000,
    tolerance=NORMAL,
    rajaperf_features=("Kernel",),
    check_cases=(
        CheckCase(
            "random",
            _jacobi_2d_check_init,
            "RAJAPerf's A and B vary by under 2% along a row, so a neighbour read from "
            "the wrong place barely shows; these are independent random values",
        ),
    ),
    # Size 1 is the smallest grid, 3 x 3 with one interior point; size 1024 has
    # 32 x 32 interior points, whole work-groups; 5000's 71 x 71 leave some ragged.
    check_sizes=(5000, 1, 1024),
    group_size=STENCIL_2D_GROUP,
)


# --- HEAT_3D ------------------------------------------------------------------


def heat_3d_edge(size: int) -> int:
    """RAJAPerf's N for a target size: interior (N-2)^3 is about ``size``."""
    return int(float(np.cbrt(size)) + 2 + float(np.cbrt(3)) - 1)


def _heat_3d_sweep(a: np.ndarray) -> np.ndarray:
    """The 7-point heat update of a 3-D array's interior, in RAJAPerf's order."""
    c = a[1:-1, 1:-1, 1:-1]
    return (
        0.125 * (a[2:, 1:-1, 1:-1] - 2.0 * c + a[:-2, 1:-1, 1:-1])
        + 0.125 * (a[1:-1, 2:, 1:-1] - 2.0 * c + a[1:-1, :-2, 1:-1])
        + 0.125 * (a[1:-1, 1:-1, 2:] - 2.0 * c + a[1:-1, 1:-1, :-2])
        + c
    )


def _heat_3d_cpu(grid: Grid, src: np.ndarray, dst: np.ndarray, n: int) -> None:
    cube = n * n * n
    dst[:cube].reshape(n, n, n)[1:-1, 1:-1, 1:-1] = _heat_3d_sweep(src[:cube].reshape(n, n, n))


def _heat_3d_init(size: int, seed: int, precision: str) -> dict:
    n = heat_3d_edge(size)
    d = DataInit()
    return {"A": d.data(n**3), "B": d.data(n**3)}


def _heat_3d_check_init(size: int, seed: int, precision: str) -> dict:
    """Independent random A and B in [0.5, 1.5]: every neighbour differs from the centre."""
    n = heat_3d_edge(size)
    rng = np.random.default_rng(seed)
    return {"A": rng.uniform(0.5, 1.5, n**3), "B": rng.uniform(0.5, 1.5, n**3)}


def _heat_3d_reference(x: dict) -> dict:
    n = round(float(np.cbrt(x["A"].size)))
    a = as_f64(x["A"]).reshape(n, n, n).copy()
    b = as_f64(x["B"]).reshape(n, n, n).copy()
    b[1:-1, 1:-1, 1:-1] = _heat_3d_sweep(a)
    a[1:-1, 1:-1, 1:-1] = _heat_3d_sweep(b)
    return {"A": a.ravel(), "B": b.ravel()}


def _heat_3d_traffic(size: int, real_bytes: int) -> Traffic:
    n = heat_3d_edge(size)
    stencil_reads = n**3 - 12 * (n - 2) - 8
    return Traffic(read=2 * stencil_reads * real_bytes, write=2 * (n - 2) ** 3 * real_bytes)


HEAT_3D = KernelSpec(
    name="Polybench_HEAT_3D",
    group=GROUP_NAME,
    summary="one heat step: B = 7-point update of A, then A of B (interior)",
    arrays=(
        Array("A", "real", lambda s: heat_3d_edge(s) ** 3, "inout"),
        Array("B", "real", lambda s: heat_3d_edge(s) ** 3, "inout"),
    ),
    scalars=(EDGE,),
    plan=lambda s: ping_pong(
        "heat_3d", (heat_3d_edge(s) - 2,) * 3, heat_3d_edge(s), STENCIL_3D_GROUP
    ),
    init=_heat_3d_init,
    reference=_heat_3d_reference,
    cpu={"heat_3d": _heat_3d_cpu},
    traffic=_heat_3d_traffic,
    flops=lambda s: 30 * (heat_3d_edge(s) - 2) ** 3,
    default_reps=400,
    check_size=6000,
    tolerance=NORMAL,
    rajaperf_features=("Kernel",),
    check_cases=(
        CheckCase(
            "random",
            _heat_3d_check_init,
            "RAJAPerf's A and B vary by under 2% along a row, so a neighbour read from "
            "the wrong place barely shows; these are independent random values",
        ),
    ),
    # Size 1 is the smallest grid, 3 x 3 x 3 with one interior point; size
    # 32768 has 32^3 interior points, whole work-groups; 6000's 18^3 leave some
    # ragged.
    check_sizes=(6000, 1, 32768),
    group_size=STENCIL_3D_GROUP,
)


# --- GEMM ---------------------------------------------------------------------

#: Edge of the square tiles the GEMM kernels stage in local memory.
GEMM_TILE = 16
#: Rows of a matrix product each work-item of a CPU device computes
#: (Polybench_GEMM.c, and product_rows.h for 2MM and 3MM).
CPU_ROWS = 4
GEMM_ALPHA = 0.62
GEMM_BETA = 1.002


def gemm_dims(size: int) -> tuple[int, int, int]:
    """RAJAPerf's (ni, nj, nk): ni = nj about sqrt(size), nk = 1200/1000 * ni."""
    ni = int(math.sqrt(size) + math.sqrt(2) - 1)
    return ni, ni, int(1200 / 1000 * ni)


def _gemm_plan(size: int) -> list[Launch]:
    ni, nj, nk = gemm_dims(size)
    tiles = math.ceil(ni / GEMM_TILE) * math.ceil(nj / GEMM_TILE)
    return [
        Launch(
            "gemm",
            tiles * GEMM_TILE * GEMM_TILE,
            GEMM_TILE * GEMM_TILE,
            ("C", "A", "B", "alpha", "beta", "ni", "nj", "nk"),
            {"ni": ni, "nj": nj, "nk": nk},
        )
    ]


def _gemm_init(size: int, seed: int, precision: str) -> dict:
    ni, nj, nk = gemm_dims(size)
    d = DataInit()
    return {
        "A": d.data(ni * nk),
        "B": d.data(nk * nj),
        "C": d.const(ni * nj, 0.0),
        "alpha": GEMM_ALPHA,
        "beta": GEMM_BETA,
    }


def _gemm_check_init(size: int, seed: int, precision: str) -> dict:
    """Random A and B in [0.5, 1.5] (no cancellation in the dots) and a stale C."""
    ni, nj, nk = gemm_dims(size)
    rng = np.random.default_rng(seed)
    return {
        "A": rng.uniform(0.5, 1.5, ni * nk),
        "B": rng.uniform(0.5, 1.5, nk * nj),
        "C": rng.uniform(0.5, 1.5, ni * nj),
        "alpha": GEMM_ALPHA,
        "beta": GEMM_BETA,
    }


def _gemm_inf_init(size: int, seed: int, precision: str) -> dict:
    """`_gemm_check_init` with +inf in column 0 of every other row of A.

    The last k-tile is padded with zeros; an element of A read where its B
    partner is such a zero (the next row's first) then makes a NaN instead of 0.
    """
    inputs = _gemm_check_init(size, seed, precision)
    ni, _, nk = gemm_dims(size)
    inputs["A"].reshape(ni, nk)[1::2, 0] = np.inf
    return inputs


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b, with rows of ``a`` holding an inf or NaN multiplied term by term.

    BLAS pads its blocks with zeros, so such a row can pick up a NaN from a
    0 * inf that the plain sum of products never forms.
    """
    with np.errstate(invalid="ignore"):
        out = a @ b
        rows = np.flatnonzero(~np.isfinite(a).all(axis=1))
        if rows.size:
            out[rows] = np.einsum("ik,kj->ij", a[rows], b, optimize=False)
    return out


def _gemm_cpu(grid: Grid, C, A, B, alpha, beta, ni: int, nj: int, nk: int) -> None:
    # RAJAPerf scales C by beta, then overwrites it with the dot product.
    out = C[: ni * nj]
    out *= beta
    a = alpha * A[: ni * nk].reshape(ni, nk)
    with np.errstate(invalid="ignore"):
        out[:] = matmul(a, B[: nk * nj].reshape(nk, nj)).ravel()


def _gemm_reference(x: dict) -> dict:
    ni = nj = math.isqrt(x["C"].size)
    nk = x["A"].size // ni
    a = float(x["alpha"]) * as_f64(x["A"]).reshape(ni, nk)
    with np.errstate(invalid="ignore"):
        return {"C": matmul(a, as_f64(x["B"]).reshape(nk, nj)).ravel()}


def _gemm_traffic(size: int, real_bytes: int) -> Traffic:
    ni, nj, nk = gemm_dims(size)
    return Traffic(read=(ni * nk + nj * nk) * real_bytes, write=ni * nj * real_bytes)


def _gemm_flops(size: int) -> int:
    ni, nj, nk = gemm_dims(size)
    return (1 + 3 * nk) * ni * nj


def _gemm_library_plan(size: int) -> list[Launch]:
    ni, nj, nk = gemm_dims(size)
    # beta 0: the library overwrites C, as the kernel does after scaling it.
    args = ("C", "A", "B", "alpha", "beta", "ni", "nj", "nk")
    return [Launch(f"{LIBRARY}gemm", 1, 1, args, {"ni": ni, "nj": nj, "nk": nk, "beta": 0.0})]


def _gemm_library_cpu(grid: Grid, C, A, B, alpha, beta, ni: int, nj: int, nk: int) -> None:
    a, b = A[: ni * nk].reshape(ni, nk), B[: nk * nj].reshape(nk, nj)
    with np.errstate(invalid="ignore"):
        C[: ni * nj] = (alpha * matmul(a, b) + beta * C[: ni * nj].reshape(ni, nj)).ravel()


GEMM = KernelSpec(
    name="Polybench_GEMM",
    fixed_group="a work-group computes one tile of the product: its size is the tile's",
    group=GROUP_NAME,
    summary="C = alpha * A.B (C *= beta first, then overwritten, as RAJAPerf does)",
    arrays=(
        Array("C", "real", lambda s: gemm_dims(s)[0] * gemm_dims(s)[1], "out"),
        Array("A", "real", lambda s: gemm_dims(s)[0] * gemm_dims(s)[2]),
        Array("B", "real", lambda s: gemm_dims(s)[2] * gemm_dims(s)[1]),
    ),
    scalars=(
        Scalar("alpha", "real"),
        Scalar("beta", "real"),
        Scalar("ni", "u32"),
        Scalar("nj", "u32"),
        Scalar("nk", "u32"),
    ),
    plan=_gemm_plan,
    constants={"TILE": GEMM_TILE, "CPU_ROWS": CPU_ROWS},
    init=_gemm_init,
    reference=_gemm_reference,
    cpu={"gemm": _gemm_cpu},
    traffic=_gemm_traffic,
    flops=_gemm_flops,
    default_reps=4,
    check_size=5000,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Kernel",),
    complexity="N^(3/2)",
    check_cases=(
        CheckCase(
            "random",
            _gemm_check_init,
            "RAJAPerf's A and B vary by under 2% along a row, so a misplaced tile element "
            "barely shows, and C starts at 0; these are random, C stale",
        ),
        CheckCase(
            "inf",
            _gemm_inf_init,
            "with +inf in some rows of A, a padded product 0 * A that should never be "
            "formed shows as NaN",
        ),
    ),
    # Edges 71, 64 and 65: not a whole number of tiles, exactly four, one past.
    check_sizes=(5000, 4096, 4200),
)


KERNELS = (
    JACOBI_2D,
    HEAT_3D,
    with_library(
        GEMM,
        _gemm_library_plan,
        {f"{LIBRARY}gemm": _gemm_library_cpu},
        "C = alpha * A.B by the device's BLAS gemm (CLBlast, numpy's)",
    ),
)

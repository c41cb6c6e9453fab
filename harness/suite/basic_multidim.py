"""RAJAPerf's Basic kernels over two- and three-dimensional spaces:
NESTED_INIT and MAT_MAT_SHARED.

Edge lengths come from the problem size as RAJAPerf's ``setSize`` computes
them. NESTED_INIT gives each work-item one row of its space; MAT_MAT_SHARED
gives each work-group a strip of C tiles, each work-item a column of it.
"""

from __future__ import annotations

import math

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import (
    NORMAL,
    TIGHT,
    Array,
    CheckCase,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Traffic,
)
from harness.suite.forall import GROUP, as_f64
from harness.suite.polybench import matmul

GROUP_NAME = "Basic"


# --- NESTED_INIT --------------------------------------------------------------

#: RAJAPerf's NESTED_INIT_BODY factor: array[i+ni*(j+nj*k)] = 1e-8 * i * j * k.
NESTED_INIT_SCALE = 0.00000001


def nested_init_edge(size: int) -> int:
    """RAJAPerf's ni = nj = nk for a target size: cbrt(size) + cbrt(3) - 1, truncated."""
    return int(float(np.cbrt(size)) + float(np.cbrt(3)) - 1)


def _nested_init_plan(size: int) -> list[Launch]:
    """One launch, a work-item per (j, k) row walking i, as RAJAPerf's Base loops do:
    contiguous stores and one division per row. ni, nj and nk are the inputs' (the
    check case makes them differ)."""
    rows = nested_init_edge(size) ** 2
    return [Launch("nested_init", rows, GROUP, ("array", "ni", "nj", "nk"))]


def _nested_init_init(size: int, seed: int, precision: str) -> dict:
    n = nested_init_edge(size)
    return {"array": DataInit().const(n**3, 0.0), "ni": n, "nj": n, "nk": n}


def _nested_init_check_init(size: int, seed: int, precision: str) -> dict:
    """Edges n, n-1 and n-2 (none below 0: at the smallest sizes, an empty space)
    in a stale array of n^3 random values: the tail past ni*nj*nk must keep them."""
    n = nested_init_edge(size)
    rng = np.random.default_rng(seed)
    return {"array": rng.uniform(0.5, 1.5, n**3), "ni": n, "nj": max(n - 1, 0), "nk": max(n - 2, 0)}


def _nested_init_values(ni: int, nj: int, nk: int, dtype: np.dtype) -> np.ndarray:
    """RAJAPerf's body over the whole space, k slowest, i fastest, in ``dtype``."""
    k, j, i = np.meshgrid(*(np.arange(e, dtype=dtype) for e in (nk, nj, ni)), indexing="ij")
    return (dtype.type(NESTED_INIT_SCALE) * i * j * k).ravel()


def _nested_init_cpu(grid: Grid, array: np.ndarray, ni: int, nj: int, nk: int) -> None:
    array[: ni * nj * nk] = _nested_init_values(ni, nj, nk, array.dtype)


def _nested_init_reference(x: dict) -> dict:
    out = as_f64(x["array"])
    _nested_init_cpu(None, out, int(x["ni"]), int(x["nj"]), int(x["nk"]))
    return {"array": out}


NESTED_INIT = KernelSpec(
    name="Basic_NESTED_INIT",
    group=GROUP_NAME,
    summary="array[i + ni*(j + nj*k)] = 1e-8 * i * j * k over an n^3 space",
    arrays=(Array("array", "real", lambda s: nested_init_edge(s) ** 3, "out"),),
    scalars=(Scalar("ni", "u32"), Scalar("nj", "u32"), Scalar("nk", "u32")),
    plan=_nested_init_plan,
    constants={"NESTED_INIT_SCALE": NESTED_INIT_SCALE},
    init=_nested_init_init,
    reference=_nested_init_reference,
    cpu={"nested_init": _nested_init_cpu},
    traffic=lambda s, b: Traffic(write=nested_init_edge(s) ** 3 * b),
    flops=lambda s: 3 * nested_init_edge(s) ** 3,
    default_reps=1000,
    tolerance=TIGHT,
    rajaperf_features=("Kernel",),
    check_cases=(
        CheckCase(
            "edges",
            _nested_init_check_init,
            "RAJAPerf's ni = nj = nk and the body is symmetric in i, j and k, so swapped "
            "indices or strides give the same array, and it starts at zero like the i, j "
            "and k = 0 planes; here the edges differ and the array starts stale",
        ),
    ),
    # Edges 21, 16 and 4: odd, rows filling one work-group (16^2), the
    # smallest for which the check case's edges (4, 3, 2) are all above 1, so
    # its values are not all zero.
    check_sizes=(9000, 4096, 64),
)


# --- MAT_MAT_SHARED -----------------------------------------------------------

#: RAJAPerf's TL_SZ: A and B are staged in TL_SZ x TL_SZ tiles.
TL_SZ = 16
#: Work-items per group, RAJAPerf's block of TL_SZ x TL_SZ threads; here they
#: are the columns of a strip of GROUP / TL_SZ tiles (a 1-D group: see the source).
MAT_MAT_GROUP = TL_SZ * TL_SZ


def mat_mat_edge(size: int) -> int:
    """RAJAPerf's N for a target size: sqrt(size) + sqrt(2) - 1, truncated."""
    return int(math.sqrt(size) + math.sqrt(2) - 1)


def _mat_mat_tiles(size: int) -> int:
    """Tiles along each edge of C."""
    return math.ceil(mat_mat_edge(size) / TL_SZ)


def _mat_mat_plan(size: int) -> list[Launch]:
    """A work-group per TL_SZ x GROUP strip of C: a row of tiles is ceil(N / GROUP)
    strips."""
    strips = math.ceil(mat_mat_edge(size) / MAT_MAT_GROUP)
    return [
        Launch(
            "mat_mat_shared",
            _mat_mat_tiles(size) * strips * MAT_MAT_GROUP,
            MAT_MAT_GROUP,
            ("A", "B", "C", "N"),
            {"N": mat_mat_edge(size)},
        )
    ]


def _mat_mat_init(size: int, seed: int, precision: str) -> dict:
    n = mat_mat_edge(size)
    d = DataInit()
    return {"A": d.const(n * n, 1.0), "B": d.const(n * n, 1.0), "C": d.const(n * n, 0.0)}


def _mat_mat_check_init(size: int, seed: int, precision: str) -> dict:
    """Random A and B in [0.5, 1.5] (no cancellation in the dots) and a stale C."""
    n = mat_mat_edge(size)
    rng = np.random.default_rng(seed)
    return {name: rng.uniform(0.5, 1.5, n * n) for name in ("A", "B", "C")}


def _mat_mat_inf_init(size: int, seed: int, precision: str) -> dict:
    """`_mat_mat_check_init` with +inf in column 0 of every other row of A.

    The last tile along k is padded with zeros; an element of A read where its
    B partner is such a zero (the next row's first) then makes a NaN instead of 0.
    """
    inputs = _mat_mat_check_init(size, seed, precision)
    n = mat_mat_edge(size)
    inputs["A"].reshape(n, n)[1::2, 0] = np.inf
    return inputs


def _mat_mat_cpu(grid: Grid, A: np.ndarray, B: np.ndarray, C: np.ndarray, N: int) -> None:
    C[: N * N] = matmul(A[: N * N].reshape(N, N), B[: N * N].reshape(N, N)).ravel()


def _mat_mat_reference(x: dict) -> dict:
    n = math.isqrt(x["C"].size)
    return {"C": matmul(as_f64(x["A"]).reshape(n, n), as_f64(x["B"]).reshape(n, n)).ravel()}


def _mat_mat_flops(size: int) -> int:
    """RAJAPerf's count: every padded tile product, 2 TL_SZ^3 per tile triple."""
    return 2 * TL_SZ**3 * _mat_mat_tiles(size) ** 3


MAT_MAT_SHARED = KernelSpec(
    name="Basic_MAT_MAT_SHARED",
    fixed_group="a work-group computes one tile of the product: its size is the tile's",
    group=GROUP_NAME,
    summary=f"C = A.B, N x N, through {TL_SZ} x {TL_SZ} tiles of A and B in local memory",
    arrays=(
        Array("A", "real", lambda s: mat_mat_edge(s) ** 2),
        Array("B", "real", lambda s: mat_mat_edge(s) ** 2),
        Array("C", "real", lambda s: mat_mat_edge(s) ** 2, "out"),
    ),
    scalars=(Scalar("N", "u32"),),
    plan=_mat_mat_plan,
    constants={"TL_SZ": TL_SZ},
    group_size=MAT_MAT_GROUP,
    init=_mat_mat_init,
    reference=_mat_mat_reference,
    cpu={"mat_mat_shared": _mat_mat_cpu},
    traffic=lambda s, b: Traffic(read=2 * mat_mat_edge(s) ** 2 * b, write=mat_mat_edge(s) ** 2 * b),
    flops=_mat_mat_flops,
    default_reps=5,
    check_size=5000,
    tolerance=NORMAL,
    features=frozenset({"local_memory"}),
    rajaperf_features=("Launch",),
    complexity="N^(3/2)",
    check_cases=(
        CheckCase(
            "random",
            _mat_mat_check_init,
            "RAJAPerf's A and B are all ones, so C = N everywhere whichever elements are "
            "multiplied, and C starts at 0; these are random, C stale",
        ),
        CheckCase(
            "inf",
            _mat_mat_inf_init,
            "with +inf in some rows of A, a padded product 0 * A that should never be "
            "formed shows as NaN",
        ),
    ),
    # Edges 71, 64, 65 and 10: not a whole number of tiles, exactly four, one
    # past, less than one tile; 256 and 257: one strip exactly, one column more.
    check_sizes=(5000, 4096, 4200, 100, 65536, 66049),
)


KERNELS = (NESTED_INIT, MAT_MAT_SHARED)

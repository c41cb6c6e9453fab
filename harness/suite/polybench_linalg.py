"""RAJAPerf's Polybench linear algebra: 2MM, 3MM, ATAX, GEMVER, GESUMMV and MVT
(src/polybench/*.cpp).

Matrices are row-major, ``A[i][j] = A[j + i*ncols]``, with edge lengths
computed from the problem size as RAJAPerf's ``setSize`` does. The matrix
products run as RAJAPerf's GPU variants do, a work-item per output element on
32 x 8 work-groups, each summing its dot product in order. The matrix-vector
kernels give a work-item a row or a column: row dots walk along the row,
column sums walk down the column so that neighbouring work-items read
neighbouring addresses.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from harness.model.rajaperf import DataInit, registered
from harness.model.spec import (
    NORMAL,
    Array,
    CheckCase,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Traffic,
)
from harness.suite.forall import GROUP, as_f64
from harness.suite.library import call, with_library
from harness.suite.polybench import CPU_ROWS, EDGE, matmul

GROUP_NAME = "Polybench"

#: RAJAPerf's thread block for the matrix products: 32 along a row of the
#: output (in_block_sz), the rest of 256 along its columns (out_block_sz).
MM_GROUP = (32, 8)

#: Sizes the matrix products are checked at: edges 100 (not a whole number of
#: work-groups along either axis), 64 (whole ones) and 23, where every summed
#: axis but 2MM's nk (25) is three past a multiple of four (23, 27): the WGSL
#: sums take four terms a loop turn and the rest one by one.
MM_CHECK_SIZES = (10_007, 4_096, 511)
#: Sizes the matrix-vector kernels are checked at: edges 100 (one work-group
#: of rows), 256 (exactly one) and 257 (one row into a second).
MV_CHECK_SIZES = (10_007, 65_536, 66_049)
#: Rows (or columns) of a matrix-vector product each work-item of a CPU device
#: sums side by side (dots.h).
CPU_DOTS = 8


def edge(size: int) -> int:
    """RAJAPerf's N for a target size: sqrt(size) + sqrt(2) - 1, truncated."""
    return int(math.sqrt(size) + math.sqrt(2) - 1)


def _scaled(default: int, n: int) -> int:
    """An edge RAJAPerf scales with N: default / 1000 * N, truncated."""
    return int(default / 1000 * n)


def _random(rng: np.random.Generator, lengths: dict[str, int]) -> dict[str, np.ndarray]:
    """Values in [0.5, 1.5] for each named array: positive (no cancellation in a
    dot product) and varying, so a misplaced index or a dropped term shows."""
    return {name: rng.uniform(0.5, 1.5, length) for name, length in lengths.items()}


def _random_case(lengths: Callable[[int], dict[str, int]], scalars: dict, why: str) -> CheckCase:
    """A check case with every array random, outputs stale, scalars as RAJAPerf's."""

    def init(size: int, seed: int, precision: str) -> dict:
        return {**_random(np.random.default_rng(seed), lengths(size)), **scalars}

    init.__doc__ = "Every array random in [0.5, 1.5], outputs stale."
    return CheckCase("random", init, why)


def _product(entry: str, rows: int, cols: int, args: tuple[str, ...], dims: dict) -> Launch:
    """A 2-D launch of ``entry``, a work-item per element of a rows x cols output
    (x along a row), on RAJAPerf's work-group; scalars named in ``dims`` take
    its values."""
    values = {name: dims[name] for name in args if name in dims}
    return Launch(entry, (cols, rows), MM_GROUP, args, values)


# --- 2MM ----------------------------------------------------------------------

MM2_ALPHA = 1.5
MM2_BETA = 1.2


def mm2_dims(size: int) -> tuple[int, int, int, int]:
    """RAJAPerf's (ni, nj, nk, nl): ni = nj = nl = N, nk = 1120/1000 * N."""
    n = edge(size)
    return n, n, _scaled(1120, n), n


def _mm2_lengths(size: int) -> dict[str, int]:
    ni, nj, nk, nl = mm2_dims(size)
    return {"tmp": ni * nj, "A": ni * nk, "B": nk * nj, "C": nj * nl, "D": ni * nl}


def _mm2_plan(size: int) -> list[Launch]:
    ni, nj, nk, nl = mm2_dims(size)
    dims = {"ni": ni, "nj": nj, "nk": nk, "nl": nl}
    return [
        _product("mm2_tmp", ni, nj, ("tmp", "A", "B", "alpha", "ni", "nj", "nk"), dims),
        _product("mm2_d", ni, nl, ("D", "tmp", "C", "beta", "ni", "nj", "nl"), dims),
    ]


def _mm2_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    lengths = _mm2_lengths(size)
    arrays = {name: d.data(lengths[name]) for name in ("tmp", "A", "B", "C")}
    return {**arrays, "D": d.const(lengths["D"], 0.0), "alpha": MM2_ALPHA, "beta": MM2_BETA}


def _mm2_tmp_cpu(grid: Grid, tmp, A, B, alpha, ni: int, nj: int, nk: int) -> None:
    a = alpha * A[: ni * nk].reshape(ni, nk)
    tmp[: ni * nj] = matmul(a, B[: nk * nj].reshape(nk, nj)).ravel()


def _mm2_d_cpu(grid: Grid, D, tmp, C, beta, ni: int, nj: int, nl: int) -> None:
    t = tmp[: ni * nj].reshape(ni, nj)
    D[: ni * nl] = (beta + matmul(t, C[: nj * nl].reshape(nj, nl))).ravel()


def _mm2_reference(x: dict) -> dict:
    ni = nj = nl = math.isqrt(x["tmp"].size)
    nk = x["A"].size // ni
    tmp = matmul(float(x["alpha"]) * as_f64(x["A"]).reshape(ni, nk), as_f64(x["B"]).reshape(nk, nj))
    d = float(x["beta"]) + matmul(tmp, as_f64(x["C"]).reshape(nj, nl))
    return {"tmp": tmp.ravel(), "D": d.ravel()}


def _mm2_traffic(size: int, real_bytes: int) -> Traffic:
    ni, nj, nk, nl = mm2_dims(size)
    return Traffic(
        read=(ni * nk + nj * nk + ni * nj + nj * nl) * real_bytes,
        write=(ni * nj + ni * nl) * real_bytes,
    )


def _mm2_flops(size: int) -> int:
    ni, nj, nk, nl = mm2_dims(size)
    return 3 * ni * nj * nk + 2 * ni * nj * nl


MM2 = KernelSpec(
    name="Polybench_2MM",
    group=GROUP_NAME,
    summary="tmp = alpha * A.B, then D = beta + tmp.C (a work-item per output element)",
    arrays=(
        Array("tmp", "real", lambda s: _mm2_lengths(s)["tmp"], "out"),
        Array("A", "real", lambda s: _mm2_lengths(s)["A"]),
        Array("B", "real", lambda s: _mm2_lengths(s)["B"]),
        Array("C", "real", lambda s: _mm2_lengths(s)["C"]),
        Array("D", "real", lambda s: _mm2_lengths(s)["D"], "out"),
    ),
    scalars=(
        Scalar("alpha", "real"),
        Scalar("beta", "real"),
        Scalar("ni", "u32"),
        Scalar("nj", "u32"),
        Scalar("nk", "u32"),
        Scalar("nl", "u32"),
    ),
    plan=_mm2_plan,
    init=_mm2_init,
    reference=_mm2_reference,
    cpu={"mm2_tmp": _mm2_tmp_cpu, "mm2_d": _mm2_d_cpu},
    traffic=_mm2_traffic,
    flops=_mm2_flops,
    default_reps=2,
    check_size=MM_CHECK_SIZES[0],
    tolerance=NORMAL,
    rajaperf_features=("Kernel",),
    complexity="N^(3/2)",
    checksum=registered(("D",)),
    check_cases=(
        _random_case(
            _mm2_lengths,
            {"alpha": MM2_ALPHA, "beta": MM2_BETA},
            "neighbours along a row of RAJAPerf's A differ by under 1e-5 relative, so an "
            "index off by one into it moves D by less than the f32 tolerance; these are "
            "random, tmp and D stale",
        ),
    ),
    check_sizes=MM_CHECK_SIZES,
    group_size=MM_GROUP,
    constants={"CPU_ROWS": CPU_ROWS},
)


# --- 3MM ----------------------------------------------------------------------


def mm3_dims(size: int) -> tuple[int, int, int, int, int]:
    """RAJAPerf's (ni, nj, nk, nl, nm): ni = nj = nl = N, nk = 1010/1000 * N,
    nm = 1200/1000 * N."""
    n = edge(size)
    return n, n, _scaled(1010, n), n, _scaled(1200, n)


def _mm3_lengths(size: int) -> dict[str, int]:
    ni, nj, nk, nl, nm = mm3_dims(size)
    return {
        "A": ni * nk,
        "B": nk * nj,
        "C": nj * nm,
        "D": nm * nl,
        "E": ni * nj,
        "F": nj * nl,
        "G": ni * nl,
    }


def _mm3_plan(size: int) -> list[Launch]:
    ni, nj, nk, nl, nm = mm3_dims(size)
    dims = {"ni": ni, "nj": nj, "nk": nk, "nl": nl, "nm": nm}
    return [
        _product("mm3_e", ni, nj, ("E", "A", "B", "ni", "nj", "nk"), dims),
        _product("mm3_f", nj, nl, ("F", "C", "D", "nj", "nl", "nm"), dims),
        _product("mm3_g", ni, nl, ("G", "E", "F", "ni", "nj", "nl"), dims),
    ]


def _mm3_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    lengths = _mm3_lengths(size)
    inputs = {name: d.data(lengths[name]) for name in "ABCD"}
    return {**inputs, **{name: d.const(lengths[name], 0.0) for name in "EFG"}}


def _mm_cpu(out, x, y, rows: int, inner: int, cols: int) -> None:
    """out = x.y for a rows x inner and an inner x cols matrix."""
    out[: rows * cols] = matmul(
        x[: rows * inner].reshape(rows, inner), y[: inner * cols].reshape(inner, cols)
    ).ravel()


def _mm3_reference(x: dict) -> dict:
    ni = nj = nl = math.isqrt(x["G"].size)
    nk, nm = x["A"].size // ni, x["C"].size // nj
    e = matmul(as_f64(x["A"]).reshape(ni, nk), as_f64(x["B"]).reshape(nk, nj))
    f = matmul(as_f64(x["C"]).reshape(nj, nm), as_f64(x["D"]).reshape(nm, nl))
    return {"E": e.ravel(), "F": f.ravel(), "G": matmul(e, f).ravel()}


def _mm3_traffic(size: int, real_bytes: int) -> Traffic:
    ni, nj, nk, nl, nm = mm3_dims(size)
    return Traffic(
        read=(ni * nk + nj * nk + nj * nm + nl * nm + ni * nj + nj * nl) * real_bytes,
        write=(ni * nj + nj * nl + ni * nl) * real_bytes,
    )


def _mm3_flops(size: int) -> int:
    ni, nj, nk, nl, nm = mm3_dims(size)
    return 2 * ni * nj * nk + 2 * nj * nl * nm + 2 * ni * nj * nl


MM3 = KernelSpec(
    name="Polybench_3MM",
    group=GROUP_NAME,
    summary="E = A.B, F = C.D, G = E.F (a work-item per output element)",
    arrays=tuple(
        Array(name, "real", lambda s, name=name: _mm3_lengths(s)[name], intent)
        for name, intent in (*((n, "in") for n in "ABCD"), *((n, "out") for n in "EFG"))
    ),
    scalars=tuple(Scalar(name, "u32") for name in ("ni", "nj", "nk", "nl", "nm")),
    plan=_mm3_plan,
    init=_mm3_init,
    reference=_mm3_reference,
    cpu={
        "mm3_e": lambda g, E, A, B, ni, nj, nk: _mm_cpu(E, A, B, ni, nk, nj),
        "mm3_f": lambda g, F, C, D, nj, nl, nm: _mm_cpu(F, C, D, nj, nm, nl),
        "mm3_g": lambda g, G, E, F, ni, nj, nl: _mm_cpu(G, E, F, ni, nj, nl),
    },
    traffic=_mm3_traffic,
    flops=_mm3_flops,
    default_reps=2,
    check_size=MM_CHECK_SIZES[0],
    tolerance=NORMAL,
    rajaperf_features=("Kernel",),
    complexity="N^(3/2)",
    checksum=registered(("G",)),
    check_cases=(
        _random_case(
            _mm3_lengths,
            {},
            "neighbours along a row of RAJAPerf's A and C differ by under 1e-5 relative, "
            "so an index off by one into them moves G by less than the f32 tolerance; "
            "these are random, E, F and G stale",
        ),
    ),
    check_sizes=MM_CHECK_SIZES,
    group_size=MM_GROUP,
    constants={"CPU_ROWS": CPU_ROWS},
)


# --- Matrix-vector kernels ----------------------------------------------------


def _per_row(entry: str, size: int, args: tuple[str, ...]) -> Launch:
    """A launch of ``entry`` with a work-item per row (or column) of the N x N
    matrix, passing ``n`` last."""
    n = edge(size)
    return Launch(entry, n, GROUP, (*args, "n"), {"n": n})


def _square(x: dict, name: str = "A") -> tuple[int, np.ndarray]:
    """N and the N x N matrix ``name`` of the inputs, in float64."""
    n = math.isqrt(x[name].size)
    return n, as_f64(x[name]).reshape(n, n)


def _vectors(size: int, *names: str) -> dict[str, int]:
    """Lengths of N-vectors and N x N matrices (upper-case names) by name."""
    n = edge(size)
    return {name: n * n if name.isupper() else n for name in names}


def _matrix(size: int) -> int:
    """Elements of the N x N matrix."""
    return edge(size) ** 2


# --- ATAX ---------------------------------------------------------------------


def _atax_init(size: int, seed: int, precision: str) -> dict:
    n = edge(size)
    d = DataInit()
    return {"tmp": d.data(n), "x": d.data(n), "A": d.data(n * n), "y": d.const(n, 0.0)}


def _atax_tmp_cpu(grid: Grid, A, x, tmp, n: int) -> None:
    tmp[:n] = A[: n * n].reshape(n, n) @ x[:n]


def _atax_y_cpu(grid: Grid, A, tmp, y, n: int) -> None:
    y[:n] = tmp[:n] @ A[: n * n].reshape(n, n)


def _atax_reference(x: dict) -> dict:
    _, a = _square(x)
    tmp = a @ as_f64(x["x"])
    return {"tmp": tmp, "y": tmp @ a}


ATAX = KernelSpec(
    name="Polybench_ATAX",
    group=GROUP_NAME,
    summary="tmp = A.x by rows, then y = A^T.tmp by columns",
    arrays=(
        Array("tmp", "real", edge, "out"),
        Array("x", "real", edge),
        Array("A", "real", _matrix),
        Array("y", "real", edge, "out"),
    ),
    scalars=(EDGE,),
    plan=lambda s: [
        _per_row("atax_tmp", s, ("A", "x", "tmp")),
        _per_row("atax_y", s, ("A", "tmp", "y")),
    ],
    init=_atax_init,
    reference=_atax_reference,
    cpu={"atax_tmp": _atax_tmp_cpu, "atax_y": _atax_y_cpu},
    traffic=lambda s, b: Traffic(
        read=(2 * edge(s) + 2 * _matrix(s)) * b, write=2 * edge(s) * b, modify_write=edge(s) * b
    ),
    flops=lambda s: 4 * _matrix(s),
    default_reps=100,
    check_size=MV_CHECK_SIZES[0],
    tolerance=NORMAL,
    rajaperf_features=("Kernel",),
    checksum=registered(("y",)),
    check_cases=(
        _random_case(
            lambda s: _vectors(s, "tmp", "x", "A", "y"),
            {},
            "neighbours in RAJAPerf's x differ by under 1e-5 relative, so an index off by "
            "one into it moves y by less than the f32 tolerance; these are random, tmp and "
            "y stale",
        ),
    ),
    check_sizes=MV_CHECK_SIZES,
    constants={"CPU_DOTS": CPU_DOTS},
)


# --- GEMVER -------------------------------------------------------------------
# RAJAPerf's first three loops (the rank-2 update of A on 32 x 8 blocks, x from
# A's columns, x += z) are one launch here, a work-item per column updating it
# and summing x from it: one pass over A instead of two, and every launch on
# one work-group shape.

GEMVER_ALPHA = 1.5
GEMVER_BETA = 1.2
_GEMVER_VECTORS = ("u1", "v1", "u2", "v2", "w", "x", "y", "z")


def _gemver_init(size: int, seed: int, precision: str) -> dict:
    n = edge(size)
    d = DataInit()
    inputs = {"A": d.data(n * n)}
    inputs.update({name: d.data(n) for name in ("u1", "v1", "u2", "v2")})
    inputs["w"] = d.const(n, 0.0)
    inputs.update({name: d.data(n) for name in ("x", "y", "z")})
    return {**inputs, "alpha": GEMVER_ALPHA, "beta": GEMVER_BETA}


def _gemver_update(a, u1, v1, u2, v2):
    """A + (u1 v1^T + u2 v2^T), RAJAPerf's rank-2 update (in a's precision)."""
    return a + (np.outer(u1, v1) + np.outer(u2, v2))


def _gemver_columns_cpu(grid: Grid, A, u1, v1, u2, v2, x, y, z, beta, n: int) -> None:
    a = A[: n * n].reshape(n, n)
    a[:] = _gemver_update(a, u1[:n], v1[:n], u2[:n], v2[:n])
    x[:n] = (beta * a).T @ y[:n] + z[:n]


def _gemver_rows_cpu(grid: Grid, A, x, w, alpha, n: int) -> None:
    w[:n] += (alpha * A[: n * n].reshape(n, n)) @ x[:n]


def _gemver_reference(x: dict) -> dict:
    _, a = _square(x)
    u1, v1, u2, v2, w, _, y, z = (as_f64(x[name]) for name in _GEMVER_VECTORS)
    a = _gemver_update(a, u1, v1, u2, v2)
    xs = (float(x["beta"]) * a).T @ y + z
    return {"A": a.ravel(), "x": xs, "w": w + (float(x["alpha"]) * a) @ xs}


GEMVER = KernelSpec(
    name="Polybench_GEMVER",
    group=GROUP_NAME,
    summary="A += u1 v1^T + u2 v2^T, x = beta A^T.y + z, w += alpha A.x",
    arrays=(
        Array("A", "real", _matrix, "inout"),
        *(Array(name, "real", edge) for name in ("u1", "v1", "u2", "v2")),
        Array("w", "real", edge, "inout"),
        Array("x", "real", edge, "out"),
        Array("y", "real", edge),
        Array("z", "real", edge),
    ),
    scalars=(Scalar("alpha", "real"), Scalar("beta", "real"), EDGE),
    plan=lambda s: [
        _per_row("gemver_columns", s, ("A", "u1", "v1", "u2", "v2", "x", "y", "z", "beta")),
        _per_row("gemver_rows", s, ("A", "x", "w", "alpha")),
    ],
    init=_gemver_init,
    reference=_gemver_reference,
    cpu={"gemver_columns": _gemver_columns_cpu, "gemver_rows": _gemver_rows_cpu},
    traffic=lambda s, b: Traffic(
        read=(2 * _matrix(s) + 8 * edge(s)) * b,
        write=2 * edge(s) * b,
        modify_write=(_matrix(s) + edge(s)) * b,
    ),
    flops=lambda s: 10 * _matrix(s) + edge(s),
    default_reps=20,
    check_size=MV_CHECK_SIZES[0],
    tolerance=NORMAL,
    rajaperf_features=("Forall", "Kernel"),
    checksum=registered(("w",)),
    check_cases=(
        _random_case(
            lambda s: _vectors(s, "A", *_GEMVER_VECTORS),
            {"alpha": GEMVER_ALPHA, "beta": GEMVER_BETA},
            "RAJAPerf's w starts at 0, so a sum that drops it cannot show, and neighbours "
            "in its y differ by under 1e-5 relative, so an index off by one into y moves w "
            "by less than the f32 tolerance; these are random, w and x stale",
        ),
    ),
    check_sizes=MV_CHECK_SIZES,
    constants={"CPU_DOTS": CPU_DOTS},
)


# --- GESUMMV ------------------------------------------------------------------

GESUMMV_ALPHA = 0.62
GESUMMV_BETA = 1.002


def _gesummv_init(size: int, seed: int, precision: str) -> dict:
    n = edge(size)
    d = DataInit()
    inputs = {"x": d.data(n), "y": d.const(n, 0.0), "A": d.data(n * n), "B": d.data(n * n)}
    return {**inputs, "alpha": GESUMMV_ALPHA, "beta": GESUMMV_BETA}


def _gesummv_cpu(grid: Grid, x, y, A, B, alpha, beta, n: int) -> None:
    a, b = A[: n * n].reshape(n, n), B[: n * n].reshape(n, n)
    y[:n] = alpha * (a @ x[:n]) + beta * (b @ x[:n])


def _gesummv_reference(x: dict) -> dict:
    _, a = _square(x, "A")
    _, b = _square(x, "B")
    xs = as_f64(x["x"])
    return {"y": float(x["alpha"]) * (a @ xs) + float(x["beta"]) * (b @ xs)}


GESUMMV = KernelSpec(
    name="Polybench_GESUMMV",
    group=GROUP_NAME,
    summary="y = alpha A.x + beta B.x (a work-item per row)",
    arrays=(
        Array("x", "real", edge),
        Array("y", "real", edge, "out"),
        Array("A", "real", _matrix),
        Array("B", "real", _matrix),
    ),
    scalars=(Scalar("alpha", "real"), Scalar("beta", "real"), EDGE),
    plan=lambda s: [_per_row("gesummv", s, ("x", "y", "A", "B", "alpha", "beta"))],
    init=_gesummv_init,
    reference=_gesummv_reference,
    cpu={"gesummv": _gesummv_cpu},
    traffic=lambda s, b: Traffic(read=(edge(s) + 2 * _matrix(s)) * b, write=edge(s) * b),
    flops=lambda s: (4 * edge(s) + 3) * edge(s),
    default_reps=120,
    check_size=MV_CHECK_SIZES[0],
    tolerance=NORMAL,
    rajaperf_features=("Kernel",),
    check_cases=(
        _random_case(
            lambda s: _vectors(s, "x", "y", "A", "B"),
            {"alpha": GESUMMV_ALPHA, "beta": GESUMMV_BETA},
            "neighbours in RAJAPerf's x and along a row of its A and B differ by under "
            "1e-5 relative, so an index off by one moves y by less than the f32 "
            "tolerance; these are random, y stale",
        ),
    ),
    check_sizes=MV_CHECK_SIZES,
    constants={"CPU_DOTS": CPU_DOTS},
)


# --- MVT ----------------------------------------------------------------------


def _mvt_init(size: int, seed: int, precision: str) -> dict:
    n = edge(size)
    d = DataInit()
    inputs = {"y1": d.data(n), "y2": d.data(n), "A": d.data(n * n)}
    return {**inputs, "x1": d.const(n, 0.0), "x2": d.const(n, 0.0)}


def _mvt_x1_cpu(grid: Grid, A, y1, x1, n: int) -> None:
    x1[:n] = A[: n * n].reshape(n, n) @ y1[:n]


def _mvt_x2_cpu(grid: Grid, A, y2, x2, n: int) -> None:
    x2[:n] = (A[: n * n].reshape(n, n) * y2[:n]).sum(axis=0)


def _mvt_reference(x: dict) -> dict:
    _, a = _square(x)
    # RAJAPerf's x2 sums A[j][i] * y2[i] over j: y2 at the column's own index.
    return {"x1": a @ as_f64(x["y1"]), "x2": (a * as_f64(x["y2"])).sum(axis=0)}


MVT = KernelSpec(
    name="Polybench_MVT",
    group=GROUP_NAME,
    summary="x1 = A.y1 by rows; x2[i] = sum_j A[j][i] * y2[i] by columns",
    arrays=(
        Array("x1", "real", edge, "out"),
        Array("x2", "real", edge, "out"),
        Array("y1", "real", edge),
        Array("y2", "real", edge),
        Array("A", "real", _matrix),
    ),
    scalars=(EDGE,),
    plan=lambda s: [
        _per_row("mvt_x1", s, ("A", "y1", "x1")),
        _per_row("mvt_x2", s, ("A", "y2", "x2")),
    ],
    init=_mvt_init,
    reference=_mvt_reference,
    cpu={"mvt_x1": _mvt_x1_cpu, "mvt_x2": _mvt_x2_cpu},
    traffic=lambda s, b: Traffic(read=(2 * edge(s) + 2 * _matrix(s)) * b, write=2 * edge(s) * b),
    flops=lambda s: 4 * _matrix(s),
    default_reps=100,
    check_size=MV_CHECK_SIZES[0],
    tolerance=NORMAL,
    rajaperf_features=("Kernel",),
    check_cases=(
        _random_case(
            lambda s: _vectors(s, "x1", "x2", "y1", "y2", "A"),
            {},
            "neighbours in RAJAPerf's y1 differ by under 1e-5 relative, so an index off "
            "by one into it moves x1 by less than the f32 tolerance; these are random, x1 "
            "and x2 stale",
        ),
    ),
    check_sizes=MV_CHECK_SIZES,
    constants={"CPU_DOTS": CPU_DOTS},
)


def _mm3_library_plan(size: int) -> list[Launch]:
    ni, nj, nk, nl, nm = mm3_dims(size)
    dims = {"ni": ni, "nj": nj, "nk": nk, "nl": nl, "nm": nm}
    return [
        call("gemm", ("E", "A", "B", "one", "zero", "ni", "nj", "nk"), dims),
        call("gemm", ("F", "C", "D", "one", "zero", "nj", "nl", "nm"), dims),
        call("gemm", ("G", "E", "F", "one", "zero", "ni", "nl", "nj"), dims),
    ]


def _atax_library_plan(size: int) -> list[Launch]:
    n = {"n": edge(size)}
    return [
        call("gemv", ("tmp", "A", "x", "one", "zero", "n", "n"), n),
        call("gemv_t", ("y", "A", "tmp", "one", "zero", "n", "n"), n),
    ]


def _gesummv_library_plan(size: int) -> list[Launch]:
    n = {"n": edge(size)}
    return [
        call("gemv", ("y", "B", "x", "beta", "zero", "n", "n"), n),
        call("gemv", ("y", "A", "x", "alpha", "one", "n", "n"), n),
    ]


KERNELS = (
    MM2,
    with_library(MM3, _mm3_library_plan, {}, "E = A.B, F = C.D, G = E.F by three BLAS gemm"),
    with_library(ATAX, _atax_library_plan, {}, "tmp = A.x, then y = A^T.tmp, by two BLAS gemv"),
    GEMVER,
    with_library(
        GESUMMV, _gesummv_library_plan, {}, "y = beta B.x, then y += alpha A.x, by two BLAS gemv"
    ),
    MVT,
)

"""RAJAPerf's time-stepped Polybench kernels (ADI, FDTD_2D, JACOBI_1D) and
FLOYD_WARSHALL (src/polybench/*.cpp).

One repetition is one time step, as in RAJAPerf (whose reps count the steps):
a step's launches run in order, each over the points it updates. Matrices are
row-major, ``A[i][j] = A[j + i*n]``, with edge lengths computed from the
problem size as RAJAPerf's ``setSize`` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from harness.model.rajaperf import DataInit, registered
from harness.model.spec import (
    NORMAL,
    TIGHT,
    Array,
    CheckCase,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Tolerance,
    Traffic,
)
from harness.suite.forall import FORALL_CHECK_SIZES, GROUP, as_f64
from harness.suite.polybench import EDGE, GROUP_NAME, STENCIL_2D_GROUP, ping_pong

# --- ADI ----------------------------------------------------------------------

#: RAJAPerf's time steps of ADI (DT = 1 / ADI_TSTEPS).
ADI_TSTEPS = 4
ADI_COEFFICIENTS = tuple(Scalar(name, "real") for name in "abcdef")
_ADI_SWEEP_1 = ("P", "Q", "U", "V", "n", "a", "b", "c", "d", "f")
_ADI_SWEEP_2 = ("P", "Q", "U", "V", "n", "a", "c", "d", "e", "f")


def adi_edge(size: int) -> int:
    """RAJAPerf's n for a target size: interior (n-2)^2 is about ``size``."""
    return int(math.sqrt(size) + 2 + math.sqrt(2) - 1)


def adi_coefficients(n: int) -> dict[str, float]:
    """RAJAPerf's tridiagonal coefficients a to f for an n x n grid."""
    dx = dy = 1.0 / n
    dt = 1.0 / ADI_TSTEPS
    mul1 = 2.0 * dt / (dx * dx)
    mul2 = 1.0 * dt / (dy * dy)
    a = -mul1 / 2.0
    d = -mul2 / 2.0
    return {"a": a, "b": 1.0 + mul1, "c": a, "d": d, "e": 1.0 + mul2, "f": d}


def _adi_plan(size: int) -> list[Launch]:
    n = adi_edge(size)
    return [
        Launch("adi_1", n - 2, GROUP, _ADI_SWEEP_1, {"n": n}),
        Launch("adi_2", n - 2, GROUP, _ADI_SWEEP_2, {"n": n}),
    ]


def _adi_init(size: int, seed: int, precision: str) -> dict:
    n = adi_edge(size)
    d = DataInit()
    arrays = {"U": d.const(n * n, 0.0), "V": d.data(n * n), "P": d.data(n * n)}
    return {**arrays, "Q": d.data(n * n), **adi_coefficients(n)}


def _adi_check_init(size: int, seed: int, precision: str) -> dict:
    """Random arrays, U included, and c, f unlike a, d (both stable solves)."""
    n = adi_edge(size)
    rng = np.random.default_rng(seed)
    coefficients = adi_coefficients(n)
    coefficients["c"] *= 0.8
    coefficients["f"] *= 0.7
    coefficients["e"] *= 1.1
    arrays = {name: rng.uniform(0.5, 1.5, n * n) for name in "UVPQ"}
    return {**arrays, **coefficients}


def _adi_sweeps(U, V, P, Q, n: int, k: dict, first: bool) -> None:
    """One of ADI's two sweeps, on (n, n) views, every row i at once.

    The first solves along columns of U into V, the second along rows of V
    into U, each with RAJAPerf's operations in its order.
    """
    rows = slice(1, n - 1)
    src, dst = (U, V) if first else (V.T, U.T)
    lo, up, den_a, den_b = (
        (k["d"], k["f"], k["a"], k["b"]) if first else (k["a"], k["c"], k["d"], k["e"])
    )
    num = -k["c"] if first else -k["f"]
    dst[0, rows] = 1.0
    P[rows, 0] = 0.0
    Q[rows, 0] = 1.0
    one = P.dtype.type(1.0)
    two = P.dtype.type(2.0)
    for j in range(1, n - 1):
        den = den_a * P[rows, j - 1] + den_b
        P[rows, j] = num / den
        Q[rows, j] = (
            -lo * src[j, : n - 2]
            + (one + two * lo) * src[j, 1 : n - 1]
            - up * src[j, 2:]
            - den_a * Q[rows, j - 1]
        ) / den
    dst[n - 1, rows] = 1.0
    for j in range(n - 2, 0, -1):
        dst[j, rows] = P[rows, j] * dst[j + 1, rows] + Q[rows, j]


def _adi_cpu(first: bool) -> Callable[..., None]:
    """The numpy entry point of one sweep (``adi_1`` if ``first``, else ``adi_2``)."""

    def sweep(grid: Grid, P, Q, U, V, n: int, *coefficients) -> None:
        names = "abcdf" if first else "acdef"
        k = dict(zip(names, coefficients, strict=True))
        views = (x[: n * n].reshape(n, n) for x in (U, V, P, Q))
        _adi_sweeps(*views, n, k, first)

    return sweep


def _adi_reference(x: dict) -> dict:
    n = math.isqrt(x["U"].size)
    out = {name: as_f64(x[name]).reshape(n, n) for name in "UVPQ"}
    k = {name: float(x[name]) for name in "abcdef"}
    for first in (True, False):
        _adi_sweeps(out["U"], out["V"], out["P"], out["Q"], n, k, first)
    return {name: a.ravel() for name, a in out.items()}


def _adi_traffic(size: int, b: int) -> Traffic:
    n = adi_edge(size)
    return Traffic(
        read=2 * (n - 2) * n * b,
        write=4 * (n - 2) * b + 2 * (n - 2) * n * b,
        modify_write=4 * (n - 2) ** 2 * b,
    )


ADI = KernelSpec(
    name="Polybench_ADI",
    group=GROUP_NAME,
    summary="one ADI step: a tridiagonal solve along each column of U into V, then "
    "along each row of V into U (one work-item per line)",
    arrays=tuple(Array(name, "real", lambda s: adi_edge(s) ** 2, "inout") for name in "UVPQ"),
    scalars=(EDGE, *ADI_COEFFICIENTS),
    plan=_adi_plan,
    init=_adi_init,
    reference=_adi_reference,
    cpu={"adi_1": _adi_cpu(True), "adi_2": _adi_cpu(False)},
    traffic=_adi_traffic,
    flops=lambda s: 30 * (adi_edge(s) - 2) ** 2,
    default_size=1_000_000,
    default_reps=4 * ADI_TSTEPS,
    # Q's numerator sums terms n^2 times U that cancel to about U: in f32 the
    # solved values lose about n^2 ulps (2e-3 at n = 302), and more where they
    # cancel to near 0.
    tolerance=Tolerance(NORMAL.f64, 1e-2, floor=1e-3),
    rajaperf_features=("Kernel",),
    checksum=registered(arrays=("U",)),
    check_cases=(
        CheckCase(
            "random",
            _adi_check_init,
            "RAJAPerf's U starts at 0, hiding the first sweep's U terms, and its c, f "
            "equal a, d; here every array is random and c, f differ",
        ),
    ),
    # Size 1 is a 3 x 3 grid with one line to solve; 65536 has 256 lines, a
    # whole work-group; 10007 (100 lines) and 90000 (300) leave groups ragged.
    check_sizes=(10_007, 1, 65_536, 90_000),
)


# --- FDTD_2D ------------------------------------------------------------------

#: RAJAPerf's time steps of FDTD_2D: the length of the source term ``fict``.
FDTD_TSTEPS = 40
FDTD_CONSTANTS = {"E_COEF": 0.5, "H_COEF": 0.7}


def fdtd_edge(size: int) -> int:
    """RAJAPerf's nx = ny for a target size: (n-1) * n is about ``size``."""
    return int(math.sqrt(size) + 1 + math.sqrt(2) - 1)


def _fdtd_plan(size: int) -> list[Launch]:
    # RAJAPerf's four loops in three launches: ey with its source row, ex (but
    # column 0), then hz from the new ex and ey.
    n = fdtd_edge(size)
    return [
        Launch("fdtd_2d_ey", (n, n), STENCIL_2D_GROUP, ("ey", "fict", "hz", "n", "t"), {"n": n}),
        Launch("fdtd_2d_ex", (n - 1, n), STENCIL_2D_GROUP, ("ex", "hz", "n"), {"n": n}),
        Launch("fdtd_2d_h", (n - 1, n - 1), STENCIL_2D_GROUP, ("hz", "ex", "ey", "n"), {"n": n}),
    ]


def _fdtd_init(size: int, seed: int, precision: str) -> dict:
    n = fdtd_edge(size)
    d = DataInit()
    arrays = {"hz": d.const(n * n, 0.0), "ex": d.data(n * n), "ey": d.data(n * n)}
    # Every repetition takes step 0, RAJAPerf's first: its later ones read
    # fict[t] for the next t, one value of the source row, the same work.
    return {**arrays, "fict": d.data(FDTD_TSTEPS), "t": 0}


def _fdtd_check_init(size: int, seed: int, precision: str) -> dict:
    """Random fields, hz included, and a step past the first."""
    n = fdtd_edge(size)
    rng = np.random.default_rng(seed)
    arrays = {name: rng.uniform(0.5, 1.5, n * n) for name in ("hz", "ex", "ey")}
    return {**arrays, "fict": rng.uniform(2.0, 3.0, FDTD_TSTEPS), "t": FDTD_TSTEPS - 3}


def _fdtd_ey(ey, fict, hz, t: int) -> None:
    """ey from hz, on (n, n) views: its row 0 takes the source."""
    half = ey.dtype.type(FDTD_CONSTANTS["E_COEF"])
    ey[1:] = ey[1:] - half * (hz[1:] - hz[:-1])
    ey[0] = fict[t]


def _fdtd_ex(ex, hz) -> None:
    """ex from hz, on (n, n) views, but its column 0."""
    half = ex.dtype.type(FDTD_CONSTANTS["E_COEF"])
    ex[:, 1:] = ex[:, 1:] - half * (hz[:, 1:] - hz[:, :-1])


def _fdtd_h(hz, ex, ey) -> None:
    """hz from both E fields, on (n, n) views, but its last row and column."""
    coef = hz.dtype.type(FDTD_CONSTANTS["H_COEF"])
    hz[:-1, :-1] = hz[:-1, :-1] - coef * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def _square(n: int, *arrays: np.ndarray) -> list[np.ndarray]:
    return [a[: n * n].reshape(n, n) for a in arrays]


def _fdtd_ey_cpu(grid: Grid, ey, fict, hz, n: int, t: int) -> None:
    _fdtd_ey(_square(n, ey)[0], fict, _square(n, hz)[0], int(t))


def _fdtd_ex_cpu(grid: Grid, ex, hz, n: int) -> None:
    _fdtd_ex(*_square(n, ex, hz))


def _fdtd_h_cpu(grid: Grid, hz, ex, ey, n: int) -> None:
    _fdtd_h(*_square(n, hz, ex, ey))


def _fdtd_reference(x: dict) -> dict:
    n = math.isqrt(x["hz"].size)
    out = {name: as_f64(x[name]).reshape(n, n) for name in ("hz", "ex", "ey")}
    _fdtd_ey(out["ey"], as_f64(x["fict"]), out["hz"], int(x["t"]))
    _fdtd_ex(out["ex"], out["hz"])
    _fdtd_h(out["hz"], out["ex"], out["ey"])
    return {name: a.ravel() for name, a in out.items()}


def _fdtd_traffic(size: int, b: int) -> Traffic:
    n = fdtd_edge(size)
    edge = (n - 1) * n
    return Traffic(
        read=b + 2 * n * n * b + 2 * edge * b,
        write=n * b,
        modify_write=(2 * edge + (n - 1) ** 2) * b,
    )


FDTD_2D = KernelSpec(
    name="Polybench_FDTD_2D",
    group=GROUP_NAME,
    summary="one FDTD step: ey (row 0 from the source fict[t]) and ex from hz, "
    "then hz from ex and ey",
    arrays=(
        Array("fict", "real", lambda s: FDTD_TSTEPS),
        Array("ex", "real", lambda s: fdtd_edge(s) ** 2, "inout"),
        Array("ey", "real", lambda s: fdtd_edge(s) ** 2, "inout"),
        Array("hz", "real", lambda s: fdtd_edge(s) ** 2, "inout"),
    ),
    scalars=(EDGE, Scalar("t", "u32")),
    plan=_fdtd_plan,
    init=_fdtd_init,
    reference=_fdtd_reference,
    cpu={"fdtd_2d_ey": _fdtd_ey_cpu, "fdtd_2d_ex": _fdtd_ex_cpu, "fdtd_2d_h": _fdtd_h_cpu},
    traffic=_fdtd_traffic,
    flops=lambda s: 6 * (fdtd_edge(s) - 1) * fdtd_edge(s) + 5 * (fdtd_edge(s) - 1) ** 2,
    default_size=999_000,
    default_reps=8 * FDTD_TSTEPS,
    # From RAJAPerf's inputs hz is mostly differences of ex and ey that cancel
    # to 1e-8 of its largest value, which f32 keeps only to a few digits.
    tolerance=Tolerance(NORMAL.f64, NORMAL.f32, floor=1e-2),
    constants=FDTD_CONSTANTS,
    rajaperf_features=("Kernel",),
    checksum=registered(arrays=("hz",)),
    check_cases=(
        CheckCase(
            "random",
            _fdtd_check_init,
            "RAJAPerf's hz starts at 0, hiding the E updates' hz terms, its ex and ey "
            "vary by under 2% along a row, and its step 0 reads fict[0]; here the "
            "fields are random and the step is another",
        ),
    ),
    # Size 1 is a 2 x 2 grid; 3969 is 64 x 64, whole work-groups; 10007's
    # 101 x 101 leave them ragged.
    check_sizes=(10_007, 1, 3_969),
    group_size=STENCIL_2D_GROUP,
)


# --- FLOYD_WARSHALL -----------------------------------------------------------


def floyd_edge(size: int) -> int:
    """RAJAPerf's N for a target size: N^2 is about ``size``."""
    return int(math.sqrt(size) + math.sqrt(2) - 1)


def _floyd_plan(size: int) -> list[Launch]:
    n = floyd_edge(size)
    args = ("pout", "pin", "k", "n")
    return [
        Launch("floyd_warshall", (n, n), STENCIL_2D_GROUP, args, {"k": k, "n": n}) for k in range(n)
    ]


def _floyd_init(size: int, seed: int, precision: str) -> dict:
    n = floyd_edge(size)
    d = DataInit()
    return {"pin": d.rand_sign(n * n), "pout": d.const(n * n, 0.0)}


def _floyd_step(pin: np.ndarray, k: int) -> np.ndarray:
    """pout for one k from an (n, n) pin: the shorter of i->j and i->k->j."""
    through = pin[:, k : k + 1] + pin[k : k + 1, :]
    return np.where(pin < through, pin, through)


def _floyd_cpu(grid: Grid, pout, pin, k: int, n: int) -> None:
    pout[: n * n] = _floyd_step(pin[: n * n].reshape(n, n), int(k)).ravel()


def _floyd_reference(x: dict) -> dict:
    # Every k rewrites pout from the same pin: the last one decides it.
    pin = as_f64(x["pin"])
    n = math.isqrt(pin.size)
    return {"pout": _floyd_step(pin.reshape(n, n), n - 1).ravel()}


FLOYD_WARSHALL = KernelSpec(
    name="Polybench_FLOYD_WARSHALL",
    group=GROUP_NAME,
    summary="for each k: pout[i][j] = min(pin[i][j], pin[i][k] + pin[k][j]) "
    "(pin never updated, as in RAJAPerf)",
    arrays=(
        Array("pin", "real", lambda s: floyd_edge(s) ** 2),
        Array("pout", "real", lambda s: floyd_edge(s) ** 2, "out"),
    ),
    scalars=(Scalar("k", "u32"), EDGE),
    plan=_floyd_plan,
    init=_floyd_init,
    reference=_floyd_reference,
    cpu={"floyd_warshall": _floyd_cpu},
    traffic=lambda s, b: Traffic(read=floyd_edge(s) ** 3 * b, write=floyd_edge(s) ** 3 * b),
    flops=lambda s: floyd_edge(s) ** 3 * 3 // 2,
    default_size=1_000_000,
    default_reps=8,
    tolerance=TIGHT,
    rajaperf_features=("Kernel",),
    complexity="N^(3/2)",
    # Size 1 is a 1 x 1 matrix; 4096 is 64 x 64, whole work-groups; 10007's
    # 100 x 100 leave them ragged.
    check_sizes=(10_007, 1, 4_096),
    group_size=STENCIL_2D_GROUP,
)


# --- JACOBI_1D ----------------------------------------------------------------

JACOBI_1D_CONSTANTS = {"THIRD": 0.33333}


def _jacobi_1d_sweep(a: np.ndarray) -> np.ndarray:
    """The 3-point average of a 1-D array's interior, in RAJAPerf's order."""
    third = a.dtype.type(JACOBI_1D_CONSTANTS["THIRD"])
    return third * (a[:-2] + a[1:-1] + a[2:])


def _jacobi_1d_cpu(grid: Grid, src: np.ndarray, dst: np.ndarray, n: int) -> None:
    dst[1 : n - 1] = _jacobi_1d_sweep(src[:n])


def _jacobi_1d_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {"A": d.data(size + 2), "B": d.data(size + 2)}


def _jacobi_1d_check_init(size: int, seed: int, precision: str) -> dict:
    """Independent random A and B in [0.5, 1.5]: every neighbour differs from the centre."""
    rng = np.random.default_rng(seed)
    return {"A": rng.uniform(0.5, 1.5, size + 2), "B": rng.uniform(0.5, 1.5, size + 2)}


def _jacobi_1d_reference(x: dict) -> dict:
    a = as_f64(x["A"])
    b = as_f64(x["B"])
    b[1:-1] = _jacobi_1d_sweep(a)
    a[1:-1] = _jacobi_1d_sweep(b)
    return {"A": a, "B": b}


JACOBI_1D = KernelSpec(
    name="Polybench_JACOBI_1D",
    group=GROUP_NAME,
    summary="one Jacobi step: B = 3-point average of A, then A of B (interior)",
    arrays=(
        Array("A", "real", lambda s: s + 2, "inout"),
        Array("B", "real", lambda s: s + 2, "inout"),
    ),
    scalars=(EDGE,),
    plan=lambda s: ping_pong("jacobi_1d", s, s + 2),
    init=_jacobi_1d_init,
    reference=_jacobi_1d_reference,
    cpu={"jacobi_1d": _jacobi_1d_cpu},
    traffic=lambda s, b: Traffic(read=2 * (s + 2) * b, write=2 * s * b),
    flops=lambda s: 6 * s,
    default_size=1_000_000,
    default_reps=1600,
    tolerance=NORMAL,
    constants=JACOBI_1D_CONSTANTS,
    check_cases=(
        CheckCase(
            "random",
            _jacobi_1d_check_init,
            "RAJAPerf's A and B vary by under 2% between neighbours, so a neighbour "
            "read from the wrong place barely shows; these are independent random values",
        ),
    ),
    check_sizes=(*FORALL_CHECK_SIZES, 1),
)


KERNELS = (ADI, FDTD_2D, FLOYD_WARSHALL, JACOBI_1D)

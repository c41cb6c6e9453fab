"""RAJAPerf's Basic kernels that map each element on its own (src/basic/*.cpp),
and Basic_EMPTY, whose empty body measures what a launch costs."""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import (
    EXACT,
    NORMAL,
    TIGHT,
    Array,
    CheckCase,
    Grid,
    KernelSpec,
    Param,
    Scalar,
    Traffic,
)
from harness.suite.forall import FORALL_CHECK_SIZES, N, as_f64, one_launch, per_item

GROUP_NAME = "Basic"
V = Scalar("v", "real")
#: RAJAPerf's INIT_VIEW1D and INIT_VIEW1D_OFFSET multiplier (their m_val).
INIT_VIEW_VAL = 0.00000123


def _real(name: str, intent: str = "in") -> Array:
    """An array of the run precision with one element per item."""
    return Array(name, "real", per_item, intent)


# --- ARRAY_OF_PTRS --------------------------------------------------------------

#: RAJAPerf's ARRAY_OF_PTRS_MAX_ARRAY_SIZE: the pointers every launch passes.
MAX_ARRAY_SIZE = 26
X_NAMES = tuple(f"x{a}" for a in range(MAX_ARRAY_SIZE))

ARRAY_SIZE = Param(
    "array_of_ptrs_array_size",
    tuple(str(a) for a in range(1, MAX_ARRAY_SIZE + 1)),
    (str(MAX_ARRAY_SIZE),),
    "Basic_ARRAY_OF_PTRS's number of arrays summed, as RAJAPerf's "
    f"--array_of_ptrs_array_size (1 to {MAX_ARRAY_SIZE}, default {MAX_ARRAY_SIZE})",
    # The default sums every array: a kernel that ignores the count matched there.
    checked=(str(MAX_ARRAY_SIZE), "5"),
)


def _aop_split(x: np.ndarray, size: int) -> dict:
    """RAJAPerf's pointers x[a] = x_data + a*n as the arrays x0, x1, ...; those past
    the arrays summed are empty of meaning but still passed, as RAJAPerf passes all."""
    parts = [x[a * size : (a + 1) * size] for a in range(x.size // max(size, 1))]
    return {name: parts[a] if a < len(parts) else np.zeros(size) for a, name in enumerate(X_NAMES)}


def _aop_sum(x: dict, array_size: int, dtype: np.dtype) -> np.ndarray:
    """y[i] = x0[i] + x1[i] + ..., added in RAJAPerf's order from 0."""
    y = np.zeros(x["x0"].size, dtype=dtype)
    for name in X_NAMES[:array_size]:
        y += np.asarray(x[name], dtype=dtype)
    return y


def _array_of_ptrs(array_size: int) -> KernelSpec:
    """ARRAY_OF_PTRS summing ``array_size`` of its MAX_ARRAY_SIZE arrays."""

    def init(size: int, seed: int, precision: str) -> dict:
        d = DataInit()
        y = d.const(size, 0.0)
        return {"y": y, **_aop_split(d.data(array_size * size), size), "array_size": array_size}

    def random_init(size: int, seed: int, precision: str) -> dict:
        """Random positive x (positive, so no sum cancels), and a stale y."""
        rng = np.random.default_rng(seed)
        x = rng.uniform(0.25, 1.0, MAX_ARRAY_SIZE * size)
        return {"y": np.full(size, -1.0), **_aop_split(x, size), "array_size": array_size}

    def cpu(grid: Grid, y: np.ndarray, *rest) -> None:
        *xs, count, n = rest
        y[:n] = _aop_sum(dict(zip(X_NAMES, (x[:n] for x in xs), strict=True)), count, y.dtype)

    return KernelSpec(
        name="Basic_ARRAY_OF_PTRS",
        group=GROUP_NAME,
        summary=f"y[i] = x[0][i] + ... + x[{array_size - 1}][i], x an array of pointers",
        arrays=(_real("y", "out"), *(_real(name) for name in X_NAMES)),
        scalars=(Scalar("array_size", "u32"), N),
        plan=one_launch("array_of_ptrs", ("y", *X_NAMES, "array_size")),
        init=init,
        reference=lambda x: {"y": _aop_sum(x, int(x["array_size"]), np.float64)},
        cpu={"array_of_ptrs": cpu},
        traffic=lambda n, b: Traffic(read=array_size * n * b, write=n * b),
        flops=lambda n: array_size * n,
        default_reps=50,
        tolerance=NORMAL,
        constants={"MAX_ARRAY_SIZE": MAX_ARRAY_SIZE},
        check_cases=(
            CheckCase(
                "random",
                random_init,
                "RAJAPerf's x varies by about 2% across all its values, so a read of "
                "the wrong array or element barely shows; here every value is random",
            ),
        ),
        check_sizes=FORALL_CHECK_SIZES,
        params=(ARRAY_SIZE,),
        bind=lambda chosen: _array_of_ptrs(int(chosen.get(ARRAY_SIZE.name, ARRAY_SIZE.default[0]))),
        param_values={ARRAY_SIZE.name: str(array_size)},
    )


ARRAY_OF_PTRS = _array_of_ptrs(MAX_ARRAY_SIZE)


# --- COPY8 --------------------------------------------------------------------

COPY8_Y = tuple(f"y{k}" for k in range(8))
COPY8_X = tuple(f"x{k}" for k in range(8))


def _copy8_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    ys = {name: d.const(size, 0.0) for name in COPY8_Y}
    return {**ys, **{name: d.data(size) for name in COPY8_X}}


def _copy8_random_init(size: int, seed: int, precision: str) -> dict:
    """Distinct random x arrays of both signs (RAJAPerf's x0, x2, x4, x6 are equal,
    and x1, x3, x5, x7), and y not 0 beforehand."""
    rng = np.random.default_rng(seed)
    ys = {name: np.full(size, -2.0) for name in COPY8_Y}
    return {**ys, **{name: rng.uniform(-1.0, 1.0, size) for name in COPY8_X}}


def _copy8_cpu(grid: Grid, *arrays) -> None:
    *arrays, n = arrays
    for y, x in zip(arrays[:8], arrays[8:], strict=True):
        y[:n] = x[:n]


COPY8 = KernelSpec(
    name="Basic_COPY8",
    group=GROUP_NAME,
    summary="y0[i] = x0[i], ..., y7[i] = x7[i]: eight copies in one loop",
    arrays=(*(_real(y, "out") for y in COPY8_Y), *(_real(x) for x in COPY8_X)),
    scalars=(N,),
    plan=one_launch("copy8", (*COPY8_Y, *COPY8_X)),
    init=_copy8_init,
    reference=lambda x: {y: as_f64(x[xk]) for y, xk in zip(COPY8_Y, COPY8_X, strict=True)},
    cpu={"copy8": _copy8_cpu},
    traffic=lambda n, b: Traffic(read=8 * n * b, write=8 * n * b),
    flops=lambda n: 0,
    default_reps=50,
    tolerance=EXACT,
    check_cases=(
        CheckCase(
            "random",
            _copy8_random_init,
            "RAJAPerf's x arrays alternate between two sets of values, so copying "
            "x2 for x0 would match; here each x is its own random array",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


# --- EMPTY --------------------------------------------------------------------

EMPTY = KernelSpec(
    name="Basic_EMPTY",
    group=GROUP_NAME,
    summary="empty body: what one launch over n items costs on the backend",
    # RAJAPerf's EMPTY has no data and adds nothing to its checksum (0): there
    # is nothing to verify but that the launch runs.
    arrays=(),
    scalars=(N,),
    plan=one_launch("empty", ()),
    init=lambda size, seed, precision: {},
    reference=lambda x: {},
    cpu={"empty": lambda grid, n: None},
    traffic=lambda n, b: Traffic(),
    flops=lambda n: 0,
    default_reps=1000,
    tolerance=EXACT,
    check_sizes=FORALL_CHECK_SIZES,
)


# --- IF_QUAD ------------------------------------------------------------------


def _if_quad_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {
        "a": d.rand_sign(size),
        "b": d.data(size),
        "c": d.data(size),
        "x1": d.const(size, 0.0),
        "x2": d.const(size, 0.0),
    }


def _if_quad_branches_init(size: int, seed: int, precision: str) -> dict:
    """Both branches for either sign of a, and every eighth discriminant exactly 0.

    Random a and b with c = r*b*b/(4a), so s = b*b*(1 - r): r in (1.1, 3) makes
    s < 0, r in (-3, -0.1) or (0.1, 0.9) makes s > 0 with |s| at least b*b/10 and
    sqrt(s) at least 5% from |b| (no f32 root lost to cancellation). Every eighth
    element has a power of two a, b = 2k and c = k*k/a (k a multiple of 1/8), so
    s = 4k*k - 4a*c is exactly 0 in either precision.
    """
    rng = np.random.default_rng(seed)
    a = rng.choice([-1.0, 1.0], size) * rng.uniform(0.5, 2.0, size)
    b = rng.choice([-1.0, 1.0], size) * rng.uniform(0.5, 2.0, size)
    lows = np.array([1.1, -3.0, 0.1])
    highs = np.array([3.0, -0.1, 0.9])
    band = rng.integers(0, 3, size)
    r = rng.uniform(lows[band], highs[band])
    c = r * b * b / (4.0 * a)
    zero = slice(0, size, 8)
    count = len(range(size)[zero])
    a[zero] = rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], count)
    k = rng.choice([-1.0, 1.0], count) * rng.integers(1, 65, count) / 8.0
    b[zero] = 2.0 * k
    c[zero] = k * k / a[zero]
    return {"a": a, "b": b, "c": c, "x1": np.full(size, -3.0), "x2": np.full(size, -3.0)}


def _if_quad_roots(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """RAJAPerf's IF_QUAD_BODY, elementwise in the arrays' type: (x1, x2)."""
    s = b * b - 4.0 * a * c
    real = s >= 0
    with np.errstate(invalid="ignore"):
        root = np.sqrt(s)
    zero = np.zeros_like(s)
    x2 = np.where(real, (-b + root) / (2.0 * a), zero)
    x1 = np.where(real, (-b - root) / (2.0 * a), zero)
    return x1, x2


def _if_quad_cpu(grid: Grid, x1, x2, a, b, c, n: int) -> None:
    x1[:n], x2[:n] = _if_quad_roots(a[:n], b[:n], c[:n])


def _if_quad_reference(x: dict) -> dict:
    x1, x2 = _if_quad_roots(as_f64(x["a"]), as_f64(x["b"]), as_f64(x["c"]))
    return {"x1": x1, "x2": x2}


IF_QUAD = KernelSpec(
    name="Basic_IF_QUAD",
    group=GROUP_NAME,
    summary="roots x1, x2 of a x^2 + b x + c where b*b - 4ac >= 0, else 0",
    arrays=(_real("a"), _real("b"), _real("c"), _real("x1", "out"), _real("x2", "out")),
    scalars=(N,),
    plan=one_launch("if_quad", ("x1", "x2", "a", "b", "c")),
    init=_if_quad_init,
    reference=_if_quad_reference,
    cpu={"if_quad": _if_quad_cpu},
    traffic=lambda n, b: Traffic(read=3 * n * b, write=2 * n * b),
    flops=lambda n: 4 * n + 7 * n // 2,
    default_reps=180,
    tolerance=NORMAL,
    check_cases=(
        CheckCase(
            "branches",
            _if_quad_branches_init,
            "RAJAPerf's discriminant is never 0 and is positive exactly where a < 0; "
            "here both branches are taken for either sign of a, and every eighth "
            "discriminant is exactly 0, where s >= 0 and s > 0 differ; x1 and x2 "
            "start at -3, so the zeros of the other branch must be written",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


# --- INIT3 --------------------------------------------------------------------


def _init3_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    outs = {name: d.const(size, 0.0) for name in ("out1", "out2", "out3")}
    return {**outs, "in1": d.data(size), "in2": d.data(size)}


def _init3_cpu(grid: Grid, out1, out2, out3, in1, in2, n: int) -> None:
    out1[:n] = out2[:n] = out3[:n] = -in1[:n] - in2[:n]


def _init3_reference(x: dict) -> dict:
    value = -as_f64(x["in1"]) - as_f64(x["in2"])
    return {"out1": value, "out2": value, "out3": value}


INIT3 = KernelSpec(
    name="Basic_INIT3",
    group=GROUP_NAME,
    summary="out1[i] = out2[i] = out3[i] = -in1[i] - in2[i]",
    arrays=(
        _real("out1", "out"),
        _real("out2", "out"),
        _real("out3", "out"),
        _real("in1"),
        _real("in2"),
    ),
    scalars=(N,),
    plan=one_launch("init3", ("out1", "out2", "out3", "in1", "in2")),
    init=_init3_init,
    reference=_init3_reference,
    cpu={"init3": _init3_cpu},
    traffic=lambda n, b: Traffic(read=2 * n * b, write=3 * n * b),
    flops=lambda n: n,
    default_reps=500,
    tolerance=NORMAL,
    check_sizes=FORALL_CHECK_SIZES,
)


# --- INIT_VIEW1D and INIT_VIEW1D_OFFSET ---------------------------------------


def _init_view_init(size: int, seed: int, precision: str) -> dict:
    return {"a": DataInit().const(size, 0.0), "v": INIT_VIEW_VAL}


def _init_view_offset_init(size: int, seed: int, precision: str) -> dict:
    """RAJAPerf's loop runs i from ibegin = 1 to n."""
    return {**_init_view_init(size, seed, precision), "ibegin": 1}


def _init_view_offset_check_init(size: int, seed: int, precision: str) -> dict:
    """Another first index than RAJAPerf's 1."""
    return {**_init_view_init(size, seed, precision), "ibegin": 7}


def _init_view_cpu(grid: Grid, a: np.ndarray, v, n: int) -> None:
    a[:n] = np.arange(1, n + 1, dtype=a.dtype) * v


def _init_view_offset_cpu(grid: Grid, a: np.ndarray, v, ibegin: int, n: int) -> None:
    a[:n] = np.arange(ibegin, ibegin + n, dtype=a.dtype) * v


def _init_view_reference(x: dict) -> dict:
    """a[i] = (i+1)*v, what both kernels compute (OFFSET as a[i-1] = i*v for i = 1..n)."""
    first = int(x.get("ibegin", 1))
    return {"a": np.arange(first, first + x["a"].size, dtype=np.float64) * float(x["v"])}


INIT_VIEW1D = KernelSpec(
    name="Basic_INIT_VIEW1D",
    group=GROUP_NAME,
    summary="a[i] = (i+1) * v, through a 1-D view",
    arrays=(_real("a", "out"),),
    scalars=(V, N),
    plan=one_launch("init_view1d", ("a", "v")),
    init=_init_view_init,
    reference=_init_view_reference,
    cpu={"init_view1d": _init_view_cpu},
    traffic=lambda n, b: Traffic(write=n * b),
    flops=lambda n: n,
    default_reps=2500,
    tolerance=TIGHT,
    rajaperf_features=("Forall", "View"),
    check_sizes=FORALL_CHECK_SIZES,
)

INIT_VIEW1D_OFFSET = KernelSpec(
    name="Basic_INIT_VIEW1D_OFFSET",
    group=GROUP_NAME,
    summary="a[i-ibegin] = i * v for i = ibegin..n+ibegin-1 (ibegin = 1), a view with offset",
    arrays=(_real("a", "out"),),
    scalars=(V, Scalar("ibegin", "u32"), N),
    plan=one_launch("init_view1d_offset", ("a", "v", "ibegin")),
    init=_init_view_offset_init,
    reference=_init_view_reference,
    cpu={"init_view1d_offset": _init_view_offset_cpu},
    traffic=lambda n, b: Traffic(write=n * b),
    flops=lambda n: n,
    default_reps=2500,
    tolerance=TIGHT,
    rajaperf_features=("Forall", "View"),
    check_cases=(
        CheckCase(
            "offset",
            _init_view_offset_check_init,
            "RAJAPerf's first index is 1, so a kernel that uses 1 where it should use "
            "ibegin matched; here it is 7",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)


# --- MULADDSUB ----------------------------------------------------------------


def _muladdsub_cpu(grid: Grid, out1, out2, out3, in1, in2, n: int) -> None:
    out1[:n] = in1[:n] * in2[:n]
    out2[:n] = in1[:n] + in2[:n]
    out3[:n] = in1[:n] - in2[:n]


def _muladdsub_reference(x: dict) -> dict:
    in1, in2 = as_f64(x["in1"]), as_f64(x["in2"])
    return {"out1": in1 * in2, "out2": in1 + in2, "out3": in1 - in2}


MULADDSUB = KernelSpec(
    name="Basic_MULADDSUB",
    group=GROUP_NAME,
    summary="out1[i] = in1[i] * in2[i], out2[i] = in1[i] + in2[i], out3[i] = in1[i] - in2[i]",
    arrays=INIT3.arrays,
    scalars=(N,),
    plan=one_launch("muladdsub", ("out1", "out2", "out3", "in1", "in2")),
    init=_init3_init,
    reference=_muladdsub_reference,
    cpu={"muladdsub": _muladdsub_cpu},
    traffic=lambda n, b: Traffic(read=2 * n * b, write=3 * n * b),
    flops=lambda n: 3 * n,
    default_reps=350,
    tolerance=TIGHT,
    check_sizes=FORALL_CHECK_SIZES,
)


KERNELS: tuple[KernelSpec, ...] = (
    ARRAY_OF_PTRS,
    COPY8,
    EMPTY,
    IF_QUAD,
    INIT3,
    INIT_VIEW1D,
    INIT_VIEW1D_OFFSET,
    MULADDSUB,
)

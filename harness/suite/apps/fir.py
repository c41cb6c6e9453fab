"""Apps_FIR (RAJAPerf's FIR.cpp): a 16-tap finite impulse response filter."""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import NORMAL, CheckCase, Grid, KernelSpec, Tolerance, Traffic
from harness.suite.apps.shared import GROUP_NAME, real, wide
from harness.suite.forall import FORALL_CHECK_SIZES, N, one_launch, per_item

#: RAJAPerf's FIR_COEFF: 3 at every fifth tap from the first, -1 elsewhere.
FIR_COEFF = tuple(3.0 if j % 5 == 0 else -1.0 for j in range(16))
FIR_LEN = len(FIR_COEFF)
#: Outputs a CPU device's work-item sums together, tap by tap (Apps_FIR.c).
FIR_BLOCK = 128


def _fir_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {
        "in": d.rand_value(size + FIR_LEN - 1),
        "out": d.const(size, 0.0),
        "coeff": np.array(FIR_COEFF),
    }


def _fir_taps_init(size: int, seed: int, precision: str) -> dict:
    """Distinct random taps and inputs: RAJAPerf's taps read the same backwards."""
    rng = np.random.default_rng(seed)
    return {
        "in": rng.uniform(-1.0, 1.0, size + FIR_LEN - 1),
        "out": np.zeros(size),
        "coeff": rng.uniform(0.5, 1.5, FIR_LEN) * rng.choice((-1.0, 1.0), FIR_LEN),
    }


def _fir_cpu(grid: Grid, inp, out, coeff, n) -> None:
    acc = np.zeros(n, dtype=out.dtype)
    for j in range(FIR_LEN):
        acc += coeff[j] * inp[j : j + n]
    out[:n] = acc


def _fir_reference(inputs: dict) -> dict:
    a = wide(inputs)
    _fir_cpu(None, a["in"], a["out"], a["coeff"], a["out"].size)
    return {"out": a["out"]}


#: FIR's coefficients sum to zero, so its outputs are cancelling sums of
#: values in [0, 1]: rounding that is tiny against the inputs is large against
#: the smallest outputs. Errors are measured against at least 1e-2 of the
#: largest output (NORMAL's bounds otherwise).
_FIR_TOLERANCE = Tolerance(NORMAL.f64, NORMAL.f32, floor=1e-2)


KERNEL = KernelSpec(
    name="Apps_FIR",
    group=GROUP_NAME,
    summary=f"out[i] = sum of {FIR_LEN} coeff[j] * in[i + j]",
    arrays=(
        real("in", lambda n: n + FIR_LEN - 1),
        real("out", per_item, "out"),
        real("coeff", lambda n: FIR_LEN),
    ),
    scalars=(N,),
    plan=one_launch("fir", ("in", "out", "coeff")),
    constants={"COEFFLEN": FIR_LEN, "FIR_BLOCK": FIR_BLOCK},
    init=_fir_init,
    reference=_fir_reference,
    cpu={"fir": _fir_cpu},
    traffic=lambda n, b: Traffic(read=b * (FIR_LEN + n + FIR_LEN - 1), write=b * n),
    flops=lambda n: 2 * FIR_LEN * n,
    default_reps=160,
    tolerance=_FIR_TOLERANCE,
    check_cases=(
        CheckCase(
            "taps",
            _fir_taps_init,
            "RAJAPerf's taps (3 at every fifth, -1 elsewhere) are a palindrome, so taps "
            "read in reverse order (a convolution) match; these are distinct random taps",
        ),
    ),
    check_sizes=FORALL_CHECK_SIZES,
)

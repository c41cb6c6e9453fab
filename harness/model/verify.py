"""Comparing a backend's outputs with the description's reference."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Verdict:
    """The worst relative error over all verified arrays, and what went wrong."""

    max_rel_error: float
    problem: str | None

    @property
    def ok(self) -> bool:
        """True when every element is within tolerance."""
        return self.problem is None


def relative_errors(
    got: np.ndarray, expected: np.ndarray, floor: float = 0.0, largest: float | None = None
) -> np.ndarray:
    """Per-element |got - expected| / |expected| (absolute where expected is 0).

    With a ``floor``, the denominator is at least floor times the largest
    finite |expected| (``largest``, when the caller has it for a whole array of
    which these are a part). Matching NaNs and matching infinities count as
    exact; a NaN or infinity where a finite value was expected is an infinite
    error.
    """
    g = np.asarray(got, dtype=np.float64).ravel()
    e = np.asarray(expected, dtype=np.float64).ravel()
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diff = np.abs(g - e)
        scale = np.abs(e)
        if floor and scale.size:
            if largest is None:
                largest = _largest_finite(scale)
            scale = np.maximum(scale, floor * largest)
        err = np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), diff)
    same = (g == e) | (np.isnan(g) & np.isnan(e))
    err = np.where(same, 0.0, err)
    return np.where(np.isnan(err), np.inf, err)


def _largest_finite(magnitudes: np.ndarray) -> float:
    """The largest finite value of ``magnitudes`` (non-negative), 0 if none."""
    finite = magnitudes[np.isfinite(magnitudes)]
    return float(finite.max()) if finite.size else 0.0


#: Elements compared at a time: the temporaries of a comparison stay in cache,
#: so verifying arrays of 10^8 elements neither faults in gigabytes of fresh
#: pages nor needs them.
CHUNK = 1 << 15


def compare(
    outputs: dict[str, np.ndarray],
    reference: dict[str, np.ndarray],
    tol: float,
    floor: float = 0.0,
) -> Verdict:
    """Check every referenced array; report the first one out of tolerance."""
    worst = 0.0
    problem = None
    for name, expected in reference.items():
        got = outputs[name]
        if got.size != np.asarray(expected).size:
            return Verdict(float("inf"), f"{name}: {got.size} elements, expected {expected.size}")
        if got.size == 0:
            continue
        g = np.asarray(got).ravel()
        e = np.asarray(expected).ravel()
        largest = 0.0
        if floor:
            largest = max(
                (_largest_finite(np.abs(np.asarray(e[i : i + CHUNK], dtype=np.float64)))
                 for i in range(0, e.size, CHUNK)),
                default=0.0,
            )  # fmt: skip
        at, bad, err_at = 0, 0, -1.0
        for start in range(0, e.size, CHUNK):
            err = relative_errors(
                g[start : start + CHUNK], e[start : start + CHUNK], floor, largest
            )
            i = int(np.argmax(err))
            if err[i] > err_at:
                at, err_at = start + i, float(err[i])
            bad += int(np.count_nonzero(err > tol))
        worst = max(worst, err_at)
        if err_at > tol and problem is None:
            problem = (
                f"{name}: {bad} of {e.size} elements off; worst at index {at}: "
                f"got {g[at].item()!r}, expected {e[at].item()!r} "
                f"(relative error {err_at:.3g} > tolerance {tol:.3g})"
            )
    return Verdict(worst, problem)


#: Bytes of guard zone after every array in a verification repetition.
GUARD_BYTES = 512
#: Seed of the guard zones' values (array number k uses GUARD_SEED + k).
GUARD_SEED = 0x6A7D


def guard_length(dtype: np.dtype) -> int:
    """Elements of guard zone after an array of this type."""
    return max(16, GUARD_BYTES // np.dtype(dtype).itemsize)


def guard_zone(index: int, dtype: np.dtype, intent: str) -> np.ndarray:
    """The guard zone after a description's array number ``index``: its own values,
    chosen so that a kernel that writes past the end changes them and one that
    reads past the end computes something else.

    Floats get values of both signs and moderate size (a read past the end
    changes a sum; a huge value would swamp it, or saturate a clamp). Integer
    arrays the kernel only reads get small values, valid as indices, so a read
    past the end of an index list lands in range and moves a result instead of
    being dropped by a bounds check; other integer arrays get a byte pattern
    (0x7F7F... less the array number) that no count or key is likely to equal.
    """
    dtype = np.dtype(dtype)
    count = guard_length(dtype)
    rng = np.random.default_rng(GUARD_SEED + index)
    if dtype.kind == "f":
        signs = rng.choice(np.array([-1.0, 1.0]), count)
        return (signs * rng.uniform(0.5, 2.0, count)).astype(dtype)
    if intent == "in":
        return rng.integers(0, 4, count).astype(dtype)
    return np.full(count * dtype.itemsize, 0x7F - index % 16, np.uint8).view(dtype)


def with_guard(array: np.ndarray, guard: np.ndarray) -> np.ndarray:
    """A copy of ``array`` followed by its guard zone."""
    array = np.ascontiguousarray(array).reshape(-1)
    return np.concatenate([array, guard.astype(array.dtype, copy=False)])


def _changed(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Indices of elements whose bytes differ (so NaNs and -0 compare exactly)."""
    size = got.dtype.itemsize
    a = np.ascontiguousarray(got).reshape(-1)
    b = np.ascontiguousarray(expected).reshape(-1)
    if size in (1, 2, 4, 8):  # one unsigned integer per element: no byte-wise temporaries
        bits = np.dtype(f"u{size}")
        a, b = a.view(bits), b.view(bits)
        return np.concatenate(
            [np.flatnonzero(a[i : i + CHUNK] != b[i : i + CHUNK]) + i
             for i in range(0, a.size, CHUNK)] or [np.zeros(0, np.intp)]
        )  # fmt: skip
    a = a.view(np.uint8).reshape(-1, size)
    b = b.view(np.uint8).reshape(-1, size)
    return np.flatnonzero((a != b).any(axis=1))


def guard_problem(name: str, guarded: np.ndarray, length: int, guard: np.ndarray) -> str | None:
    """What a kernel wrote into the guard zone after an array of ``length`` elements."""
    tail = guarded[length:]
    changed = _changed(tail, guard.astype(tail.dtype, copy=False))
    if not changed.size:
        return None
    return (
        f"{name}: written past its end: {changed.size} of the {tail.size} guard elements "
        f"after its {length} changed, the farthest {int(changed[-1]) + 1} past the end"
    )


def input_problem(name: str, got: np.ndarray, original: np.ndarray) -> str | None:
    """What a kernel changed in an array it should only read."""
    changed = _changed(got, original)
    if not changed.size:
        return None
    at = int(changed[0])
    return (
        f"{name}: an input the kernel only reads was changed: {changed.size} of "
        f"{original.size} elements, first at index {at} ({original[at]!r} -> {got[at]!r})"
    )

"""Apps_INTSC_HEXHEX: the check case reaches every way a clip can cut a polygon."""

from __future__ import annotations

import numpy as np
import pytest

from harness.model.spec import CheckCase
from harness.suite.apps import intsc_hexhex as hexhex

CASES = ("all kept", "all removed", "first removed", "last removed", "middle removed")


def _case(name: str) -> CheckCase:
    (case,) = (c for c in hexhex.KERNEL.check_cases if c.name == name)
    return case


def _cases(c: np.ndarray, n: np.ndarray) -> set[str]:
    """Which of CASES one clip meets on the rows with a polygon."""
    c, n = c[n > 0], n[n > 0]
    k = np.arange(hexhex.SLOTS)
    kept = (k < n[:, None]) & (c >= 0)
    count = kept.sum(1)
    cut = (count > 0) & (count < n)
    first_out = ~kept[:, 0]
    last_out = ~kept[np.arange(n.size), n - 1]
    found = {
        "all kept": (count == n).any(),
        "all removed": (count == 0).any(),
        "first removed": (cut & first_out).any(),
        "last removed": (cut & ~first_out & last_out).any(),
        "middle removed": (cut & ~first_out & ~last_out).any(),
    }
    return {name for name, hit in found.items() if hit}


def test_moved_hexes_reach_every_clip_case(monkeypatch) -> None:
    clip = hexhex._clip
    seen: list[set[str]] = []

    def watch(p: np.ndarray, c: np.ndarray, n: np.ndarray) -> np.ndarray:
        seen.append(_cases(c, n))
        return clip(p, c, n)

    monkeypatch.setattr(hexhex, "_clip", watch)
    inputs = _case("moved_hexes").init(27, 1, "f64")
    out = hexhex.KERNEL.reference(inputs)["vv_out"].reshape(-1, 4)
    # Six clips per row (h2, x, y, z, h and -h), each meeting every case.
    assert len(seen) == 6
    assert all(s == set(CASES) for s in seen), seen
    # Overlaps differ per pair, and every moment takes both signs.
    assert np.unique(out[:, 0]).size == out.shape[0]
    assert ((out[:, 1:] > 0).any(0) & (out[:, 1:] < 0).any(0)).all()


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_aligned_boxes_put_corners_on_faces_and_the_reference_is_their_overlap(
    monkeypatch, precision: str
) -> None:
    """The aligned case is where a clip meets a value of exactly 0 (a `<= 0` for a
    `< 0` in the kernel shows nowhere else), and its reference is the boxes' exact
    overlap: the product of the overlaps along each axis, and its centre's moments."""
    clip = hexhex._clip
    zeros = []

    def watch(p: np.ndarray, c: np.ndarray, n: np.ndarray) -> np.ndarray:
        inside = np.arange(hexhex.SLOTS) < n[:, None]
        zeros.append(int((inside & (c == 0)).sum()))
        return clip(p, c, n)

    monkeypatch.setattr(hexhex, "_clip", watch)
    inputs = _case("aligned_hexes").init(125, 1, precision)
    out = hexhex.KERNEL.reference(inputs)["vv_out"].reshape(-1, 4)
    assert all(zeros[:4]), zeros
    donor, target = (np.stack([inputs[f"{c}{h}s"].reshape(-1, 8) for c in "xyz"], 1) for h in "dt")
    low = np.maximum(donor.min(2), target.min(2))
    high = np.minimum(donor.max(2), target.max(2))
    volume = np.clip(high - low, 0, None).prod(1)
    np.testing.assert_allclose(out[:, 0], volume, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out[:, 1:], volume[:, None] * (low + high) / 2, rtol=0, atol=1e-12)
    assert 0.5 < (volume > 0).mean() < 1
    # f64's pairs include donor faces in the target's faces through corner 7; f32's none.
    shared = (donor.max(2) == target.max(2)).any(1)
    assert shared.any() if precision == "f64" else not shared.any()

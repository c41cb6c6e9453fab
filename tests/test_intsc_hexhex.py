"""Apps_INTSC_HEXHEX: the check case reaches every way a clip can cut a polygon."""

from __future__ import annotations

import numpy as np

from harness.suite.apps import intsc_hexhex as hexhex

CASES = ("all kept", "all removed", "first removed", "last removed", "middle removed")


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
    (case,) = hexhex.KERNEL.check_cases
    inputs = case.init(27, 1, "f64")
    out = hexhex.KERNEL.reference(inputs)["vv_out"].reshape(-1, 4)
    # Six clips per row (h2, x, y, z, h and -h), each meeting every case.
    assert len(seen) == 6
    assert all(s == set(CASES) for s in seen), seen
    # Overlaps differ per pair, and every moment takes both signs.
    assert np.unique(out[:, 0]).size == out.shape[0]
    assert ((out[:, 1:] > 0).any(0) & (out[:, 1:] < 0).any(0)).all()

"""RAJAPerf's data initialisation and checksum, reproduced so results compare.

RAJAPerf keeps a global counter of init calls; each `initData` picks the factor
0.1 or 0.2 from the counter's parity before it counts itself. A kernel's inputs
therefore depend on the order of its setUp calls, which `DataInit` replays.
"""

from __future__ import annotations

import numpy as np

_PI_INV = 0.3183098861837906715377675267450287240689


class DataInit:
    """Replays RAJAPerf's setUp calls in order, counting them as RAJAPerf does."""

    def __init__(self) -> None:
        self.count = 0

    def _factor(self) -> float:
        factor = 0.1 if self.count % 2 else 0.2
        self.count += 1
        return factor

    def const(self, length: int, value: float) -> np.ndarray:
        """allocAndInitDataConst: every element is ``value``."""
        self.count += 1
        return np.full(length, value, dtype=np.float64)

    def data(self, length: int) -> np.ndarray:
        """allocAndInitData: factor*(i+1.1)/(i+1.12345)."""
        factor = self._factor()
        i = np.arange(length, dtype=np.float64)
        return factor * (i + 1.1) / (i + 1.12345)

    def scalar(self) -> float:
        """initData for a scalar: factor*1.1/1.12345."""
        return self._factor() * 1.1 / 1.12345


def checksum(values: np.ndarray) -> float:
    """RAJAPerf's array checksum: sum of mult(j, v>=0 ? 1 : 0.5) * |v_j|.

    RAJAPerf sums in long double with Kahan compensation; a long double
    pairwise sum agrees with it far below every tolerance class.
    """
    v = np.asarray(values).ravel().astype(np.longdouble)
    if v.size == 0:
        return 0.0
    offset = np.where(v >= 0, 1.0, 0.5)
    val = (np.arange(v.size, dtype=np.float64) + offset) * _PI_INV
    mult = val - np.floor(val) + 0.5
    return float(np.sum(mult.astype(np.longdouble) * np.abs(v)))

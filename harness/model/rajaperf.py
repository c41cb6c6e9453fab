"""RAJAPerf's data initialisation and checksum, reproduced so results compare.

RAJAPerf keeps a global counter of init calls; each `initData` picks the factor
0.1 or 0.2 from the counter's parity before it counts itself. A kernel's inputs
therefore depend on the order of its setUp calls, which `DataInit` replays.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: RAJAPerf seeds the C library's generator with this before every random init.
SEED = 4793
RAND_MAX = 2147483647
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

    def rand_sign(self, length: int) -> np.ndarray:
        """initDataRandSign: initData's values with a random sign."""
        sign = np.where(glibc_rand(length) / RAND_MAX < 0.5, -1.0, 1.0)
        return sign * self.data(length)

    def rand_value(self, length: int) -> np.ndarray:
        """initDataRandValue: rand()/RAND_MAX after srand(4793)."""
        self.count += 1
        return glibc_rand(length) / RAND_MAX

    def int_data(self, length: int) -> np.ndarray:
        """initData(Int_ptr): random -1/+1, then one -58 and one 19 at random places."""
        self.count += 1
        draws = glibc_rand(length + 2) / RAND_MAX
        values = np.where(draws[:length] < 0.5, -1, 1).astype(np.int32)
        values[int(length * draws[length])] = -58
        values[int(length * draws[length + 1])] = 19
        return values


class _GlibcStream:
    """glibc's rand() values after srand(SEED), as many as asked for so far: a
    longer request continues the generator where the last one stopped, so that
    a run's kernels, which all start from the same seed, share one stream."""

    def __init__(self) -> None:
        state = [SEED]
        for i in range(1, 31):
            state.append((16807 * state[i - 1]) % 2147483647)
        #: The generator's last 34 words, from which it goes on.
        self._tail = state + [state[i - 31] for i in range(31, 34)]
        self._words(310)  # glibc discards its first 310 outputs
        self._values = np.empty(0, dtype=np.uint64)

    def _words(self, count: int) -> list[int]:
        """The generator's next ``count`` words: r[i] = r[i-31] + r[i-3]."""
        state = self._tail
        for i in range(34, 34 + count):
            state.append((state[i - 31] + state[i - 3]) & 0xFFFFFFFF)
        self._tail = state[-34:]
        return state[34:]

    def first(self, count: int) -> np.ndarray:
        """The first ``count`` values, read-only."""
        if count > len(self._values):
            more = np.array(self._words(count - len(self._values)), dtype=np.uint64) >> 1
            self._values = np.concatenate([self._values, more])
            self._values.flags.writeable = False
        return self._values[:count]


_STREAM = _GlibcStream()


def glibc_rand(count: int) -> np.ndarray:
    """The first ``count`` values of glibc's rand() after srand(4793), as float64.

    RAJAPerf's random inputs come from the C library; this is glibc's additive
    feedback generator (TYPE_3: r[i] = r[i-31] + r[i-3], first 344 discarded)
    so inputs match a Linux build of RAJAPerf exactly, on any platform.
    """
    return _STREAM.first(count).astype(np.float64)


def checksum(values: np.ndarray) -> np.longdouble:
    """RAJAPerf's array checksum: sum of mult(j, v>=0 ? 1 : 0.5) * |v_j|.

    RAJAPerf sums in long double with Kahan compensation; a long double
    pairwise sum agrees with it far below every tolerance class. The result
    stays a long double because RAJAPerf totals a kernel's arrays in long
    double too: rounding each to a double first can move the total by an ulp,
    which the zero tolerance class (COPY8) rejects.
    """
    v = np.asarray(values).ravel()
    if v.size <= _CHECKSUM_CHUNK:
        return _checksum_part(v, 0)
    parts = [
        _checksum_part(v[start : start + _CHECKSUM_CHUNK], start)
        for start in range(0, v.size, _CHECKSUM_CHUNK)
    ]
    return np.sum(np.array(parts, dtype=np.longdouble))


#: Elements a checksum takes at a time: its long-double temporaries stay in
#: cache instead of taking 16 bytes per element of the whole array.
_CHECKSUM_CHUNK = 1 << 15


def _checksum_part(v: np.ndarray, start: int) -> np.longdouble:
    """`checksum`'s sum over ``v``, the elements from index ``start`` on.

    Only the products and their sum are in long double (slow, unvectorised
    arithmetic): the sign test and magnitude are taken in the values' own type,
    or in double where that holds every value exactly.
    """
    if v.size == 0:
        return np.longdouble(0)
    exact = v.dtype.kind == "f" or (v.dtype.kind in "biu" and v.dtype.itemsize <= 4)
    v = v.astype(np.float64 if exact and v.dtype.itemsize <= 8 else np.longdouble)
    offset = 0.5 + 0.5 * (v >= 0)  # 1 where v >= 0, else 0.5 (NaN too)
    val = (np.arange(start, start + v.size, dtype=np.float64) + offset) * _PI_INV
    mult = val - np.floor(val) + 0.5
    return np.sum(mult.astype(np.longdouble) * np.abs(v).astype(np.longdouble))


def registered(
    arrays: tuple[str, ...] = (), scalars: tuple[str, ...] = ()
) -> Callable[[dict[str, np.ndarray]], np.longdouble]:
    """A kernel's checksum over only what its updateChecksum registers: each named
    array's checksum, then each named one-element result's magnitude (RAJAPerf's
    addToChecksum of a scalar), totalled in long double."""

    def total(out: dict[str, np.ndarray]) -> np.longdouble:
        values = [checksum(out[name]) for name in arrays]
        values += [np.longdouble(abs(out[name][0])) for name in scalars]
        return sum(values, np.longdouble(0))

    return total

"""RAJAPerf's ``ADomain``: the structured mesh several Apps kernels run over.

A domain has ``rzmax`` real nodes per dimension, two ghost node layers below
and one above, so node ``(i, j, k)`` sits at ``i + j*jp + k*kp``. Kernels visit
the real zones through the ``real_zones`` index list (or, like VOL3D, every
zone from ``fpz`` to ``lpz``); node coordinates are ``i*dx``, ``j*dy``,
``k*dz``. The problem size a user passes is RAJAPerf's *target* size; the
number of real zones follows from it as in each kernel's ``setSize``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: Index arrays (``real_zones``) and offsets are 32-bit on every backend, since
#: portable WGSL has no 64-bit integers; RAJAPerf's Index_type is 64-bit.
INDEX = "i32"
INDEX_BYTES = 4

#: Node layers outside the real nodes: below (NPNL) and above (NPNR).
_NPNL = 2
_NPNR = 1


@dataclass(frozen=True)
class Domain:
    """The index bounds and strides of a 2-D or 3-D ``ADomain``."""

    ndims: int
    rzmax: int

    @property
    def lo(self) -> int:
        """First real node index in each dimension (imin = jmin = kmin)."""
        return _NPNL

    @property
    def hi(self) -> int:
        """Last real node index in each dimension (imax = jmax = kmax)."""
        return _NPNL + self.rzmax - 1

    @property
    def span(self) -> int:
        """Nodes per dimension, ghosts included."""
        return self.hi + 1 - self.lo + _NPNL + _NPNR

    @property
    def jp(self) -> int:
        """Stride between rows of nodes."""
        return self.span

    @property
    def kp(self) -> int:
        """Stride between planes of nodes (0 in 2-D)."""
        return self.span * self.span if self.ndims == 3 else 0

    @property
    def nnalls(self) -> int:
        """Nodes in all, ghosts included: the length of nodal arrays."""
        return self.span**self.ndims

    @property
    def n_real_zones(self) -> int:
        """Zones between real nodes: RAJAPerf's actual problem size."""
        return max(self.hi - self.lo, 0) ** self.ndims

    @property
    def n_real_nodes(self) -> int:
        """Real nodes."""
        return (self.hi + 1 - self.lo) ** self.ndims

    def _offset(self, i: int, j: int, k: int) -> int:
        return i + j * self.jp + k * self.kp

    @property
    def fpz(self) -> int:
        """First zone of the ghost-inclusive zone range (VOL3D's loop start)."""
        low = self.lo - (_NPNL - 1)
        return self._offset(low, low, low if self.ndims == 3 else 0)

    @property
    def lpz(self) -> int:
        """Last zone of the ghost-inclusive zone range; zonal arrays have lpz+1."""
        top = self.hi - 1 + _NPNR
        return self._offset(top, top, top if self.ndims == 3 else 0)

    def real_zones(self) -> np.ndarray:
        """setRealZones_2d/3d: node index of each real zone, i fastest."""
        r = np.arange(self.lo, self.hi)
        k = r if self.ndims == 3 else np.zeros(1, dtype=r.dtype)
        zones = r[None, None, :] + r[None, :, None] * self.jp + k[:, None, None] * self.kp
        return zones.ravel()

    def positions(self, *steps: float) -> list[np.ndarray]:
        """setMeshPositions_2d/3d: per dimension, node coordinate index*step, ghosts too."""
        index = np.arange(self.span, dtype=np.float64)
        shape = (self.span,) * self.ndims
        out = []
        for axis, step in enumerate(steps):
            # Axis 0 (x) varies fastest in memory, so it is the last numpy axis.
            view = [1] * self.ndims
            view[self.ndims - 1 - axis] = self.span
            out.append(np.broadcast_to((index * step).reshape(view), shape).ravel())
        return out

    def jittered_positions(self, rng: np.random.Generator, *steps: float) -> list[np.ndarray]:
        """`positions` with every node moved by up to a quarter step per dimension.

        On RAJAPerf's regular mesh many coordinate differences across a zone
        are exactly zero, so terms built from them vanish; moved nodes make
        every difference count while zones stay convex (their volumes and
        areas keep away from zero).
        """
        return [
            p + rng.uniform(-0.25, 0.25, p.size) * step
            for p, step in zip(self.positions(*steps), steps, strict=True)
        ]


@lru_cache(maxsize=64)
def domain_2d(size: int) -> Domain:
    """The 2-D domain RAJAPerf builds for a target size: rzmax = sqrt(T) + 1 + sqrt(2) - 1."""
    return _checked(Domain(2, int(math.sqrt(size) + 1 + math.sqrt(2) - 1)))


@lru_cache(maxsize=64)
def domain_3d(size: int) -> Domain:
    """The 3-D domain RAJAPerf builds for a target size: rzmax = cbrt(T) + 1 + cbrt(3) - 1."""
    return _checked(Domain(3, int(float(np.cbrt(size)) + 1 + float(np.cbrt(3)) - 1)))


def _checked(domain: Domain) -> Domain:
    if domain.nnalls > np.iinfo(np.int32).max:
        raise ValueError(
            f"a {domain.ndims}-D mesh of {domain.rzmax} nodes per side has "
            f"{domain.nnalls} nodes, more than 32-bit indices reach"
        )
    return domain

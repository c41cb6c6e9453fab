"""The Comm halo lists: what HALO_base builds, checked as a whole."""

from __future__ import annotations

import numpy as np
import pytest

from harness.suite import comm


@pytest.mark.parametrize("size", [1, 10_007])
def test_unpack_lists_cover_the_halo_once_and_pack_lists_its_inner_layer(size: int) -> None:
    """Unpacking writes every halo cell exactly once and nothing inside the grid;
    packing reads only grid cells within the halo's width of a side, each side's
    cells for a neighbour once."""
    lay = comm.halo_layout(size)
    edge = comm.grid_edge(size)
    h = comm.HALO_WIDTH
    span = edge + 2 * h
    k, j, i = np.indices((span,) * 3).reshape(3, -1)
    inside = (np.minimum(np.minimum(i, j), k) >= h) & (np.maximum(np.maximum(i, j), k) < h + edge)
    writes = np.bincount(lay["unpack"], minlength=span**3)
    assert (writes == np.where(inside, 0, 1)).all()
    inner = inside & (
        (np.minimum(np.minimum(i, j), k) < 2 * h) | (np.maximum(np.maximum(i, j), k) >= edge)
    )
    assert inner[lay["pack"]].all()
    assert np.isin(np.flatnonzero(inner), lay["pack"]).all()
    for at, n in zip(lay["list_at"], lay["lengths"], strict=True):
        assert np.unique(lay["pack"][at : at + n]).size == n

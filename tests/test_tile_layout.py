"""The sorts' tile layout in work-group memory: a permutation of each tile that
spreads a GPU warp's accesses over the banks, read from the sources themselves.

Any permutation sorts the same, so the kernels' checks cannot tell a layout
that makes accesses wait on one another from a good one; this test can.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

from harness.model import sources
from harness.suite.sort import pass_positions

#: A warp's accesses, and the 4-byte banks of work-group memory they spread over.
WARP = BANKS = 32
#: Tiles of 8 to 32 KiB (--tile_bytes) of the sorts' keys (and values) of 4,
#: 8 and 16 bytes.
TILES = (8192, 4096, 2048, 1024, 512)
STEPS = range(2, 7)

Layout = Callable[[np.ndarray], np.ndarray]


def _layout(expression: str) -> Layout:
    """A source's slot expression of p, evaluated on arrays of positions."""
    python = re.sub(r"\b(\d+)u\b", r"\1", expression)
    return lambda p: eval(python, {}, {"p": p})


def _c_layout(steps: int) -> Layout:
    text = (sources.shipped_root() / "c" / "bitonic.h").read_text()
    found = re.search(r"#define TILE_SLOT\(p\) (.+)", text)
    assert found, "bitonic.h defines no TILE_SLOT(p)"
    return _layout(found.group(1).replace("STEPS", str(steps)))


def _wgsl_layout(steps: int) -> Layout:
    text = (sources.shipped_root() / "wgsl" / "bitonic.wgslh").read_text()
    found = re.search(r"fn tile_slot\(p: u32\) -> u32 \{\s*return (.+?);\s*\}", text)
    assert found, "bitonic.wgslh defines no tile_slot(p)"
    return _layout(found.group(1).replace("u32(STEPS)", str(steps)))


def _waits(slots: np.ndarray, lanes: int, banks: int) -> int:
    """The most accesses of one group of ``lanes`` consecutive work-items (or
    all, where fewer take part) that fall on one bank: 1 where none waits."""
    rows = slots.reshape(-1, min(lanes, slots.size)) % banks
    return max(int(np.bincount(row, minlength=banks).max()) for row in rows)


def _pass_waits(slot: Layout, tile: int, steps: int, lanes: int, banks: int) -> dict:
    """Per smallest distance of a tile pass, and for its presort: the worst
    wait of any register's access (work-items take the tile's blocks in turn)."""
    t = np.arange(tile >> steps)
    worst = {}
    low = 1
    while low << (steps - 1) < tile:
        d = low << (steps - 1)
        for flip in (False, True):
            positions = pass_positions(t, d, steps, flip)
            waits = [_waits(slot(positions[:, i]), lanes, banks) for i in range(1 << steps)]
            worst[(low, flip)] = max(waits)
        low <<= 1
    return worst


@pytest.mark.parametrize("language", ["c", "wgsl"])
@pytest.mark.parametrize("steps", STEPS)
def test_every_tile_pass_reaches_every_bank_once(language: str, steps: int) -> None:
    slot = (_c_layout if language == "c" else _wgsl_layout)(steps)
    for tile in TILES:
        positions = np.arange(tile)
        assert np.array_equal(np.sort(slot(positions)), positions), f"tile {tile}: no permutation"
        # The tile's loads and stores: consecutive positions.
        assert _waits(slot(positions), WARP, BANKS) == 1
        # 4-byte words a warp at a time; 8-byte words take two banks each, a
        # half warp at a time.
        for lanes, banks in ((WARP, BANKS), (WARP // 2, BANKS // 2)):
            worst = _pass_waits(slot, tile, steps, lanes, banks)
            assert set(worst.values()) == {1}, f"tile {tile}, {lanes} lanes: {worst}"


def test_the_plain_layout_makes_short_passes_wait() -> None:
    """What the layout is for: in position order, a pass of 16 keys per
    work-item at distance 1 puts a warp's 32 accesses on two banks."""
    worst = _pass_waits(lambda p: p, 2048, 4, WARP, BANKS)
    assert worst[(1, False)] == 16
    assert worst[(32, False)] == 1

"""Chunked multi-launch plans shared by reductions, histograms and scans.

Each work-group of a chunked launch owns one contiguous chunk of the ``n``
items and walks it in tiles of `GROUP`, so every device streams its memory and
the number of group partials stays small. A reduction is then a chunked launch
writing one partial per group plus one work-group folding the partials; a scan
is reduce-then-scan: chunk sums, an exclusive scan of those sums by one
work-group, and a chunked launch scanning each chunk from its offset. The plans
are written once here; each kernel's sources carry their own small entry points.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from harness.model.spec import Grid, Launch, Scalar
from harness.suite.forall import GROUP

#: Most work-groups a chunked launch uses: enough to fill a large GPU.
MAX_GROUPS = 1024
#: Fewest tiles of `GROUP` items a group's chunk holds before more groups are
#: used: 64 (16384 items) keeps CPU OpenCL devices, which pay for every group,
#: streaming; a GPU still gets a thousand groups from 2^24 items up.
MIN_TILES = 64
#: The scalars chunked and fold launches pass: each group's chunk length, and
#: how many group partials there are.
CHUNK = Scalar("chunk", "u32")
COUNT = Scalar("count", "u32")
#: Check sizes of chunked kernels: one work-group's chunk, and three groups'
#: (chunks of 13313, 13313 and 13311), so group offsets, chunk ends and the
#: partials' folding all count. Each is one past a whole number of tiles, or
#: one short, where a range rounded down or up by one item shows; 10753 also
#: gives each work-item of a CPU device 43 items, not a multiple of 4. 36867
#: is three chunks of 12289 exactly, so the first group a folded grid adds past
#: them starts at n itself, where a guard that admits n shows. 65537 is five
#: groups, which wgpu's verification folds into two rows of three with two of
#: them in the second row: a group there that takes the wrong linear index
#: loses a partial a later group reads (with three, only the last group is
#: there, and no group reads the last one's).
CHUNKED_CHECK_SIZES = (10_753, 36_867, 39_937, 65_537)
#: The smallest length with more partials (257) than a fold launch has
#: work-items, so each work-item folds two and scan_sums gives one work-item
#: two sums: only there do the fold loops' strides count. About 4 s a check.
MANY_PARTIALS_SIZE = MIN_TILES * GROUP * GROUP + 1


#: Why kernels built on chunked launches keep their work-group size.
CHUNKS_FIXED = (
    f"its work-groups of {GROUP} each take one chunk of the items (and leave one "
    "partial result), a layout made for that size"
)


def chunking(n: int) -> tuple[int, int]:
    """Work-groups of a chunked launch over ``n`` items, and each group's chunk length.

    Every group's chunk starts below ``n``, so a shader tells the launch's groups
    from those a grid folded past the per-dimension limit adds by ``g * chunk < n``,
    and counts them as ``ceil(n / chunk)``."""
    groups = max(1, min(MAX_GROUPS, math.ceil(n / (GROUP * MIN_TILES))))
    chunk = math.ceil(n / groups)
    return math.ceil(n / chunk), chunk


def partial_groups(n: int) -> int:
    """Length of the per-group partial array of a chunked launch over ``n`` items."""
    return chunking(n)[0]


def chunked_launch(
    entry: str,
    n: int,
    arrays: tuple[str, ...],
    scalars: tuple[str, ...] = (),
    values: Mapping[str, float | int] | None = None,
) -> Launch:
    """A launch of ``entry`` whose groups each own one chunk; ``n, chunk`` follow the arrays."""
    groups, chunk = chunking(n)
    return Launch(
        entry,
        groups * GROUP,
        GROUP,
        (*arrays, "n", "chunk", *scalars),
        {"n": n, "chunk": chunk, **(values or {})},
    )


def fold_launch(entry: str, n: int, arrays: tuple[str, ...]) -> Launch:
    """One work-group over the ``count`` partials a chunked launch over ``n`` items left."""
    return Launch(entry, GROUP, GROUP, (*arrays, "count"), {"count": partial_groups(n)})


def scan_plan(
    n: int, reduce_arrays: tuple[str, ...], sums: str, apply_arrays: tuple[str, ...]
) -> list[Launch]:
    """Exclusive scan of ``n`` items in three launches: scan_reduce, scan_sums, scan_apply.

    ``reduce_arrays`` is the source (``scan_reduce`` writes chunk sums into
    ``sums``); ``apply_arrays`` is source and destination, or one array scanned
    in place.
    """
    return [
        chunked_launch("scan_reduce", n, (*reduce_arrays, sums)),
        fold_launch("scan_sums", n, (sums,)),
        chunked_launch("scan_apply", n, (*apply_arrays, sums)),
    ]


def chunk_sums(grid: Grid, src: np.ndarray, sums: np.ndarray, n: int, chunk: int) -> None:
    """numpy chunked launch: ``sums[g]`` is the sum of group g's chunk of ``src``."""
    sums[: grid.groups] = 0
    if n:
        total = np.add.reduceat(src[:n], np.arange(0, n, chunk), dtype=src.dtype)
        sums[: total.size] = total


def exclusive_sums(grid: Grid, sums: np.ndarray, count: int) -> None:
    """numpy fold launch: exclusive scan of the first ``count`` partials, in place."""
    inclusive = np.cumsum(sums[:count], dtype=sums.dtype)
    sums[1:count] = inclusive[:-1]
    sums[:1] = 0


def scan_chunks(
    grid: Grid, src: np.ndarray, dst: np.ndarray, sums: np.ndarray, n: int, chunk: int
) -> None:
    """numpy chunked launch: exclusive scan of each chunk of ``src`` from its offset, to ``dst``."""
    if not n:
        return
    groups = math.ceil(n / chunk)
    tiles = np.zeros((groups, chunk), dtype=src.dtype)
    tiles.ravel()[:n] = src[:n]
    inclusive = np.cumsum(tiles, axis=1, dtype=src.dtype)
    exclusive = np.zeros_like(inclusive)
    exclusive[:, 1:] = inclusive[:, :-1]
    exclusive += sums[:groups, None]
    dst[:n] = exclusive.ravel()[:n]


def scan_chunks_in_place(
    grid: Grid, data: np.ndarray, sums: np.ndarray, n: int, chunk: int
) -> None:
    """numpy chunked launch: `scan_chunks` with ``data`` as source and destination."""
    scan_chunks(grid, data, data, sums, n, chunk)

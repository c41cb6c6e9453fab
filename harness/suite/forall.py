"""Helpers for the commonest shape of kernel: one launch over ``n`` elements."""

from __future__ import annotations

from collections.abc import Callable

from harness.spec import WORK_GROUP, Launch

#: Work-group size of one-dimensional launches (the descriptions' default).
GROUP = WORK_GROUP

#: Check sizes of one-launch kernels: an odd length, and a whole number of
#: work-groups, the only lengths at which a group one item short of `GROUP`
#: leaves an element out.
FORALL_CHECK_SIZES = (10_007, 4_096)

#: The smallest length whose launch has more work-groups than wgpu allows in
#: one dimension (65535), so it is dispatched as a 2-D grid: only there does a
#: shader's linear group index ``wid.x + wid.y * nwg.x`` matter. Its f64 arrays
#: of n + 1 elements still fit wgpu's 128 MiB storage binding.
WIDE_GRID_SIZE = 65_535 * GROUP + 1


def one_launch(entry: str, args: tuple[str, ...]) -> Callable[[int], list[Launch]]:
    """A plan of one launch of ``entry`` over ``n`` items, passing ``n`` last."""

    def plan(size: int) -> list[Launch]:
        return [Launch(entry, size, GROUP, (*args, "n"), {"n": size})]

    return plan

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


def one_launch(entry: str, args: tuple[str, ...]) -> Callable[[int], list[Launch]]:
    """A plan of one launch of ``entry`` over ``n`` items, passing ``n`` last."""

    def plan(size: int) -> list[Launch]:
        return [Launch(entry, size, GROUP, (*args, "n"), {"n": size})]

    return plan

"""Helpers for the commonest shape of kernel: one launch over ``n`` elements."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from harness.model.spec import WORK_GROUP, Launch, Scalar

#: The problem size every one-launch kernel takes last (``one_launch`` passes it).
N = Scalar("n", "u32")

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


def per_item(size: int) -> int:
    """Length of an array with one element per item: the size itself."""
    return size


def as_f64(x: np.ndarray) -> np.ndarray:
    """A copy in float64, the precision references compute in."""
    return np.array(x, dtype=np.float64)

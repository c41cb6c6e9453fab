"""Helpers for the commonest shape of kernel: one launch over ``n`` elements."""

from __future__ import annotations

from collections.abc import Callable

from harness.spec import Launch

#: Work-group size of one-dimensional launches; every backend accepts 256.
GROUP = 256


def one_launch(entry: str, args: tuple[str, ...]) -> Callable[[int], list[Launch]]:
    """A plan of one launch of ``entry`` over ``n`` items, passing ``n`` last."""

    def plan(size: int) -> list[Launch]:
        return [Launch(entry, size, GROUP, (*args, "n"), {"n": size})]

    return plan

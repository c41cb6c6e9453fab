"""Basic_INDEXLIST, _PI_REDUCE, _REDUCE_STRUCT and _TRAP_INT: what the verification
matrix does not see, namely that their check cases reach what RAJAPerf's inputs miss
and that INDEXLIST lists in two launches with no flags array.
"""

from __future__ import annotations

import numpy as np

from harness import suite
from harness.execution.runner import make_inputs
from harness.suite.basic import POINTS, TRAP_INT_SCALARS
from harness.suite.scan import CHUNKED_CHECK_SIZES, chunking


def _inputs(kernel: str, size: int, case: str | None = None) -> dict:
    """The timed inputs, or a check case's, as the runner makes them in f64."""
    spec = suite.BY_NAME[kernel]
    init = next((c.init for c in spec.check_cases if c.name == case), None)
    return make_inputs(spec, size, 1, "f64", init)


def test_reduce_struct_check_case_puts_extremes_inside_later_chunks() -> None:
    kernel, size = "Basic_REDUCE_STRUCT", CHUNKED_CHECK_SIZES[-1]
    timed, case = _inputs(kernel, size), _inputs(kernel, size, "random")
    _, chunk = chunking(size)
    for start in range(0, size, chunk):
        for name in ("x", "y"):
            # RAJAPerf's values rise, so each chunk's min and max are its ends ...
            rising = timed[name][start : start + chunk]
            assert rising.argmin() == 0 and rising.argmax() == rising.size - 1
            # ... where the check case's lie inside, and of both signs.
            values = case[name][start : start + chunk]
            assert 0 < values.argmin() < values.size - 1 and 0 < values.argmax() < values.size - 1
            assert values.min() < 0 < values.max()
    # Each overall extreme is in a chunk past the first, beyond every other chunk's.
    for name, pick in (("x", np.argmin), ("x", np.argmax), ("y", np.argmin), ("y", np.argmax)):
        at = int(pick(case[name]))
        assert at >= chunk
        first = at // chunk * chunk
        others = np.concatenate((case[name][:first], case[name][first + chunk :]))
        assert case[name][at] not in (others.min(), others.max())
    points = dict(zip(POINTS, suite.BY_NAME[kernel].reference(case)["points"], strict=True))
    # Every entry differs from every other, so one written for another shows.
    assert len({abs(v) for v in points.values()}) == len(POINTS)


def test_trap_int_check_case_separates_the_pairs_raja_perf_makes_equal() -> None:
    kernel, size = "Basic_TRAP_INT", CHUNKED_CHECK_SIZES[0]
    timed = _inputs(kernel, size)
    assert timed["y"] == timed["x0"] and timed["yp"] == timed["xp"]
    case = _inputs(kernel, size, "distinct")
    assert len({float(case[name]) for name in TRAP_INT_SCALARS}) == len(TRAP_INT_SCALARS)
    assert case["sumx"][0] != 0


def test_indexlist_lists_in_two_launches_without_flags() -> None:
    size = 12_345
    indexlist = suite.BY_NAME["Basic_INDEXLIST"]
    plan = indexlist.plan(size)
    assert [launch.entry for launch in plan] == ["indexlist_count", "indexlist_scan"]
    # Its only working array is one count per chunk; the three-loop form keeps n + 1.
    groups, _ = chunking(size)
    scratch = {a.name: a.length(size) for a in indexlist.arrays if a.intent == "scratch"}
    assert scratch == {"counts": groups}

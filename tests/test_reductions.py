"""Reductions, scans and atomics: Algorithm_REDUCE_SUM, _SCAN, _HISTOGRAM and
Basic_REDUCE3_INT, _PI_ATOMIC, _INDEXLIST_3LOOP.

That every kernel verifies on every backend is tests/test_verification_matrix.py's;
here: sizes that exercise the chunked plans' edges, repetitions that must not
depend on each other, the scan machinery being shared, and checksums pinned
against scalar transcriptions of RAJAPerf's Base_Seq code.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import need_backend, plant

from harness import suite
from harness.backends import get as get_backend
from harness.backends.wgpu import folded
from harness.execution.runner import Runner, RunOptions, Task, make_inputs
from harness.model import sources
from harness.suite.scan import CHUNKED_CHECK_SIZES, MANY_PARTIALS_SIZE, chunking, scan_plan

KERNELS = (
    "Algorithm_REDUCE_SUM",
    "Algorithm_SCAN",
    "Algorithm_HISTOGRAM",
    "Basic_REDUCE3_INT",
    "Basic_PI_ATOMIC",
    "Basic_INDEXLIST_3LOOP",
)

# ---------------------------------------------------------------------------
# Scalar transcriptions of RAJAPerf's setUp, Base_Seq loop and updateChecksum
# (src/algorithm/*.cpp, src/basic/*.cpp, src/common/DataUtils.cpp), one element
# at a time, sharing nothing with the descriptions. rand() is the C library's.

RAND_MAX = 2147483647
PI_INV = 0.3183098861837906715377675267450287240689


def _libc_rand() -> Callable[[], float]:
    """srand(4793), then a function returning rand()/RAND_MAX; needs glibc."""
    if sys.platform != "linux" or ctypes.util.find_library("c") is None:
        pytest.skip("RAJAPerf's random inputs come from glibc's rand()")
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.srand(4793)
    return lambda: libc.rand() / RAND_MAX


def _checksum(values: list[float]) -> float:
    """calcChecksumImpl: Kahan sum of calcMultiplier(j, v >= 0 ? 1 : 0.5) * |v|."""
    total = comp = 0.0
    for j, v in enumerate(values):
        val = (j + (1.0 if v >= 0 else 0.5)) * PI_INV
        term = (val - math.floor(val) + 0.5) * abs(v) - comp
        t = total + term
        comp = (t - total) - term
        total = t
    return total


def _int_data(n: int) -> list[int]:
    """initData(Int_ptr): random -1/+1, then -58 and 19 at random places."""
    rand = _libc_rand()
    data = [-1 if rand() < 0.5 else 1 for _ in range(n)]
    data[int(n * rand())] = -58
    data[int(n * rand())] = 19
    return data


def base_seq_reduce_sum(n: int) -> float:
    x = [0.2 * (i + 1.1) / (i + 1.12345) for i in range(n)]  # first init: factor 0.2
    s = 0.0
    for i in range(n):
        s += x[i]
    return abs(s)


def base_seq_scan(n: int) -> float:
    rand = _libc_rand()
    x = [rand() for _ in range(n)]
    y = [0.0] * n
    acc = 0.0
    for i in range(n):
        y[i] = acc
        acc += x[i]
    return _checksum(y)


def base_seq_histogram(n: int, num_bins: int = 10) -> float:
    rand = _libc_rand()
    ends = sorted(rand() for _ in range(num_bins))
    bins = []
    b = 0
    for i in range(n):
        pos = i / n
        while b + 1 < num_bins and pos >= ends[b]:
            b += 1
        bins.append(b)
    counts = [0] * num_bins
    for i in range(n):
        counts[bins[i]] += 1
    return _checksum(counts)


def base_seq_reduce3_int(n: int) -> float:
    vec = _int_data(n)
    vsum, vmin, vmax = 0, 2**31 - 1, -(2**31)
    for i in range(n):
        vsum += vec[i]
        vmin = min(vmin, vec[i])
        vmax = max(vmax, vec[i])
    return abs(vsum) + abs(vmin) + abs(vmax)


def base_seq_pi_atomic(n: int) -> float:
    dx = 1.0 / n
    pi = 0.0
    for i in range(n):
        x = (i + 0.5) * dx
        pi += dx / (1.0 + x * x)
    return abs(pi * 4.0)


def base_seq_indexlist_3loop(n: int) -> float:
    rand = _libc_rand()
    x = [(-1.0 if rand() < 0.5 else 1.0) * 0.2 * (i + 1.1) / (i + 1.12345) for i in range(n)]
    lst = _int_data(n)  # second init: the list starts as initData(Int_ptr)
    counts = [1 if x[i] < 0.0 else 0 for i in range(n)] + [0]
    count = 0
    for i in range(n + 1):
        inc = counts[i]
        counts[i] = count
        count += inc
    for i in range(n):
        if counts[i] != counts[i + 1]:
            lst[counts[i]] = i
    return _checksum(lst) + abs(counts[n])


TRANSCRIPTIONS: dict[str, Callable[[int], float]] = {
    "Algorithm_REDUCE_SUM": base_seq_reduce_sum,
    "Algorithm_SCAN": base_seq_scan,
    "Algorithm_HISTOGRAM": base_seq_histogram,
    "Basic_REDUCE3_INT": base_seq_reduce3_int,
    "Basic_PI_ATOMIC": base_seq_pi_atomic,
    "Basic_INDEXLIST_3LOOP": base_seq_indexlist_3loop,
}

#: Checksums at PIN_SIZE in f64, computed once by the transcriptions above
#: (Linux, glibc rand); test_transcriptions_reproduce_the_pins recomputes them.
PIN_SIZE = 1000
PINNED = {
    "Algorithm_REDUCE_SUM": 199.96576757295983,
    "Algorithm_SCAN": 247612.97908518545,
    "Algorithm_HISTOGRAM": 1017.346667156286,
    "Basic_REDUCE3_INT": 132.0,
    "Basic_PI_ATOMIC": 3.1415927369231307,
    "Basic_INDEXLIST_3LOOP": 259704.467840445,
}


def _pin_tolerance(kernel: str) -> float:
    """RAJAPerf's class for the kernel, but at least 1e-14: the harness sums the
    checksum in long double pairwise, the transcription with Kahan in double."""
    return max(suite.BY_NAME[kernel].tolerance.f64, 1e-14)


@pytest.mark.parametrize("kernel", KERNELS)
def test_transcriptions_reproduce_the_pins(kernel: str) -> None:
    assert TRANSCRIPTIONS[kernel](PIN_SIZE) == pytest.approx(PINNED[kernel], rel=1e-15)


@pytest.mark.parametrize("backend", ["cpu", "opencl", "wgpu"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_checksum_matches_the_pin(kernel: str, backend: str) -> None:
    need_backend(backend)
    row = Runner(RunOptions(check=True)).execute(Task(kernel, backend, 0, PIN_SIZE, "f64"))
    if row["status"] == "skipped":
        pytest.skip(row["reason"])
    assert row["status"] == "ok", row["reason"]
    assert row["checksum"] == pytest.approx(PINNED[kernel], rel=_pin_tolerance(kernel))


# ---------------------------------------------------------------------------
# The descriptions on real backends.


#: Sizes around the group and tile edges, and one whose group sums need more
#: than one per work-item in scan_sums (more than GROUP chunks).
EDGE_SIZES = (1, 257, 1025, 300_007)


@pytest.mark.parametrize("precision", ["f64", "f32"])
@pytest.mark.parametrize("backend", ["cpu", "opencl"])
def test_edge_sizes(backend: str, precision: str) -> None:
    need_backend(backend)
    runner = Runner(RunOptions(precision=precision, check=True))
    for kernel in KERNELS:
        for size in EDGE_SIZES:
            row = runner.execute(Task(kernel, backend, 0, size, precision))
            if row["status"] == "skipped":
                continue
            assert row["status"] == "ok", (kernel, size, row["reason"])


@pytest.mark.parametrize(
    "kernel", ["Algorithm_HISTOGRAM", "Basic_PI_ATOMIC", "Basic_INDEXLIST_3LOOP"]
)
def test_repetitions_start_afresh(kernel: str) -> None:
    # Counts are cleared, pi is zeroed and counts[n] is overwritten within each
    # repetition, so a second repetition gives the first one's answer.
    need_backend("opencl")
    spec = suite.BY_NAME[kernel]
    size = 5000
    inputs = make_inputs(spec, size, 1, "f32")
    reference = spec.reference(inputs)
    source = sources.find("opencl", ".cl", kernel)
    session = get_backend("opencl").open(0)
    execution = session.load(spec, "f32", source, {a.name: inputs[a.name] for a in spec.arrays})
    try:
        launches = spec.resolve(size, inputs, "f32")
        execution.run(launches)
        execution.run(launches)
        for name, expected in reference.items():
            got = execution.read(name).astype(np.float64)
            np.testing.assert_allclose(got, expected, rtol=spec.tolerance.f32)
    finally:
        execution.close()


def test_indexlist_scans_with_the_scan_plan() -> None:
    # INDEXLIST_3LOOP's scan is Algorithm_SCAN's three launches over n + 1 entries.
    n = 12_345
    plan = suite.BY_NAME["Basic_INDEXLIST_3LOOP"].plan(n)
    assert [launch.entry for launch in plan] == [
        "indexlist_count",
        "scan_reduce",
        "scan_sums",
        "scan_apply",
        "indexlist_scatter",
    ]
    assert plan[1:4] == scan_plan(n + 1, ("counts",), "sums", ("counts",))
    scan = suite.BY_NAME["Algorithm_SCAN"].plan(n)
    assert [launch.entry for launch in scan] == ["scan_reduce", "scan_sums", "scan_apply"]


# ---------------------------------------------------------------------------
# Check cases and check sizes: inputs that make every branch and term count.


def _case_inputs(kernel: str, case: str, size: int, precision: str = "f64") -> dict:
    """A check case's inputs as the runner makes them (cast to the run types)."""
    spec = suite.BY_NAME[kernel]
    init = next(c.init for c in spec.check_cases if c.name == case)
    return make_inputs(spec, size, 1, precision, init)


def _planted_row(tmp_path: Path, kernel: str, original: str, planted: str, size: int) -> dict:
    """The check row of ``kernel`` on opencl with one planted bug in its source."""
    need_backend("opencl")
    plant(tmp_path, "c", f"{kernel}.c", original, planted)
    options = RunOptions(check=True, sources=(tmp_path,))
    return Runner(options).execute(Task(kernel, "opencl", 0, size, "f64"))


def test_chunked_check_sizes_span_several_ragged_chunks() -> None:
    # One size fills one group; another needs three, none a whole number of tiles;
    # another is three whole chunks, so a group past them starts at n; the last
    # is five groups, which wgpu's verification folds into two rows of three.
    small, exact, large, five = CHUNKED_CHECK_SIZES
    assert chunking(small)[0] == 1
    groups, chunk = chunking(large)
    assert groups == 3 and chunk % 256 and (large - (groups - 1) * chunk) % 256
    assert chunking(exact) == (3, exact // 3) and exact % 3 == 0
    assert chunking(five)[0] == 5 and folded(5, (5, 1)) == (3, 2)
    assert suite.BY_NAME["Algorithm_HISTOGRAM"].sizes_for_check == CHUNKED_CHECK_SIZES
    # The reductions, scans and first minimum also fold more partials than a fold
    # launch has work-items, where its loop's stride counts.
    assert chunking(MANY_PARTIALS_SIZE)[0] == 257
    folding = ("Algorithm_REDUCE_SUM", "Algorithm_SCAN", "Basic_INDEXLIST_3LOOP")
    for kernel in (*folding, "Basic_REDUCE3_INT", "Stream_DOT", "Lcals_FIRST_MIN"):
        sizes = suite.BY_NAME[kernel].sizes_for_check
        assert sizes == (*CHUNKED_CHECK_SIZES, MANY_PARTIALS_SIZE)


def test_histogram_check_case_spreads_bins_and_starts_stale() -> None:
    size = CHUNKED_CHECK_SIZES[-1]
    x = _case_inputs("Algorithm_HISTOGRAM", "random", size)
    _, chunk = chunking(size)
    for start in range(0, size, chunk):
        assert set(np.unique(x["bins"][start : start + chunk])) == set(range(10))
    assert (x["counts"] > 0).all()  # histogram_clear must zero them
    # The last bin counts exactly one item per chunk: a local count of 1.
    for start in range(0, size, chunk):
        assert (x["bins"][start : start + chunk] == 9).sum() == 1


def test_histogram_planted_clear_bug_fails(tmp_path: Path) -> None:
    row = _planted_row(tmp_path, "Algorithm_HISTOGRAM", "counts[b] = 0;", ";", 10_007)
    assert row["status"] == "fail"
    assert "check case 'random'" in row["reason"] and "counts" in row["reason"]


def test_indexlist_check_case_has_exact_zeros() -> None:
    spec = suite.BY_NAME["Basic_INDEXLIST_3LOOP"]
    x = _case_inputs("Basic_INDEXLIST_3LOOP", "zeros", 10_007)
    values = x["x"]
    assert (values == 0).sum() > 1000 and (values < 0).sum() > 1000 and (values > 0).sum() > 1000
    expected = spec.reference(x)
    length = int(expected["len"][0])
    assert length == (values < 0).sum()
    # Entries past the list keep their start, values no index has.
    assert (expected["list"][length:] < 0).all()


def test_indexlist_all_case_lists_every_index() -> None:
    spec = suite.BY_NAME["Basic_INDEXLIST_3LOOP"]
    size = CHUNKED_CHECK_SIZES[-1]
    expected = spec.reference(_case_inputs("Basic_INDEXLIST_3LOOP", "all", size))
    assert expected["len"][0] == size
    np.testing.assert_array_equal(expected["list"], np.arange(size))


def test_reduce3_check_case_sums_fall_below_the_min() -> None:
    spec = suite.BY_NAME["Basic_REDUCE3_INT"]
    size = CHUNKED_CHECK_SIZES[-1]
    x = _case_inputs("Basic_REDUCE3_INT", "random", size)
    expected = spec.reference(x)
    assert expected["vmin"][0] > -58 and expected["vmax"][0] < 19  # inside RAJAPerf's
    _, chunk = chunking(size)
    sums = [int(x["vec"][s : s + chunk].sum()) for s in range(0, size, chunk)]
    assert max(sums) < expected["vmin"][0]


def test_indexlist_planted_zero_bug_fails(tmp_path: Path) -> None:
    row = _planted_row(tmp_path, "Basic_INDEXLIST_3LOOP", "x[i] < 0 ?", "x[i] <= 0 ?", 10_007)
    assert row["status"] == "fail"
    assert "check case 'zeros'" in row["reason"]


def test_reduce3_planted_group_bug_needs_several_groups(tmp_path: Path) -> None:
    original, planted = "partial[2 * groups + g]", "partial[2 * groups - g]"
    assert _planted_row(tmp_path, "Basic_REDUCE3_INT", original, planted, 10_007)["status"] == "ok"
    row = _planted_row(tmp_path, "Basic_REDUCE3_INT", original, planted, 39_937)
    assert row["status"] == "fail"
    assert "vmax" in row["reason"]


def test_pi_atomic_verifies_pi_is_zeroed(tmp_path: Path) -> None:
    spec = suite.BY_NAME["Basic_PI_ATOMIC"]
    assert any(size % 256 == 0 for size in spec.sizes_for_check)
    assert next(a for a in spec.arrays if a.name == "pi").intent == "inout"
    row = _planted_row(tmp_path, "Basic_PI_ATOMIC", "pi[0] = 0;", ";", 10_007)
    assert row["status"] == "fail"
    assert "pi:" in row["reason"]


def test_reduce_sum_check_case_values_are_distinct() -> None:
    spec = suite.BY_NAME["Algorithm_REDUCE_SUM"]
    x = _case_inputs("Algorithm_REDUCE_SUM", "random", 10_007)
    values = x["x"]
    assert np.unique(values).size == values.size and values.min() >= 0.5
    # The stale sum must be overwritten, not added to.
    assert x["sum"][0] != 0 and spec.reference(x)["sum"][0] == pytest.approx(values.sum())


def test_reduce_sum_planted_bug_fails_on_the_stale_sum(tmp_path: Path) -> None:
    # Adding to sum instead of storing it: RAJAPerf's sum starts at 0, so only the
    # check case's stale sum shows it.
    row = _planted_row(tmp_path, "Algorithm_REDUCE_SUM", "sum[0] = s;", "sum[0] += s;", 10_007)
    assert row["status"] == "fail"
    assert "check case 'random'" in row["reason"] and "sum" in row["reason"]

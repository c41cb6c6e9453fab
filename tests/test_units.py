"""The pieces under the runner: init formulas, checksum, selection, comparison."""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT

from harness import suite
from harness.execution.runner import Task, data_key, make_data
from harness.model.rajaperf import DataInit, checksum, glibc_rand
from harness.model.spec import param_choices
from harness.model.verify import CHUNK, compare, relative_errors


def test_data_init_replays_rajaperf_factors() -> None:
    # RAJAPerf's DAXPY setUp: y = const 0 (count 0 -> 1), x = initData with
    # factor 0.1 (count 1), a = initData scalar with factor 0.2 (count 2).
    d = DataInit()
    y = d.const(3, 0.0)
    x = d.data(3)
    a = d.scalar()
    assert y.tolist() == [0.0, 0.0, 0.0]
    assert x.tolist() == [0.1 * (i + 1.1) / (i + 1.12345) for i in range(3)]
    assert a == 0.2 * 1.1 / 1.12345


@pytest.mark.skipif(ctypes.util.find_library("c") is None, reason="no C library to compare with")
def test_glibc_rand_stream_matches_the_c_library() -> None:
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.srand(4793)
    expected = [libc.rand() for _ in range(5000)]
    if sys.platform != "linux":
        pytest.skip("the C library is not glibc")
    assert glibc_rand(5000).tolist() == expected


def test_checksum_is_rajaperfs_formula() -> None:
    values = np.array([0.5, -2.0, 3.25, 0.0, -1e-3])
    expected = 0.0
    for j, v in enumerate(values):
        val = (j + (1.0 if v >= 0 else 0.5)) / math.pi
        expected += (val - math.floor(val) + 0.5) * abs(v)
    assert checksum(values) == pytest.approx(expected, rel=1e-15)


def test_selection_by_name_bare_name_group_and_glob() -> None:
    names = lambda sel: [k.name for k in suite.select(sel)]  # noqa: E731
    assert names(["stream_triad"]) == ["Stream_TRIAD"]
    assert names(["TRIAD"]) == ["Stream_TRIAD"]
    assert names(["*DOT"]) == ["Stream_DOT"]
    assert names(["Demo"]) == ["Demo_VADD", "Demo_MANDELBROT", "Demo_SGEMV"]
    assert names(["Bitonic"]) == [k.name for k in suite.ALL if k.name.startswith("Bitonic_")]
    assert names(None) == [k.name for k in suite.ALL]
    with pytest.raises(suite.SelectionError, match="no kernel matches 'Stram'"):
        suite.select(["Stram"])


def test_relative_errors_treat_nan_and_inf_honestly() -> None:
    got = np.array([1.0, np.nan, np.inf, 2.0, np.nan, 0.0])
    exp = np.array([1.0, np.nan, np.inf, 1.0, 1.0, 1e-3])
    assert relative_errors(got, exp).tolist() == [0.0, 0.0, 0.0, 1.0, math.inf, 1.0]


def test_compare_names_the_worst_element() -> None:
    verdict = compare({"c": np.array([1.0, 2.5])}, {"c": np.array([1.0, 2.0])}, 1e-12)
    assert not verdict.ok
    assert "c: 1 of 2 elements off; worst at index 1" in verdict.problem
    assert verdict.max_rel_error == pytest.approx(0.25)


def test_compare_over_many_chunks_counts_and_places_like_one_pass() -> None:
    """Arrays longer than a comparison's chunk: the count of bad elements, the
    worst one's index and a floor taken from a later chunk are the whole array's."""
    size = 3 * CHUNK + 5
    expected = np.linspace(1.0, 2.0, size)
    got = expected.copy()
    got[[7, CHUNK + 3, 3 * CHUNK + 4]] *= [1 + 1e-6, 1 + 1e-3, 1 + 1e-5]
    verdict = compare({"a": got}, {"a": expected}, 1e-9)
    assert f"a: 3 of {size} elements off; worst at index {CHUNK + 3}:" in verdict.problem
    assert verdict.max_rel_error == pytest.approx(1e-3)
    # The floor scales by the largest |expected| anywhere, here in the last chunk.
    expected[:] = 1e-9
    expected[-1] = 1.0
    got = expected.copy()
    got[0] = 2e-9
    verdict = compare({"a": got}, {"a": expected}, 1e-6, floor=1e-2)
    assert verdict.ok and verdict.max_rel_error == pytest.approx(1e-9 / 1e-2)


def test_checksum_over_many_chunks_matches_one_long_double_pass() -> None:
    values = np.random.default_rng(3).uniform(-1.0, 1.0, 2 * CHUNK + 17)
    v = values.astype(np.longdouble)
    j = np.arange(v.size, dtype=np.float64) + np.where(v >= 0, 1.0, 0.5)
    val = j * (1.0 / math.pi)
    mult = (val - np.floor(val) + 0.5).astype(np.longdouble)
    one_pass = np.sum(mult * np.abs(v))
    assert abs(checksum(values) - one_pass) <= 1e-15 * one_pass


def _same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()
    return a == b


def test_choices_said_to_share_data_make_the_same_inputs_and_reference() -> None:
    """Rows that differ only in a `same_data` run option reuse one another's
    inputs and reference; every such choice must make the same ones itself."""
    checked = 0
    for kernel in suite.ALL:
        for param in (p for p in kernel.params if p.same_data):
            base = dict(param_choices(kernel, {})[0])
            made = []
            for choice in param.choices:
                params = tuple({**base, param.name: choice}.items())
                task = Task(kernel.name, "cpu", 0, kernel.check_size, "f64", params)
                spec = kernel.with_params(dict(params))
                made.append((data_key(task), make_data(spec, task, seed=1)))
            (key, first), *others = made
            for other_key, other in others:
                assert other_key == key
                assert [c.name for c in other] == [c.name for c in first]
                for a, b in zip(first, other, strict=True):
                    for got, want in ((a.inputs, b.inputs), (a.reference, b.reference)):
                        assert got.keys() == want.keys(), kernel.name
                        assert all(_same(got[k], want[k]) for k in got), (kernel.name, param.name)
            checked += 1
    assert checked >= 8  # the sorts' strategy and steps, the library variants' impl
    # A choice that changes the problem keeps its own data.
    dist = [
        (n, "sorted" if n == "dist" else v)
        for n, v in param_choices(suite.spec_of("Bitonic_U32"), {})[0]
    ]
    plain = Task(
        "Bitonic_U32", "cpu", 0, 100, "f64", param_choices(suite.spec_of("Bitonic_U32"), {})[0]
    )
    assert data_key(Task("Bitonic_U32", "cpu", 0, 100, "f64", tuple(dist))) != data_key(plain)


def test_the_wheel_ships_the_kernel_sources(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("harness-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {
        f"harness/kernels/{p.relative_to(ROOT / 'kernels').as_posix()}"
        for p in (ROOT / "kernels").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert "harness/kernels/c/bitonic.h" in shipped
    assert "harness/kernels/equivalent-mutants.txt" in shipped
    assert shipped <= names, sorted(shipped - names)


def test_a_floor_measures_cancelling_outputs_against_the_array() -> None:
    expected = np.array([1.0, 1e-9, -2.0])
    got = np.array([1.0, 2e-9, -2.0])
    assert relative_errors(got, expected)[1] == pytest.approx(1.0)
    assert relative_errors(got, expected, floor=1e-2)[1] == pytest.approx(1e-9 / 2e-2)

"""Lcals FIRST_MIN and HYDRO_1D, Polybench JACOBI_2D, HEAT_3D and GEMM.

That every kernel verifies on every backend is tests/test_verification_matrix.py's;
here: edge sizes, FIRST_MIN's tie-breaking on data with many equal minima,
check cases that planted bugs fail; checksums at small sizes are pinned against
a scalar transcription of RAJAPerf's Base_Seq loops written below, independent
of the descriptions.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from conftest import need_backend, plant

from harness import suite
from harness.backends import get as get_backend
from harness.execution.runner import Runner, RunOptions, Task, make_inputs
from harness.model import sources
from harness.suite import polybench
from harness.suite.scan import chunking

KERNELS = (
    "Lcals_FIRST_MIN",
    "Lcals_HYDRO_1D",
    "Polybench_JACOBI_2D",
    "Polybench_HEAT_3D",
    "Polybench_GEMM",
)
BACKENDS = ("cpu", "opencl", "wgpu", "cuda")


@pytest.fixture(scope="module")
def runner() -> Runner:
    """One runner for the module, so device sessions are opened once."""
    return Runner(RunOptions(check=True))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "kernel, sizes",
    [
        ("Lcals_FIRST_MIN", (1, 257, 262_145)),  # 262145: the last work-group's chunk is empty
        ("Polybench_JACOBI_2D", (1, 300)),
        ("Polybench_HEAT_3D", (1, 2000)),
        ("Polybench_GEMM", (1, 300)),  # edges that are not multiples of the tile
    ],
)
def test_edge_sizes(runner: Runner, kernel: str, sizes: tuple[int, ...], backend: str) -> None:
    need_backend(backend)
    for size in sizes:
        row = runner.execute(Task(kernel, backend, 0, size, "f64"))
        assert row["status"] == "ok", (size, row["reason"])


# --- FIRST_MIN ties -------------------------------------------------------------


def _first_min_on(backend_name: str, x: np.ndarray, precision: str) -> int:
    """FIRST_MIN's result for given data, run through the backend's own plan."""
    spec = suite.BY_NAME["Lcals_FIRST_MIN"]
    size = x.size
    inputs = make_inputs(spec, size, 1, precision)
    inputs["x"][:] = x
    inputs["xmin_init"] = inputs["x"].dtype.type(x[0])
    backend = get_backend(backend_name)
    source = None
    if backend.language is not None:
        source = sources.find(backend.language, backend.extension, spec.name)
    session = backend.open(0)
    execution = session.load(spec, precision, source, {a.name: inputs[a.name] for a in spec.arrays})
    try:
        execution.run(spec.resolve(size, inputs, precision))
        got = int(execution.read("minloc")[0])
    finally:
        execution.close()
    assert got == int(spec.reference(inputs)["minloc"][0])
    return got


@pytest.mark.parametrize("precision", ["f64", "f32"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_first_min_ties_resolve_to_first_index(backend: str, precision: str) -> None:
    need_backend(backend)
    size = 70_000
    x = np.full(size, 0.5)
    # Equal minima in different lanes of one group and in later groups.
    x[[40_000, 300, 300 + 3 * 256, 555, 69_999]] = -2.0
    assert _first_min_on(backend, x, precision) == 300
    # All equal: no element beats x[0], so Base_Seq keeps its initial location 0.
    assert _first_min_on(backend, np.full(size, 0.25), precision) == 0


# --- Sizes, traffic and FLOPs at RAJAPerf's defaults ----------------------------


def test_default_sizes_follow_rajaperf_set_size() -> None:
    assert polybench.jacobi_2d_edge(1_000_000) == 1002
    assert polybench.heat_3d_edge(1_000_000) == 102
    assert polybench.gemm_dims(1_000_000) == (1000, 1000, 1200)
    gemm = suite.BY_NAME["Polybench_GEMM"]
    assert gemm.flops(1_000_000) == (1 + 3 * 1200) * 1000 * 1000
    heat = suite.BY_NAME["Polybench_HEAT_3D"]
    assert heat.traffic(1_000_000, 8).read == 2 * 8 * (102**3 - 12 * 100 - 8)
    assert len(heat.plan(1_000_000)) == 2


# --- Checksums pinned against a Base_Seq transcription --------------------------


class _Init:
    """RAJAPerf's initData family, transcribed: the factor alternates by call count."""

    def __init__(self) -> None:
        self.count = 0

    def data(self, length: int) -> list[float]:
        factor = 0.1 if self.count % 2 else 0.2
        self.count += 1
        return [factor * (i + 1.1) / (i + 1.12345) for i in range(length)]

    def const(self, length: int, value: float) -> list[float]:
        self.count += 1
        return [value] * length

    def scalar(self) -> float:
        factor = 0.1 if self.count % 2 else 0.2
        self.count += 1
        return factor * 1.1 / 1.12345


def _checksum(values: list[float]) -> float:
    """RAJAPerf's calcChecksum: Kahan sum of mult(j) * |v_j| (in double here)."""
    total = compensation = 0.0
    for j, v in enumerate(values):
        val = (j + (1.0 if v >= 0 else 0.5)) * 0.3183098861837906715377675267450287240689
        term = (val - math.floor(val) + 0.5) * abs(v)
        y = term - compensation
        t = total + y
        compensation = (t - total) - y
        total = t
    return total


def _hydro_1d_seq(size: int) -> float:
    d = _Init()
    x, y, z = d.const(size, 0.0), d.data(size), d.data(size + 1)
    q, r, t = d.scalar(), d.scalar(), d.scalar()
    for i in range(size):  # z[i+10], z[i+11] through a pointer shifted by -10
        x[i] = q + y[i] * (r * z[i + 10 - 10] + t * z[i + 11 - 10])
    return _checksum(x)


def _first_min_seq(size: int) -> float:
    x = _Init().const(size, 0.0)
    x[size // 2] = -1.0e10
    val, loc = x[0], 0
    for i in range(size):
        if x[i] < val:
            val, loc = x[i], i
    return float(abs(loc))


def _jacobi_2d_seq(size: int) -> float:
    n = int(math.sqrt(size) + 2 + math.sqrt(2) - 1)
    d = _Init()
    a, b = d.data(n * n), d.data(n * n)
    for src, dst in ((a, b), (b, a)):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                dst[j + i * n] = 0.2 * (
                    src[j + i * n]
                    + src[j - 1 + i * n]
                    + src[j + 1 + i * n]
                    + src[j + (i + 1) * n]
                    + src[j + (i - 1) * n]
                )
    return _checksum(a) + _checksum(b)


def _heat_3d_seq(size: int) -> float:
    n = int(float(np.cbrt(size)) + 2 + float(np.cbrt(3)) - 1)
    d = _Init()
    a, b = d.data(n**3), d.data(n**3)
    for src, dst in ((a, b), (b, a)):

        def at(i: int, j: int, k: int, src: list[float] = src) -> float:
            return src[k + n * (j + n * i)]

        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    dst[k + n * (j + n * i)] = (
                        0.125 * (at(i + 1, j, k) - 2.0 * at(i, j, k) + at(i - 1, j, k))
                        + 0.125 * (at(i, j + 1, k) - 2.0 * at(i, j, k) + at(i, j - 1, k))
                        + 0.125 * (at(i, j, k + 1) - 2.0 * at(i, j, k) + at(i, j, k - 1))
                        + at(i, j, k)
                    )
    return _checksum(a) + _checksum(b)


def _gemm_seq(size: int) -> float:
    ni = nj = int(math.sqrt(size) + math.sqrt(2) - 1)
    nk = int(1200 / 1000 * ni)
    d = _Init()
    a, b, c = d.data(ni * nk), d.data(nk * nj), d.const(ni * nj, 0.0)
    alpha, beta = 0.62, 1.002
    for i in range(ni):
        for j in range(nj):
            dot = 0.0
            c[j + i * nj] *= beta
            for k in range(nk):
                dot += alpha * a[k + i * nk] * b[j + k * nj]
            c[j + i * nj] = dot
    return _checksum(c)


# Pinned f64 checksums after one repetition. Each value was computed by the
# transcription next to it and agrees (to all printed digits) with a C
# transcription of the same Base_Seq loops compiled with -ffp-contract=off and
# summed in long double, as RAJAPerf sums.
PINS = {
    "Lcals_HYDRO_1D": (100, _hydro_1d_seq, 10.321871975593306),
    "Lcals_FIRST_MIN": (1001, _first_min_seq, 500.0),
    "Polybench_JACOBI_2D": (100, _jacobi_2d_seq, 51.91464844018974),  # N = 12
    "Polybench_HEAT_3D": (125, _heat_3d_seq, 113.56754153837757),  # N = 7
    "Polybench_GEMM": (100, _gemm_seq, 14.769996662797746),  # ni = nj = 10, nk = 12
}


@pytest.mark.parametrize("kernel", sorted(PINS))
def test_transcription_gives_the_pinned_checksum(kernel: str) -> None:
    size, transcription, pinned = PINS[kernel]
    tolerance = suite.BY_NAME[kernel].tolerance.f64
    assert transcription(size) == pytest.approx(pinned, rel=tolerance, abs=0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kernel", sorted(PINS))
def test_checksum_matches_pin(runner: Runner, kernel: str, backend: str) -> None:
    need_backend(backend)
    size, _, pinned = PINS[kernel]
    row = runner.execute(Task(kernel, backend, 0, size, "f64"))
    assert row["status"] == "ok", row["reason"]
    tolerance = suite.BY_NAME[kernel].tolerance.f64
    assert row["checksum"] == pytest.approx(pinned, rel=tolerance, abs=0)


# --- Check cases: inputs that make every term and branch count ------------------


def _case_inputs(kernel: str, case: str, size: int, precision: str = "f64") -> dict:
    """A check case's inputs as the runner makes them (cast to the run types)."""
    spec = suite.BY_NAME[kernel]
    init = next(c.init for c in spec.check_cases if c.name == case)
    return make_inputs(spec, size, 1, precision, init)


def _plant(tmp_path: Path, kernel: str, original: str, planted: str) -> Path:
    """A sources folder whose OpenCL (shared C) source of ``kernel`` has one planted bug."""
    need_backend("opencl")
    return plant(tmp_path, "c", f"{kernel}.c", original, planted)


def _planted_row(folder: Path, kernel: str, size: int) -> dict:
    return Runner(RunOptions(check=True, sources=(folder,))).execute(
        Task(kernel, "opencl", 0, size, "f64")
    )


def test_hydro_1d_check_case_makes_every_term_count() -> None:
    spec = suite.BY_NAME["Lcals_HYDRO_1D"]
    x = _case_inputs("Lcals_HYDRO_1D", "random", 4_096)
    q, r, t = float(x["q"]), float(x["r"]), float(x["t"])
    assert len({q, r, t, -r, -t}) == 5  # RAJAPerf's q equals t
    out = spec.reference(x)["x"]
    assert out.min() >= 1.0 and out.max() <= 4.0  # no cancellation towards 0
    y, z = x["y"].astype(np.float64), x["z"].astype(np.float64)
    assert (y < 0).any() and (y > 0).any() and (z < 0).any() and (z > 0).any()
    # Each input read from a neighbour, or a scalar swapped, moves x far past NORMAL.
    for wrong in (
        t + y * (r * z[:-1] + t * z[1:]),
        q + y * (t * z[:-1] + r * z[1:]),
        q + y * (r * z[1:] + t * z[1:]),
        q + np.roll(y, 1) * (r * z[:-1] + t * z[1:]),
    ):
        assert np.abs(wrong - out).max() / np.abs(out).max() > 1e-3


def test_hydro_1d_2d_group_index_is_checked_at_check_sizes(tmp_path: Path) -> None:
    """wgpu's verification folds launches into 2-D grids, so a wrong linear group
    index fails at 4096 elements, not only past 65535 groups."""
    need_backend("wgpu")
    spec = suite.BY_NAME["Lcals_HYDRO_1D"]
    assert 4_096 % 256 == 0 and 4_096 in spec.sizes_for_check
    plant(
        tmp_path,
        "wgsl",
        "Lcals_HYDRO_1D.wgsl",
        "global_index(wid, nwg, lid)",
        "wid.x * GROUP + lid",
    )
    row = Runner(RunOptions(check=True, sources=(tmp_path,))).execute(
        Task("Lcals_HYDRO_1D", "wgpu", 0, 4_096, "f64")
    )
    assert row["status"] == "fail", row["reason"]


def test_hydro_1d_planted_bug_fails_only_on_the_check_case(tmp_path: Path) -> None:
    # q and t are equal in RAJAPerf's inputs: a t written for q passes them.
    folder = _plant(
        tmp_path, "Lcals_HYDRO_1D", "x[i] = q + y[i] * (r * z[i]", "x[i] = t + y[i] * (r * z[i]"
    )
    row = _planted_row(folder, "Lcals_HYDRO_1D", 4_096)
    assert row["status"] == "fail"
    assert "check case 'random'" in row["reason"] and "x:" in row["reason"]


def test_first_min_check_cases_reach_ties_and_the_initial_location() -> None:
    spec = suite.BY_NAME["Lcals_FIRST_MIN"]
    size = 39_937
    groups, chunk = chunking(size)
    assert groups == 3 and chunk % 256
    x = _case_inputs("Lcals_FIRST_MIN", "ties", size)
    where = np.flatnonzero(x["x"] == x["x"].min())
    assert where[0] > 0 and len(set(where // chunk)) == groups  # ties in every group
    assert spec.reference(x)["minloc"][0] == where[0]
    last = _case_inputs("Lcals_FIRST_MIN", "last", size, "f32")
    assert spec.reference(last)["minloc"][0] == size - 1  # only at the very end
    none = _case_inputs("Lcals_FIRST_MIN", "none", size, "f32")
    assert np.isposinf(none["x"]).all() and spec.reference(none)["minloc"][0] == 0


def test_first_min_planted_tie_bug_fails(tmp_path: Path) -> None:
    # The last of equal minima instead of the first: RAJAPerf's minimum is unique.
    folder = _plant(tmp_path, "Lcals_FIRST_MIN", "loc < than_loc);", "loc > than_loc);")
    row = _planted_row(folder, "Lcals_FIRST_MIN", 39_937)
    assert row["status"] == "fail"
    assert "check case 'ties'" in row["reason"] and "minloc" in row["reason"]


@pytest.mark.parametrize("kernel", ["Polybench_JACOBI_2D", "Polybench_HEAT_3D", "Polybench_GEMM"])
def test_polybench_random_cases_have_distinct_neighbours(kernel: str) -> None:
    spec = suite.BY_NAME[kernel]
    x = _case_inputs(kernel, "random", spec.check_size)
    for name in ("A", "B"):
        values = x[name].astype(np.float64)
        assert np.abs(np.diff(values)).min() > 0 and values.min() >= 0.5
    timed = make_inputs(spec, spec.check_size, 1, "f64")
    for name, expected in spec.reference(x).items():
        assert not np.allclose(expected, spec.reference(timed)[name])


def test_gemm_check_sizes_reach_every_tile_edge() -> None:
    spec = suite.BY_NAME["Polybench_GEMM"]
    edges = {polybench.gemm_dims(size)[1] % polybench.GEMM_TILE for size in spec.sizes_for_check}
    assert {0, 1} <= edges and len(edges) == 3  # whole tiles, one past, and a ragged edge


def test_gemm_planted_bug_fails_on_stale_c(tmp_path: Path) -> None:
    # Skipping the product (in the CPU devices' form, which PoCL compiles) leaves
    # C as it was: RAJAPerf's C starts at 0, so only a stale C shows it.
    call = "product_rows(C, A, B, alpha, 0, ni, nj, nk, j, i0);"
    folder = _plant(tmp_path, "Polybench_GEMM", call, ";")
    row = _planted_row(folder, "Polybench_GEMM", 4_096)
    assert row["status"] == "fail"
    assert "C:" in row["reason"]


@pytest.mark.parametrize("kernel", ["Polybench_JACOBI_2D", "Polybench_HEAT_3D"])
def test_stencils_check_the_smallest_grid_and_whole_groups(kernel: str) -> None:
    spec = suite.BY_NAME[kernel]
    assert 1 in spec.sizes_for_check
    # One interior point along every axis.
    assert {launch.items for launch in spec.plan(1)} == {(1,) * spec.plan(1)[0].dims}
    # Some check size's interior is whole work-groups along every axis, some not.
    whole = [
        all(n % g == 0 for n, g in zip(launch.items, launch.group, strict=True))
        for launch in (spec.plan(size)[0] for size in spec.sizes_for_check)
    ]
    assert any(whole) and not all(whole)


def test_gemm_inf_case_poisons_only_padded_products() -> None:
    spec = suite.BY_NAME["Polybench_GEMM"]
    ni, nj, nk = polybench.gemm_dims(4_200)
    x = _case_inputs("Polybench_GEMM", "inf", 4_200)
    a = x["A"].reshape(ni, nk)
    assert np.isposinf(a[1::2, 0]).all() and np.isfinite(a[0::2]).all()
    c = spec.reference(x)["C"].reshape(ni, nj)
    # Rows without an infinity stay finite: a NaN there is a product formed by mistake.
    assert np.isfinite(c[0::2]).all() and np.isposinf(c[1::2]).all()

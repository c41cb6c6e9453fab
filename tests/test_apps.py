"""RAJAPerf's Apps kernels: check cases, planted bugs, checksums pinned to Base_Seq.

That every kernel verifies on every backend is tests/test_verification_matrix.py's.

The pinned checksums were computed by the scalar transcriptions of RAJAPerf's
setUp and Base_Seq loops below (plain Python loops over RAJAPerf's own index
arithmetic, its init-call counter and calcChecksumImpl), which share no code
with the descriptions; each test checks its transcription still gives the pin,
then that the harness's checksum after one repetition matches it within
RAJAPerf's tolerance class.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import platform
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import need_backend, plant

from harness.execution.runner import Runner, RunOptions, Task, make_inputs
from harness.suite import apps
from harness.suite.apps import energy

KERNELS = [k.name for k in apps.KERNELS]
SPECS = {k.name: k for k in apps.KERNELS}


@pytest.fixture(scope="module")
def runner() -> Runner:
    """One runner for the module, so device sessions and programs are reused."""
    return Runner(RunOptions(check=True))


def _row(runner: Runner, kernel: str, backend: str, precision: str, size: int) -> dict:
    return runner.execute(Task(kernel, backend, 0, size, precision))


# --- scalar transcriptions of RAJAPerf's setUp, Base_Seq and checksum -------------------

PI_INV = 0.3183098861837906715377675267450287240689


def rajaperf_checksum(values: list[float]) -> float:
    """calcChecksumImpl: Kahan sum of calcMultiplier(j, v >= 0 ? 1 : 0.5) * |v|."""
    total = 0.0
    carry = 0.0
    for j, v in enumerate(values):
        val = (j + (1.0 if v >= 0.0 else 0.5)) * PI_INV
        term = (val - math.floor(val) + 0.5) * abs(v) - carry
        new = total + term
        carry = (new - total) - term
        total = new
    return total


class Counter:
    """RAJAPerf's data_init_count: initData uses 0.1 on odd counts, 0.2 on even."""

    def __init__(self) -> None:
        self.count = 0

    def const(self, length: int, value: float) -> list[float]:
        self.count += 1
        return [value] * length

    def data(self, length: int) -> list[float]:
        factor = 0.1 if self.count % 2 else 0.2
        self.count += 1
        return [factor * (i + 1.1) / (i + 1.12345) for i in range(length)]


def glibc_rand_values(count: int) -> list[float]:
    """initDataRandValue: rand()/RAND_MAX after srand(4793), from the C library itself."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        pytest.skip("the FIR transcription draws from glibc's rand()")
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.srand(4793)
    return [libc.rand() / 2147483647 for _ in range(count)]


def fir_checksum(size: int) -> float:
    """FIR: out[i] = sum_j coeff[j] * in[i + j], in = RandValue of size + 15."""
    coeff = [3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0]
    coeff += [-1.0, 3.0]
    data = glibc_rand_values(size + 15)
    out = []
    for i in range(size):
        total = 0.0
        for j in range(16):
            total += coeff[j] * data[i + j]
        out.append(total)
    return rajaperf_checksum(out)


def del_dot_vec_2d_checksum(size: int) -> float:
    """DEL_DOT_VEC_2D on ADomain(sqrt(T) + 1 + sqrt(2) - 1, 2)."""
    rzmax = int(math.sqrt(size) + 1 + math.sqrt(2) - 1)
    imin, imax = 2, 2 + rzmax - 1
    jp = imax + 1 - imin + 3
    nnalls = jp * jp
    c = Counter()
    x = c.const(nnalls, 0.0)
    y = c.const(nnalls, 0.0)
    c.const(rzmax * rzmax, -1)  # real_zones
    for j in range(jp):
        for i in range(jp):
            x[i + j * jp] = i * 0.2
            y[i + j * jp] = j * 0.1
    fx = c.data(nnalls)
    fy = c.data(nnalls)
    div = c.const(nnalls, 0.0)
    half, ptiny = 0.5, 1.0e-20
    for j in range(imin, imax):
        for i in range(imin, imax):
            z = i + j * jp
            n1, n2, n3, n4 = z + 1, z + 1 + jp, z + jp, z
            xi = half * (x[n1] + x[n2] - x[n3] - x[n4])
            xj = half * (x[n2] + x[n3] - x[n4] - x[n1])
            yi = half * (y[n1] + y[n2] - y[n3] - y[n4])
            yj = half * (y[n2] + y[n3] - y[n4] - y[n1])
            fxi = half * (fx[n1] + fx[n2] - fx[n3] - fx[n4])
            fxj = half * (fx[n2] + fx[n3] - fx[n4] - fx[n1])
            fyi = half * (fy[n1] + fy[n2] - fy[n3] - fy[n4])
            fyj = half * (fy[n2] + fy[n3] - fy[n4] - fy[n1])
            rarea = 1.0 / (xi * yj - xj * yi + ptiny)
            dfxdx = rarea * (fxi * yj - fxj * yi)
            dfydy = rarea * (fyj * xi - fyi * xj)
            affine = (fy[n1] + fy[n2] + fy[n3] + fy[n4]) / (y[n1] + y[n2] + y[n3] + y[n4])
            div[z] = dfxdx + dfydy + affine
    return rajaperf_checksum(div)


def ltimes_checksum(size: int) -> float:
    """LTIMES: phi[m + M(g + G z)] += ell[d + D m] * psi[d + D(g + G z)]."""
    nd, ng, nm = 6, 32, 25
    nz = max((size + nd * ng // 2) // (nd * ng), 1)
    c = Counter()
    phi = c.const(nm * ng * nz, 0.0)
    ell = c.data(nd * nm)
    psi = c.data(nd * ng * nz)
    for z in range(nz):
        for g in range(ng):
            for m in range(nm):
                for d in range(nd):
                    phi[m + nm * (g + ng * z)] += ell[d + nd * m] * psi[d + nd * (g + ng * z)]
    return rajaperf_checksum(phi)


def _mesh_3d(size: int) -> tuple[int, int, int, int]:
    """rzmax, jp, kp and nnalls of ADomain(cbrt(T) + 1 + cbrt(3) - 1, 3)."""
    rzmax = int(size ** (1 / 3) + 1 + 3 ** (1 / 3) - 1)
    jp = rzmax + 3
    return rzmax, jp, jp * jp, jp**3


def vol3d_checksum(size: int) -> float:
    """VOL3D over zones fpz..lpz of the 3-D mesh, ghosts included."""
    rzmax, jp, kp, nnalls = _mesh_3d(size)
    c = Counter()
    x, y, z = c.const(nnalls, 0.0), c.const(nnalls, 0.0), c.const(nnalls, 0.0)
    for k in range(jp):
        for j in range(jp):
            for i in range(jp):
                x[i + j * jp + k * kp] = i * 0.3
                y[i + j * jp + k * kp] = j * 0.2
                z[i + j * jp + k * kp] = k * 0.1
    vol = c.const(nnalls, 0.0)
    top = 2 + rzmax - 1
    fpz, lpz = kp + jp + 1, top * (kp + jp + 1)
    for i in range(fpz, lpz + 1):
        n = [i, i + 1, i + jp, i + 1 + jp, i + kp, i + 1 + kp, i + jp + kp, i + 1 + jp + kp]
        px, py, pz = ([a[v] for v in n] for a in (x, y, z))

        def d(p: list[float], a: int, b: int) -> float:
            return p[a] - p[b]

        x71, x72, x74, x30, x50, x60 = (d(px, a, b) for a, b in _VOL3D_PAIRS)
        y71, y72, y74, y30, y50, y60 = (d(py, a, b) for a, b in _VOL3D_PAIRS)
        z71, z72, z74, z30, z50, z60 = (d(pz, a, b) for a, b in _VOL3D_PAIRS)
        xps, yps, zps = x71 + x60, y71 + y60, z71 + z60
        cyz, czx, cxy = y72 * z30 - z72 * y30, z72 * x30 - x72 * z30, x72 * y30 - y72 * x30
        vol[i] = xps * cyz + yps * czx + zps * cxy
        xps, yps, zps = x72 + x50, y72 + y50, z72 + z50
        cyz, czx, cxy = y74 * z60 - z74 * y60, z74 * x60 - x74 * z60, x74 * y60 - y74 * x60
        vol[i] += xps * cyz + yps * czx + zps * cxy
        xps, yps, zps = x74 + x30, y74 + y30, z74 + z30
        cyz, czx, cxy = y71 * z50 - z71 * y50, z71 * x50 - x71 * z50, x71 * y50 - y71 * x50
        vol[i] += xps * cyz + yps * czx + zps * cxy
        vol[i] *= 0.083333333333333333
    return rajaperf_checksum(vol)


_VOL3D_PAIRS = ((7, 1), (7, 2), (7, 4), (3, 0), (5, 0), (6, 0))


def nodal_accumulation_3d_checksum(size: int) -> float:
    """NODAL_ACCUMULATION_3D: every real zone adds 0.125 * vol to its 8 nodes."""
    rzmax, jp, kp, nnalls = _mesh_3d(size)
    c = Counter()
    x = c.const(nnalls, 0.0)
    top = 2 + rzmax - 1
    vol = c.const(top * (kp + jp + 1) + 1, 1.0)
    for k in range(2, top):
        for j in range(2, top):
            for i in range(2, top):
                z = i + j * jp + k * kp
                val = 0.125 * vol[z]
                for node in (0, 1, jp, 1 + jp, kp, 1 + kp, jp + kp, 1 + jp + kp):
                    x[z + node] += val
    return rajaperf_checksum(x)


def matvec_3d_stencil_checksum(size: int) -> float:
    """MATVEC_3D_STENCIL: 14 stored coefficient arrays, 13 aliases as RAJAPerf's setUp."""
    rzmax, jp, kp, _ = _mesh_3d(size)
    top = 2 + rzmax - 1
    length = top * (kp + jp + 1) + 1
    c = Counter()
    b = c.const(length, 0.0)
    x = c.data(length)
    m = {name: (c.data(length), 0) for name in _STORED}
    # name: (stored array, pointer shift), as m_matrix.ccr = m_matrix.ccl + 1 and so on.
    aliases = {
        "ccr": ("ccl", 1),
        "cfl": ("cbr", -1 + jp),
        "cfc": ("cbc", jp),
        "cfr": ("cbl", 1 + jp),
        "ubl": ("dfr", -1 - jp + kp),
        "ubc": ("dfc", -jp + kp),
        "ubr": ("dfl", 1 - jp + kp),
        "ucl": ("dcr", -1 + kp),
        "ucc": ("dcc", kp),
        "ucr": ("dcl", 1 + kp),
        "ufl": ("dbr", -1 + jp + kp),
        "ufc": ("dbc", jp + kp),
        "ufr": ("dbl", 1 + jp + kp),
    }
    m.update((name, (m[base][0], shift)) for name, (base, shift) in aliases.items())
    # x pointer offsets of MATVEC_3D_STENCIL_DATA_SETUP, in the body's order.
    terms = []
    for plane, dk in (("d", -kp), ("c", 0), ("u", kp)):
        for row, dj in (("b", -jp), ("c", 0), ("f", jp)):
            for col, di in (("l", -1), ("c", 0), ("r", 1)):
                terms.append((m[plane + row + col], dk + dj + di))
    c.const(rzmax**3, -1)  # real_zones
    for k in range(2, top):
        for j in range(2, top):
            for i in range(2, top):
                z = i + j * jp + k * kp
                total = 0.0
                for t, ((coef, shift), off) in enumerate(terms):
                    product = coef[z + shift] * x[z + off]
                    total = product if t == 0 else total + product
                b[z] = total
    return rajaperf_checksum(b)


_STORED = ("dbl", "dbc", "dbr", "dcl", "dcc", "dcr", "dfl", "dfc", "dfr", "cbl", "cbc", "cbr")
_STORED += ("ccl", "ccc")


#: kernel -> (size, transcription, pinned checksum from that transcription at that size)
PINS: dict[str, tuple[int, Callable[[int], float], float]] = {
    "Apps_FIR": (300, fir_checksum, 497.77497296470847),
    "Apps_DEL_DOT_VEC_2D": (100, del_dot_vec_2d_checksum, 35.393031030317644),
    "Apps_LTIMES": (1000, ltimes_checksum, 478.7548574158485),
    "Apps_MATVEC_3D_STENCIL": (1000, matvec_3d_stencil_checksum, 408.47334895955686),
    "Apps_VOL3D": (1000, vol3d_checksum, 44.68936618328478),
    "Apps_NODAL_ACCUMULATION_3D": (1000, nodal_accumulation_3d_checksum, 998.0117796426416),
}


@pytest.mark.parametrize("kernel", sorted(PINS))
def test_transcription_gives_pinned_checksum(kernel: str) -> None:
    size, transcription, pinned = PINS[kernel]
    assert transcription(size) == pytest.approx(pinned, rel=1e-13)


@pytest.mark.parametrize("backend", ["cpu", "opencl"])
@pytest.mark.parametrize("kernel", sorted(PINS))
def test_checksum_matches_pin(runner: Runner, kernel: str, backend: str) -> None:
    need_backend(backend)
    size, _, pinned = PINS[kernel]
    row = _row(runner, kernel, backend, "f64", size)
    assert row["status"] == "ok", row["reason"]
    assert row["checksum"] == pytest.approx(pinned, rel=SPECS[kernel].tolerance.f64, abs=0)


# --- check cases: the inputs the verification adds to RAJAPerf's ----------------------


def _case_inputs(kernel: str, size: int, precision: str) -> dict:
    """A kernel's check-case inputs as the runner makes them (cast to the run types)."""
    spec = SPECS[kernel]
    (case,) = spec.check_cases
    return make_inputs(spec, size, 1, precision, case.init)


@pytest.mark.parametrize("size", [4_096, 10_007])
@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_energy_check_case_takes_every_branch_both_ways(precision: str, size: int) -> None:
    inputs = _case_inputs("Apps_ENERGY", size, precision)
    seen = energy.energy_branch_values(inputs)
    e_cut, emin, q_cut = (float(inputs[k]) for k in ("e_cut", "emin", "q_cut"))
    delvc = inputs["delvc"]
    assert (delvc > 0).any() and (delvc < 0).any() and (delvc == 0).any()
    for key in ("ssc2", "ssc5", "ssc6"):
        assert (seen[key] <= energy.SSC_FLOOR).any() and (seen[key] > energy.SSC_FLOOR).any()
    if precision == "f64":
        assert (seen["ssc6"] == energy.SSC_FLOOR).any()
    for key in ("e4", "e5"):
        e = seen[key]
        assert ((np.abs(e) < e_cut) & (e != 0)).any()
        assert (e == e_cut).any() and (e == -e_cut).any()
        assert (e > e_cut).any() and (e < emin).any() and ((e > emin) & (e < -e_cut)).any()
    q = seen["q6"]
    assert ((np.abs(q) < q_cut) & (q != 0)).any() and (np.abs(q) > q_cut).any()
    assert (q == q_cut).any() and (q == -q_cut).any()
    out = SPECS["Apps_ENERGY"].reference(inputs)
    finite = np.isfinite(out["e_new"])
    assert np.unique(out["e_new"][finite]).size > size // 2
    assert np.unique(out["q_new"]).size > size // 4
    # In double precision, q overflows in loop 2 alone or loop 5 alone where delvc = 0.
    assert (~finite).any() == (precision == "f64")


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_pressure_check_case_takes_every_branch_both_ways(precision: str) -> None:
    inputs = _case_inputs("Apps_PRESSURE", 10_007, precision)
    p_cut, pmin, eosvmax = (float(inputs[k]) for k in ("p_cut", "pmin", "eosvmax"))
    out = SPECS["Apps_PRESSURE"].reference(inputs)
    p = out["bvc"] * inputs["e_old"]
    assert ((np.abs(p) < p_cut) & (p != 0)).any() and (p == p_cut).any() and (p == -p_cut).any()
    assert (p < pmin).any() and ((p > pmin) & (p < -p_cut)).any() and (p > p_cut).any()
    vnewc = inputs["vnewc"]
    assert (vnewc < eosvmax).any() and (vnewc == eosvmax).any() and (vnewc > eosvmax).any()
    assert np.unique(out["p_new"]).size > 100


def test_del_dot_check_case_weighs_every_term() -> None:
    inputs = _case_inputs("Apps_DEL_DOT_VEC_2D", 4_096, "f64")
    i = inputs["real_zones"].astype(np.int64)
    jp = int(inputs["jp"])
    x, y = inputs["x"], inputs["y"]
    xj = 0.5 * (x[i + 1 + jp] + x[i + jp] - x[i] - x[i + 1])
    yi = 0.5 * (y[i + 1] + y[i + 1 + jp] - y[i + jp] - y[i])
    assert np.abs(xj).min() > 0 and np.abs(yi).min() > 0
    xi = 0.5 * (x[i + 1] + x[i + 1 + jp] - x[i + jp] - x[i])
    yj = 0.5 * (y[i + 1 + jp] + y[i + jp] - y[i] - y[i + 1])
    area = xi * yj - xj * yi
    assert area.min() > 0 and inputs["ptiny"] > 0.1 * area.max()
    div = SPECS["Apps_DEL_DOT_VEC_2D"].reference(inputs)["div"][i]
    assert div.min() > 0.5 and np.unique(div).size == div.size


def test_vol3d_check_case_moves_every_node() -> None:
    inputs = _case_inputs("Apps_VOL3D", 4_096, "f64")
    jp, kp = int(inputs["jp"]), int(inputs["kp"])
    for axis in ("x", "y", "z"):
        a = inputs[axis]
        for step in (1, jp, kp, 1 + jp, 1 + kp, jp + kp):
            assert np.abs(a[step:] - a[:-step]).min() > 0
    vol = SPECS["Apps_VOL3D"].reference(inputs)["vol"]
    assert np.unique(vol).size == vol.size


def test_nodal_check_case_has_distinct_zero_and_repeated_adds() -> None:
    inputs = _case_inputs("Apps_NODAL_ACCUMULATION_3D", 4_096, "f64")
    zones = inputs["real_zones"]
    used = inputs["vol"][zones]
    assert (used == 0).any() and np.unique(used).size > 32
    assert np.bincount(zones).max() >= zones.size // 2
    assert (inputs["x"] != 0).mean() > 0.9


#: Bugs RAJAPerf's inputs cannot see: (kernel, backend, line as shipped, planted bug,
#: the array it breaks).
PLANTED = [
    (
        "Apps_ENERGY",
        "opencl",
        "const REAL kept = below_cut(e, cut) ? (REAL)0.0 : e;",
        "const REAL kept = below_cut(e, cut) || e == cut || -e == cut ? (REAL)0.0 : e;",
        "e_new",
    ),
    ("Apps_ENERGY", "wgpu", "if (abs(q) < s.q_cut) {", "if (abs(q) <= s.q_cut) {", "q_new"),
    (
        "Apps_PRESSURE",
        "opencl",
        "const REAL p = bvc[i] * e_old[i];",
        "const REAL p = bvc[i] / e_old[i];",
        "p_new",
    ),
    (
        "Apps_PRESSURE",
        "wgpu",
        "if (vnewc[i] >= s.eosvmax) {",
        "if (vnewc[i] > s.eosvmax) {",
        "p_new",
    ),
    ("Apps_DEL_DOT_VEC_2D", "opencl", "- xj * yi + ptiny);", "- xj * yi - ptiny);", "div"),
    ("Apps_VOL3D", "wgpu", "var xps = x71 + x60;", "var xps = x71 - x60;", "vol"),
    ("Apps_NODAL_ACCUMULATION_3D", "opencl", "(REAL)0.125 * vol[i]", "(REAL)0.125 / vol[i]", "x"),
]
LANGUAGES = {"opencl": ("c", ".c"), "wgpu": ("wgsl", ".wgsl")}


@pytest.mark.parametrize(("kernel", "backend", "line", "bug", "array"), PLANTED)
def test_a_bug_only_the_check_case_sees_fails(
    kernel: str, backend: str, line: str, bug: str, array: str, tmp_path: Path
) -> None:
    need_backend(backend)
    language, extension = LANGUAGES[backend]
    plant(tmp_path, language, f"{kernel}{extension}", line, bug)
    task = Task(kernel, backend, 0, SPECS[kernel].sizes_for_check[0], "f64")
    row = Runner(RunOptions(check=True, sources=(tmp_path,))).execute(task)
    assert row["status"] == "fail"
    (case,) = SPECS[kernel].check_cases
    assert row["reason"].startswith(f"check case '{case.name}': {array}: ")
    assert row["source"].startswith(str(tmp_path))

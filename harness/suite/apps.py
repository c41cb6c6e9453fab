"""RAJAPerf's Apps group (src/apps/*.cpp).

Math, loop bounds, default sizes and reps, setUp order (which fixes each
array's init factor) and bytes/FLOPs follow RAJAPerf. The mesh kernels use the
``ADomain`` of `harness.suite.apps_mesh`; their problem size is RAJAPerf's
target size, from which the mesh (and the actual number of zones) follows.
Index arrays are 32-bit (see `apps_mesh.INDEX`), so index bytes count 4 each.
"""

from __future__ import annotations

import numpy as np

from harness.rajaperf import DataInit
from harness.rajaperf import checksum as array_checksum
from harness.spec import (
    NORMAL,
    Array,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Tolerance,
    Traffic,
)
from harness.suite.apps_mesh import INDEX, INDEX_BYTES, domain_2d, domain_3d
from harness.suite.forall import GROUP, one_launch

GROUP_NAME = "Apps"
N = Scalar("n", "u32")
JP = Scalar("jp", INDEX)
KP = Scalar("kp", INDEX)


def _n(size: int) -> int:
    return size


def _f64(x: np.ndarray) -> np.ndarray:
    return np.array(x, dtype=np.float64)


def _wide(inputs: dict) -> dict:
    """Inputs for a reference: real arrays and scalars as float64, others copied."""
    out = {}
    for name, value in inputs.items():
        if isinstance(value, np.ndarray):
            out[name] = _f64(value) if value.dtype.kind == "f" else value.copy()
        else:
            out[name] = float(value) if isinstance(value, np.floating) else int(value)
    return out


# --- DEL_DOT_VEC_2D -------------------------------------------------------------


def _del_dot_init(size: int, seed: int, precision: str) -> dict:
    dom = domain_2d(size)
    d = DataInit()
    d.const(dom.nnalls, 0.0)  # x
    d.const(dom.nnalls, 0.0)  # y
    d.const(dom.n_real_zones, -1)  # real_zones
    x, y = dom.positions(0.2, 0.1)
    return {
        "x": x,
        "y": y,
        "real_zones": dom.real_zones(),
        "xdot": d.data(dom.nnalls),
        "ydot": d.data(dom.nnalls),
        "div": d.const(dom.nnalls, 0.0),
        "half": 0.5,
        "ptiny": 1.0e-20,
        "jp": dom.jp,
    }


def _del_dot_plan(size: int) -> list[Launch]:
    dom = domain_2d(size)
    args = ("x", "y", "xdot", "ydot", "div", "real_zones", "half", "ptiny", "jp", "n")
    return [Launch("del_dot_vec_2d", dom.n_real_zones, GROUP, args, {"n": dom.n_real_zones})]


def _del_dot_cpu(grid: Grid, x, y, xdot, ydot, div, real_zones, half, ptiny, jp, n) -> None:
    i = real_zones[:n].astype(np.int64)
    c1, c2, c3, c4 = i + 1, i + 1 + jp, i + jp, i
    xi = half * (x[c1] + x[c2] - x[c3] - x[c4])
    xj = half * (x[c2] + x[c3] - x[c4] - x[c1])
    yi = half * (y[c1] + y[c2] - y[c3] - y[c4])
    yj = half * (y[c2] + y[c3] - y[c4] - y[c1])
    fxi = half * (xdot[c1] + xdot[c2] - xdot[c3] - xdot[c4])
    fxj = half * (xdot[c2] + xdot[c3] - xdot[c4] - xdot[c1])
    fyi = half * (ydot[c1] + ydot[c2] - ydot[c3] - ydot[c4])
    fyj = half * (ydot[c2] + ydot[c3] - ydot[c4] - ydot[c1])
    rarea = 1.0 / (xi * yj - xj * yi + ptiny)
    dfxdx = rarea * (fxi * yj - fxj * yi)
    dfydy = rarea * (fyj * xi - fyi * xj)
    affine = (ydot[c1] + ydot[c2] + ydot[c3] + ydot[c4]) / (y[c1] + y[c2] + y[c3] + y[c4])
    div[i] = dfxdx + dfydy + affine


def _del_dot_traffic(size: int, real_bytes: int) -> Traffic:
    dom = domain_2d(size)
    return Traffic(
        read=INDEX_BYTES * dom.n_real_zones + 4 * real_bytes * dom.n_real_nodes,
        write=real_bytes * dom.n_real_zones,
    )


# --- ENERGY -----------------------------------------------------------------------

#: RAJAPerf's floor and replacement for the sound-speed term before its sqrt.
_SSC_FLOOR = 0.1111111e-36
_SSC_MIN = 0.3333333e-18

_ENERGY_ARRAYS = (
    "e_new",
    "e_old",
    "delvc",
    "p_new",
    "p_old",
    "q_new",
    "q_old",
    "work",
    "compHalfStep",
    "pHalfStep",
    "bvc",
    "pbvc",
    "ql_old",
    "qq_old",
    "vnewc",
)


def _energy_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    out = {
        name: d.const(size, 0.0) if name in ("e_new", "q_new") else d.data(size)
        for name in _ENERGY_ARRAYS
    }
    for name in ("rho0", "e_cut", "emin", "q_cut"):
        out[name] = d.scalar()
    return out


#: ENERGY's six loops: entry point and its arguments before ``n``.
_ENERGY_LOOPS = (
    ("energy1", "e_new e_old delvc p_old q_old work"),
    ("energy2", "e_new delvc q_new compHalfStep pHalfStep bvc pbvc ql_old qq_old rho0"),
    ("energy3", "e_new delvc p_old q_new q_old pHalfStep"),
    ("energy4", "e_new work e_cut emin"),
    (
        "energy5",
        "e_new delvc p_new p_old q_new q_old pHalfStep bvc pbvc ql_old qq_old vnewc rho0 e_cut "
        "emin",
    ),
    ("energy6", "e_new delvc p_new q_new bvc pbvc ql_old qq_old vnewc rho0 q_cut"),
)


def _energy_plan(size: int) -> list[Launch]:
    return [
        Launch(entry, size, GROUP, (*args.split(), "n"), {"n": size})
        for entry, args in _ENERGY_LOOPS
    ]


def _sound_speed(ssc: np.ndarray) -> np.ndarray:
    """sqrt(ssc), or RAJAPerf's small constant where ssc is at or below its floor."""
    small = ssc <= _SSC_FLOOR
    return np.where(small, _SSC_MIN, np.sqrt(np.where(small, 1.0, ssc)))


def _energy1_cpu(grid: Grid, e_new, e_old, delvc, p_old, q_old, work, n) -> None:
    s = slice(0, n)
    e_new[s] = e_old[s] - 0.5 * delvc[s] * (p_old[s] + q_old[s]) + 0.5 * work[s]


def _energy2_cpu(
    grid: Grid, e_new, delvc, q_new, compHalfStep, pHalfStep, bvc, pbvc, ql_old, qq_old, rho0, n
) -> None:
    s = slice(0, n)
    vhalf = 1.0 / (1.0 + compHalfStep[s])
    ssc = _sound_speed((pbvc[s] * e_new[s] + vhalf * vhalf * bvc[s] * pHalfStep[s]) / rho0)
    q_new[s] = np.where(delvc[s] > 0.0, 0.0, ssc * ql_old[s] + qq_old[s])


def _energy3_cpu(grid: Grid, e_new, delvc, p_old, q_new, q_old, pHalfStep, n) -> None:
    s = slice(0, n)
    e_new[s] = e_new[s] + 0.5 * delvc[s] * (
        3.0 * (p_old[s] + q_old[s]) - 4.0 * (pHalfStep[s] + q_new[s])
    )


def _cut(e: np.ndarray, e_cut, emin) -> np.ndarray:
    """Zero values below e_cut in magnitude, then raise values below emin to emin."""
    e = np.where(np.abs(e) < e_cut, 0.0, e)
    return np.where(e < emin, emin, e)


def _energy4_cpu(grid: Grid, e_new, work, e_cut, emin, n) -> None:
    s = slice(0, n)
    e_new[s] = _cut(e_new[s] + 0.5 * work[s], e_cut, emin)


def _energy5_cpu(
    grid: Grid,
    e_new,
    delvc,
    p_new,
    p_old,
    q_new,
    q_old,
    pHalfStep,
    bvc,
    pbvc,
    ql_old,
    qq_old,
    vnewc,
    rho0,
    e_cut,
    emin,
    n,
) -> None:
    s = slice(0, n)
    ssc = _sound_speed((pbvc[s] * e_new[s] + vnewc[s] * vnewc[s] * bvc[s] * p_new[s]) / rho0)
    q_tilde = np.where(delvc[s] > 0.0, 0.0, ssc * ql_old[s] + qq_old[s])
    e = (
        e_new[s]
        - (7.0 * (p_old[s] + q_old[s]) - 8.0 * (pHalfStep[s] + q_new[s]) + (p_new[s] + q_tilde))
        * delvc[s]
        / 6.0
    )
    e_new[s] = _cut(e, e_cut, emin)


def _energy6_cpu(
    grid: Grid, e_new, delvc, p_new, q_new, bvc, pbvc, ql_old, qq_old, vnewc, rho0, q_cut, n
) -> None:
    s = slice(0, n)
    ssc = _sound_speed((pbvc[s] * e_new[s] + vnewc[s] * vnewc[s] * bvc[s] * p_new[s]) / rho0)
    q = ssc * ql_old[s] + qq_old[s]
    q = np.where(np.abs(q) < q_cut, 0.0, q)
    q_new[s] = np.where(delvc[s] <= 0.0, q, q_new[s])


def _energy_traffic(size: int, real_bytes: int) -> Traffic:
    return Traffic(
        read=(5 + 1 + 5 + 1 + 6 + 1) * real_bytes * size,
        write=2 * real_bytes * size,
        modify_write=3 * real_bytes * size,
    )


# --- FIR ---------------------------------------------------------------------------

#: RAJAPerf's FIR_COEFF: 3 at every fifth tap from the first, -1 elsewhere.
FIR_COEFF = tuple(3.0 if j % 5 == 0 else -1.0 for j in range(16))
FIR_LEN = len(FIR_COEFF)


def _fir_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    return {
        "in": d.rand_value(size + FIR_LEN - 1),
        "out": d.const(size, 0.0),
        "coeff": np.array(FIR_COEFF),
    }


def _fir_cpu(grid: Grid, inp, out, coeff, n) -> None:
    acc = np.zeros(n, dtype=out.dtype)
    for j in range(FIR_LEN):
        acc += coeff[j] * inp[j : j + n]
    out[:n] = acc


# --- LTIMES ------------------------------------------------------------------------

#: RAJAPerf's defaults for --ltimes_num_d, --ltimes_num_g and --ltimes_num_m.
LTIMES_D, LTIMES_G, LTIMES_M = 6, 32, 25


def _ltimes_z(size: int) -> int:
    per_z = LTIMES_D * LTIMES_G
    return max((size + per_z // 2) // per_z, 1)


def _ltimes_init(size: int, seed: int, precision: str) -> dict:
    z = _ltimes_z(size)
    d = DataInit()
    return {
        "phi": d.const(LTIMES_M * LTIMES_G * z, 0.0),
        "ell": d.data(LTIMES_D * LTIMES_M),
        "psi": d.data(LTIMES_D * LTIMES_G * z),
    }


def _ltimes_plan(size: int) -> list[Launch]:
    items = LTIMES_M * LTIMES_G * _ltimes_z(size)
    values = {"num_d": LTIMES_D, "num_g": LTIMES_G, "num_m": LTIMES_M, "n": items}
    args = ("phi", "ell", "psi", "num_d", "num_g", "num_m", "n")
    return [Launch("ltimes", items, GROUP, args, values)]


def _ltimes_cpu(grid: Grid, phi, ell, psi, num_d, num_g, num_m, n) -> None:
    """phi(z, g, m) += ell(m, d) * psi(z, g, d), one d after another."""
    view = phi[:n].reshape(-1, num_g, num_m)
    zgd = psi[: view.shape[0] * num_g * num_d].reshape(-1, num_g, num_d)
    md = ell[: num_m * num_d].reshape(num_m, num_d)
    for d in range(num_d):
        view += md[None, None, :, d] * zgd[:, :, d, None]


def _ltimes_traffic(size: int, real_bytes: int) -> Traffic:
    z = _ltimes_z(size)
    return Traffic(
        read=real_bytes * (LTIMES_D * LTIMES_M + LTIMES_D * LTIMES_G * z),
        modify_write=real_bytes * LTIMES_M * LTIMES_G * z,
    )


# --- MATVEC_3D_STENCIL -----------------------------------------------------------

#: The 27 coefficients in RAJAPerf's order: plane d(own), c(entre), u(p); row
#: b(ack), c(entre), f(ront); column l(eft), c(entre), r(ight).
_MATVEC_NAMES = tuple(k + j + i for k in "dcu" for j in "bcf" for i in "lcr")
#: The stored ones, in setUp order: the centre and the 13 before it.
_MATVEC_STORED = _MATVEC_NAMES[:14]


def _matvec_terms(jp: int, kp: int) -> list[tuple[str, int, int]]:
    """The 27 terms coeff[i + c] * x[i + o] of b[i] as (coeff, c, o), in RAJAPerf's order.

    The 14 stored arrays are read at c = 0; the other 13 coefficients are
    RAJAPerf's aliases of the mirrored stored array shifted by the same offset
    as x (the matrix is symmetric), so for them c = o.
    """
    offsets = [i + j * jp + k * kp for k in (-1, 0, 1) for j in (-1, 0, 1) for i in (-1, 0, 1)]
    terms = []
    for t, off in enumerate(offsets):
        if t < len(_MATVEC_STORED):
            terms.append((_MATVEC_NAMES[t], 0, off))
        else:
            terms.append((_MATVEC_NAMES[len(offsets) - 1 - t], off, off))
    return terms


def _matvec_init(size: int, seed: int, precision: str) -> dict:
    dom = domain_3d(size)
    length = dom.lpz + 1
    d = DataInit()
    out = {"b": d.const(length, 0.0), "x": d.data(length)}
    out.update((name, d.data(length)) for name in _MATVEC_STORED)
    d.const(dom.n_real_zones, -1)  # real_zones
    out.update(real_zones=dom.real_zones(), jp=dom.jp, kp=dom.kp)
    return out


def _matvec_plan(size: int) -> list[Launch]:
    dom = domain_3d(size)
    args = ("b", "x", *_MATVEC_STORED, "real_zones", "jp", "kp", "n")
    return [Launch("matvec_3d_stencil", dom.n_real_zones, GROUP, args, {"n": dom.n_real_zones})]


def _matvec_cpu(grid: Grid, b, x, *rest) -> None:
    stored = dict(zip(_MATVEC_STORED, rest, strict=False))
    real_zones, jp, kp, n = rest[len(_MATVEC_STORED) :]
    i = real_zones[:n].astype(np.int64)
    acc = np.zeros(i.size, dtype=b.dtype)
    for name, c, o in _matvec_terms(int(jp), int(kp)):
        acc += stored[name][i + c] * x[i + o]
    b[i] = acc


def _matvec_traffic(size: int, real_bytes: int) -> Traffic:
    dom = domain_3d(size)
    zones = dom.hi - dom.lo

    def extra(di: int, dj: int, dk: int) -> int:
        return (zones + di) * (zones + dj) * (zones + dk)

    def matrix(si: int, sj: int, sk: int) -> int:
        return extra(0, 0, 0) + extra(0, 0, 0) - (zones - si) * (zones - sj) * (zones - sk)

    shifts = (
        (0, 0, 0),
        (1, 0, 0),
        (1, 1, 0),
        (0, 1, 0),
        (1, 1, 0),
        (1, 1, 1),
        (0, 1, 1),
        (1, 1, 1),
        (1, 0, 1),
        (0, 0, 1),
        (1, 0, 1),
        (1, 1, 1),
        (0, 1, 1),
        (1, 1, 1),
    )
    matrix_accessed = sum(matrix(*s) for s in shifts)
    return Traffic(
        read=INDEX_BYTES * dom.n_real_zones + real_bytes * (extra(2, 2, 2) + matrix_accessed),
        write=real_bytes * extra(0, 0, 0),
    )


# --- PRESSURE ------------------------------------------------------------------------


def _pressure_init(size: int, seed: int, precision: str) -> dict:
    d = DataInit()
    out = {
        "compression": d.data(size),
        "bvc": d.data(size),
        "p_new": d.const(size, 0.0),
        "e_old": d.data(size),
        "vnewc": d.data(size),
    }
    for name in ("cls", "p_cut", "pmin", "eosvmax"):
        out[name] = d.scalar()
    return out


def _pressure_plan(size: int) -> list[Launch]:
    values = {"n": size}
    return [
        Launch("pressure1", size, GROUP, ("compression", "bvc", "cls", "n"), values),
        Launch(
            "pressure2",
            size,
            GROUP,
            ("bvc", "p_new", "e_old", "vnewc", "p_cut", "pmin", "eosvmax", "n"),
            values,
        ),
    ]


def _pressure1_cpu(grid: Grid, compression, bvc, cls, n) -> None:
    bvc[:n] = cls * (compression[:n] + 1.0)


def _pressure2_cpu(grid: Grid, bvc, p_new, e_old, vnewc, p_cut, pmin, eosvmax, n) -> None:
    p = bvc[:n] * e_old[:n]
    p = np.where(np.abs(p) < p_cut, 0.0, p)
    p = np.where(vnewc[:n] >= eosvmax, 0.0, p)
    p_new[:n] = np.where(p < pmin, pmin, p)


# --- VOL3D ---------------------------------------------------------------------------


def _vol3d_init(size: int, seed: int, precision: str) -> dict:
    dom = domain_3d(size)
    d = DataInit()
    for _ in range(3):
        d.const(dom.nnalls, 0.0)  # x, y, z before setMeshPositions_3d
    x, y, z = dom.positions(0.3, 0.2, 0.1)
    return {
        "x": x,
        "y": y,
        "z": z,
        "vol": d.const(dom.nnalls, 0.0),
        "vnormq": 0.083333333333333333,
        "jp": dom.jp,
        "kp": dom.kp,
        "first": dom.fpz,
    }


def _vol3d_items(size: int) -> int:
    dom = domain_3d(size)
    return dom.lpz + 1 - dom.fpz


def _vol3d_plan(size: int) -> list[Launch]:
    args = ("x", "y", "z", "vol", "vnormq", "jp", "kp", "first", "n")
    items = _vol3d_items(size)
    return [Launch("vol3d", items, GROUP, args, {"n": items})]


def _corners(a: np.ndarray, i: np.ndarray, jp: int, kp: int) -> list[np.ndarray]:
    """NDPTRSET: a's values at the 8 nodes of the zones whose first node is i."""
    return [a[i + di + dj * jp + dk * kp] for dk in (0, 1) for dj in (0, 1) for di in (0, 1)]


def _vol3d_cpu(grid: Grid, x, y, z, vol, vnormq, jp, kp, first, n) -> None:
    i = np.arange(first, first + n)
    x0, x1, x2, x3, x4, x5, x6, x7 = _corners(x, i, jp, kp)
    y0, y1, y2, y3, y4, y5, y6, y7 = _corners(y, i, jp, kp)
    z0, z1, z2, z3, z4, z5, z6, z7 = _corners(z, i, jp, kp)
    x71, x72, x74, x30, x50, x60 = x7 - x1, x7 - x2, x7 - x4, x3 - x0, x5 - x0, x6 - x0
    y71, y72, y74, y30, y50, y60 = y7 - y1, y7 - y2, y7 - y4, y3 - y0, y5 - y0, y6 - y0
    z71, z72, z74, z30, z50, z60 = z7 - z1, z7 - z2, z7 - z4, z3 - z0, z5 - z0, z6 - z0

    def term(xps, yps, zps, ax, ay, az, bx, by, bz):
        cyz = ay * bz - az * by
        czx = az * bx - ax * bz
        cxy = ax * by - ay * bx
        return xps * cyz + yps * czx + zps * cxy

    v = term(x71 + x60, y71 + y60, z71 + z60, x72, y72, z72, x30, y30, z30)
    v = v + term(x72 + x50, y72 + y50, z72 + z50, x74, y74, z74, x60, y60, z60)
    v = v + term(x74 + x30, y74 + y30, z74 + z30, x71, y71, z71, x50, y50, z50)
    vol[i] = v * vnormq


def _vol3d_traffic(size: int, real_bytes: int) -> Traffic:
    dom = domain_3d(size)
    its = _vol3d_items(size)
    return Traffic(read=3 * real_bytes * (its + 1 + dom.jp + dom.kp), write=real_bytes * its)


# --- NODAL_ACCUMULATION_3D -----------------------------------------------------------


def _nodal_init(size: int, seed: int, precision: str) -> dict:
    dom = domain_3d(size)
    d = DataInit()
    out = {"x": d.const(dom.nnalls, 0.0), "vol": d.const(dom.lpz + 1, 1.0)}
    d.const(dom.n_real_zones, -1)  # real_zones
    out.update(real_zones=dom.real_zones(), jp=dom.jp, kp=dom.kp)
    return out


def _nodal_plan(size: int) -> list[Launch]:
    dom = domain_3d(size)
    args = ("x", "vol", "real_zones", "jp", "kp", "n")
    items = dom.n_real_zones
    return [Launch("nodal_accumulation_3d", items, GROUP, args, {"n": items})]


def _nodal_cpu(grid: Grid, x, vol, real_zones, jp, kp, n) -> None:
    i = real_zones[:n].astype(np.int64)
    val = 0.125 * vol[i]
    for dk in (0, 1):
        for dj in (0, 1):
            for di in (0, 1):
                # Zones are distinct, so one corner's nodes never repeat.
                x[i + di + dj * jp + dk * kp] += val


def _nodal_traffic(size: int, real_bytes: int) -> Traffic:
    dom = domain_3d(size)
    return Traffic(
        read=(INDEX_BYTES + real_bytes) * dom.n_real_zones,
        atomic_modify_write=real_bytes * dom.n_real_nodes,
    )


# --- references: the Base_Seq loops in float64 ----------------------------------------


def _del_dot_reference(inputs: dict) -> dict:
    a = _wide(inputs)
    n = a["real_zones"].size
    _del_dot_cpu(None, *(a[k] for k in _DEL_DOT_ARGS), n)
    return {"div": a["div"]}


def _energy_reference(inputs: dict) -> dict:
    a = _wide(inputs)
    n = a["e_new"].size
    for launch in _energy_plan(n):
        ENERGY_CPU[launch.entry](None, *(a[k] for k in launch.args[:-1]), n)
    return {"e_new": a["e_new"], "q_new": a["q_new"]}


def _fir_reference(inputs: dict) -> dict:
    a = _wide(inputs)
    _fir_cpu(None, a["in"], a["out"], a["coeff"], a["out"].size)
    return {"out": a["out"]}


def _ltimes_reference(inputs: dict) -> dict:
    a = _wide(inputs)
    _ltimes_cpu(None, a["phi"], a["ell"], a["psi"], LTIMES_D, LTIMES_G, LTIMES_M, a["phi"].size)
    return {"phi": a["phi"]}


def _matvec_reference(inputs: dict) -> dict:
    a = _wide(inputs)
    arrays = (a[k] for k in ("b", "x", *_MATVEC_STORED, "real_zones"))
    _matvec_cpu(None, *arrays, a["jp"], a["kp"], a["real_zones"].size)
    return {"b": a["b"]}


def _pressure_reference(inputs: dict) -> dict:
    a = _wide(inputs)
    n = a["p_new"].size
    _pressure1_cpu(None, a["compression"], a["bvc"], a["cls"], n)
    _pressure2_cpu(
        None, a["bvc"], a["p_new"], a["e_old"], a["vnewc"], a["p_cut"], a["pmin"], a["eosvmax"], n
    )
    return {"bvc": a["bvc"], "p_new": a["p_new"]}


def _vol3d_reference(inputs: dict) -> dict:
    a = _wide(inputs)
    # Zones fpz..lpz: lpz sits jp + kp + 1 below the last node, nnalls - 1.
    items = a["vol"].size - a["jp"] - a["kp"] - 1 - a["first"]
    _vol3d_cpu(None, a["x"], a["y"], a["z"], a["vol"], *(a[k] for k in _VOL3D_SCALARS), items)
    return {"vol": a["vol"]}


def _nodal_reference(inputs: dict) -> dict:
    a = _wide(inputs)
    n = a["real_zones"].size
    _nodal_cpu(None, a["x"], a["vol"], a["real_zones"], a["jp"], a["kp"], n)
    return {"x": a["x"]}


_DEL_DOT_ARGS = ("x", "y", "xdot", "ydot", "div", "real_zones", "half", "ptiny", "jp")
_VOL3D_SCALARS = ("vnormq", "jp", "kp", "first")
ENERGY_CPU = {
    "energy1": _energy1_cpu,
    "energy2": _energy2_cpu,
    "energy3": _energy3_cpu,
    "energy4": _energy4_cpu,
    "energy5": _energy5_cpu,
    "energy6": _energy6_cpu,
}

#: FIR's coefficients sum to zero, so its outputs are cancelling sums of
#: values in [0, 1]: rounding that is tiny against the inputs is large against
#: the smallest outputs. Errors are measured against at least 1e-2 of the
#: largest output (NORMAL's bounds otherwise).
_FIR_TOLERANCE = Tolerance(NORMAL.f64, NORMAL.f32, floor=1e-2)


def _real(name: str, length, intent: str = "in") -> Array:
    return Array(name, "real", length, intent)


def _nodal_length_2d(size: int) -> int:
    return domain_2d(size).nnalls


def _nodal_length_3d(size: int) -> int:
    return domain_3d(size).nnalls


def _zonal_length_3d(size: int) -> int:
    return domain_3d(size).lpz + 1


def _zones_2d(size: int) -> int:
    return domain_2d(size).n_real_zones


def _zones_3d(size: int) -> int:
    return domain_3d(size).n_real_zones


KERNELS = (
    KernelSpec(
        name="Apps_DEL_DOT_VEC_2D",
        group=GROUP_NAME,
        summary="divergence of a 2-D nodal vector field on the real zones of a mesh",
        arrays=(
            _real("x", _nodal_length_2d),
            _real("y", _nodal_length_2d),
            _real("xdot", _nodal_length_2d),
            _real("ydot", _nodal_length_2d),
            _real("div", _nodal_length_2d, "out"),
            Array("real_zones", INDEX, _zones_2d),
        ),
        scalars=(Scalar("half", "real"), Scalar("ptiny", "real"), JP, N),
        plan=_del_dot_plan,
        init=_del_dot_init,
        reference=_del_dot_reference,
        cpu={"del_dot_vec_2d": _del_dot_cpu},
        traffic=_del_dot_traffic,
        flops=lambda size: 54 * domain_2d(size).n_real_zones,
        default_reps=100,
        check_size=12_000,
        tolerance=NORMAL,
    ),
    KernelSpec(
        name="Apps_ENERGY",
        group=GROUP_NAME,
        summary="energy update of a hydro code in six loops, three with a sqrt",
        arrays=tuple(
            _real(name, _n, "out" if name in ("e_new", "q_new") else "in")
            for name in _ENERGY_ARRAYS
        ),
        scalars=(
            Scalar("rho0", "real"),
            Scalar("e_cut", "real"),
            Scalar("emin", "real"),
            Scalar("q_cut", "real"),
            N,
        ),
        plan=_energy_plan,
        init=_energy_init,
        reference=_energy_reference,
        cpu=ENERGY_CPU,
        traffic=_energy_traffic,
        flops=lambda size: 55 * size,
        default_reps=130,
        tolerance=NORMAL,
    ),
    KernelSpec(
        name="Apps_FIR",
        group=GROUP_NAME,
        summary="out[i] = sum of 16 coeff[j] * in[i + j]",
        arrays=(
            _real("in", lambda n: n + FIR_LEN - 1),
            _real("out", _n, "out"),
            _real("coeff", lambda n: FIR_LEN),
        ),
        scalars=(N,),
        plan=one_launch("fir", ("in", "out", "coeff")),
        init=_fir_init,
        reference=_fir_reference,
        cpu={"fir": _fir_cpu},
        traffic=lambda n, b: Traffic(read=b * (FIR_LEN + n + FIR_LEN - 1), write=b * n),
        flops=lambda n: 2 * FIR_LEN * n,
        default_reps=160,
        tolerance=_FIR_TOLERANCE,
    ),
    KernelSpec(
        name="Apps_LTIMES",
        group=GROUP_NAME,
        summary="phi(z, g, m) += ell(m, d) * psi(z, g, d) over a 4-D nest",
        arrays=(
            _real("phi", lambda n: LTIMES_M * LTIMES_G * _ltimes_z(n), "inout"),
            _real("ell", lambda n: LTIMES_D * LTIMES_M),
            _real("psi", lambda n: LTIMES_D * LTIMES_G * _ltimes_z(n)),
        ),
        scalars=(Scalar("num_d", "u32"), Scalar("num_g", "u32"), Scalar("num_m", "u32"), N),
        plan=_ltimes_plan,
        init=_ltimes_init,
        reference=_ltimes_reference,
        cpu={"ltimes": _ltimes_cpu},
        traffic=_ltimes_traffic,
        flops=lambda size: 2 * LTIMES_D * LTIMES_G * LTIMES_M * _ltimes_z(size),
        default_size=LTIMES_D * LTIMES_G * _ltimes_z(1_000_000),
        default_reps=50,
        check_size=4_000,
        tolerance=NORMAL,
        rajaperf_features=("Kernel", "Launch", "View"),
    ),
    KernelSpec(
        name="Apps_MATVEC_3D_STENCIL",
        group=GROUP_NAME,
        summary="b = A x for a symmetric 27-point stencil matrix on the real zones of a mesh",
        arrays=(
            _real("b", _zonal_length_3d, "out"),
            _real("x", _zonal_length_3d),
            *(_real(name, _zonal_length_3d) for name in _MATVEC_STORED),
            Array("real_zones", INDEX, _zones_3d),
        ),
        scalars=(JP, KP, N),
        plan=_matvec_plan,
        init=_matvec_init,
        reference=_matvec_reference,
        cpu={"matvec_3d_stencil": _matvec_cpu},
        traffic=_matvec_traffic,
        flops=lambda size: 53 * domain_3d(size).n_real_zones,
        default_reps=100,
        check_size=10_000,
        tolerance=NORMAL,
    ),
    KernelSpec(
        name="Apps_PRESSURE",
        group=GROUP_NAME,
        summary="pressure from energy and compression with cut-offs, in two loops",
        arrays=(
            _real("compression", _n),
            _real("bvc", _n, "out"),
            _real("p_new", _n, "out"),
            _real("e_old", _n),
            _real("vnewc", _n),
        ),
        scalars=(
            Scalar("cls", "real"),
            Scalar("p_cut", "real"),
            Scalar("pmin", "real"),
            Scalar("eosvmax", "real"),
            N,
        ),
        plan=_pressure_plan,
        init=_pressure_init,
        reference=_pressure_reference,
        cpu={"pressure1": _pressure1_cpu, "pressure2": _pressure2_cpu},
        traffic=lambda n, b: Traffic(read=4 * b * n, write=2 * b * n),
        flops=lambda n: 3 * n,
        default_reps=700,
        tolerance=NORMAL,
        # RAJAPerf registers p_new only; bvc is verified but not in the checksum.
        checksum=lambda out: array_checksum(out["p_new"]),
    ),
    KernelSpec(
        name="Apps_VOL3D",
        group=GROUP_NAME,
        summary="volume of every hexahedral zone of a 3-D mesh, ghosts included",
        arrays=(
            _real("x", _nodal_length_3d),
            _real("y", _nodal_length_3d),
            _real("z", _nodal_length_3d),
            _real("vol", _nodal_length_3d, "out"),
        ),
        scalars=(Scalar("vnormq", "real"), JP, KP, Scalar("first", INDEX), N),
        plan=_vol3d_plan,
        init=_vol3d_init,
        reference=_vol3d_reference,
        cpu={"vol3d": _vol3d_cpu},
        traffic=_vol3d_traffic,
        flops=lambda size: 72 * _vol3d_items(size),
        default_reps=100,
        check_size=10_000,
        tolerance=NORMAL,
    ),
    KernelSpec(
        name="Apps_NODAL_ACCUMULATION_3D",
        group=GROUP_NAME,
        summary="each real zone adds an eighth of its volume to its 8 nodes, atomically",
        arrays=(
            _real("x", _nodal_length_3d, "inout"),
            _real("vol", _zonal_length_3d),
            Array("real_zones", INDEX, _zones_3d),
        ),
        scalars=(JP, KP, N),
        plan=_nodal_plan,
        init=_nodal_init,
        reference=_nodal_reference,
        cpu={"nodal_accumulation_3d": _nodal_cpu},
        traffic=_nodal_traffic,
        flops=lambda size: 9 * domain_3d(size).n_real_zones,
        default_reps=100,
        check_size=10_000,
        tolerance=NORMAL,
        features=frozenset({"atomics"}),
        # Doubles are added by a 64-bit compare-and-swap loop.
        precision_features={"f64": frozenset({"atomics64"})},
        rajaperf_features=("Forall", "Atomic"),
    ),
)

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
    CheckCase,
    CpuEntry,
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


def _del_dot_check_init(size: int, seed: int, precision: str) -> dict:
    """DEL_DOT_VEC_2D on a mesh with moved nodes and a noisy, diverging velocity.

    On RAJAPerf's regular mesh xj and yi are exactly zero, so every term they
    multiply drops out, and ptiny (1e-20) is lost against the area. Here nodes
    move by up to a quarter step, velocities are a uniform expansion plus noise
    (so the divergence stays away from zero and float32 rounding stays small
    against it), ptiny is about a third of a zone's area, and div starts non-zero.
    """
    dom = domain_2d(size)
    rng = np.random.default_rng(seed)
    x, y = dom.jittered_positions(rng, 0.2, 0.1)
    return {
        "x": x,
        "y": y,
        "real_zones": dom.real_zones(),
        "xdot": 1.5 * x + rng.uniform(-0.05, 0.05, x.size),
        "ydot": y + rng.uniform(-0.05, 0.05, y.size),
        "div": rng.uniform(-1.0, 1.0, dom.nnalls),
        "half": 0.5,
        "ptiny": 1.0 / 128.0,
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
SSC_FLOOR = 0.1111111e-36
SSC_MIN = 0.3333333e-18

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
    small = ssc <= SSC_FLOOR
    return np.where(small, SSC_MIN, np.sqrt(np.where(small, 1.0, ssc)))


def _ssc_arg(pbvc, e, v, bvc, p, rho0) -> np.ndarray:
    """The sound-speed term before its sqrt: (pbvc e + v^2 bvc p) / rho0."""
    return (pbvc * e + v * v * bvc * p) / rho0


def _energy1_cpu(grid: Grid, e_new, e_old, delvc, p_old, q_old, work, n) -> None:
    s = slice(0, n)
    e_new[s] = e_old[s] - 0.5 * delvc[s] * (p_old[s] + q_old[s]) + 0.5 * work[s]


def _energy2_cpu(
    grid: Grid, e_new, delvc, q_new, compHalfStep, pHalfStep, bvc, pbvc, ql_old, qq_old, rho0, n
) -> None:
    s = slice(0, n)
    vhalf = 1.0 / (1.0 + compHalfStep[s])
    ssc = _sound_speed(_ssc_arg(pbvc[s], e_new[s], vhalf, bvc[s], pHalfStep[s], rho0))
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
    ssc = _sound_speed(_ssc_arg(pbvc[s], e_new[s], vnewc[s], bvc[s], p_new[s], rho0))
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
    ssc = _sound_speed(_ssc_arg(pbvc[s], e_new[s], vnewc[s], bvc[s], p_new[s], rho0))
    q = ssc * ql_old[s] + qq_old[s]
    q = np.where(np.abs(q) < q_cut, 0.0, q)
    q_new[s] = np.where(delvc[s] <= 0.0, q, q_new[s])


def _energy_traffic(size: int, real_bytes: int) -> Traffic:
    return Traffic(
        read=(5 + 1 + 5 + 1 + 6 + 1) * real_bytes * size,
        write=2 * real_bytes * size,
        modify_write=3 * real_bytes * size,
    )


#: The check case's scalars: the cut-offs sit inside the range the values span,
#: emin below -e_cut so that a value zeroed by e_cut is not raised again, and
#: rho0 a power of two so a value planted at the sound-speed floor stays on it.
_ENERGY_CHECK_SCALARS = {"rho0": 2.0, "e_cut": 0.25, "emin": -1.5, "q_cut": 0.125}

#: Element kinds of the check case, with their shares; the overflow kinds are
#: planted in double precision only (the float64 reference of float32 inputs
#: does not overflow where the float32 kernel does).
_ENERGY_KINDS = {
    "generic": 0.62,
    "still": 0.10,  # delvc = 0: loop 6 runs, q from loops 2 and 5 is multiplied away
    "at_e_cut": 0.06,  # e_new = +-e_cut exactly after loops 4 and 5
    "at_q_cut": 0.06,  # q = +-q_cut exactly in loop 6
    "at_floor": 0.04,  # loop 6's sound-speed term is exactly the floor
    "q2_overflow": 0.06,  # delvc = 0, loop 2's q overflows, loop 5's does not
    "q5_overflow": 0.06,  # delvc = 0, loop 5's q overflows, loop 2's does not
}

#: How close (absolute) a generic element may come to a threshold it is compared
#: with: far more than float32 rounding, so both precisions take the same branch.
_ENERGY_MARGIN = 1e-3


def _energy_generic(rng: np.random.Generator, size: int) -> dict[str, np.ndarray]:
    """Arrays of the check case's generic elements: signs both ways, every term weighing."""
    ranges = {
        "e_new": (-1.0, 1.0),
        "e_old": (-2.0, 2.0),
        "delvc": (-1.0, 1.0),
        "p_new": (-1.0, 1.0),
        "p_old": (-1.0, 1.0),
        "q_new": (-1.0, 1.0),
        "q_old": (-1.0, 1.0),
        "work": (-1.0, 1.0),
        "compHalfStep": (-0.5, 1.0),
        "pHalfStep": (-1.0, 1.0),
        "bvc": (0.5, 1.5),
        "pbvc": (0.0, 1.0),
        "ql_old": (0.5, 1.5),
        "qq_old": (-0.5, 0.5),
        "vnewc": (0.5, 1.5),
    }
    return {name: rng.uniform(*ranges[name], size) for name in _ENERGY_ARRAYS}


def energy_branch_values(inputs: dict) -> dict[str, np.ndarray]:
    """What each comparison of ENERGY's loops sees, per element, in float64.

    ``ssc2``, ``ssc5`` and ``ssc6`` are the sound-speed terms tested against
    the floor; ``e4`` and ``e5`` the energies before their cut; ``q6`` loop 6's
    q before its cut (NaN where delvc > 0 and loop 6 does not run).
    """
    a = _wide(inputs)
    n = a["e_new"].size
    rho0 = a["rho0"]
    args = {launch.entry: [a[k] for k in launch.args[:-1]] for launch in _energy_plan(n)}
    out = {}
    with np.errstate(all="ignore"):
        _energy1_cpu(None, *args["energy1"], n)
        vhalf = 1.0 / (1.0 + a["compHalfStep"])
        out["ssc2"] = _ssc_arg(a["pbvc"], a["e_new"], vhalf, a["bvc"], a["pHalfStep"], rho0)
        _energy2_cpu(None, *args["energy2"], n)
        _energy3_cpu(None, *args["energy3"], n)
        out["e4"] = a["e_new"] + 0.5 * a["work"]
        _energy4_cpu(None, *args["energy4"], n)
        out["ssc5"] = _ssc_arg(a["pbvc"], a["e_new"], a["vnewc"], a["bvc"], a["p_new"], rho0)
        uncut = a["e_new"].copy()
        _energy5_cpu(None, uncut, *args["energy5"][1:-2], 0.0, -np.inf, n)
        out["e5"] = uncut
        _energy5_cpu(None, *args["energy5"], n)
        out["ssc6"] = _ssc_arg(a["pbvc"], a["e_new"], a["vnewc"], a["bvc"], a["p_new"], rho0)
        q = np.full(n, np.nan)
        _energy6_cpu(None, a["e_new"], a["delvc"], a["p_new"], q, *args["energy6"][4:-1], 0.0, n)
        out["q6"] = q
    return out


def _energy_near(values: dict[str, np.ndarray], kind: np.ndarray) -> np.ndarray:
    """Elements whose compared values lie within the margin of a threshold.

    Planted elements are exempt from the comparisons they are planted on (and
    the overflow kinds from all), since they sit there exactly on purpose.
    """
    m, s = _ENERGY_MARGIN, _ENERGY_CHECK_SCALARS
    names = list(_ENERGY_KINDS)

    def kinds(*exempt: str) -> np.ndarray:
        return ~np.isin(kind, [names.index(k) for k in (*exempt, "q2_overflow", "q5_overflow")])

    near = np.zeros(kind.size, dtype=bool)
    for key in ("e4", "e5"):
        e = values[key]
        zeroed = np.where(np.abs(e) < s["e_cut"], 0.0, e)
        close = (np.abs(np.abs(e) - s["e_cut"]) < m) | (np.abs(zeroed - s["emin"]) < m)
        near |= close & kinds("at_e_cut")
    near |= (np.abs(np.abs(values["q6"]) - s["q_cut"]) < m) & kinds("at_q_cut")
    for key in ("ssc2", "ssc5", "ssc6"):
        near |= (np.abs(values[key]) < m) & kinds("at_floor")
    return near


def _energy_check_init(size: int, seed: int, precision: str) -> dict:
    """ENERGY inputs that take every branch both ways and sit exactly on each cut-off.

    RAJAPerf's inputs make every e_new clamp to emin and every q_new zero. Here
    most elements are random (signs both ways, delvc of both signs, the
    sound-speed term above and below its floor, values either side of e_cut,
    emin and q_cut, kept clear of them); the others are planted: delvc exactly
    0, energies and q exactly on their cut-offs, the sound-speed term exactly on
    its floor, and (in double precision) a q that overflows in loop 2 or loop 5
    only, so that a zero delvc's 0 * inf shows whether that loop computed q.
    """
    rng = np.random.default_rng(seed)
    names = list(_ENERGY_KINDS)
    shares = np.array(list(_ENERGY_KINDS.values()))
    if precision != "f64":
        shares[names.index("q2_overflow")] = shares[names.index("q5_overflow")] = 0.0
    kind = rng.choice(len(names), size, p=shares / shares.sum())
    s = _ENERGY_CHECK_SCALARS
    dtype = np.float64 if precision == "f64" else np.float32
    big = float(np.finfo(dtype).max)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    compressing = -rng.random(size)
    overflow = {"delvc": 0.0, "pbvc": 0.0, "bvc": 1.0, "vnewc": 1.0, "qq_old": 0.0}
    overflow.update(compHalfStep=0.0, ql_old=big**0.8)
    planted = {
        "still": {"delvc": 0.0},
        "at_e_cut": {"delvc": 0.0, "work": 0.0, "e_old": sign * s["e_cut"]},
        "at_q_cut": {"delvc": compressing, "ql_old": 0.0, "qq_old": sign * s["q_cut"]},
        "at_floor": {
            "delvc": 0.0,
            "pbvc": 0.0,
            "vnewc": 1.0,
            "bvc": 1.0,
            "p_new": SSC_FLOOR * s["rho0"],
            "pHalfStep": 0.0,
            "ql_old": 2.0**60,
            "qq_old": 0.0,
        },
        "q2_overflow": {"pHalfStep": big**0.5, "p_new": 0.0, **overflow},
        "q5_overflow": {"pHalfStep": 0.0, "p_new": big**0.5, **overflow},
    }
    out = _energy_generic(rng, size)
    for _ in range(100):
        for name, values in planted.items():
            where = kind == names.index(name)
            for array, value in values.items():
                out[array][where] = value if np.ndim(value) == 0 else value[where]
        cast = {k: np.asarray(v, dtype) for k, v in {**out, **s}.items()}
        redo = _energy_near(energy_branch_values(cast), kind)
        if not redo.any():
            break
        fresh = _energy_generic(rng, size)
        for name in _ENERGY_ARRAYS:
            out[name][redo] = fresh[name][redo]
    return {**out, **s}


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


#: The check case's scalars: bvc = cls (compression + 1) is a multiple of 1/32
#: and e_old one of 1/64, so p = bvc e_old is exact in float32 and float64 and
#: lands on p_cut (or pmin) exactly where it is planted to. pmin < -p_cut, so
#: both the values p_cut zeroes and those pmin raises are seen.
_PRESSURE_CHECK_SCALARS = {"cls": 0.5, "p_cut": 0.375, "pmin": -1.0, "eosvmax": 1.0}


def _pressure_check_init(size: int, seed: int, precision: str) -> dict:
    """PRESSURE inputs on which every cut-off of pressure2 goes both ways.

    RAJAPerf's inputs make every p_new equal pmin: |bvc e_old| is below p_cut
    and vnewc at or above eosvmax everywhere. Here bvc e_old spans [-6, 6]
    (both signs, either side of p_cut and pmin), vnewc either side of eosvmax,
    and a tenth of the elements each sit exactly on p_cut (either sign) and on
    eosvmax, so ``<`` and ``<=`` differ.
    """
    rng = np.random.default_rng(seed)
    s = _PRESSURE_CHECK_SCALARS
    compression = rng.integers(-16, 49, size) / 16.0
    e_old = rng.integers(-256, 257, size) / 64.0
    vnewc = rng.integers(8, 25, size) / 16.0
    at_cut = rng.random(size) < 0.1
    bvc = rng.choice([0.375, 0.75, 1.5], size)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    compression[at_cut] = (bvc / s["cls"] - 1.0)[at_cut]
    e_old[at_cut] = (sign * s["p_cut"] / bvc)[at_cut]
    vnewc[rng.random(size) < 0.1] = s["eosvmax"]
    return {
        "compression": compression,
        "bvc": rng.uniform(-1.0, 1.0, size),
        "p_new": rng.uniform(-1.0, 1.0, size),
        "e_old": e_old,
        "vnewc": vnewc,
        **s,
    }


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


def _vol3d_check_init(size: int, seed: int, precision: str) -> dict:
    """VOL3D on a mesh whose nodes move by up to a quarter step, vol starting non-zero.

    On RAJAPerf's regular mesh most of the coordinate differences VOL3D forms
    (x60, y30, z50, ...) are exactly zero, so the products they enter vanish.
    """
    out = _vol3d_init(size, seed, precision)
    rng = np.random.default_rng(seed)
    dom = domain_3d(size)
    out["x"], out["y"], out["z"] = dom.jittered_positions(rng, 0.3, 0.2, 0.1)
    out["vol"] = rng.uniform(-1.0, 1.0, dom.nnalls)
    return out


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


def _nodal_check_init(size: int, seed: int, precision: str) -> dict:
    """NODAL_ACCUMULATION_3D with distinct volumes, non-zero nodes and a hot zone.

    RAJAPerf's volumes are all 1 and its nodes start at 0, so val = vol / 8
    equals vol * 8 and an add equals a store. Here volumes and starting values
    are random multiples of 1/64 (every sum is exact in either precision, in
    any order); one zone in eight has volume 0, whose adds leave a node's bits
    as they were (a compare-and-swap loop that retries after a success then
    never ends); and every other entry of real_zones is one zone, so its 8
    nodes are added to by thousands of work-items at once and a loop that
    drops or repeats an add under contention shows.
    """
    dom = domain_3d(size)
    rng = np.random.default_rng(seed)
    zones = dom.real_zones()
    vol = rng.integers(32, 97, dom.lpz + 1) / 64.0
    vol[zones[1::8]] = 0.0
    zones[::2] = zones[rng.integers(zones.size)]
    return {
        "x": rng.integers(-64, 65, dom.nnalls) / 64.0,
        "vol": vol,
        "real_zones": zones,
        "jp": dom.jp,
        "kp": dom.kp,
    }


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
                # A zone listed twice adds twice, as the atomic adds do.
                np.add.at(x, i + di + dj * jp + dk * kp, val)


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


def _ieee(loop: CpuEntry) -> CpuEntry:
    """A loop that overflows to inf and makes NaN of 0 * inf silently, as C does."""

    def quiet(*args: object) -> None:
        with np.errstate(over="ignore", invalid="ignore"):
            loop(*args)

    return quiet


ENERGY_CPU = {
    "energy1": _ieee(_energy1_cpu),
    "energy2": _ieee(_energy2_cpu),
    "energy3": _ieee(_energy3_cpu),
    "energy4": _ieee(_energy4_cpu),
    "energy5": _ieee(_energy5_cpu),
    "energy6": _ieee(_energy6_cpu),
}

#: FIR's coefficients sum to zero, so its outputs are cancelling sums of
#: values in [0, 1]: rounding that is tiny against the inputs is large against
#: the smallest outputs. Errors are measured against at least 1e-2 of the
#: largest output (NORMAL's bounds otherwise).
_FIR_TOLERANCE = Tolerance(NORMAL.f64, NORMAL.f32, floor=1e-2)


#: Check sizes of the one-dimensional kernels: an odd one, and a whole number
#: of 256-wide work-groups, the only lengths at which a group one item short
#: leaves an element out.
_FORALL_CHECK_SIZES = (10_007, 4_096)
#: A mesh size whose real zones fill whole work-groups: 64^2 in 2-D, 16^3 in 3-D.
_MESH_CHECK_SIZE = 4_096


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
        check_cases=(
            CheckCase(
                "moved_nodes",
                _del_dot_check_init,
                "RAJAPerf's regular mesh zeroes xj and yi and so every term they "
                "multiply; these move the nodes, add noise to the velocity and weigh ptiny",
            ),
        ),
        check_sizes=(12_000, _MESH_CHECK_SIZE),
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
        constants={"SSC_FLOOR": SSC_FLOOR, "SSC_MIN": SSC_MIN},
        init=_energy_init,
        reference=_energy_reference,
        cpu=ENERGY_CPU,
        traffic=_energy_traffic,
        flops=lambda size: 55 * size,
        default_reps=130,
        tolerance=NORMAL,
        check_cases=(
            CheckCase(
                "branches",
                _energy_check_init,
                "RAJAPerf's e_new all clamp to emin and q_new are all 0; these take every "
                "branch both ways and sit exactly on each cut-off and on delvc = 0",
            ),
        ),
        check_sizes=_FORALL_CHECK_SIZES,
    ),
    KernelSpec(
        name="Apps_FIR",
        group=GROUP_NAME,
        summary=f"out[i] = sum of {FIR_LEN} coeff[j] * in[i + j]",
        arrays=(
            _real("in", lambda n: n + FIR_LEN - 1),
            _real("out", _n, "out"),
            _real("coeff", lambda n: FIR_LEN),
        ),
        scalars=(N,),
        plan=one_launch("fir", ("in", "out", "coeff")),
        constants={"COEFFLEN": FIR_LEN},
        init=_fir_init,
        reference=_fir_reference,
        cpu={"fir": _fir_cpu},
        traffic=lambda n, b: Traffic(read=b * (FIR_LEN + n + FIR_LEN - 1), write=b * n),
        flops=lambda n: 2 * FIR_LEN * n,
        default_reps=160,
        tolerance=_FIR_TOLERANCE,
        check_sizes=_FORALL_CHECK_SIZES,
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
        # 1_536 makes 8 zones: 6_400 items, exactly 25 work-groups.
        check_sizes=(4_000, 1_536),
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
        check_sizes=(10_000, _MESH_CHECK_SIZE),
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
        check_cases=(
            CheckCase(
                "branches",
                _pressure_check_init,
                "RAJAPerf's p_new are all pmin; these put bvc e_old either side of and "
                "exactly on p_cut and pmin, and vnewc either side of and on eosvmax",
            ),
        ),
        check_sizes=_FORALL_CHECK_SIZES,
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
        check_cases=(
            CheckCase(
                "moved_nodes",
                _vol3d_check_init,
                "RAJAPerf's regular mesh zeroes most coordinate differences across a "
                "zone and so the products they enter; these move every node",
            ),
        ),
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
        check_cases=(
            CheckCase(
                "hot_zone",
                _nodal_check_init,
                "RAJAPerf's volumes are all 1 and its nodes start at 0; these are "
                "distinct, some 0, and half the work-items add to one zone's nodes at once",
            ),
        ),
        check_sizes=(10_000, _MESH_CHECK_SIZE),
        features=frozenset({"atomics"}),
        # Doubles are added by a 64-bit compare-and-swap loop.
        precision_features={"f64": frozenset({"atomics64"})},
        rajaperf_features=("Forall", "Atomic"),
    ),
)

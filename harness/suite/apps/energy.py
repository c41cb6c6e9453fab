"""Apps_ENERGY (RAJAPerf's ENERGY.cpp): a hydro code's energy update in six loops."""

from __future__ import annotations

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import (
    NORMAL,
    CheckCase,
    CpuEntry,
    Grid,
    KernelSpec,
    Launch,
    Scalar,
    Traffic,
)
from harness.suite.apps.shared import GROUP_NAME, real, wide
from harness.suite.forall import FORALL_CHECK_SIZES, GROUP, N, per_item

#: RAJAPerf's floor and replacement for the sound-speed term before its sqrt.
SSC_FLOOR = 0.1111111e-36
SSC_MIN = 0.3333333e-18
#: Zones a work-item in contiguous runs tests for compression at once
#: (Apps_ENERGY.c): a block with none skips the sound speed's loads.
ENERGY_BLOCK = 64

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
    a = wide(inputs)
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
    Every third stretch of three blocks (`ENERGY_BLOCK`) expands throughout
    (generic elements, delvc > 0), so that work-items in contiguous runs meet
    blocks with no compressed zone as well as mixed ones.
    """
    rng = np.random.default_rng(seed)
    names = list(_ENERGY_KINDS)
    shares = np.array(list(_ENERGY_KINDS.values()))
    if precision != "f64":
        shares[names.index("q2_overflow")] = shares[names.index("q5_overflow")] = 0.0
    kind = rng.choice(len(names), size, p=shares / shares.sum())
    expanding = np.arange(size) // (3 * ENERGY_BLOCK) % 3 == 1
    kind[expanding] = names.index("generic")
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
        out["delvc"][expanding] = np.maximum(np.abs(out["delvc"][expanding]), _ENERGY_MARGIN)
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


def _energy_reference(inputs: dict) -> dict:
    a = wide(inputs)
    n = a["e_new"].size
    for launch in _energy_plan(n):
        ENERGY_CPU[launch.entry](None, *(a[k] for k in launch.args[:-1]), n)
    return {"e_new": a["e_new"], "q_new": a["q_new"]}


KERNEL = KernelSpec(
    name="Apps_ENERGY",
    group=GROUP_NAME,
    summary="energy update of a hydro code in six loops, three with a sqrt",
    arrays=tuple(
        real(name, per_item, "out" if name in ("e_new", "q_new") else "in")
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
    constants={"SSC_FLOOR": SSC_FLOOR, "SSC_MIN": SSC_MIN, "ENERGY_BLOCK": ENERGY_BLOCK},
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
    check_sizes=FORALL_CHECK_SIZES,
)

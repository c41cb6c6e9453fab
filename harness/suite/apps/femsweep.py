"""Apps_FEMSWEEP (RAJAPerf's FEMSWEEP.cpp): a discrete-ordinates finite-element transport
sweep. For every angle a and energy group g, the elements of a hexahedral mesh are visited
hyperplane after hyperplane; each element subtracts from its right-hand side the coupling
to its upwind neighbours' solutions, then solves its 8 x 8 system (A + s M0) x = b by LU
without pivoting.

RAJAPerf scales the coupling by Ffactor = max(sin(A0) - 2, 0), which is zero for every
input (it keeps random data from growing without bound), so its checksum is the local
solves alone. The kernel takes that 2 as the scalar ``fshift``: RAJAPerf's inputs pass 2,
and the check cases pass -1, so the coupling counts and the hyperplane order, the upwind
faces and their sides decide the answer. In f32 some of RAJAPerf's unpivoted systems lose
every digit, so f32 runs are verified solve by solve, by backward error. RAJAPerf's GPU
variants give each (group, angle) pair one thread block (a grid of ng x na blocks) whose
threads share a hyperplane's elements, a barrier between hyperplanes; the launch here
keeps that shape.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import LOOSE, Array, CheckCase, Grid, KernelSpec, Launch, Scalar, Traffic
from harness.model.verify import Verdict, compare
from harness.suite.apps.femsweep_mesh import SweepMesh, sweep_mesh
from harness.suite.apps.mesh import INDEX, INDEX_BYTES
from harness.suite.apps.shared import GROUP_NAME, real, wide

#: RAJAPerf's defaults for --femsweep_angles_polar, --femsweep_angles_azim, --femsweep_groups.
POLAR, AZIMUTHAL, GROUPS = 3, 3, 16
ANGLES = 8 * POLAR * AZIMUTHAL
#: Dofs per element, faces per element, dofs per face.
ND, NLF, FDS = 8, 6, 4
#: Largest backward error of an f32 solve: some 100 units of f32 rounding (the kernel's
#: measure some 2).
F32_BACKWARD = 1e-5
#: Work-items of the work-group that sweeps one (group, angle) pair: RAJAPerf's CUDA block.
BLOCK = 128
_REALS = ("Bdat", "Adat", "Fdat", "Xdat", "Sgdat", "M0dat")
_INDICES = (
    "nhpaa_r",
    "ohpaa_r",
    "phpaa_r",
    "order_r",
    "AngleElem2FaceType",
    "elem_to_faces",
    "F_g2l",
    "idx1",
    "idx2",
)
_SCALARS = ("ne", "ng", "sharedinteriorfaces", "fshift")


def mesh_side(size: int) -> int:
    """RAJAPerf's elements along each axis for a target size (FEMSWEEP::setSize)."""
    remainder = max(1.0, size / (ANGLES * GROUPS))
    return int(np.cbrt(remainder) + np.cbrt(3.0) - 1.0)


def _mesh(size: int) -> SweepMesh:
    return sweep_mesh(mesh_side(size), POLAR, AZIMUTHAL)


def _lengths(size: int) -> dict[str, int]:
    """Every array's length; those over interior faces are at least 1, so a one-element
    mesh (no interior face) still gets buffers."""
    n = mesh_side(size)
    ne, na, ng = n**3, ANGLES, GROUPS
    sif = 3 * n * n * (n - 1)
    return {
        "Bdat": ND * ne * na,
        "Adat": ND * ND * ne * na,
        "Fdat": max(FDS * FDS * 2 * sif * na, 1),
        "Xdat": ND * ne * ng * na,
        "Sgdat": ne * ng,
        "M0dat": ND * ND * ne,
        "nhpaa_r": na,
        "ohpaa_r": na,
        "phpaa_r": na * (3 * n - 2),
        "order_r": na * ne,
        "AngleElem2FaceType": NLF * ne * na,
        "elem_to_faces": NLF * ne,
        "F_g2l": sif + 6 * n * n,
        "idx1": max(FDS * sif, 1),
        "idx2": max(FDS * sif, 1),
    }


def _length(name: str):
    return lambda size: _lengths(size)[name]


def _init(size: int, seed: int, precision: str) -> dict:
    """RAJAPerf's setUp: five random arrays, X zero, then the mesh's index arrays."""
    lengths = _lengths(size)
    d = DataInit()
    out = {name: d.rand_value(lengths[name]) for name in _REALS if name != "Xdat"}
    out["Xdat"] = d.const(lengths["Xdat"], 0.0)
    m = _mesh(size)
    mesh = (m.nhp, m.ohp, m.php, m.order, m.face_types, m.elem_to_faces, m.g2l, m.idx1, m.idx2)
    for name, values in zip(_INDICES, mesh, strict=True):
        flat = np.zeros(lengths[name], dtype=np.int32)
        flat[: values.size] = values.ravel()
        out[name] = flat
    sif = m.interior_faces
    return {**out, "ne": m.ne, "ng": GROUPS, "sharedinteriorfaces": sif, "fshift": 2.0}


def _zero_a0(out: dict) -> None:
    """Set each angle's A0 (entry 0 of its first element's A) to 0, whose sine is exact."""
    ne, first = out["ne"], np.arange(ANGLES)
    out["Adat"].reshape(ANGLES, ne, ND * ND)[first, out["order_r"][first * ne], 0] = 0.0


def _check_init(size: int, seed: int, precision: str) -> dict:
    """RAJAPerf's inputs with the upwind coupling switched on: fshift = -1 and A0 = 0, so
    Ffactor = 1 + sin(0) = 1 exactly (on any device's sine); M0's diagonal gains 3 and s
    lies in [1, 2), which keeps every system well conditioned and the sweep from growing,
    and coupling of either sign moves X by some 15% on the median."""
    out = _init(size, seed, precision)
    rng = np.random.default_rng(seed)
    _zero_a0(out)
    out["M0dat"].reshape(-1, ND, ND)[:] += 3.0 * np.eye(ND)
    out["Sgdat"] = rng.uniform(1.0, 2.0, out["Sgdat"].size)
    out["Fdat"] = rng.uniform(-1.0, 1.0, out["Fdat"].size)
    out["fshift"] = -1.0
    return out


def _reversed_init(size: int, seed: int, precision: str) -> dict:
    """The coupled inputs swept against the flow: every angle's hyperplanes in reverse
    order (each still free of dependences within), and X random to start with, so an
    element reads stale X upwind and one solved again after its neighbours differs."""
    out = _check_init(size, seed, precision)
    ne, order, php = out["ne"], out["order_r"], out["phpaa_r"]
    for a, (nhp, ohp) in enumerate(zip(out["nhpaa_r"], out["ohpaa_r"], strict=True)):
        sizes = php[ohp : ohp + nhp].copy()
        chunks = np.split(order[a * ne : a * ne + sizes.sum()], np.cumsum(sizes)[:-1])
        order[a * ne : a * ne + sizes.sum()] = np.concatenate(chunks[::-1])
        php[ohp : ohp + nhp] = sizes[::-1]
    _zero_a0(out)
    out["Xdat"] = np.random.default_rng(seed + 1).uniform(-1.0, 1.0, out["Xdat"].size)
    return out


def _factor(T: np.ndarray) -> list[list[np.ndarray]]:
    """RAJAPerf's LU without pivoting (Crout) of a stack T (..., N, N): entry [i][j] of the
    result is L's on and below the diagonal, U's above it (U's diagonal is 1). Sums run in
    RAJAPerf's order; the terms it adds past the factored part are zeros."""
    n = T.shape[-1]
    t = [[T[..., i, j].copy() for j in range(n)] for i in range(n)]
    for j in range(1, n):
        t[0][j] /= t[0][0]
    for i in range(1, n):
        for j in range(i, n):
            acc = np.zeros_like(t[0][0])
            for k in range(i):
                acc += t[j][k] * t[k][i]
            t[j][i] -= acc
        for j in range(i + 1, n):
            acc = np.zeros_like(t[0][0])
            for k in range(i):
                acc += t[i][k] * t[k][j]
            t[i][j] = (t[i][j] - acc) / t[i][i]
    return t


def _crout(T: np.ndarray, b: np.ndarray) -> np.ndarray:
    """RAJAPerf's SolveLinearSystemNxN on stacks: T (..., N, N) = A + s M0 factored, then
    b (..., N) solved forward through L and back through U."""
    n = T.shape[-1]
    t = _factor(T)
    d = [b[..., 0] / t[0][0]]
    for i in range(1, n):
        acc = np.zeros_like(d[0])
        for j in range(i):
            acc += t[i][j] * d[j]
        d.append((b[..., i] - acc) / t[i][i])
    x = [None] * n
    x[n - 1] = d[n - 1]
    for i in range(n - 2, -1, -1):
        acc = np.zeros_like(d[0])
        for j in range(i + 1, n):
            acc += t[i][j] * x[j]
        x[i] = d[i] - acc
    return np.stack(x, axis=-1)


_ARGS = (*_REALS, *_INDICES, *_SCALARS)


def _systems(
    Bdat, Adat, Fdat, Xdat, Sgdat, M0dat, nhpaa_r, ohpaa_r, phpaa_r, order_r,
    AngleElem2FaceType, elem_to_faces, F_g2l, idx1, idx2, ne, ng, sharedinteriorfaces, fshift, na,
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:  # fmt: skip
    """The sweep's systems, hyperplane after hyperplane (hyperplane hp of every angle at
    once): where in X each solution goes (P, ng, ND), and T = A + s M0 (P, ng, ND, ND) and
    b (P, ng, ND), its upwind coupling read from Xdat when the step is drawn."""
    ne, ng, sif = int(ne), int(ng), int(sharedinteriorfaces)
    real = Xdat.dtype.type
    angle = np.arange(na)
    a0 = Adat[order_r[angle * ne].astype(np.int64) * ND * ND + angle * ne * ND * ND]
    ffactor = np.maximum(np.sin(a0) - real(fshift), real(0))
    # Each sweep position's angle, hyperplane and place in its angle's order.
    sizes = [phpaa_r[ohpaa_r[a] : ohpaa_r[a] + nhpaa_r[a]] for a in range(na)]
    pos_angle = np.concatenate([np.full(int(n.sum()), a) for a, n in enumerate(sizes)])
    pos_hp = np.concatenate([np.repeat(np.arange(len(n)), n) for n in sizes])
    pos_k = np.concatenate([np.arange(int(n.sum())) for n in sizes])
    dofs, groups = np.arange(ND), np.arange(ng)
    for hp in range(int(pos_hp.max(initial=-1)) + 1):
        sel = pos_hp == hp
        a = pos_angle[sel]
        e = order_r[pos_k[sel] + a * ne].astype(np.int64)
        b = np.repeat(Bdat[(e * ND + a * ne * ND)[:, None] + dofs][:, None, :], ng, axis=1)
        xbase = groups[None, :] * ND * ne + (a * ng * ND * ne)[:, None]
        for face in range(NLF):
            sf = F_g2l[elem_to_faces[NLF * e + face]].astype(np.int64)
            q = np.nonzero((AngleElem2FaceType[face + e * NLF + a * ne * NLF] != 0) & (sf >= 0))[0]
            f, fa = sf[q], a[q]
            s = np.where(e[q] == idx1[f * FDS] // ND, 0, 1)
            fbase = (s ^ 1) * FDS * FDS + f * 2 * FDS * FDS + fa * sif * 2 * FDS * FDS
            for j in range(FDS):
                djs = np.where(s == 0, idx1[f * FDS + j], idx2[f * FDS + j])
                F = np.zeros((len(q), ng), dtype=Xdat.dtype)
                for i in range(FDS):
                    dis = np.where(s == 0, idx2[f * FDS + i], idx1[f * FDS + i]).astype(np.int64)
                    fd = Fdat[i + j * FDS + fbase]
                    F += (ffactor[fa] * fd)[:, None] * Xdat[dis[:, None] + xbase[q]]
                b[q, :, djs % ND] -= F
        s = Sgdat[e[:, None] + groups * ne]
        A = Adat[(e * ND * ND + a * ne * ND * ND)[:, None] + np.arange(ND * ND)]
        M = M0dat[(e * ND * ND)[:, None] + np.arange(ND * ND)]
        T = (A[:, None, :] + s[..., None] * M[:, None, :]).reshape(len(e), ng, ND, ND)
        yield (e[:, None] * ND + xbase)[..., None] + dofs, T, b


def _sweep(*args) -> None:
    """The sweep: each hyperplane's systems solved into X before the next is drawn."""
    Xdat = args[_ARGS.index("Xdat")]
    for where, T, b in _systems(*args):
        Xdat[where] = _crout(T, b)


def _plan(size: int) -> list[Launch]:
    """One launch: a BLOCK-wide work-group per (group, angle), groups along x, angles along y."""
    return [Launch("femsweep", (BLOCK * GROUPS, ANGLES), (BLOCK, 1), _ARGS)]


def _cpu(grid: Grid, *args) -> None:
    _sweep(*args, grid.grid[1])


def _reference(inputs: dict) -> dict:
    a = wide(inputs)
    _sweep(*(a[name] for name in _ARGS), ANGLES)
    return {"Xdat": a["Xdat"]}


def _backward_errors(inputs: dict, X: np.ndarray) -> np.ndarray:
    """Each solve's componentwise backward error in X, the worst of its ND rows:
    |T x - b| / (|L| |U| |x| + |b|), the sweep replayed with X's own solutions, so b's
    coupling is what the kernel read and an error is the solve's own, not carried on.
    The |L| |U| of LU without pivoting bounds what rounding may leave (Wilkinson),
    however ill-conditioned T is."""
    a = wide(inputs)
    got = np.asarray(X, dtype=np.float64)
    worst = []
    for where, T, b in _systems(*(a[name] for name in _ARGS), ANGLES):
        x = got[where]
        t = np.moveaxis(np.abs(np.array(_factor(T))), (0, 1), (-2, -1))
        lu = np.tril(t) @ (np.triu(t, 1) + np.eye(ND))
        r = np.abs(np.einsum("...ij,...j->...i", T, x) - b)
        scale = np.einsum("...ij,...j->...i", lu, np.abs(x)) + np.abs(b)
        with np.errstate(invalid="ignore", divide="ignore"):
            err = np.where(r == 0, 0.0, r / scale)
        worst.append(np.where(np.isnan(err), np.inf, err).max(axis=-1).ravel())
        a["Xdat"][where] = x
    return np.concatenate(worst) if worst else np.zeros(0)


def _verify(inputs: dict, outputs: dict, reference: dict) -> Verdict:
    """f64: X within RAJAPerf's loose class of the reference. f32: RAJAPerf's systems are
    solved without pivoting and some pivots are tiny, so an f32 X may be far from the
    f64 one however right the kernel; each solve's backward error is held to F32_BACKWARD."""
    if outputs["Xdat"].dtype == np.float64:
        return compare(outputs, reference, LOOSE.f64)
    err = _backward_errors(inputs, outputs["Xdat"])
    at = int(np.argmax(err)) if err.size else 0
    worst = float(err[at]) if err.size else 0.0
    bad = int(np.count_nonzero(err > F32_BACKWARD))
    problem = (
        f"Xdat: {bad} of {err.size} solves off; worst backward error {worst:.3g} "
        f"> {F32_BACKWARD:.3g}"
        if bad
        else None
    )
    return Verdict(worst, problem)


def _traffic(size: int, b: int) -> Traffic:
    """RAJAPerf's bytes: every input read once, X written, the part of it RAJAPerf
    reckons the upwind faces reread (1.55 na ng sif values) counted as modify-written."""
    n = mesh_side(size)
    ne, na, ng = n**3, ANGLES, GROUPS
    sif, bf = 3 * n * n * (n - 1), 6 * n * n
    reals = ND * ne * na + ND * ND * ne * na + FDS * FDS * 2 * sif * na + ne * ng + ND * ND * ne
    indices = 2 * na + na * (3 * n - 2) + na * ne + NLF * ne * na + NLF * ne + sif + bf + 8 * sif
    reread = int(1.55 * na * ng * sif)
    return Traffic(
        read=b * reals + INDEX_BYTES * indices,
        write=b * (ND * ne * ng * na - reread),
        modify_write=b * reread,
    )


def _flops(size: int) -> int:
    """RAJAPerf's upper estimate: a naive LU per (element, angle, group), and the
    coupling across every interior face per angle and group."""
    n = mesh_side(size)
    sif = 3 * n * n * (n - 1)
    lu = ND**3 + 7 * ND * ND // 2 - ND // 2
    return n**3 * ANGLES * GROUPS * lu + sif * ANGLES * GROUPS * (FDS + FDS * FDS * 3)


KERNEL = KernelSpec(
    name="Apps_FEMSWEEP",
    group=GROUP_NAME,
    summary="discrete-ordinates FEM transport sweep by hyperplanes, an 8 x 8 solve per element",
    arrays=(
        *(real(name, _length(name), "out" if name == "Xdat" else "in") for name in _REALS),
        *(Array(name, INDEX, _length(name)) for name in _INDICES),
    ),
    scalars=(
        Scalar("ne", INDEX),
        Scalar("ng", INDEX),
        Scalar("sharedinteriorfaces", INDEX),
        Scalar("fshift", "real"),
    ),
    plan=_plan,
    init=_init,
    reference=_reference,
    cpu={"femsweep": _cpu},
    traffic=_traffic,
    flops=_flops,
    default_size=ANGLES * GROUPS * 5**3,
    default_reps=1,
    tolerance=LOOSE,
    verify=_verify,
    rajaperf_features=("Launch",),
    complexity="N",
    constants={"ND": ND, "NLF": NLF, "FDS": FDS},
    group_size=(BLOCK, 1),
    check_cases=(
        CheckCase(
            "coupled",
            _check_init,
            "RAJAPerf's Ffactor is max(sin(A0) - 2, 0) = 0, so no upwind face, side or "
            "hyperplane order reaches its X; with fshift = -1 they all do",
        ),
        CheckCase(
            "reversed",
            _reversed_init,
            "a sweep in RAJAPerf's order reads only X it wrote, so a pass too many or an "
            "element solved twice gives the same X; against the flow, from a random X, not",
        ),
    ),
    # Meshes of 2^3 and 3^3 elements: every face orientation upwind for some angle,
    # hyperplanes of one to seven elements.
    check_sizes=(ANGLES * GROUPS * 8, ANGLES * GROUPS * 27),
)

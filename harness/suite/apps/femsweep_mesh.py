"""The mesh and angle data Apps_FEMSWEEP sweeps (RAJAPerf's FEMSWEEPMeshGen.cpp).

A Cartesian nx x ny x nz hexahedral mesh numbered as MFEM numbers it: elements
along a Hilbert curve, faces in the order elements first meet them, each face
keyed by the three smallest of its four vertex ids. For every angle of a
Gauss-Legendre x uniform-azimuth quadrature, each element's face is typed by
the sign of omega . n (0: outgoing or boundary, 1: incoming to its first
element, 2: incoming to its second), and the elements are ordered into
hyperplanes: the first holds the elements with no incoming interior face, each
next one the elements whose last upwind neighbour the previous one held, in
the order they were freed. Index arrays are flat as RAJAPerf copies them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: MFEM's cube: local vertex ids of each local face, and each vertex's (x, y, z) bits.
CUBE_FACE_VERT = np.array(
    [[3, 2, 1, 0], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7], [4, 5, 6, 7]]
)
CUBE_VERT_BITS = np.array(
    [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]]
)
#: Lexicographic Q1 dof of each cube vertex (x + 2y + 4z), and each face's dofs sorted.
_VERT_DOF = CUBE_VERT_BITS @ np.array([1, 2, 4])
_FACE_DOFS = np.sort(_VERT_DOF[CUBE_FACE_VERT], axis=1)
#: Tolerance on omega . n below which a face counts as not outgoing.
_EPS = 1e-10


def _gauss_legendre(n: int) -> list[float]:
    """The n Gauss-Legendre nodes on [-1, 1], by RAJAPerf's Newton iteration."""
    x = [0.0] * n
    for i in range((n + 1) // 2):
        z = math.cos(math.pi * (i + 0.75) / (n + 0.5))
        while True:
            p1, p2 = 1.0, 0.0
            for j in range(1, n + 1):
                p1, p2 = ((2.0 * j - 1.0) * z * p1 - (j - 1.0) * p2) / j, p1
            pp = n * (z * p1 - p2) / (z * z - 1.0)
            z1 = z
            z = z1 - p1 / pp
            if abs(z - z1) <= 1e-14:
                break
        x[i] = -z
        x[n - 1 - i] = z
    return x


def angles(polar_order: int, azimuthal_order: int) -> np.ndarray:
    """Direction vectors omega, (angles, 3): polar nodes outer, azimuths inner."""
    polar, azimuthal = 2 * polar_order, 4 * azimuthal_order
    out = []
    for x in _gauss_legendre(polar):
        theta = math.acos(x)
        for k in range(azimuthal):
            gamma = (-math.pi / azimuthal) + (2.0 * math.pi / azimuthal) * (k + 1.0)
            st = math.sin(theta)
            out.append((st * math.cos(gamma), st * math.sin(gamma), math.cos(theta)))
    return np.array(out)


def _sgn(x: int) -> int:
    return (x > 0) - (x < 0)


def _hilbert(x, y, z, ax, ay, az, bx, by, bz, cx, cy, cz, out: list) -> None:
    """MFEM's HilbertSfc3D: append the cells of the box (a, b, c) at (x, y, z) in curve order."""
    w, h, d = abs(ax + ay + az), abs(bx + by + bz), abs(cx + cy + cz)
    dax, day, daz = _sgn(ax), _sgn(ay), _sgn(az)
    dbx, dby, dbz = _sgn(bx), _sgn(by), _sgn(bz)
    dcx, dcy, dcz = _sgn(cx), _sgn(cy), _sgn(cz)
    for steps, n, dx, dy, dz in ((w, h == 1 and d == 1, dax, day, daz),
                                 (h, w == 1 and d == 1, dbx, dby, dbz),
                                 (d, w == 1 and h == 1, dcx, dcy, dcz)):  # fmt: skip
        if n:
            out.extend((x + i * dx, y + i * dy, z + i * dz) for i in range(steps))
            return
    # C++ integer division truncates toward zero.
    ax2, ay2, az2 = int(ax / 2), int(ay / 2), int(az / 2)
    bx2, by2, bz2 = int(bx / 2), int(by / 2), int(bz / 2)
    cx2, cy2, cz2 = int(cx / 2), int(cy / 2), int(cz / 2)
    w2, h2, d2 = abs(ax2 + ay2 + az2), abs(bx2 + by2 + bz2), abs(cx2 + cy2 + cz2)
    if (w2 & 1) and w > 2:
        ax2, ay2, az2 = ax2 + dax, ay2 + day, az2 + daz
    if (h2 & 1) and h > 2:
        bx2, by2, bz2 = bx2 + dbx, by2 + dby, bz2 + dbz
    if (d2 & 1) and d > 2:
        cx2, cy2, cz2 = cx2 + dcx, cy2 + dcy, cz2 + dcz
    if 2 * w > 3 * h and 2 * w > 3 * d:
        _hilbert(x, y, z, ax2, ay2, az2, bx, by, bz, cx, cy, cz, out)
        _hilbert(x + ax2, y + ay2, z + az2, ax - ax2, ay - ay2, az - az2,
                 bx, by, bz, cx, cy, cz, out)  # fmt: skip
    elif 3 * h > 4 * d:
        _hilbert(x, y, z, bx2, by2, bz2, cx, cy, cz, ax2, ay2, az2, out)
        _hilbert(x + bx2, y + by2, z + bz2, ax, ay, az, bx - bx2, by - by2, bz - bz2,
                 cx, cy, cz, out)  # fmt: skip
        _hilbert(x + (ax - dax) + (bx2 - dbx), y + (ay - day) + (by2 - dby),
                 z + (az - daz) + (bz2 - dbz), -bx2, -by2, -bz2, cx, cy, cz,
                 -(ax - ax2), -(ay - ay2), -(az - az2), out)  # fmt: skip
    elif 3 * d > 4 * h:
        _hilbert(x, y, z, cx2, cy2, cz2, ax2, ay2, az2, bx, by, bz, out)
        _hilbert(x + cx2, y + cy2, z + cz2, ax, ay, az, bx, by, bz,
                 cx - cx2, cy - cy2, cz - cz2, out)  # fmt: skip
        _hilbert(x + (ax - dax) + (cx2 - dcx), y + (ay - day) + (cy2 - dcy),
                 z + (az - daz) + (cz2 - dcz), -cx2, -cy2, -cz2,
                 -(ax - ax2), -(ay - ay2), -(az - az2), bx, by, bz, out)  # fmt: skip
    else:
        _hilbert(x, y, z, bx2, by2, bz2, cx2, cy2, cz2, ax2, ay2, az2, out)
        _hilbert(x + bx2, y + by2, z + bz2, cx, cy, cz, ax2, ay2, az2,
                 bx - bx2, by - by2, bz - bz2, out)  # fmt: skip
        _hilbert(x + (bx2 - dbx) + (cx - dcx), y + (by2 - dby) + (cy - dcy),
                 z + (bz2 - dbz) + (cz - dcz), ax, ay, az, -bx2, -by2, -bz2,
                 -(cx - cx2), -(cy - cy2), -(cz - cz2), out)  # fmt: skip
        _hilbert(x + (ax - dax) + bx2 + (cx - dcx), y + (ay - day) + by2 + (cy - dcy),
                 z + (az - daz) + bz2 + (cz - dcz), -cx, -cy, -cz,
                 -(ax - ax2), -(ay - ay2), -(az - az2), bx - bx2, by - by2, bz - bz2,
                 out)  # fmt: skip
        _hilbert(x + (ax - dax) + (bx2 - dbx), y + (ay - day) + (by2 - dby),
                 z + (az - daz) + (bz2 - dbz), -bx2, -by2, -bz2, cx2, cy2, cz2,
                 -(ax - ax2), -(ay - ay2), -(az - az2), out)  # fmt: skip


def sfc_cells(nx: int, ny: int, nz: int) -> np.ndarray:
    """MFEM's GridSfcOrdering3D: the (x, y, z) of every cell, (cells, 3), in element order."""
    out: list = []
    if nx >= ny and nx >= nz:
        _hilbert(0, 0, 0, nx, 0, 0, 0, ny, 0, 0, 0, nz, out)
    elif ny >= nx and ny >= nz:
        _hilbert(0, 0, 0, 0, ny, 0, nx, 0, 0, 0, 0, nz, out)
    else:
        _hilbert(0, 0, 0, 0, 0, nz, nx, 0, 0, 0, ny, 0, out)
    return np.array(out, dtype=np.int64).reshape(-1, 3)


@dataclass(frozen=True)
class SweepMesh:
    """The arrays RAJAPerf's FEMSWEEP copies from its mesh generator, and their counts."""

    ne: int
    na: int
    interior_faces: int
    boundary_faces: int
    nhp: np.ndarray  # hyperplanes per angle
    ohp: np.ndarray  # each angle's first entry in php
    php: np.ndarray  # elements per hyperplane, angle after angle
    order: np.ndarray  # elements in sweep order, (angle, position)
    face_types: np.ndarray  # (angle, element, local face)
    elem_to_faces: np.ndarray  # (element, local face): global face
    g2l: np.ndarray  # global face: interior index, or -1 - boundary index
    idx1: np.ndarray  # (interior face, 4): first element's dofs, elem * 8 + dof
    idx2: np.ndarray  # (interior face, 4): second element's dofs


def _faces(cells: np.ndarray, nx: int, ny: int) -> tuple[np.ndarray, ...]:
    """MFEM's element-to-face table: each (element, face)'s global face, and per face
    its first element and local face, then its second's (-1 on the boundary)."""
    ne = len(cells)
    corner = cells[:, None, :] + CUBE_VERT_BITS[None]
    verts = corner[..., 0] + (corner[..., 1] + corner[..., 2] * (ny + 1)) * (nx + 1)
    keys = np.sort(verts[:, CUBE_FACE_VERT], axis=2)[..., :3].reshape(ne * 6, 3)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    elem_to_faces = rank[inverse]
    nf = len(first)
    slot1 = np.empty(nf, dtype=np.int64)
    slot1[rank] = first
    second = np.full(nf, -1, dtype=np.int64)
    lf2 = np.full(nf, -1, dtype=np.int64)
    seen = np.argsort(elem_to_faces, kind="stable")
    gf_sorted = elem_to_faces[seen]
    repeat = np.nonzero(gf_sorted[1:] == gf_sorted[:-1])[0] + 1
    second[gf_sorted[repeat]] = seen[repeat] // 6
    lf2[gf_sorted[repeat]] = seen[repeat] % 6
    return elem_to_faces.reshape(ne, 6), slot1 // 6, slot1 % 6, second, lf2


def _face_normal(lf: int) -> np.ndarray:
    """The sign of (p1 - p0) x (p3 - p0) over local face lf's vertices: its normal's direction."""
    p0, p1, _, p3 = CUBE_VERT_BITS[CUBE_FACE_VERT[lf]]
    return np.sign(np.cross(p1 - p0, p3 - p0))


def _hyperplanes(types: np.ndarray, e2f, elem1, elem2, interior) -> tuple[list, np.ndarray]:
    """One angle's hyperplane sizes and element order (RAJAPerf's dependency traversal)."""
    ne = len(e2f)
    incoming = (types == 1) | (types == 2)
    deps = np.count_nonzero(incoming & interior[e2f], axis=1)
    other = np.where(elem1[e2f] == np.arange(ne)[:, None], elem2[e2f], elem1[e2f])
    frees = interior[e2f] & ~incoming
    current = np.nonzero(deps == 0)[0]
    sizes, order, steps = [], [], 0
    while len(current) and steps < ne:
        sizes.append(len(current))
        order.append(current)
        steps += 1
        seq = other[current][frees[current]]
        np.subtract.at(deps, seq, 1)
        last = np.full(ne, -1)
        np.maximum.at(last, seq, np.arange(len(seq)))
        ready = np.nonzero((last >= 0) & (deps == 0))[0]
        current = ready[np.argsort(last[ready])]
    flat = np.concatenate(order) if order else np.zeros(0, dtype=np.int64)
    return sizes, np.concatenate([flat, np.zeros(ne - len(flat), dtype=np.int64)])


@lru_cache(maxsize=4)
def sweep_mesh(n: int, polar_order: int, azimuthal_order: int) -> SweepMesh:
    """RAJAPerf's MeshGenerator on an n x n x n mesh with that angular quadrature."""
    cells = sfc_cells(n, n, n)
    ne = len(cells)
    e2f, elem1, lf1, elem2, lf2 = _faces(cells, n, n)
    interior = elem2 >= 0
    g2l = np.where(interior, np.cumsum(interior) - 1, -np.cumsum(~interior))
    idx1 = elem1[interior, None] * 8 + _FACE_DOFS[lf1[interior]]
    idx2 = elem2[interior, None] * 8 + _FACE_DOFS[lf2[interior]]
    omega = angles(polar_order, azimuthal_order)
    normals = np.array([_face_normal(lf) for lf in range(6)], dtype=np.float64)[lf1]
    n_e = normals[e2f]
    dot = omega[:, None, None, 0] * n_e[..., 0]
    dot = dot + omega[:, None, None, 1] * n_e[..., 1]
    dot = dot + omega[:, None, None, 2] * n_e[..., 2]
    out = dot > _EPS
    first = elem1[e2f] == np.arange(ne)[:, None]
    types = np.where(first, np.where(out, 0, 1), np.where(out, 2, 0))
    types = np.where(interior[e2f], types, 0)
    nhp, php, order = [], [], []
    for a in range(len(omega)):
        sizes, ordered = _hyperplanes(types[a], e2f, elem1, elem2, interior)
        nhp.append(len(sizes))
        php.extend(sizes)
        order.append(ordered)
    nhp_a = np.array(nhp, dtype=np.int64)
    return SweepMesh(
        ne=ne,
        na=len(omega),
        interior_faces=int(np.count_nonzero(interior)),
        boundary_faces=int(np.count_nonzero(~interior)),
        nhp=nhp_a,
        ohp=np.concatenate([[0], np.cumsum(nhp_a)[:-1]]),
        php=np.array(php, dtype=np.int64),
        order=np.stack(order),
        face_types=types,
        elem_to_faces=e2f,
        g2l=g2l,
        idx1=idx1,
        idx2=idx2,
    )

"""Pieces several Apps kernels' descriptions share: scalars, array lengths, references' inputs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from harness.model.spec import Array, Scalar
from harness.suite.apps.mesh import INDEX, domain_3d
from harness.suite.forall import as_f64

GROUP_NAME = "Apps"
JP = Scalar("jp", INDEX)
KP = Scalar("kp", INDEX)
#: A mesh size whose real zones fill whole work-groups: 64^2 in 2-D, 16^3 in 3-D.
MESH_CHECK_SIZE = 4_096


def wide(inputs: dict) -> dict:
    """Inputs for a reference: real arrays and scalars as float64, others copied."""
    out = {}
    for name, value in inputs.items():
        if isinstance(value, np.ndarray):
            out[name] = as_f64(value) if value.dtype.kind == "f" else value.copy()
        else:
            out[name] = float(value) if isinstance(value, np.floating) else int(value)
    return out


def real(name: str, length: Callable[[int], int], intent: str = "in") -> Array:
    """An array of the run's real type."""
    return Array(name, "real", length, intent)


def nodal_length_3d(size: int) -> int:
    """Length of a nodal array of the 3-D mesh, ghosts included."""
    return domain_3d(size).nnalls


def zonal_length_3d(size: int) -> int:
    """Length of a zonal array of the 3-D mesh: up to its last zone, lpz."""
    return domain_3d(size).lpz + 1


def zones_3d(size: int) -> int:
    """Real zones of the 3-D mesh: the length of ``real_zones``."""
    return domain_3d(size).n_real_zones

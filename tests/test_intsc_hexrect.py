"""Apps_INTSC_HEXRECT: its check cases reach what their reasons claim."""

from __future__ import annotations

import numpy as np

from harness.suite.apps import intsc_hexrect as hexrect


def _unit_frame(inputs: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each record's donor corners in its box's unit frame (x, y scaled; z from the bottom)."""
    nodes = inputs["znlist"].reshape(-1, 8)[inputs["intsc_d"]]
    tz = inputs["intsc_t"].astype(np.int64)
    nx, ny = inputs["nxzones"], inputs["nyzones"]
    jz, jy, jx = tz // (nx * ny), (tz // nx) % ny, tz % nx
    out = []
    for coord, plane, j in (("xdnode", "xplane", jx), ("ydnode", "yplane", jy)):
        p0, p1 = inputs[plane][j, None], inputs[plane][j + 1, None]
        out.append((inputs[coord][nodes] - p0) / (p1 - p0))
    out.append(inputs["zdnode"][nodes] - inputs["zplane"][jz, None])
    return tuple(out)


def test_on_planes_puts_corners_on_every_plane_and_between() -> None:
    inputs = hexrect._on_planes_init(4_000, 1, "f64")
    x, y, z = _unit_frame(inputs)
    dz = np.diff(inputs["zplane"])[0]
    for v, top in ((x, 1.0), (y, 1.0), (z, dz)):
        assert (v == 0).any() and (v == top).any()
        assert ((v > 0) & (v < top)).any()
    records = hexrect._reference(inputs)["records"].reshape(-1, 4)
    assert (records[:, 0] > 0).any() and (records[:, 0] == 0).any()
    assert np.unique(records[:, 0]).size > 3


def test_rajaperf_inputs_put_no_corner_on_a_plane() -> None:
    x, y, _ = _unit_frame(hexrect._init(4_000, 1, "f64"))
    assert not ((x == 0) | (x == 1) | (y == 0) | (y == 1)).any()

"""Launches over two and three axes: every backend runs the groups a launch
asks for, along each axis, with the work-group shape the description gives,
and its sources see that shape as GROUP_X, GROUP_Y and GROUP_Z."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import FIXTURES, need_backend
from test_cuda import _compiler

from harness.backends import cuda_compile
from harness.backends import get as get_backend
from harness.model.spec import Array, Grid, KernelSpec, Launch, Scalar, Traffic, axes

PROBE = FIXTURES / "launch_geometry"
SCALARS = ("nx", "ny", "nz")


def _coordinates(nx: int, ny: int, nz: int) -> np.ndarray:
    z, y, x = np.indices((nz, ny, nx), dtype=np.uint32)
    return (1 + x + 1000 * y + 1000000 * z).ravel()


def _cpu_probe(grid: Grid, out: np.ndarray, nx: int, ny: int, nz: int) -> None:
    """Every work-item the grid covers writes its coordinates where it is in range."""
    reach = [g * n for g, n in zip(grid.grid, grid.group_axes, strict=True)]
    x, y, z = (min(r, n) for r, n in zip(reach, (nx, ny, nz), strict=True))
    out[:] = 0
    out.reshape(nz, ny, nx)[:z, :y, :x] = _coordinates(x, y, z).reshape(z, y, x)


def probe(items: tuple[int, ...], group: tuple[int, ...]) -> KernelSpec:
    """A kernel of one launch over ``items`` in groups of ``group``."""
    nx, ny, nz = axes(items)
    return KernelSpec(
        name="Probe",
        group="Demo",
        summary="launch geometry probe",
        arrays=(Array("out", "u32", lambda n: n, "out"),),
        scalars=tuple(Scalar(s, "u32") for s in SCALARS),
        plan=lambda n: [Launch("probe", items, group, ("out", *SCALARS))],
        init=lambda n, seed, p: {"out": np.zeros(n, np.uint32), "nx": nx, "ny": ny, "nz": nz},
        reference=lambda x: {"out": _coordinates(nx, ny, nz)},
        cpu={"probe": _cpu_probe},
        traffic=lambda n, b: Traffic(write=4 * n),
        flops=lambda n: 0,
        group_size=group,
    )


SHAPES = [
    pytest.param((37, 5), (8, 4), id="2-D"),
    pytest.param((5, 7, 3), (4, 2, 2), id="3-D"),
    pytest.param((3, 2, 70), (1, 1, 2), id="3-D, many groups along z"),
]


@pytest.mark.parametrize("items, group", SHAPES)
@pytest.mark.parametrize("backend, source", [("cpu", None), ("opencl", "c"), ("wgpu", "wgsl")])
def test_every_work_item_of_every_axis_runs_once_in_range(
    backend: str, source: str | None, items: tuple[int, ...], group: tuple[int, ...]
) -> None:
    need_backend(backend)
    spec = probe(items, group)
    size = int(np.prod(items))
    inputs = spec.init(size, 0, "f64")
    session = get_backend(backend).open(0)
    path = PROBE / f"Probe.{source}" if source else None
    execution = session.load(spec, "f64", path, inputs)
    try:
        execution.run(spec.resolve(size, inputs, "f64"))
        np.testing.assert_array_equal(execution.read("out"), spec.reference(inputs)["out"])
    finally:
        execution.close()


def test_the_cuda_probe_compiles_with_the_shape_as_constants() -> None:
    spec = probe((5, 7, 3), (4, 2, 2))
    text = cuda_compile.source_text(spec, PROBE / "Probe.c", "f32").decode()
    for define in ("GROUP 16", "GROUP_X 4", "GROUP_Y 2", "GROUP_Z 2"):
        assert f"#define {define}\n" in text
    assert cuda_compile.compile_source(spec, PROBE / "Probe.c", "f32", 80, _compiler()).image


def test_the_grid_rounds_each_axis_up_to_whole_groups() -> None:
    launch = Launch("e", (37, 5, 1), (8, 4, 1), ())
    assert (launch.grid, launch.groups, launch.threads, launch.dims) == ((5, 2, 1), 10, 32, 3)
    assert Launch("e", 0, 256, ()).grid == (1, 1, 1)


@pytest.mark.parametrize(
    "items, group, message",
    [
        ((37, 5), 8, "must have the same number of axes"),
        ((37, 5), (8, 4, 1), "must have the same number of axes"),
        (37, (8,), "must have the same number of axes"),
        ((37, 5), (8, 0), "must be positive"),
        ((1, 2, 3, 4), (1, 1, 1, 1), "1 to 3 axes"),
    ],
)
def test_a_launch_whose_shape_is_wrong_says_which(
    items: tuple[int, ...], group: tuple[int, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Launch("e", items, group, ())

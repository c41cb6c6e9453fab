"""``--wgsl-checks``: naga's runtime checks kept or turned off reach the compiler,
a row each, recorded in the row, the run's metadata and the resume keys."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
from conftest import FIXTURES, harness, need_backend, run_folder

from harness import suite
from harness.backends import get as get_backend
from harness.cli.run_plan import row_key, task_key
from harness.execution import results
from harness.execution.runner import RunOptions, Task, base_row, make_inputs, plan

FIXTURE = FIXTURES / "wgsl_checks"


def _fixture_kernel():
    """The fixture's kernel, imported without adding it to the run's suite."""
    found = importlib.util.spec_from_file_location("wgsl_checks_fixture", FIXTURE / "kernels.py")
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def _read_past(on: bool) -> tuple[np.ndarray, np.ndarray, str]:
    """The fixture kernel's indices and what it read, compiled with the checks on
    or off, on the default wgpu adapter; and the adapter's kind."""
    fixture = _fixture_kernel()
    spec = fixture.READ_PAST
    size = 4 * fixture.GROUP
    backend = get_backend("wgpu")
    device = backend.default_devices()[0]
    session = backend.open(device.index)
    session.set_shader_checks(on)
    inputs = make_inputs(spec, size, 1, "f32")
    source = FIXTURE / "wgsl" / "Checks_READ_PAST.wgsl"
    execution = session.load(spec, "f32", source, {a.name: inputs[a.name] for a in spec.arrays})
    execution.run(spec.resolve(size, inputs, "f32"))
    got = execution.read("got")
    execution.close()
    return inputs["idx"], got, device.kind


def test_checks_off_reads_past_the_array_that_checks_on_clamp_into() -> None:
    """The choice changes the compiled module: with naga's checks, reads past the
    4-element work-group array are clamped to its last element; without them they
    read on past it (into the next work-group array, on lavapipe)."""
    need_backend("wgpu")
    idx, on, kind = _read_past(True)
    clamped = _fixture_kernel().clamped(idx)
    np.testing.assert_array_equal(on, clamped)
    _, off, _ = _read_past(False)
    inside = idx < 4
    np.testing.assert_array_equal(off[inside], clamped[inside])
    assert np.all(off[~inside] != clamped[~inside]), off
    if kind == "cpu":
        # lavapipe lays b (2000 + j) right after a: a[4 + j] is b[j].
        np.testing.assert_array_equal(off[~inside], 2000 + idx[~inside] - 4)


def test_each_choice_is_a_row_in_its_column_and_the_metadata(tmp_path) -> None:
    need_backend("wgpu")
    proc = harness(
        "run", "--suite", str(FIXTURE / "kernels.py"), "-k", "Checks_READ_PAST",
        "-b", "wgpu", "cpu", "--wgsl-checks", "on", "off", "--check", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    folder = run_folder(tmp_path)
    rows = {(r["backend"], r["wgsl_checks"]): r for r in results.read_journal(folder)}
    assert set(rows) == {("wgpu", "on"), ("wgpu", "off"), ("cpu", None)}
    assert rows["wgpu", "on"]["status"] == "ok", rows["wgpu", "on"]["reason"]
    assert rows["cpu", None]["status"] == "ok", rows["cpu", None]["reason"]
    # The fixture's reference is the clamped read: without the checks it is off.
    off = rows["wgpu", "off"]
    assert off["status"] == "fail"
    assert "expected 1003" in off["reason"], off["reason"]
    meta = json.loads((folder / results.METADATA).read_text())
    assert meta["options"]["wgsl_checks"] == ["on", "off"]


def _device(backend: str):
    from harness.backends.base import DeviceInfo

    return DeviceInfo(backend, 0, "test", "", "cpu", 0, 1, "", "", frozenset({"f64"}))


def test_plan_gives_wgpu_a_row_per_choice_and_others_one() -> None:
    spec = suite.BY_NAME["Stream_TRIAD"]
    options = RunOptions(size=1000, wgsl_checks=("on", "off"))
    tasks = plan([spec], [_device("wgpu"), _device("cpu")], options)
    assert [(t.backend, t.wgsl_checks) for t in tasks] == [
        ("wgpu", "on"),
        ("wgpu", "off"),
        ("cpu", None),
    ]
    # A row's resume key is its task's, and the choices' keys differ.
    assert [row_key(base_row(t)) for t in tasks] == [task_key(t) for t in tasks]
    assert len({task_key(t) for t in tasks}) == 3


def test_a_wgpu_row_from_before_the_option_resumes_as_checks_on() -> None:
    task = Task("Stream_TRIAD", "wgpu", 0, 1000, "f64", wgsl_checks="on")
    row = base_row(task)
    del row["wgsl_checks"]
    assert row_key(row) == task_key(task)
    other = Task("Stream_TRIAD", "opencl", 0, 1000, "f64")
    row = base_row(other)
    del row["wgsl_checks"]
    assert row_key(row) == task_key(other)


@pytest.mark.parametrize("given", [["off"], ["on", "off"]])
def test_the_option_parses(given: list[str]) -> None:
    from harness.cli import build_parser

    args = build_parser().parse_args(["run", "--wgsl-checks", *given])
    assert args.wgsl_checks == given

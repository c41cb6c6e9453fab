"""The wgpu backend on a real adapter (lavapipe in CI): kernels, limits, errors, timing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest
from conftest import FIXTURES, harness, need_backend, required, run_folder

from harness import suite
from harness.backends import get as get_backend
from harness.backends import wgpu as wgpu_backend
from harness.backends.base import Backend, DeviceInfo
from harness.backends.wgpu import pack_uniform
from harness.execution import results
from harness.execution.runner import Runner, RunOptions, Task, largest_size, make_inputs
from harness.model import sources

#: Work-groups one dispatch dimension takes at most (WebGPU's and lavapipe's limit).
MAX_GROUPS = 65535


@pytest.fixture(scope="module")
def backend() -> Backend:
    """The wgpu backend; skips (or fails where required) without a usable adapter."""
    need_backend("wgpu")
    return get_backend("wgpu")


@pytest.fixture(scope="module")
def device(backend: Backend) -> DeviceInfo:
    """The default adapter, which must have shader-f64 (lavapipe does)."""
    info = backend.default_devices()[0]
    if "f64" not in info.features:
        message = f"default wgpu adapter {info.name} lacks shader-f64; install lavapipe"
        if required("wgpu"):
            pytest.fail(message)
        pytest.skip(message)
    return info


def _rows(out) -> list[dict]:
    return results.read_journal(run_folder(out))


def test_uniform_follows_wgsl_layout() -> None:
    f64_then_u32 = pack_uniform([np.float64(1.5), np.uint32(7)])
    assert len(f64_then_u32) == 16
    assert np.frombuffer(f64_then_u32[:8], "<f8")[0] == 1.5
    assert np.frombuffer(f64_then_u32[8:12], "<u4")[0] == 7
    u32_then_f64 = pack_uniform([np.uint32(3), np.float64(2.0)])
    assert np.frombuffer(u32_then_f64[8:16], "<f8")[0] == 2.0
    assert len(pack_uniform([np.float32(1), np.int32(-2), np.uint32(3)])) == 16
    assert len(pack_uniform([np.float64(1)] * 3 + [np.uint32(1)])) == 32


def test_largest_size_fits_the_binding_limit_with_the_guard_zone() -> None:
    # A verified repetition binds each array with its 512-byte guard zone after it:
    # 2^24 doubles filled lavapipe's 128 MiB binding limit, and harness peak's
    # Stream rows there failed creating the bind group.
    triad = suite.BY_NAME["Stream_TRIAD"]
    assert largest_size(triad, "f64", 128 * 2**20) == 2**24 - 64
    assert largest_size(triad, "f32", 128 * 2**20) == 2**25 - 128


def test_devices_list_adapters_with_their_limits(backend: Backend) -> None:
    devices = backend.devices()
    for info in devices:
        assert info.limits["max_storage_buffer_binding_size"] > 0
        assert info.limits["max_compute_invocations_per_workgroup"] > 0
    native = [d for d in devices if not d.api.startswith("OpenGL")]
    assert backend.default_devices() == (native or devices)[:1]
    listing = harness("devices")
    assert listing.returncode == 0, listing.stderr
    assert "wgpu: available" in listing.stdout
    assert "max_storage_buffer_binding_size" in listing.stdout


def test_timestamps_time_each_repetition(device: DeviceInfo) -> None:
    spec = suite.BY_NAME["Stream_TRIAD"]
    size = 1 << 16
    inputs = make_inputs(spec, size, 1, "f32")
    session = get_backend("wgpu").open(device.index)
    assert session.timer == "device"
    source = sources.find("wgsl", ".wgsl", spec.name)
    execution = session.load(spec, "f32", source, {a.name: inputs[a.name] for a in spec.arrays})
    launches = spec.resolve(size, inputs, "f32")
    execution.run(launches)
    start = time.perf_counter()
    times = execution.time(launches, 20)
    wall = time.perf_counter() - start
    execution.close()
    assert len(times) == 20
    assert all(t > 0 for t in times)
    assert sum(times) <= wall

    row = Runner(RunOptions(reps=5, warmup=1)).execute(
        Task(spec.name, "wgpu", device.index, 50_000, "f64")
    )
    assert row["status"] == "ok", row["reason"]
    assert row["timer"] == "device"
    assert 0 < row["time_min_s"] <= row["time_median_s"]


def test_timed_samples_are_submitted_as_encoded_and_each_repetition_runs_once(
    device: DeviceInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A timed loop goes to the device in several command buffers, each submitted
    while the next is encoded (a device idle while the host encoded ran NVIDIA's
    GPU at a fraction of its clock), and still runs every repetition once, in
    order: DAXPY's y after 1 + 10 x 3 repetitions is y + 31 a x."""
    spec = suite.BY_NAME["Basic_DAXPY"]
    size = 4096
    inputs = make_inputs(spec, size, 1, "f64")
    session = get_backend("wgpu").open(device.index)
    source = sources.find("wgsl", ".wgsl", spec.name)
    execution = session.load(spec, "f64", source, {a.name: inputs[a.name] for a in spec.arrays})
    launches = spec.resolve(size, inputs, "f64")
    monkeypatch.setattr(wgpu_backend, "SUBMIT_DISPATCHES", 6)
    queue = session.device.queue
    submitted = []
    submit = queue.submit

    def counted(buffers: list) -> None:
        submitted.append(len(buffers))
        submit(buffers)

    monkeypatch.setattr(queue, "submit", counted)
    execution.run(launches)
    runs = len(submitted)
    times = execution.time(launches, 10, batch=3)
    timed = len(submitted) - runs
    y = execution.read("y")
    execution.close()
    assert len(times) == 10 and all(t > 0 for t in times)
    # Two samples of three dispatches a command buffer: five of them, the last
    # with the queries' resolve; then wgpu's copy that reads the times back.
    assert timed == 6
    a = dict(launches[0].scalars)["a"]
    np.testing.assert_allclose(y, inputs["y"] + 31 * a * inputs["x"], rtol=1e-12)


def test_grids_over_the_dimension_limit_are_folded(device: DeviceInfo) -> None:
    size = MAX_GROUPS * 256 + 1
    row = Runner(RunOptions(check=True)).execute(
        Task("Stream_COPY", "wgpu", device.index, size, "f32")
    )
    assert row["status"] == "ok", row["reason"]


@pytest.mark.parametrize("size", [2**25, 2 * MAX_GROUPS * 256 + 256])
def test_a_folded_grid_launches_fewer_idle_groups_than_a_row(device: DeviceInfo, size: int) -> None:
    """2^25 elements are 131072 groups of 256: three rows of 43691, one idle group,
    not three of 65535 (65533 idle); and the run verifies. The second size needs
    three rows by one group."""
    spec = suite.BY_NAME["Stream_COPY"]
    inputs = make_inputs(spec, size, 1, "f32")
    session = get_backend("wgpu").open(device.index)
    source = sources.find("wgsl", ".wgsl", spec.name)
    execution = session.load(spec, "f32", source, {a.name: inputs[a.name] for a in spec.arrays})
    (launch,) = spec.resolve(size, inputs, "f32")
    x, y, z = execution._grid(launch)
    execution.run([launch])
    copied = execution.read("c")
    execution.close()
    groups = -(-size // 256)
    assert launch.groups == groups and (y, z) == (3, 1) and x <= MAX_GROUPS
    assert 0 <= x * y - groups < y
    np.testing.assert_array_equal(copied, inputs["a"])


# Stream_DOT's partial array has no length at size 0, where the search for the
# largest size that fits began: its row was a ZeroDivisionError, not this skip.
@pytest.mark.parametrize("kernel", ["Stream_COPY", "Stream_DOT"])
def test_arrays_over_the_binding_limit_are_skipped(device: DeviceInfo, kernel: str) -> None:
    limit = device.limits["max_storage_buffer_binding_size"]
    if limit > 256 * 2**20:
        pytest.skip(f"binding limit {limit} bytes is too large to exceed cheaply")
    # Each array is bound with its 512-byte guard zone after it.
    fits = limit // 8 - 64
    row = Runner(RunOptions(check=True)).execute(
        Task(kernel, "wgpu", device.index, fits + 1, "f64")
    )
    assert row["status"] == "skipped"
    assert "max_storage_buffer_binding_size" in row["reason"]
    assert f"the largest size that fits is {fits}" in row["reason"]


def test_wgsl_syntax_error_is_an_error_row_naming_file_and_line(
    device: DeviceInfo, tmp_path
) -> None:
    proc = harness(
        "run",
        "-b",
        "wgpu",
        "-k",
        "Stream_TRIAD",
        "--check",
        "--size",
        "999",
        "--sources",
        str(FIXTURES / "wgsl_bad_syntax"),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 1
    (row,) = _rows(tmp_path)
    assert row["status"] == "error"
    assert "Stream_TRIAD.wgsl:19:" in row["reason"]


def test_f64_without_shader_f64_is_skipped_and_f32_runs(backend: Backend, tmp_path) -> None:
    lacking = [d for d in backend.devices() if "f64" not in d.features]
    if not lacking:
        pytest.skip("every wgpu adapter here has shader-f64")
    device = lacking[0].id
    for precision, status in (("f64", "skipped"), ("f32", "ok")):
        out = tmp_path / precision
        harness(
            "run", "--device", device, "-k", "Stream_TRIAD", "--check", "--size", "999",
            "--precision", precision, "--out", str(out),
        )  # fmt: skip
        (row,) = _rows(out)
        assert row["status"] == status, row["reason"]
        if status == "skipped":
            assert "f64" in row["reason"]


def test_devices_without_a_runtime_folder_say_nothing_of_it(tmp_path) -> None:
    """Mesa's loader complains once per instance when XDG_RUNTIME_DIR is unset; the
    backend gives it a private folder of the user's own instead."""
    need_backend("wgpu")
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    env["TMPDIR"] = str(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "devices"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "wgpu: available" in proc.stdout
    assert "XDG_RUNTIME_DIR" not in proc.stderr, proc.stderr
    made = tmp_path / f"harness-runtime-{os.getuid()}"
    assert made.is_dir() and made.stat().st_mode & 0o777 == 0o700


def test_checks_off_where_wgpu_native_lacks_the_trusted_entry_is_skipped(
    device: DeviceInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.backends import wgpu as wgpu_backend

    task = Task("Stream_COPY", "wgpu", device.index, 1000, "f32", wgsl_checks="off")
    row = Runner(RunOptions(check=True)).execute(task)
    assert row["status"] == "ok", row["reason"]
    assert row["wgsl_checks"] == "off"
    monkeypatch.setattr(wgpu_backend, "_trusted_entry", lambda: None)
    row = Runner(RunOptions(check=True)).execute(task)
    assert row["status"] == "skipped"
    assert wgpu_backend.TRUSTED_ENTRY in row["reason"]
    on = Runner(RunOptions(check=True)).execute(replace(task, wgsl_checks="on"))
    assert on["status"] == "ok", on["reason"]


@pytest.mark.parametrize("precision", ["f32", "f64"])
@pytest.mark.parametrize("checks", ["on", "off"])
def test_peak_fma_verifies_with_the_checks_on_and_off(
    device: DeviceInfo, precision: str, checks: str
) -> None:
    # PeakFMA's WGSL keeps its chains in two vectors, 64 steps a loop turn: the
    # sums must still be the reference's chains, in either compilation.
    task = Task("PeakFMA", "wgpu", device.index, 5000, precision, wgsl_checks=checks)
    row = Runner(RunOptions(check=True)).execute(task)
    assert row["status"] == "ok", row["reason"]
    assert float(row["max_rel_error"]) < (1e-5 if precision == "f32" else 1e-12)

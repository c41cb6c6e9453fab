"""A timed run builds its kernels for CPU devices first, several at once
(`harness.execution.runner.ahead`, `Workers.prepare`): with PoCL's cache empty,
building was most of a first run's time, and the timed rows run one at a time.
The drivers keep what they build on disk, so the timed rows build nothing more."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import FIXTURES, harness, need_backend, run_folder

import harness as harness_api
from harness import suite
from harness.execution import results
from harness.execution.runner import RunOptions, Task, ahead, plan
from harness.execution.workers import Workers

KERNELS = ["Stream_COPY", "Stream_TRIAD", "Basic_DAXPY"]


def test_the_timed_rows_find_every_kernel_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With PoCL's cache empty, building ahead compiles each kernel's program and
    builds the form its row's probe runs; the timed rows then compile no program."""
    need_backend("opencl")
    cache = tmp_path / "pocl"
    cache.mkdir()
    monkeypatch.setenv("POCL_CACHE_DIR", str(cache))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    workers = Workers()
    try:
        found = workers.catalogs(["opencl"])
        device = found["opencl"].devices[0]
        devices = {device.id: device.as_dict()}
        options = RunOptions(max_time=0.2, min_time=0.05)
        tasks = plan([suite.BY_NAME[k] for k in KERNELS], [device], options)
        workers.start(options, devices, tasks)
        todo = ahead(tasks, devices, options)
        assert [t.kernel for t in todo] == KERNELS
        assert all(t.size == 1_000_000 // 64 for t in todo)
        assert workers.prepare(todo, lambda: False) == len(KERNELS)
        programs, kernels = _built(cache, "*.bc"), _built(cache, "*.so")
        # Each kernel's probe form, built for its grid; and the generic form of
        # each of its programs (item and chunk), which PoCL builds when asked for
        # the binaries that the build-ahead keeps for the rows.
        grids = [k for k in kernels if "/0-0-0/" not in k]
        assert len(grids) == len(KERNELS) and len(kernels) == 3 * len(KERNELS), kernels
        assert len(list((tmp_path / "cache").rglob("*.bin"))) == 2 * len(KERNELS)
        rows = list(workers.rows(tasks, lambda: False))
    finally:
        workers.close()
    assert [(r["kernel"], r["status"]) for r in rows] == [(k, "ok") for k in KERNELS]
    assert _built(cache, "*.bc") == programs
    # What is left to the rows: the kernels' own work-item form, for the full
    # size's grid (the chunks' grid is the same at every size but the smallest).
    after = _built(cache, "*.so")
    assert set(kernels) < set(after) and len(after) == 4 * len(KERNELS), after


def _built(cache: Path, pattern: str) -> list[str]:
    """What PoCL's cache holds: programs (``*.bc``) or kernels built for a grid
    (``*.so``)."""
    return sorted(str(p.relative_to(cache)) for p in cache.rglob(pattern))


def test_only_compiled_kernels_on_cpu_devices_are_built_ahead() -> None:
    """The numpy backend builds nothing and a GPU builds on the host beside the
    device: neither is built ahead; a kernel's rows of several sizes, caches or
    transfers share one build, at a probe's size (a 64th); rows at sizes of the
    user's choosing probe nothing, so nothing is built ahead for them."""
    devices = {
        "opencl:0": {"kind": "cpu"},
        "cpu:0": {"kind": "cpu"},
        "opencl:1": {"kind": "gpu"},
        "wgpu:0": {"kind": "cpu/software"},
    }
    tasks = [
        Task("Stream_COPY", "opencl", 0, 1_000_000, "f64"),
        Task("Stream_COPY", "opencl", 0, 1_000_000, "f64", cache="cold"),
        Task("Stream_COPY", "opencl", 0, 20_000, "f64"),
        Task("Stream_COPY", "opencl", 0, 1_000_000, "f32"),
        Task("Stream_COPY", "cpu", 0, 1_000_000, "f64"),
        Task("Stream_COPY", "opencl", 1, 1_000_000, "f64"),
        Task("Stream_COPY", "wgpu", 0, 100, "f64"),
    ]
    todo = ahead(tasks, devices, RunOptions())
    assert [(t.backend, t.device, t.size, t.precision, t.cache) for t in todo] == [
        ("opencl", 0, 15_625, "f64", "hot"),
        ("opencl", 0, 15_625, "f32", "hot"),
        ("wgpu", 0, 1, "f64", "hot"),
    ]
    assert ahead(tasks, devices, RunOptions(sizes=(100,))) == []


def test_a_timed_run_says_what_it_builds_first(tmp_path: Path) -> None:
    """The command line says what it builds first and how long it took, and so
    does the run's metadata (that time is no row's host cost)."""
    need_backend("opencl")
    proc = harness(
        "run", "-k", "Stream_COPY", "Stream_ADD", "-b", "opencl", "--max-time", "0.2",
        "--min-time", "0.05", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "building 2 kernels for opencl:0 first, " in proc.stderr
    assert "built 2 in " in proc.stderr and " not, as their rows will say" not in proc.stderr
    folder = run_folder(tmp_path)
    assert [r["status"] for r in results.read_journal(folder)] == ["ok", "ok"]
    built = results.read_metadata(folder)["built_ahead"]
    assert (built["kernels"], built["built"]) == (2, 2) and built["seconds"] > 0


def test_a_source_of_the_users_own_builds_in_its_row() -> None:
    """A kernel whose source comes from ``--sources`` (perhaps mid-change, perhaps
    hanging, as this fixture does) is not built ahead: its row meets its failure."""
    devices = {"opencl:0": {"kind": "cpu"}}
    tasks = [Task(k, "opencl", 0, 1_000_000, "f64") for k in ("Stream_TRIAD", "Stream_ADD")]
    todo = ahead(tasks, devices, RunOptions(sources=(FIXTURES / "hang",)))
    assert [t.kernel for t in todo] == ["Stream_ADD"]
    assert [t.kernel for t in ahead(tasks, devices, RunOptions())] == [
        "Stream_TRIAD",
        "Stream_ADD",
    ]


def test_the_building_has_a_bar_where_the_rows_have_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run with a live bar (a terminal, a notebook) shows the building as one too."""
    need_backend("opencl")
    rows = harness_api.run(
        ["Stream_COPY", "Stream_ADD"], "opencl", out=tmp_path, max_time=0.2, progress=True
    )
    assert list(rows["status"]) == ["ok", "ok"]
    err = capsys.readouterr().err
    assert re.search(r"building: 100%\|.*\| 2/2 \[", err), err

"""Built OpenCL programs kept on disk (`harness.backends.opencl_binaries`): what
the build-ahead builds is kept, a row's build of the same text takes the kept
binary, and a kept binary that is damaged, or a cache that cannot be written,
costs time, never a result."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import need_backend

from harness.backends import opencl_binaries
from harness.execution.runner import Runner, RunOptions, Task


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    need_backend("opencl")
    return opencl_binaries.folder()


TASK = Task("Stream_TRIAD", "opencl", 0, 1001, "f64")


def _row(sources: tuple[Path, ...] = ()) -> dict:
    """One checked row on PoCL, in a fresh session (no program built yet)."""
    runner = Runner(RunOptions(check=True, sources=sources))
    try:
        return runner.execute(TASK)
    finally:
        runner.close()


def _ahead(sources: tuple[Path, ...] = (), task: Task = TASK) -> dict:
    """The build-ahead of a timed row, in a fresh session."""
    runner = Runner(RunOptions(sources=sources))
    try:
        return runner.prepare(task)
    finally:
        runner.close()


def test_the_build_ahead_keeps_its_programs_and_a_row_builds_from_them(cache: Path) -> None:
    assert _row()["status"] == "ok"
    assert not cache.exists()  # a row keeps nothing: it may be built once only
    assert _ahead()["status"] == "ok"
    kept = sorted(cache.glob("*.bin"))
    # Both partitions' programs (a CPU device tries item and chunk).
    assert len(kept) == 2 and all(path.stat().st_size > 0 for path in kept)
    assert not list(cache.glob("*.part"))
    stamps = {path: path.stat().st_mtime_ns for path in kept}
    row = _row()
    assert row["status"] == "ok", row["reason"]
    # Read, not written again.
    assert {path: path.stat().st_mtime_ns for path in cache.glob("*.bin")} == stamps


def test_a_program_of_more_kernels_than_are_kept_is_not_kept(cache: Path) -> None:
    """Apps_PRESSURE's program has two kernels: a binary of it would cost PoCL a
    generic compile of both, more than its rows save."""
    assert opencl_binaries.KEPT_KERNELS < 2
    assert _ahead(task=Task("Apps_PRESSURE", "opencl", 0, 1001, "f64"))["status"] == "ok"
    assert not list(cache.glob("*.bin"))
    assert _ahead()["status"] == "ok"
    assert len(list(cache.glob("*.bin"))) == 2


def test_a_damaged_binary_is_built_again_from_the_text(cache: Path) -> None:
    assert _ahead()["status"] == "ok"
    for path in cache.glob("*.bin"):
        path.write_bytes(b"\x00not a program\xff" * 3)
    row = _row()
    assert row["status"] == "ok", row["reason"]
    assert _ahead()["status"] == "ok"
    assert all(b"not a program" not in path.read_bytes() for path in cache.glob("*.bin"))


def test_a_cache_that_cannot_be_written_costs_no_result(cache: Path) -> None:
    cache.parent.mkdir(parents=True)
    cache.write_text("a file where the folder would be")
    assert _ahead()["status"] == "ok"
    row = _row()
    assert row["status"] == "ok", row["reason"]
    assert cache.read_text() == "a file where the folder would be"


def test_keys_differ_by_text_and_options() -> None:
    class Platform:
        name, version = "p", "1"

    class Device:
        platform = Platform()
        name, version, driver_version = "d", "OpenCL 3.0", "7"

    device = Device()
    base = opencl_binaries.key(device, (), "kernel void k() {}")
    assert base == opencl_binaries.key(device, (), "kernel void k() {}")
    assert base != opencl_binaries.key(device, (), "kernel void k() { }")
    assert base != opencl_binaries.key(device, ("-g",), "kernel void k() {}")
    Device.driver_version = "8"
    assert base != opencl_binaries.key(device, (), "kernel void k() {}")


def test_a_source_that_does_not_compile_is_still_named(cache: Path, tmp_path: Path) -> None:
    broken = tmp_path / "sources" / "opencl"
    broken.mkdir(parents=True)
    (broken / "Stream_TRIAD.cl").write_text("KERNEL void triad(GLOBAL REAL* a) { a[0] = ; }\n")
    row = _row(sources=(tmp_path / "sources",))
    assert row["status"] == "error"
    assert row["reason"].startswith("compile error: Stream_TRIAD.cl failed to compile:")
    built = _ahead(sources=(tmp_path / "sources",))
    assert built["status"] == "error" and "Stream_TRIAD.cl failed to compile" in built["reason"]
    assert not list(cache.glob("*.bin"))


def test_a_relative_cache_home_is_ignored_as_the_xdg_spec_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative XDG_CACHE_HOME would make a cache folder in whatever folder a run
    starts in: the binaries go under the home folder's .cache instead."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "rel/dir")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert opencl_binaries.folder() == tmp_path / "home" / ".cache" / "harness" / "opencl-binaries"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "abs"))
    assert opencl_binaries.folder() == tmp_path / "abs" / "harness" / "opencl-binaries"

"""Built OpenCL programs kept on disk (`harness.backends.opencl_binaries`): a
second build of the same text takes the kept binary, and a kept binary that is
damaged, or a cache that cannot be written, costs time, never a result."""

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


def _row(kernel: str = "Stream_TRIAD", sources: tuple[Path, ...] = ()) -> dict:
    """One checked row on PoCL, in a fresh session (no program built yet)."""
    runner = Runner(RunOptions(check=True, sources=sources))
    try:
        return runner.execute(Task(kernel, "opencl", 0, 1001, "f64"))
    finally:
        runner.close()


def test_a_program_is_kept_and_the_next_session_builds_from_it(cache: Path) -> None:
    assert _row()["status"] == "ok"
    kept = sorted(cache.glob("*.bin"))
    assert kept and all(path.stat().st_size > 0 for path in kept)
    assert not list(cache.glob("*.part"))
    stamps = {path: path.stat().st_mtime_ns for path in kept}
    row = _row()
    assert row["status"] == "ok", row["reason"]
    # Read, not written again.
    assert {path: path.stat().st_mtime_ns for path in cache.glob("*.bin")} == stamps


def test_a_damaged_binary_is_built_again_from_the_text(cache: Path) -> None:
    assert _row()["status"] == "ok"
    for path in cache.glob("*.bin"):
        path.write_bytes(b"\x00not a program\xff" * 3)
    row = _row()
    assert row["status"] == "ok", row["reason"]
    assert all(b"not a program" not in path.read_bytes() for path in cache.glob("*.bin"))


def test_a_cache_that_cannot_be_written_costs_no_result(cache: Path) -> None:
    cache.parent.mkdir(parents=True)
    cache.write_text("a file where the folder would be")
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
    assert not list(cache.glob("*.bin"))

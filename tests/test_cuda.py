"""The CUDA backend where CI runs, without a GPU: every source compiles for the
architectures we care about, a broken source is caught with its file and line,
and a machine without the NVIDIA driver gets one clear line, not a traceback."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, harness, required

from harness import suite
from harness.backends import cuda, cuda_compile
from harness.backends.base import CompileError
from harness.cli import main
from harness.model import sources
from harness.model.spec import PRECISIONS

BROKEN = FIXTURES / "cuda_broken"


def _compiler(name: str | None = None) -> str:
    """A compiler to test with; skips (or fails where required) when there is none."""
    found = cuda_compile.available()
    if name is None and found:
        return found[0]
    if name in found:
        return name
    if not found and required("cuda-compile"):
        pytest.fail(f"cuda-compile is required here: {cuda_compile.no_compiler_reason()}")
    pytest.skip(cuda_compile.no_compiler_reason() if not found else f"{name} is not available")


@pytest.mark.full
def test_every_cuda_source_compiles_for_sm80_and_sm90() -> None:
    compiler = _compiler()
    every = (*suite.ALL, *suite.INTERNAL)
    results = list(cuda_compile.compile_all(every, (80, 90), PRECISIONS, compiler=compiler))
    assert {r.source.stem for r in results} == {k.source_name for k in every}
    assert results, "no CUDA source was compiled"
    assert {(r.arch, r.precision) for r in results} == {
        (a, p) for a in (80, 90) for p in PRECISIONS
    }
    failures = [r.error for r in results if r.error is not None]
    assert not failures, "\n".join(failures)


def test_a_sort_tile_over_48_kib_compiles_as_dynamic_shared_memory() -> None:
    """Declared, 128 KiB of tile is over what ptxas lets a kernel have; given at
    launch it compiles for Hopper, and a tile that fits stays declared."""
    compiler = _compiler()
    source = sources.find("c", ".c", "BitonicPairs")
    assert source is not None
    spec = suite.BY_NAME["Bitonic_PAIRS"].bind({"strategy": "wide", "tile_bytes": "131072"})
    assert cuda_compile.dynamic_shared_bytes(spec) == 131072
    text = cuda_compile.source_text(spec, source, "f64").decode()
    assert text.startswith("#define DYNAMIC_SHARED_BYTES 131072\n")
    assert cuda_compile.compile_source(spec, source, "f64", 90, compiler).image
    declared = dataclasses.replace(spec, work_group_bytes=0)
    with pytest.raises(CompileError, match="bitonic_wide_pass' uses too much shared data"):
        cuda_compile.compile_source(declared, source, "f64", 90, compiler)
    fits = suite.BY_NAME["Bitonic_PAIRS"].bind({"strategy": "tiled", "tile_bytes": "32768"})
    assert fits.work_group_bytes == 32768
    assert cuda_compile.dynamic_shared_bytes(fits) == 0
    assert (
        "#define DYNAMIC_SHARED_BYTES" not in cuda_compile.source_text(fits, source, "f64").decode()
    )


@pytest.mark.parametrize("compiler", cuda_compile.COMPILERS)
def test_planted_syntax_error_fails_the_check_with_file_and_line(compiler: str) -> None:
    compiler = _compiler(compiler)
    triad = suite.BY_NAME["Stream_TRIAD"]
    shipped = sources.find("cuda", ".cu", "Stream_TRIAD")
    assert shipped is not None
    good = cuda_compile.compile_source(triad, shipped, "f32", 80, compiler)
    assert good.image and good.kind == "cubin" and good.target == "sm_80"
    (result,) = cuda_compile.compile_all(suite.ALL, (80,), ("f64",), BROKEN, compiler)
    assert result.error is not None
    assert "Stream_TRIAD.cu(8): error" in result.error, result.error
    with pytest.raises(CompileError, match=r"Stream_TRIAD\.cu\(8\): error"):
        cuda_compile.compile_source(triad, BROKEN / "cuda" / "Stream_TRIAD.cu", "f32", 90, compiler)


def test_compile_check_command_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    compiler = _compiler()
    args = ["cuda-compile", "--arch", "80", "--precision", "f64", "--compiler", compiler]
    assert main([*args, "--sources", str(BROKEN)]) == 1
    assert "Stream_TRIAD.cu sm_80 f64: error:" in capsys.readouterr().out


def test_device_architecture_outside_the_compiler_range() -> None:
    compiler = _compiler()
    arches = cuda_compile.supported_arches(compiler)
    if not arches:
        pytest.skip(f"{cuda_compile.version(compiler)} does not list its architectures")
    source = sources.find("cuda", ".cu", "Stream_TRIAD")
    assert source is not None
    triad = suite.BY_NAME["Stream_TRIAD"]
    newer = cuda_compile.compile_source(triad, source, "f64", arches[-1] + 100, compiler)
    assert (newer.kind, newer.target) == ("ptx", f"compute_{arches[-1]}")
    with pytest.raises(CompileError, match="cannot compile for sm_"):
        cuda_compile.compile_source(triad, source, "f64", arches[0] - 1, compiler)


def test_module_the_driver_refuses_names_a_too_new_compiler() -> None:
    source = sources.find("cuda", ".cu", "Stream_DOT")
    assert source is not None
    binary = cuda_compile.compile_source(
        suite.BY_NAME["Stream_DOT"], source, "f64", 80, _compiler()
    )
    refused = RuntimeError("cuModuleLoadData failed: CUDA_ERROR_UNSUPPORTED_PTX_VERSION")
    old_driver = cuda.load_failure(source, binary, refused, 11080)
    assert old_driver.startswith("Stream_DOT.c: the driver (CUDA 11.8) could not load")
    assert "the compiler is newer than the driver" in old_driver
    assert "newer" not in cuda.load_failure(source, binary, refused, 99000)


@pytest.mark.parametrize(
    ("kind", "error", "driver", "hinted"),
    [
        # A cubin loads on any driver of its major release: 13.5's on a 13.0 driver.
        ("cubin", "CUDA_ERROR_INVALID_IMAGE", 13000, False),
        ("cubin", "CUDA_ERROR_NO_BINARY_FOR_GPU", 12080, True),
        # PTX needs a driver at least as new as the compiler.
        ("ptx", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", 13000, True),
        ("ptx", "the provided PTX was compiled with an unsupported toolchain", 12080, True),
        # Other refusals are not explained by the compiler's version.
        ("cubin", "CUDA_ERROR_OUT_OF_MEMORY", 12080, False),
        ("ptx", "CUDA_ERROR_ILLEGAL_ADDRESS", 13000, False),
    ],
)
def test_the_newer_compiler_hint_only_where_it_explains_the_refusal(
    kind: str, error: str, driver: int, hinted: bool
) -> None:
    binary = cuda_compile.Binary(b"", kind, "sm_90", "NVRTC 13.5")
    refused = RuntimeError(f"cuModuleLoadData failed: {error}")
    text = cuda.load_failure(Path("Stream_DOT.c"), binary, refused, driver)
    assert text.endswith(error) != hinted
    assert ("the compiler is newer than the driver" in text) == hinted


def test_a_driver_the_bindings_cannot_use_keeps_their_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a missing driver library reads as 'no NVIDIA driver found'; any other
    failure of cuInit (a driver older than the bindings) says what the binding said."""
    driver = pytest.importorskip("cuda.bindings.driver")

    def too_old(flags: int) -> None:
        raise RuntimeError("cuInit requires a driver for CUDA 13.0, found CUDA 12.2")

    monkeypatch.setattr(driver, "cuInit", too_old)
    reason = cuda.CudaBackend("cuda-python").unavailable_reason()
    assert reason is not None and reason != cuda.NO_DRIVER
    assert "RuntimeError: cuInit requires a driver for CUDA 13.0, found CUDA 12.2" in reason
    assert "pip install 'harness[cuda12]'" in reason


def test_unknown_binding_is_reported() -> None:
    reason = cuda.CudaBackend("nonsense").unavailable_reason()
    assert reason is not None and "cuda-python or pycuda" in reason


def _driverless_reason() -> str:
    """The reason cuda is unavailable on a machine without the driver; skips elsewhere."""
    reason = cuda.CudaBackend().unavailable_reason()
    if reason not in (cuda.NO_DRIVER, cuda.NO_BINDING):
        pytest.skip(f"not a machine without the NVIDIA driver: {reason or 'cuda is available'}")
    return reason


def test_devices_says_why_cuda_is_unavailable() -> None:
    reason = _driverless_reason()
    proc = harness("devices")
    assert proc.returncode == 0, proc.stderr
    assert f"cuda: unavailable: {reason}" in proc.stdout.splitlines()
    assert "pip install 'harness[cuda]'" in reason
    assert "Traceback" not in proc.stderr


def test_run_on_cuda_without_driver_exits_with_one_line(tmp_path: Path) -> None:
    reason = _driverless_reason()
    proc = harness("run", "-b", "cuda", "--check", "--out", str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and reason in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_an_interrupted_cuda_compile_keeps_the_compiles_it_has_shown(tmp_path: Path) -> None:
    """Ctrl-C in harness cuda-compile showed none of the compiles done before it. With
    a cache of its own, empty: kept images would end the check before the signal."""
    _compiler()
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "cuda-compile", "--arch", "80"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)},
    )
    first = proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    # Read through the file object: communicate() reads the pipe itself, which loses
    # the lines readline() took into its buffer with the first.
    rest, err = proc.stdout.read(), proc.stderr.read()
    proc.wait(timeout=300)
    assert proc.returncode == 130, err
    shown = [first, *rest.splitlines()]
    assert first.endswith(": ok\n") and len(shown) < 2 * len(suite.ALL)
    assert f"{len(shown)} of {len(shown)} compiled before the interrupt" in err.splitlines()


def test_a_compile_is_kept_and_a_damaged_kept_image_is_compiled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a compile made is kept under the user's cache, by a digest of what it was
    made from, and read back by the next compile of the same text; a kept image
    whose digest no longer matches is compiled again and kept anew."""
    compiler = _compiler()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    spec = suite.BY_NAME["Stream_TRIAD"]
    source = sources.find("cuda", ".cu", "Stream_TRIAD")
    assert source is not None
    made = cuda_compile.compile_source(spec, source, "f64", 90, compiler)
    (kept,) = cuda_compile.kept_folder().iterdir()
    assert kept.parent == tmp_path / "harness" / "cuda-binaries"
    assert kept.read_bytes() == made.image + hashlib.sha256(made.image).digest()
    planted = b"an image read back, not compiled"
    kept.write_bytes(planted + hashlib.sha256(planted).digest())
    assert cuda_compile.compile_source(spec, source, "f64", 90, compiler).image == planted
    kept.write_bytes(planted + b"\0" * 32)
    assert cuda_compile.compile_source(spec, source, "f64", 90, compiler) == made
    assert kept.read_bytes() == made.image + hashlib.sha256(made.image).digest()
    cuda_compile.compile_source(spec, source, "f32", 90, compiler)
    assert len(list(cuda_compile.kept_folder().iterdir())) == 2

"""The library variant: a vendor BLAS called on the harness's own device arrays,
timed and verified like a kernel, beside the harness's kernel in one run."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

from harness import suite
from harness.backends import clblast
from harness.execution import results
from harness.execution.runner import Runner, RunOptions, Task
from harness.model import contract
from harness.model.spec import library_routine


def test_the_library_variant_calls_gemm_and_has_no_kernel_to_compile() -> None:
    spec = suite.spec_of("Polybench_GEMM").with_params({"impl": "library"})
    (launch,) = spec.plan(spec.check_size)
    assert library_routine(launch.entry) == "gemm"
    assert launch.values["beta"] == 0.0
    # The source's own entry points stay the kernel's alone.
    assert {entry for entry, _ in contract.launches(suite.spec_of("Polybench_GEMM"))} == {"gemm"}


def test_library_and_kernel_verify_side_by_side(tmp_path: Path) -> None:
    for backend in ("opencl", "wgpu"):
        need_backend(backend)
    clblast.library()  # CLBlast is part of the set-up: a missing one fails here
    proc = harness(
        "run", "-k", "Polybench_GEMM", "-b", "cpu", "opencl", "wgpu", "--check",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path))
    status = {(r["impl"], r["backend"], r["size"]): r["status"] for r in rows}
    sizes = suite.spec_of("Polybench_GEMM").sizes_for_check
    for size in sizes:
        for impl in ("kernel", "library"):
            assert status[(impl, "cpu", size)] == status[(impl, "opencl", size)] == "ok"
        assert status[("kernel", "wgpu", size)] == "ok"
    skipped = [r for r in rows if r["impl"] == "library" and r["backend"] == "wgpu"]
    assert {r["reason"].split(" (")[0] for r in skipped} == {"WebGPU has no vendor library to call"}


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_blas_shaped_polybench_kernels_verify_as_blas_calls(tmp_path: Path, precision: str) -> None:
    """3MM (three gemm), ATAX (gemv, then the transposed gemv) and GESUMMV (two
    gemv, the second adding to the first) as CLBlast and numpy's BLAS compute them."""
    need_backend("opencl")
    names = ("Polybench_3MM", "Polybench_ATAX", "Polybench_GESUMMV")
    proc = harness(
        "run", "-k", *names, "--impl", "library", "-b", "cpu", "opencl", "--check",
        "--precision", precision, "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path))
    assert {r["kernel"] for r in rows} == set(names)
    assert all(r["status"] == "ok" and r["impl"] == "library" for r in rows)
    routines = [
        library_routine(launch.entry)
        for name in names
        for launch in suite.spec_of(name).with_params({"impl": "library"}).plan(10_000)
    ]
    assert routines == ["gemm"] * 3 + ["gemv", "gemv_t", "gemv", "gemv"]


def test_sgemv_and_its_library_call_verify_in_single_precision(tmp_path: Path) -> None:
    for backend in ("opencl", "wgpu"):
        need_backend(backend)
    proc = harness(
        "run", "-k", "Demo_SGEMV", "-b", "cpu", "opencl", "wgpu", "--check",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path))
    status = {(r["impl"], r["backend"], r["size"]): r["status"] for r in rows}
    for size in suite.spec_of("Demo_SGEMV").sizes_for_check:
        assert status[("kernel", "wgpu", size)] == "ok"
        for backend in ("cpu", "opencl"):
            assert status[("kernel", backend, size)] == status[("library", backend, size)] == "ok"
    # The kernel's f32 sums are checked against an f64 reference, not against themselves.
    assert all(0 < r["max_rel_error"] < 1e-4 for r in rows if r["status"] == "ok")


def test_the_report_puts_the_library_beside_the_kernel(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "run", "-k", "Polybench_GEMM", "-b", "opencl", "--size", "10000", "--reps", "3",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    with (folder / results.RESULTS).open() as f:
        rows = {r["impl"]: r for r in csv.DictReader(f)}
    assert rows.keys() == {"kernel", "library"}
    assert all(float(r["gflops_per_s"]) > 0 for r in rows.values())
    report = harness("report", str(folder), "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    lines = (tmp_path / "report" / "report.md").read_text().splitlines()
    gemm = [line for line in lines if line.startswith("| Polybench_GEMM | opencl")]
    assert [line.split(" | ")[3] for line in gemm] == ["kernel", "library"]


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_a_wrong_library_call_fails_its_row(
    precision: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check sees the library's result: a gemm given A and B swapped fails
    (on the random check case: RAJAPerf's near-constant inputs hide it)."""
    need_backend("opencl")
    real = clblast.gemm

    def swapped(queue, buffers, scalars, precision):  # type: ignore[no-untyped-def]
        c, a, b = buffers
        return real(queue, (c, b, a), scalars, precision)

    monkeypatch.setitem(clblast.ROUTINES, "gemm", swapped)
    runner = Runner(RunOptions(check=True))
    try:
        task = Task("Polybench_GEMM", "opencl", 0, 4096, precision, (("impl", "library"),))
        row = runner.execute(task)
    finally:
        runner.close()
    assert row["status"] == "fail"
    assert row["reason"].startswith("check case 'random': C: ")


def test_a_launch_naming_no_known_routine_is_refused() -> None:
    with pytest.raises(ValueError, match="no library routine 'axpy'; there are gemm, gemv, gemv_t"):
        library_routine("library:axpy")
    assert library_routine("gemm") is None

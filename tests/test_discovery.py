"""Devices are listed by worker processes, so a driver that crashes or hangs
while listing costs its backend, not the run; the parent never loads a driver."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, harness, need_backend, required, run_folder

from harness import results


def broken_opencl(tmp_path: Path, *flags: str) -> dict[str, str]:
    """Build the fake OpenCL driver and an environment whose loader sees only it."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        message = "no C compiler (cc) to build the fake OpenCL driver"
        if required("opencl"):
            pytest.fail(message)
        pytest.skip(message)
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    library = vendors / "libbroken.so"
    source = FIXTURES / "broken_opencl_driver" / "driver.c"
    subprocess.run(
        [compiler, "-shared", "-fPIC", *flags, "-o", str(library), str(source)], check=True
    )
    (vendors / "broken.icd").write_text(f"{library}\n")
    return {"OCL_ICD_VENDORS": str(vendors)}


def test_a_driver_crashing_while_listing_costs_only_its_backend(tmp_path: Path) -> None:
    need_backend("opencl")
    env = broken_opencl(tmp_path)
    out = tmp_path / "out"
    proc = harness("run", "-k", "Stream_COPY", "--check", "--out", str(out), env=env)
    assert proc.returncode == 0, proc.stderr
    assert (
        "note: skipping opencl: worker crashed: signal 11 (SIGSEGV) while listing devices"
        in proc.stderr
    )
    with (run_folder(out) / results.RESULTS).open() as f:
        rows = list(csv.DictReader(f))
    assert {r["device_id"] for r in rows} >= {"cpu:0"}
    assert not any(r["device_id"].startswith("opencl") for r in rows)
    assert all(r["status"] == "ok" for r in rows)


def test_asking_for_a_backend_whose_driver_crashes_is_a_usage_error(tmp_path: Path) -> None:
    need_backend("opencl")
    env = broken_opencl(tmp_path)
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "opencl", "--check", env=env)
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith(
        "harness: error: backend opencl is unavailable: "
        "worker crashed: signal 11 (SIGSEGV) while listing devices"
    )


def test_devices_reports_a_crashing_driver_and_lists_the_rest(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness("devices", env=broken_opencl(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert (
        "opencl: unavailable: worker crashed: signal 11 (SIGSEGV) while listing devices"
        in proc.stdout
    )
    assert "cpu: available, 1 device(s)" in proc.stdout


def test_a_driver_hanging_while_listing_times_out(tmp_path: Path) -> None:
    need_backend("opencl")
    env = broken_opencl(tmp_path, "-DHANG")
    args = ("run", "-k", "Stream_COPY", "-b", "cpu", "opencl", "--check", "--timeout", "3")
    proc = harness(*args, env=env, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith(
        "harness: error: backend opencl is unavailable: timed out after 3 s while listing devices"
    )


def run_script(script: str, args: list[str], out: Path) -> subprocess.CompletedProcess:
    """Run a Python script that calls the harness's ``main`` with ``args``."""
    return subprocess.run(
        [sys.executable, "-c", script, *args, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )


RUN_THEN_LIST_MODULES = """
import sys
from harness.cli import main
status = main(sys.argv[1:])
print(sorted(m for m in ("pyopencl", "wgpu", "cuda.bindings.driver") if m in sys.modules))
sys.exit(status)
"""


def test_the_parent_of_a_run_never_loads_a_driver(tmp_path: Path) -> None:
    need_backend("opencl")
    need_backend("wgpu")
    args = ["run", "-k", "Stream_COPY", "-b", "cpu", "opencl", "wgpu", "--check"]
    proc = run_script(RUN_THEN_LIST_MODULES, args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
    assert "3 ok, 0 fail, 0 error, 0 skipped" in proc.stdout


OPEN_OPENCL_THEN_RUN = """
import sys
import pyopencl
pyopencl.get_platforms()[0].get_devices()
from harness.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_workers_start_afresh_when_the_caller_already_opened_a_driver(tmp_path: Path) -> None:
    """Forking a process that has initialised PoCL gives children that hang; the
    harness must notice and start its workers as new interpreters instead."""
    need_backend("opencl")
    args = ["run", "-k", "Stream_COPY", "Stream_DOT", "-b", "cpu", "opencl", "--check"]
    proc = run_script(OPEN_OPENCL_THEN_RUN, args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "4 ok, 0 fail, 0 error, 0 skipped" in proc.stdout

"""Worker processes: they list the devices, so a driver that crashes or hangs
while listing costs its backend, not the run, and the parent never loads a
driver; they get large inputs through one shared file, and leave nothing behind."""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, harness, need_backend, required, run_folder

from harness.execution import results


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
        "harness: error: backend opencl is unavailable: timed out after 10 s while listing devices"
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
    args = ["run", "-k", "Stream_COPY", "-b", "cpu", "opencl", "wgpu", "--check", "--size", "999"]
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
    args += ["--size", "999"]
    proc = run_script(OPEN_OPENCL_THEN_RUN, args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "4 ok, 0 fail, 0 error, 0 skipped" in proc.stdout


def _shm_entries() -> set[str]:
    shm = Path("/dev/shm")
    return (
        {p.name for p in shm.iterdir() if p.name.startswith("harness-")} if shm.is_dir() else set()
    )


def _rows(out: Path) -> dict[tuple, tuple]:
    with (run_folder(out) / results.RESULTS).open() as f:
        return {
            (r["kernel"], r["device_id"], r["size"]): (
                r["status"],
                r["checksum"],
                r["max_rel_error"],
            )
            for r in csv.DictReader(f)
        }


def test_large_inputs_reach_the_workers_intact(tmp_path: Path) -> None:
    """Above the inline limit, inputs and references go through shared files (in a
    check, one per kernel, as each device's workers move through the kernels at
    their own pace): every row is the in-process run's, and no file is left."""
    need_backend("opencl")
    before = _shm_entries()
    args = ["run", "-k", "Stream_TRIAD", "Stream_DOT", "-b", "cpu", "opencl", "--check"]
    args += ["--sizes", "2^19..2^20"]
    workers = harness(*args, "--out", str(tmp_path / "workers"))
    assert workers.returncode == 0, workers.stderr
    in_process = harness(*args, "--in-process", "--out", str(tmp_path / "in-process"))
    assert in_process.returncode == 0, in_process.stderr
    rows = _rows(tmp_path / "workers")
    assert len(rows) == 8
    assert all(status == "ok" for status, _, _ in rows.values())
    assert rows == _rows(tmp_path / "in-process")
    assert _shm_entries() == before


def _processes_naming(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc to find processes")
def test_a_killed_run_leaves_no_worker_and_no_file_behind(tmp_path: Path) -> None:
    need_backend("opencl")
    before = _shm_entries()
    out = tmp_path / "killed"
    args = ["-k", "Stream_COPY", "Stream_TRIAD", "-b", "cpu", "opencl", "--check"]
    args += ["--sources", str(FIXTURES / "hang"), "--out", str(out)]
    env = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "run", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        journals = list(out.glob("*/journal.jsonl"))
        if journals and len(journals[0].read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the run did not reach the hanging kernel within two minutes")
    time.sleep(0.5)
    workers = [pid for pid in _processes_naming(str(out)) if pid != proc.pid]
    assert workers, "no worker process found while the run was in its hanging kernel"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while _processes_naming(str(out)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_naming(str(out)) == []
    assert _shm_entries() == before

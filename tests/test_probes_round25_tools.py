"""Round 25 probes of the commands mutants, peak, cuda-compile, devices and list,
and of the benchmark scripts: each test says what was wrong before."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, harness_to_gone_reader, need_backend, one_error
from test_peak_store import GOOD, SMALL

from harness.backends import get as get_backend
from harness.execution import peaks
from harness.model import sources

ENV = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}


def _to_full(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``harness ARGS > /dev/full``."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        return subprocess.run(
            [sys.executable, "-m", "harness", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**ENV, **(env or {})},
            timeout=300,
        )


def _script(script: str, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "benchmarks" / script), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=ENV)


def test_peak_json_to_a_full_disk_is_refused_before_measuring(tmp_path: Path) -> None:
    """``harness peak --json > /dev/full`` measured every device, lost the JSON asked
    for, and exited 0 with a warning: it is now refused before anything is
    measured, one line, exit 2."""
    store = tmp_path / "peaks.json"
    proc = _to_full("peak", "-b", "cpu", "--json", *SMALL, env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "cannot write the standard output (No space left on device); send it to a file "
        "on a disk with free space"
    )
    assert not store.exists()


def test_a_peak_not_kept_is_not_said_kept_when_stdout_is_full(tmp_path: Path) -> None:
    """``harness peak > /dev/full`` whose peak was refused (under load, or lower than
    the stored one) ended 'the peaks measured are kept in STORE', where none was."""
    store = tmp_path / "peaks.json"
    key = peaks.device_key(get_backend("cpu").default_devices()[0].as_dict())
    # Far above anything this host measures: the new peak is refused.
    store.write_text(json.dumps({key: GOOD}))
    before = store.read_bytes()
    proc = _to_full("peak", "-b", "cpu", *SMALL, env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "harness: warning: cannot write the standard output (No space left on device); "
        "the peaks measured are not kept (see above)"
    )
    assert store.read_bytes() == before


def test_the_simulator_peak_keeps_every_figure(tmp_path: Path) -> None:
    """``harness peak --device <oclgrind>`` dropped the simulator's FMA figures: at the
    default 2^20 work-items a repetition would take hours, so they were skipped
    (the note said to give --size, which peak has not), and at any size they were
    refused as figures 'no device does' (under 1e-3 GFLOP/s). Its bandwidth took
    eight minutes. It is measured at the least sizes, in seconds, and every
    figure is kept."""
    need_backend("opencl")
    oclgrind = [d for d in get_backend("opencl").devices() if d.kind == "simulator"]
    if not oclgrind:
        pytest.skip("no Oclgrind simulator here")
    store = tmp_path / "peaks.json"
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "peak", "--device", oclgrind[0].id, "--force",
         "--span", "0.1", "--max-time", "0.1"],
        capture_output=True, text=True, timeout=300, env={**ENV, "HARNESS_PEAKS": str(store)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (entry,) = json.loads(store.read_text()).values()
    assert set(entry["fma_gflops_per_s"]) == {"f64", "f32"}
    assert entry["copy_size"] == entry["triad_size"] == peaks.LEAST_BANDWIDTH_SIZE
    assert all(
        0 < figure < 1
        for figure in (entry["copy_gbytes_per_s"], *entry["fma_gflops_per_s"].values())
    )
    line = proc.stdout.splitlines()[0]
    assert line.startswith(f"{oclgrind[0].id} (Oclgrind Simulator): copy ") and "FMA f32" in line


def test_host_cost_check_takes_the_level_harness_run_takes() -> None:
    """``python benchmarks/host_cost.py --check quick`` passed 'quick' on as a run
    option, and the script ended 'harness: error: unrecognized arguments: quick';
    --check takes harness run's levels, and a bad one is named in one line."""
    proc = _script("host_cost.py", "--check", "quickly")
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr == (
        "host_cost.py: error: argument --check: invalid choice: 'quickly' (choose from "
        "'quick', 'full') (see --help)\n"
    )


def test_mutants_stops_at_the_first_survivor_when_asked(tmp_path: Path) -> None:
    """``harness mutants`` had no way to stop at the first surviving mutant (as
    pytest -x): --stop-at-first-survivor names it, leaves the rest 'not run' in a
    partial table, and exits 1 (a survivor, not an interrupt's 130)."""
    need_backend("opencl")
    bound = "    for (size_t j = b; j < b + m; ++j) {"
    line = (sources.shipped_root() / "c" / "Apps_ENERGY.c").read_text().split("\n").index(bound)
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "mutants", "-k", "Apps_ENERGY", "-b", "opencl",
         "--precision", "f64", "--no-simulator", "--lines", f"Apps_ENERGY.c:{line + 1}",
         "--stop-at-first-survivor", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env=ENV,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    survivor = (
        f"Apps_ENERGY on opencl:0: Apps_ENERGY.c:{line + 1}: for (size_t j = b; j < b + m; ++j) "
        "{  ->  for (size_t j = b; j <= b + m; ++j) {"
    )
    assert proc.stderr.splitlines()[-1] == (
        f"stopped at the first survivor ({survivor}); 2 chosen mutant(s) not checked; "
        "the table is partial"
    )
    assert proc.stdout.startswith("stopped at the first survivor: a partial table (see below)\n")
    (folder,) = tmp_path.iterdir()
    with open(folder / "mutants.csv", newline="") as f:
        statuses = [(r["status"], r["detail"]) for r in csv.DictReader(f)]
    assert statuses == [
        ("survived", ""),
        ("not run", "stopped at the first survivor"),
        ("not run", "stopped at the first survivor"),
    ]


@pytest.mark.parametrize(
    ("script", "args", "error"),
    [
        ("queue_hold.py", ["--size", "2^16"],
         "argument --size: '2^16' is not a whole number"),
        ("queue_hold.py", ["-b", "bogus"],
         "argument -b/--backend: 'bogus' is no backend; choose from cpu, opencl, wgpu, cuda"),
        ("queue_hold.py", ["-k", "NoSuch"], "no kernel matches 'NoSuch'; give a kernel name"),
        ("sort_vs_numpy.py", ["-b", "bogus"],
         "argument -b/--backends: 'bogus' is no backend; choose from cpu, opencl, wgpu, cuda"),
        ("dispatch_chain.py", ["--device", "bogus:0"],
         "argument --device: 'bogus:0': no such device: unknown backend 'bogus'"),
        ("dispatch_chain.py", ["--device", ""],
         "argument --device: '' is empty; give BACKEND:INDEX as 'harness devices' lists it"),
        ("peak_vs_babelstream.py", ["--babelstream", "true", "--device", "cpu:7"],
         "argument --device: 'cpu:7': no such device; cpu has cpu:0"),
        ("cache_cold_hot.py", ["-k", "NoSuch"], "no kernel matches 'NoSuch'; give a kernel name"),
    ],
)  # fmt: skip
def test_scripts_refuse_what_they_passed_on_to_harness_unchecked(
    script: str, args: list[str], error: str
) -> None:
    """These values went to harness run (or peak) unchecked: the refusal came under
    the harness's name ('harness: error: unknown backend ...'), after the script had
    begun (cache_cold_hot.py printed its device's cache first), and queue_hold.py
    refused --size 2^16, its help's own default, only there. Each is the script's
    one line now, before anything runs."""
    proc = _script(script, *args)
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr.startswith(f"{script}: error: {error}"), proc.stderr
    assert proc.stderr.endswith(" (see --help)\n") and proc.stderr.count("\n") == 1


def test_a_peak_whose_reader_went_away_is_kept(tmp_path: Path) -> None:
    """``harness peak | head -1``: the line of a device measured after head had gone
    ended the command (141) before its peak was kept, the measurement lost. It is
    kept, no other device is measured, and the command ends quietly, 141."""
    store = tmp_path / "peaks.json"
    proc = harness_to_gone_reader(
        "peak", "-b", "cpu", "--force", *SMALL, env={"HARNESS_PEAKS": str(store)}
    )
    assert proc.returncode == 141, proc.stderr
    assert "Traceback" not in proc.stderr and "error" not in proc.stderr
    (entry,) = json.loads(store.read_text()).values()
    assert entry["device"]["id"] == "cpu:0" and entry["flagged"] is bool(entry["warnings"])


def test_mutants_whose_reader_went_away_writes_its_folder(tmp_path: Path) -> None:
    """``harness mutants ... | true``: the table could not be printed, and the
    command ended (141) before its folder was written, the check's minutes lost.
    The folder is written, and the status is the check's."""
    need_backend("opencl")
    proc = harness_to_gone_reader("mutants", "-k", "Stream_COPY", "-b", "opencl", "--precision",
                           "f64", "--sample", "1", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "warning" not in proc.stderr
    (folder,) = tmp_path.iterdir()
    assert "Stream_COPY" in (folder / "mutants.csv").read_text()
    assert (folder / "summary.txt").is_file()


def test_a_script_whose_output_cannot_be_written_says_so_in_one_line() -> None:
    """``python benchmarks/launch_breakdown.py ... > /dev/full`` measured, then ended
    in an OSError traceback; ``| true`` in a BrokenPipeError one. A full output is
    one line before anything is measured (exit 2), a reader gone ends quietly (141)."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    command = [sys.executable, str(ROOT / "benchmarks" / "launch_breakdown.py"), "-k",
               "Stream_COPY", "--size", "1000", "-b", "cpu", "--each"]  # fmt: skip
    with open("/dev/full", "w") as full:
        proc = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True, env=ENV)
    assert proc.returncode == 2
    assert proc.stderr == (
        "launch_breakdown.py: error: cannot write the standard output (No space left on "
        "device); send it to a file on a disk with free space\n"
    )
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run(command, stdout=write, stderr=subprocess.PIPE, text=True, env=ENV)
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (141, "")


def test_a_peaks_store_whose_name_is_too_long_is_one_line(tmp_path: Path) -> None:
    """HARNESS_PEAKS naming a file whose name is too long for the file system ended
    ``harness peak`` (and every ``harness run``) in an OSError traceback from the
    look for a link; peak names the store in one line, before measuring."""
    store = tmp_path / ("a" * 300)
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "peak", "-b", "cpu", *SMALL],
        capture_output=True, text=True, timeout=120, env={**ENV, "HARNESS_PEAKS": str(store)},
    )  # fmt: skip
    assert proc.returncode == 2
    assert one_error(proc.stderr) == (
        f"peaks store {store}: cannot be read (File name too long); point HARNESS_PEAKS at "
        "another file"
    )
    assert "measuring" not in proc.stderr


def test_host_cost_tree_with_a_name_too_long_is_one_line(tmp_path: Path) -> None:
    """``host_cost.py --tree`` with a name too long for the file system ended in an
    OSError traceback where any other path that is no checkout is one line."""
    tree = tmp_path / ("a" * 300)
    proc = _script("host_cost.py", "--tree", str(tree))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        f"host_cost.py: error: --tree {str(tree)!r}: not a checkout of the harness (see --help)\n"
    )


def test_fma_checks_refuses_a_wgpu_device_there_is_not() -> None:
    """``fma_checks.py --device wgpu:9`` printed an error row per round and precision
    on stdout, then an empty table, and exited 0."""
    need_backend("wgpu")
    proc = _script("fma_checks.py", "--device", "wgpu:9")
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr.startswith("fma_checks.py: error: --device 'wgpu:9': no such device; ")


def test_peak_json_to_a_file_on_a_full_disk_is_refused_before_measuring(tmp_path: Path) -> None:
    """``harness peak --json > FILE`` on a disk with no block left measured, then lost
    the JSON (a write of nothing there succeeds, so only the disk tells)."""
    if not shutil.which("mount"):
        pytest.skip("no mount here")
    small = tmp_path / "small"
    small.mkdir()
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(small)],
                           capture_output=True)  # fmt: skip
    if mount.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mount.stderr.decode().strip()}")
    try:
        with contextlib.suppress(OSError), open(small / "fill", "wb") as fill:
            while True:
                fill.write(bytes(4096))
                fill.flush()
        with open(small / "peaks.out", "w") as out:
            proc = subprocess.run(
                [sys.executable, "-m", "harness", "peak", "-b", "cpu", "--json", *SMALL],
                stdout=out, stderr=subprocess.PIPE, text=True, timeout=120,
                env={**ENV, "HARNESS_PEAKS": str(tmp_path / "peaks.json")},
            )  # fmt: skip
    finally:
        subprocess.run(["umount", "-l", str(small)], check=True)
    assert proc.returncode == 2
    assert one_error(proc.stderr) == (
        "cannot write the standard output (No space left on device); send it to a file "
        "on a disk with free space"
    )
    assert not (tmp_path / "peaks.json").exists()

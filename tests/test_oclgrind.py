"""The Oclgrind simulator as a checking device: the bugs CPU devices hide (a
missing barrier, an array one short) fail a --check row on it, named."""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import harness, need_backend, required, run_folder

from harness.backends import oclgrind
from harness.backends.base import KernelFault
from harness.execution import results
from harness.execution.runner import Task, default_timeout
from harness.model import sources
from harness.model.partition import compiled_lines
from harness.suite import BY_NAME

ROOT = Path(__file__).resolve().parent.parent
#: The barrier after the tile's register presort, in the C sorts' shared header.
PRESORT_BARRIER = """            TILE_REG_STORE(first, first, 1)
        }
        BARRIER();
"""
#: The macro that loads a tile pass's keys into registers, and its loop's bound.
REGISTER_LOAD = "#define TILE_REG_LOAD("
#: MAT_MAT_SHARED's tiles of doubles against the simulator's own work-group memory.
MAT_MAT_SHARED_SKIP = (
    "mat_mat_shared needs 34816 bytes of work-group memory; the device has 32768 (local_mem_bytes)"
)
BOUND = "i < PASS_KEYS;"
# A guard against a hung run, not a speed target: the simulator runs a kernel
# hundreds of times slower than PoCL, and these runs took over 300 s on a loaded
# two-core machine that takes 135 s when quiet.
SIMULATED = 1500


def _simulator() -> dict:
    """The simulator's entry in `harness devices`; skips where it is not installed."""
    need_backend("opencl")
    listed = json.loads(harness("devices", "--json").stdout)
    opencl = next(b for b in listed if b["backend"] == "opencl")
    found = [d for d in opencl["devices"] if d["kind"] == "simulator"]
    if not found:
        if required("oclgrind"):
            pytest.fail("the Oclgrind simulator is required here but the OpenCL loader lists none")
        pytest.skip("Oclgrind is not installed (Debian: apt install oclgrind, and its ICD)")
    return found[0]


def _planted(tmp_path: Path, after: str, old: str, new: str) -> Path:
    """A sources folder with the C sorts, the first ``old`` after ``after`` in
    their header replaced by ``new``."""
    folder = tmp_path / "sources" / "c"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "kernels" / "c" / "Bitonic.c", folder)
    header = (ROOT / "kernels" / "c" / "bitonic.h").read_text()
    assert header.count(after) == 1
    at = header.index(old, header.index(after))
    (folder / "bitonic.h").write_text(header[:at] + new + header[at + len(old) :])
    return folder.parent


def _check(tmp_path: Path, device: str, *args: str) -> list[dict]:
    out = tmp_path / f"run-{device.replace(':', '-')}"
    proc = harness(
        "run", "--check", "-k", "Bitonic_U32", "--strategy", "tiled", "--steps", "4",
        "--size", "5", "--device", device, *args, "--out", str(out),
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    return results.read_journal(run_folder(out))


def test_the_simulator_comes_last_and_is_never_a_default(tmp_path: Path) -> None:
    device = _simulator()
    listed = json.loads(harness("devices", "--json").stdout)
    opencl = next(b for b in listed if b["backend"] == "opencl")["devices"]
    assert opencl[-1]["id"] == device["id"]
    assert all(d["kind"] != "simulator" for d in opencl[:-1])
    assert device["note"].startswith("not used by default: a simulator that reports data races")
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "opencl", "--check", "--size", "100",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert device["id"] not in {r["device_id"] for r in results.read_journal(run_folder(tmp_path))}


def test_a_row_on_the_simulator_waits_ten_times_as_long_by_default() -> None:
    device = _simulator()
    task = Task("Stream_TRIAD", "opencl", int(device["id"].split(":")[1]), 10**6, "f64")
    assert default_timeout(task, "cpu") == default_timeout(task) == 130
    assert default_timeout(task, device["kind"]) == 1300


@pytest.mark.full
def test_sorts_past_one_tile_check_clean_on_it(tmp_path: Path) -> None:
    """The fused, tiled and wide sorts past a tile at the default steps (a wide
    pass over the rows of two tiles), and the tiled one at 2, where a tile's
    work-items take several blocks each; every kernel at a small size is the
    next test's."""
    _simulator()
    rows = []
    runs = [(["fused", "tiled", "wide"], "4"), (["tiled"], "2")]
    for number, (strategies, steps) in enumerate(runs):
        out = tmp_path / str(number)
        proc = harness(
            "run", "--check", "-k", "Bitonic_U32", "--strategy", *strategies, "--steps", steps,
            "--size", "2051", "--device", "oclgrind", "--out", str(out), timeout=SIMULATED,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        rows += results.read_journal(run_folder(out))
    assert [(r["strategy"], r["steps"], r["status"]) for r in rows] == [
        ("fused", "4", "ok"),
        ("tiled", "4", "ok"),
        ("wide", "4", "ok"),
        ("tiled", "2", "ok"),
    ]


def _with_barriers() -> list[str]:
    """Kernels whose GPU form (what the simulator compiles) has a barrier: those
    that share work-group memory, where races can hide."""
    found = []
    for spec in BY_NAME.values():
        source = sources.find("opencl", ".cl", spec.source_name)
        if source is not None and "BARRIER(" in compiled_lines(
            sources.expand(source).text, frozenset()
        ):
            found.append(spec.name)
    return found


#: Kernels the simulator takes long over (INTSC_HEXHEX: 35 s at 300 elements),
#: checked there at a smaller size.
SLOW = {"Apps_INTSC_HEXHEX": "20"}


@pytest.mark.full
def test_every_kernel_with_barriers_checks_clean_at_a_small_size(tmp_path: Path) -> None:
    _simulator()
    kernels = _with_barriers()
    assert {"Stream_DOT", "Algorithm_SCAN", "Bitonic_PAIRS", *SLOW} <= set(kernels)
    # Two work-groups of 256 items: races between groups as well as within one.
    # The sorts' strategies with barriers, at the default steps: the test above
    # takes another count.
    runs = [([k for k in kernels if k not in SLOW], "257")]
    runs += [([kernel], size) for kernel, size in SLOW.items()]
    rows = []
    for number, (chosen, size) in enumerate(runs):
        out = tmp_path / str(number)
        proc = harness(
            "run", "--check", "full", "-k", *chosen, "--size", size, "--device", "oclgrind",
            "--strategy", "local", "tiled", "--steps", "4", "--out", str(out), timeout=SIMULATED,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        rows += results.read_journal(run_folder(out))
    assert {r["kernel"] for r in rows} == set(kernels)
    bad = [f"{r['kernel']}: {r['status']} {r['reason']}" for r in rows if r["status"] != "ok"]
    assert bad == []


@pytest.mark.full
@pytest.mark.parametrize("in_process", [False, True])
def test_atomics_at_their_check_sizes_outlast_the_simulators_report_budget(
    tmp_path: Path, in_process: bool
) -> None:
    """Their accepted races come to over `oclgrind.MAX_REPORTS` reports in all, after
    which the simulator would stop reporting in that process: a worker that has
    read half of them ends, and every row still verifies. In one process there is
    no fresh worker: the rows after that point are errors that say why, not checks
    that would miss what the simulator no longer reports."""
    _simulator()
    proc = harness(
        "run", "--check", "-k", "Basic_MULTI_REDUCE", "Apps_MASS3DPA_ATOMIC",
        "Apps_NODAL_ACCUMULATION_3D", "Algorithm_ATOMIC", "--precision", "f64",
        "--device", "oclgrind", *(["--in-process"] if in_process else []), "--out", str(tmp_path),
        timeout=SIMULATED,
    )  # fmt: skip
    rows = results.read_journal(run_folder(tmp_path))
    assert len(rows) >= 8
    if not in_process:
        assert proc.returncode == 0, proc.stderr
        assert all(r["status"] == "ok" for r in rows)
        return
    assert proc.returncode == 1, proc.stderr
    statuses = [r["status"] for r in rows]
    spent = statuses.index("error")
    assert spent > 0 and set(statuses[:spent]) == {"ok"} and set(statuses[spent:]) == {"error"}
    assert rows[spent]["reason"].startswith("this process has spent its session on the device")


@pytest.mark.parametrize("count", [1, oclgrind.MAX_REPORTS // 2])
def test_a_session_is_spent_at_half_the_report_budget(count: int) -> None:
    findings = oclgrind.Findings()
    report = "Invalid read of size 4 at global memory address 0x10\n\tKernel: k\n\n"
    with findings.options():
        Path(os.environ["OCLGRIND_LOG"]).write_text(report * count)
    assert "OCLGRIND_LOG" not in os.environ
    with pytest.raises(KernelFault, match="Invalid read of size 4 in global memory"):
        findings.check({})
    assert findings.reports == count
    assert findings.spent == (count >= oclgrind.MAX_REPORTS // 2)
    findings.close()


@pytest.mark.full
def test_work_group_memory_over_the_devices_is_a_skipped_row(tmp_path: Path) -> None:
    """The simulator given its own 32 KiB of work-group memory, as the user may:
    MAT_MAT_SHARED's tiles of doubles take 34 KiB."""
    _simulator()
    small = {"OCLGRIND_LOCAL_MEM_SIZE": "32768"}
    listed = json.loads(harness("devices", "--json", env=small).stdout)
    (opencl,) = [b for b in listed if b["backend"] == "opencl"]
    (device,) = [d for d in opencl["devices"] if d["kind"] == "simulator"]
    assert device["limits"]["local_mem_bytes"] == 32768
    proc = harness(
        "run", "-k", "Basic_MAT_MAT_SHARED", "--check", "--size", "100", "--device", "oclgrind",
        "--out", str(tmp_path), env=small,
    )  # fmt: skip
    # A check of its one row, skipped, verified nothing: it does not pass.
    assert proc.returncode == 1, proc.stderr
    assert "nothing was verified: all 1 rows were skipped" in proc.stderr
    (row,) = results.read_journal(run_folder(tmp_path))
    assert (row["status"], row["reason"]) == ("skipped", MAT_MAT_SHARED_SKIP)


@pytest.mark.full
def test_a_missing_barrier_fails_as_a_data_race(tmp_path: Path) -> None:
    _simulator()
    sources = _planted(tmp_path, PRESORT_BARRIER, "BARRIER();", "")
    (row,) = _check(tmp_path, "oclgrind", "--sources", str(sources))
    assert row["status"] == "fail"
    assert row["reason"].startswith(
        "undefined behaviour: Oclgrind: Read-write data race in local memory "
        "(kernel bitonic_tile_sort, bitonic.h:"
    )


@pytest.mark.full
@pytest.mark.parametrize(
    ("macro", "access"),
    [
        (REGISTER_LOAD, "write"),
        # The optimiser drops this one as undefined: the simulator sees it only unoptimised.
        ("#define PRESORT_EXCHANGES", "read"),
    ],
)
def test_a_register_array_overrun_fails_as_out_of_bounds(
    tmp_path: Path, macro: str, access: str
) -> None:
    _simulator()
    sources = _planted(tmp_path, macro, BOUND, BOUND.replace("<", "<="))
    (row,) = _check(tmp_path, "oclgrind", "--sources", str(sources))
    assert row["status"] == "fail"
    assert (
        f"Oclgrind: Invalid {access} of size 4 in private memory (kernel bitonic_tile_sort"
        in row["reason"]
    )


def test_races_on_a_line_that_accepts_them_are_not_faults() -> None:
    program = '#line 88 "dialect.clh"\n    ulong old = *bits; // benign race: checked\n    x;\n'
    lines = oclgrind.source_lines(program)
    assert lines[("dialect.clh", 89)] == "    x;"
    race = (
        "Read-write data race at global memory address 0x10\n\tKernel: k\n"
        "\tAt line {} (column 9) of dialect.clh:\n\tAt line 92 (column 9) of dialect.clh:\n"
    )
    assert oclgrind.summary(race.format(88), lines) is None
    assert oclgrind.summary(race.format(89), lines) == (
        "Oclgrind: Read-write data race in global memory (kernel k, dialect.clh:89, dialect.clh:92)"
    )
    overrun = "Invalid read of size 8 at global memory address 0x10\n\tKernel: k\n"
    overrun += "\tAt line 88 (column 9) of dialect.clh:\n"
    assert oclgrind.summary(overrun, lines) == (
        "Oclgrind: Invalid read of size 8 in global memory (kernel k, dialect.clh:88)"
    )


def test_reports_read_as_one_line() -> None:
    log = (
        "\nRead-write data race at local memory address 0x100000000003c\n"
        "\tKernel: sort\n\t\n\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)\n"
        "\t  %8 = load i32\n\tAt line 686 (column 9) of bitonic.h:\n\t  UNROLL\n\t\n"
        "\tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
        "\tAt line 725 (column 13) of bitonic.h:\n\t\n\n"
        "Invalid read of size 8 at global memory address 0x3000000001f40\n"
        "\tKernel: triad\n\tAt line 6 (column 16) of Stream_TRIAD.c:\n\n"
        "Invalid read of size 8 at global memory address 0x3000000001f48\n"
        "\tKernel: triad\n\tAt line 6 (column 16) of Stream_TRIAD.c:\n"
    )
    assert oclgrind.summary(log) == (
        "Oclgrind: Read-write data race in local memory (kernel sort, bitonic.h:686, "
        "bitonic.h:725); Invalid read of size 8 in global memory (kernel triad, "
        "Stream_TRIAD.c:6) (and 1 more reports)"
    )


@pytest.mark.full
def test_mutants_take_the_simulator_by_name(tmp_path: Path) -> None:
    device = _simulator()
    proc = harness(
        "mutants", "-k", "Stream_TRIAD", "-b", "opencl", "--device", "oclgrind", "--sample", "3",
        "--precision", "f64", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"Stream_TRIAD on {device['id']}: 3 mutants" in proc.stderr
    assert f"note: {device['id']} is a simulator: checks run at sizes up to 10000" in proc.stderr
    (folder,) = tmp_path.iterdir()
    with (folder / "mutants.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3 and {r["device"] for r in rows} == {device["id"]}
    # Its 3 mutants are all a sample of 3 picks: the sample narrowed nothing.
    scope = f"narrowed by: sizes up to 10000 on {device['id']} (a simulator's default)"
    assert (folder / "summary.txt").read_text().endswith(f"{scope}\n")
    assert {r["status"] for r in rows} <= {"killed", "survived", "stillborn", "equivalent"}


def test_mutants_name_a_device_that_is_not_there() -> None:
    need_backend("opencl")
    proc = harness("mutants", "-k", "Stream_COPY", "-b", "opencl", "--device", "nosuch")
    assert proc.returncode == 2
    assert "--device 'nosuch': no device's name contains it; give BACKEND:INDEX" in proc.stderr
    assert "opencl:0 " in proc.stderr

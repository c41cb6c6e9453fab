"""harness import-rajaperf: raja-perf.exe's output folder (here a small one in its
format, as a ``--checkrun 1`` run writes it: one repetition, so its checksums
are those after one repetition, as ours are) becomes a run folder that report
and plot put beside ours."""

from __future__ import annotations

import math
from pathlib import Path

from conftest import FIXTURES, harness, need_backend, run_folder

from harness.execution import results

OUTPUT = FIXTURES / "rajaperf_output"


def _imported(tmp_path: Path) -> Path:
    proc = harness("import-rajaperf", str(OUTPUT), "--out", str(tmp_path / "imported"))
    assert proc.returncode == 0, proc.stderr
    return run_folder(tmp_path / "imported")


def test_each_variant_is_a_device_and_each_kernel_a_row(tmp_path: Path) -> None:
    rows = {(r["kernel"], r["device"]): r for r in results.read_journal(_imported(tmp_path))}
    assert set(rows) == {
        (k, v) for k in ("Stream_COPY", "Stream_TRIAD", "Basic_DAXPY")
        for v in ("Base_Seq default", "Base_OpenMP default")
    }  # fmt: skip
    copy = rows[("Stream_COPY", "Base_OpenMP default")]
    assert (copy["device_id"], copy["status"], copy["time_median_s"]) == ("rajaperf:1", "ok", 1e-5)
    assert copy["reps"] == 1 and copy["size"] == 100000
    assert math.isclose(copy["gbytes_per_s"], 1600000 / 1e-5 / 1e9)
    assert copy["checksum"] == 19998.626827262827492
    failed = rows[("Stream_TRIAD", "Base_OpenMP default")]
    assert (failed["status"], failed["reason"]) == ("fail", "raja-perf.exe's checksum check FAILED")
    assert failed["checksum"] == 11000.0
    unrun = rows[("Basic_DAXPY", "Base_OpenMP default")]
    assert (unrun["status"], unrun["reason"]) == ("skipped", "raja-perf.exe did not run it")


def test_rajaperf_beside_our_run_in_one_report_and_plot(tmp_path: Path) -> None:
    need_backend("opencl")
    imported = _imported(tmp_path)
    proc = harness(
        "run", "-k", "Stream_COPY", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "opencl",
        "--size", "100000", "--reps", "3", "--out", str(tmp_path / "ours"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    ours = run_folder(tmp_path / "ours")
    # Our checksums are raja-perf.exe's Base_Seq ones.
    theirs = {
        r["kernel"]: r["checksum"]
        for r in results.read_journal(imported)
        if r["device"] == "Base_Seq default"
    }
    for row in results.read_journal(ours):
        assert math.isclose(row["checksum"], theirs[row["kernel"]], rel_tol=1e-14), row
    report = harness("report", str(ours), str(imported), "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    results_table = text.split("\n## Results\n")[1].split("\n## ")[0]
    triad = [line for line in results_table.splitlines() if line.startswith("| Stream_TRIAD |")]
    assert [line.split(" | ")[2].split(" (")[0] for line in triad] == [
        "cpu:0", "opencl:0", "rajaperf:0", "rajaperf:1",
    ]  # fmt: skip
    plots = harness("plot", str(ours), str(imported), "--out", str(tmp_path / "plots"))
    assert plots.returncode == 0, plots.stderr
    assert (tmp_path / "plots" / "time_by_kernel.png").stat().st_size > 10_000


def test_a_folder_that_is_not_rajaperfs_is_one_line(tmp_path: Path) -> None:
    proc = harness("import-rajaperf", str(tmp_path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"harness: error: {tmp_path}: not a raja-perf.exe output folder (no "
        "RAJAPerf-kernel-run-data.csv, RAJAPerf-kernel-details.csv; give the folder "
        "raja-perf.exe wrote with --outdir)"
    )

"""Launch geometry as a tuning (--group): every kernel that can take another
work-group size verifies at each, the rest keep theirs and say so, a size over
a device's limit is a skipped row naming it, and the report marks the best."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import harness, need_backend, not_ok, run_folder

from harness import suite
from harness.execution import results
from harness.execution.runner import RunOptions, task_groups

#: Sizes every regroupable kernel is checked at: the extremes (its own, 256, is
#: checked everywhere else).
SWEEP = "32,1024"


def test_a_regrouped_kernel_launches_and_compiles_at_the_new_size() -> None:
    spec = suite.spec_of("Stream_TRIAD").with_group(64)
    (launch,) = spec.plan(1000)
    assert (launch.group, launch.groups) == (64, 16)
    assert spec.group_names["GROUP"] == 64
    assert suite.spec_of("Stream_TRIAD").with_group(None) is suite.spec_of("Stream_TRIAD")


def test_a_kernel_over_several_axes_keeps_its_work_groups() -> None:
    spec = suite.spec_of("Polybench_JACOBI_2D")
    assert spec.regroup_problem and "several axes" in spec.regroup_problem
    with pytest.raises(ValueError, match="Polybench_JACOBI_2D keeps its work-group size"):
        spec.with_group(64)
    assert task_groups(spec, RunOptions(groups=(64, 128))) == (None,)


@pytest.mark.full
def test_every_regroupable_kernel_verifies_at_every_size(tmp_path: Path) -> None:
    need_backend("opencl")
    names = [s.name for s in suite.select(None) if s.regroup_problem is None]
    proc = harness(
        "run", "-k", *names, "-b", "cpu", "opencl", "--check", "--group", SWEEP,
        "--out", str(tmp_path),
    )  # fmt: skip
    rows = results.read_journal(run_folder(tmp_path))
    bad = not_ok(rows, "work_group")
    assert not bad, "\n".join(bad[:20])
    assert proc.returncode == 0, proc.stderr
    assert {r["kernel"] for r in rows} == set(names)


def test_sweep_rows_skip_over_a_limit_and_the_report_marks_the_best(tmp_path: Path) -> None:
    for backend in ("opencl", "wgpu"):
        need_backend(backend)
    proc = harness(
        "run", "-k", "Stream_TRIAD", "Apps_VOL3D", "Polybench_JACOBI_2D", "-b", "opencl", "wgpu",
        "--size", "30000", "--reps", "3", "--group", "64,256,8192", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "'8192' is not a work-group size: expected powers of two from 32 to 4096" in proc.stderr
    proc = harness(
        "run", "-k", "Stream_TRIAD", "Apps_VOL3D", "Polybench_JACOBI_2D", "-b", "opencl", "wgpu",
        "--size", "30000", "--reps", "3", "--group", "64,256,2048", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    with (folder / results.RESULTS).open() as f:
        rows = list(csv.DictReader(f))
    swept = {(r["kernel"], r["backend"], r["work_group"]): r for r in rows if r["work_group"]}
    for kernel in ("Stream_TRIAD", "Apps_VOL3D"):
        for group in ("64", "256", "2048"):
            assert swept[(kernel, "opencl", group)]["status"] == "ok"
        assert swept[(kernel, "wgpu", "64")]["status"] == "ok"
        over = swept[(kernel, "wgpu", "2048")]
        assert over["status"] == "skipped"
        assert "work-groups of 2048 work-items, over this device's max_compute_" in over["reason"]
    (jacobi,) = [r for r in rows if r["kernel"] == "Polybench_JACOBI_2D" and r["backend"] == "wgpu"]
    assert jacobi["status"] == "ok" and not jacobi["work_group"]
    assert jacobi["reason"].startswith("keeps its work-group size under --group: ")
    report = harness("report", str(folder), "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    best = text[text.index("## Best work-group size") :].split("\n## ")[0]
    lines = [line for line in best.splitlines() if line.startswith("| Stream_TRIAD")]
    assert len(lines) == 2 and all("64: " in line and "256: " in line for line in lines)
    assert text.count("(best group)") == 4

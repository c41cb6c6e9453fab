"""The report's first lines on real runs: the speedup baseline (each kernel's fastest
CPU row), the noise verdict, the peaks behind percent-of-peak, and runs whose
metadata predates the kernels' facts."""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

from harness.execution import peaks, results
from harness.reporting import report

TIMES = "\N{MULTIPLICATION SIGN}"
SORT = "Bitonic_U32 (asc, uniform)"


def _run(out: Path, *args: str, env: dict[str, str] | None = None) -> Path:
    proc = harness("run", *args, "-b", "cpu", "opencl", "--reps", "3", "--out", str(out), env=env)
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


@pytest.fixture(scope="module")
def sort_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Bitonic_U32 beside Stream_TRIAD on the numpy backend and an OpenCL CPU device."""
    need_backend("opencl")
    out = tmp_path_factory.mktemp("sort")
    return _run(out, "-k", "Bitonic_U32", "Stream_TRIAD", "--size", "16384")


def _report(run: Path, *args: str) -> str:
    proc = harness("report", str(run), *args)
    assert proc.returncode == 0, proc.stderr
    return (run / "report" / "report.md").read_text()


def _rows(run: Path) -> list[dict[str, str]]:
    with (run / results.RESULTS).open() as f:
        return list(csv.DictReader(f))


def _story(text: str) -> list[str]:
    block = text.split("## Summary\n\n", 1)[1].split("\n\n", 1)[0]
    return [line.removeprefix("- ") for line in block.splitlines()]


def _md_table(text: str, title: str) -> list[dict[str, str]]:
    block = text.split(f"## {title}\n", 1)[1].strip().split("\n\n", 1)[0]
    lines = [line.strip("|").split(" | ") for line in block.splitlines()]
    header = [c.strip() for c in lines[0]]
    return [dict(zip(header, (c.strip() for c in line), strict=True)) for line in lines[2:]]


def _kernel(cell: str) -> str:
    return cell.split()[0]


@pytest.mark.parametrize(
    ("device", "cpu"),
    [
        (("cpu", "cpu", "AMD EPYC", "Python 3.11"), True),
        (("opencl", "cpu", "pthread-haswell-AMD EPYC", "Portable Computing Language"), True),
        (("opencl", "cpu", "Intel(R) Core(TM) i7", "Intel(R) OpenCL"), True),
        (("opencl", "gpu", "NVIDIA H200", "NVIDIA CUDA; OpenCL 3.0"), False),
        (("opencl", "", "pthread-haswell-AMD EPYC", "Portable Computing Language; 3.0"), True),
        (("opencl", "", "cpu-haswell-AMD EPYC", "Portable Computing Language; 3.0"), True),
        (("opencl", "", "NVIDIA H200", "Portable Computing Language; 3.0"), False),
        (("opencl", "", "NVIDIA H200", "NVIDIA CUDA; OpenCL 3.0"), False),
        (("wgpu", "cpu", "llvmpipe (LLVM 15.0.6, 256 bits)", "Vulkan"), False),
        (("cuda", "gpu", "NVIDIA H200", "CUDA 13.0"), False),
    ],
)
def test_is_cpu_tells_the_baselines_cpu_devices(device: tuple[str, ...], cpu: bool) -> None:
    assert report.is_cpu(*device) is cpu


def test_speedups_are_over_each_kernels_fastest_cpu_row(sort_run: Path) -> None:
    text = _report(sort_run)
    rows = _rows(sort_run)
    meta = json.loads((sort_run / results.METADATA).read_text())
    assert {d["id"]: d["kind"] for d in meta["devices"]} == {"cpu:0": "cpu", "opencl:0": "cpu"}
    medians = {(r["kernel"], r["device_id"]): float(r["time_median_s"]) for r in rows}
    fastest = {
        k: min(medians[(k, "cpu:0")], medians[(k, "opencl:0")])
        for k in ("Bitonic_U32", "Stream_TRIAD")
    }
    table = _md_table(text, "Results")
    column = "Speedup vs fastest CPU"
    for row in table:
        kernel, device = _kernel(row["Kernel"]), row["Device"].split()[0]
        speedup = fastest[kernel] / medians[(kernel, device)]
        assert row[column] == report.speedup_text(speedup)
        if medians[(kernel, device)] == fastest[kernel]:
            assert row[column] == f"1.00{TIMES}"
    # The numpy network never makes the sort's headline: no speedup above 1 here.
    assert all(float(r[column].rstrip(TIMES)) <= 1.0 for r in table)

    used = {_kernel(r["Kernel"]): r for r in _md_table(text, "Speedup baselines")}
    for kernel, time in fastest.items():
        winner = next(d for d in ("cpu:0", "opencl:0") if medians[(kernel, d)] == time)
        assert used[kernel]["Baseline"].startswith(winner)
    # The sort's CPU baseline is numpy's own sort or PoCL's network, never numpy's network.
    sort_winner = next(
        d for d in ("cpu:0", "opencl:0") if medians[("Bitonic_U32", d)] == fastest["Bitonic_U32"]
    )
    assert used["Bitonic_U32"]["Baseline"].endswith(
        "· library" if sort_winner == "cpu:0" else "· fused, 4"
    )

    story = _story(text)
    means = []
    for device in ("cpu:0", "opencl:0"):
        logs = [math.log(fastest[k] / medians[(k, device)]) for k in fastest]
        means.append(f"{device} {report.speedup_text(math.exp(sum(logs) / 2))} (2 rows)")
    headline = "Geometric-mean speedup over the fastest CPU row per kernel: "
    assert f"{headline}{', '.join(means)}." in story
    winners = [
        next(d for d in ("cpu:0", "opencl:0") if medians[(k, d)] == t) for k, t in fastest.items()
    ]
    if len(set(winners)) == 1:
        ranked = [f"{winners[0]} for 2"]
    else:
        # A tie: either device may be named first.
        ranked = [f"{a} for 1, {b} for 1" for a, b in (winners, winners[::-1])]
    assert any(
        f"Speedup baseline, kernel by kernel: {r} of 2 timed cases." in story for r in ranked
    )


def test_an_explicit_baseline_keeps_one_device(sort_run: Path) -> None:
    text = _report(sort_run, "--baseline", "cpu")
    medians = {(r["kernel"], r["device_id"]): float(r["time_median_s"]) for r in _rows(sort_run)}
    table = _md_table(text, "Results")
    column = next(c for c in table[0] if c.startswith("Speedup vs cpu:0"))
    for row in table:
        kernel, device = _kernel(row["Kernel"]), row["Device"].split()[0]
        expected = medians[(kernel, "cpu:0")] / medians[(kernel, device)]
        assert row[column] == report.speedup_text(expected)
    assert {r["Baseline"].split()[0] for r in _md_table(text, "Speedup baselines")} == {"cpu:0"}
    over = [line for line in _story(text) if line.startswith("Geometric-mean speedup over cpu:0")]
    assert len(over) == 1 and "opencl:0" in over[0] and "cpu:0 " not in over[0].split(": ")[1]


def test_the_summary_counts_the_noise_verdict(sort_run: Path, tmp_path: Path) -> None:
    run = tmp_path / sort_run.name
    shutil.copytree(sort_run, run, ignore=shutil.ignore_patterns("report"))
    journal = [json.loads(line) for line in (run / results.JOURNAL).read_text().splitlines()]
    # One row met the target, two were unstable: as a run that sampled to a target has them.
    for row, (met, unstable) in zip(
        journal, [(True, False), (False, True), (False, True), (False, False)], strict=True
    ):
        row.update(noise_met=met, unstable=unstable, stop="noise" if met else "budget")
    (run / results.JOURNAL).write_text("".join(json.dumps(r) + "\n" for r in journal))
    story = _story(_report(run))
    assert story[1] == ("Noise target 0.5%: 1 row(s) met it, 3 did not (3 time budget ran out).")
    flagged = [r for r in journal if r["unstable"]]
    assert story[2].startswith(
        "2 row(s) unstable, their repetitions spread more than 10% (or 2x between fastest "
        "and slowest); rerun before trusting them: "
    )
    for row in flagged:
        assert f"{row['precision']} n={row['size']} on {row['device_id']}" in story[2]


def test_the_summary_of_a_fixed_reps_run_says_none_met_the_target(sort_run: Path) -> None:
    rows = _rows(sort_run)
    story = _story(_report(sort_run))
    assert story[1] == "Noise target 0.5%: 0 row(s) met it, 4 did not (4 fixed --reps)."
    unstable = sum(r["unstable"] == "True" for r in rows)
    flagged = [line for line in story if "rerun before trusting them" in line]
    assert len(flagged) == (1 if unstable else 0)
    if unstable:
        assert flagged[0].startswith(f"{unstable} row(s) unstable")


def test_percent_of_peak_names_its_peak_and_cache_resident_rows(
    sort_run: Path, tmp_path: Path
) -> None:
    devices = json.loads((sort_run / results.METADATA).read_text())["devices"]
    by_id = {d["id"]: d for d in devices}
    store = tmp_path / "peaks.json"
    # A peak far below what the OpenCL device reaches (its rows run from cache) and
    # one far above the numpy backend's.
    measured = {
        "opencl:0": {"copy_gbytes_per_s": 0.5, "triad_gbytes_per_s": 0.8, "warnings": ["shared"]},
        "cpu:0": {"copy_gbytes_per_s": 5000.0, "triad_gbytes_per_s": 4000.0, "notes": []},
    }
    store.write_text(
        json.dumps(
            {
                peaks.device_key(by_id[d]): dict(
                    p, device=by_id[d], measured=f"2026-01-0{i + 1}T10:00:00+0000"
                )
                for i, (d, p) in enumerate(measured.items())
            }
        )
    )
    run = _run(
        tmp_path / "run",
        "-k",
        "Stream_TRIAD",
        "--size",
        "16384",
        env={"HARNESS_PEAKS": str(store)},
    )
    meta = json.loads((run / results.METADATA).read_text())
    assert set(meta["peaks"]) == {"cpu:0", "opencl:0"}
    text = _report(run)
    rows = {r["device_id"]: r for r in _rows(run)}
    cells = {r["Device"].split()[0]: r["% peak BW"] for r in _md_table(text, "Results")}
    assert cells["opencl:0"] == "above peak (cache-resident)"
    assert float(rows["opencl:0"]["gbytes_per_s"]) > 0.8
    expected = 100 * float(rows["cpu:0"]["gbytes_per_s"]) / 5000.0
    assert cells["cpu:0"] == f"{expected:.0f}%"
    host = meta["host"]["hostname"]
    table = {r["Device"]: r for r in _md_table(text, "Peaks")}
    assert table["opencl:0"]["Peak GB/s"] == "0.8" and table["cpu:0"]["Peak GB/s"] == "5e+03"
    assert table["opencl:0"]["Measured"].startswith(f"2026-01-01T10:00:00+0000 on {host}, ")
    assert by_id["opencl:0"]["name"] in table["opencl:0"]["Measured"]
    assert table["opencl:0"]["Notes"] == "shared"
    above = [line for line in _story(text) if "above their device's measured bandwidth" in line]
    assert above == [
        "1 row(s) above their device's measured bandwidth peak, so their data was in cache: "
        "Stream_TRIAD on opencl:0."
    ]


def test_a_run_without_kernel_facts_reports_without_the_suite(
    sort_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / sort_run.name
    shutil.copytree(sort_run, run, ignore=shutil.ignore_patterns("report"))
    meta = json.loads((run / results.METADATA).read_text())
    del meta["kernels"]
    (run / results.METADATA).write_text(json.dumps(meta))
    proc = harness("report", str(run), "--html")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    text = (run / "report" / "report.md").read_text()
    # Without the facts the sort's input and strategy are unknown: its kernel name alone.
    assert {r["Kernel"] for r in _md_table(text, "Results")} == {"Bitonic_U32", "Stream_TRIAD"}
    code = (
        "import sys\n"
        "from harness.reporting import frames, html, report\n"
        f"frame, metas = frames.load_runs([{str(run)!r}])\n"
        "page = html.to_html(report.build(frame, metas))\n"
        "assert 'Bitonic_U32' in page\n"
        "print(sorted(m for m in sys.modules if m.startswith(('harness.suite', "
        "'harness.backends'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"

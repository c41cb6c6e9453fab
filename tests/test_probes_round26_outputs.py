"""Round 26 probes of what show, report and plot present: the status of a run that
stopped short, and a baseline that names several devices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

from harness.execution import results

QUICK = ["-k", "Stream_COPY", "-b", "cpu", "opencl", "--sizes", "100"]


def test_show_of_an_interrupted_run_exits_as_the_run_did(run: Path) -> None:
    """show of an interrupted run whose rows were all ok exited 0, a pass for work
    the run never did, where the run itself exited 130."""
    meta = json.loads((run / "metadata.json").read_text())
    meta["interrupted"] = True
    (run / "metadata.json").write_text(json.dumps(meta))
    proc = harness("show", str(run))
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Stream_COPY" in proc.stdout
    del meta["interrupted"], meta["end"]
    (run / "metadata.json").write_text(json.dumps(meta))
    assert harness("show", str(run)).returncode == 130


def _two_devices_of_one_backend(run: Path) -> Path:
    """``run`` with its numpy row made a second OpenCL device's (opencl:1)."""
    meta = json.loads((run / "metadata.json").read_text())
    first = next(d for d in meta["devices"] if d["id"] == "opencl:0")
    second = {**first, "id": "opencl:1", "name": "Second device"}
    meta["devices"] = [first, second]
    (run / "metadata.json").write_text(json.dumps(meta))
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    like = next(r for r in rows if r["device_id"] == "opencl:0")
    for row in rows:
        if row["backend"] == "cpu":
            row.update({k: like[k] for k in ("device_api", "device_driver", "queue", "timer")})
            row.update(backend="opencl", device_id="opencl:1", device="Second device")
    rows.sort(key=lambda r: r["device_id"])
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "results.csv").unlink()
    return run


def test_a_baseline_backend_of_several_devices_says_which_it_took(
    run: Path, tmp_path: Path
) -> None:
    """`--baseline opencl` of a run on two OpenCL devices took the first without a
    word: the note names the device the speedups are over and the one left out."""
    need_backend("opencl")
    run = _two_devices_of_one_backend(run)
    for command in ("report", "plot"):
        proc = harness(command, str(run), "--baseline", "opencl", "--out", str(tmp_path / command))
        assert proc.returncode == 0, proc.stderr
        notes = [x for x in proc.stderr.splitlines() if "is a backend of" in x]
        assert len(notes) == 1, proc.stderr
        assert notes[0].startswith(
            "note: --baseline 'opencl' is a backend of 2 devices in these runs: the speedups "
            "are over opencl:0 ("
        )
        assert notes[0].endswith("not opencl:1 (Second device); name a device to choose")


def _not_ok(run: Path, device_id: str, status: str = "error") -> Path:
    """``run`` with its rows on ``device_id`` made ``status`` rows, untimed as a run
    leaves them."""
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        if row["device_id"] == device_id:
            row.update(status=status, reason="lost", **{k: None for k in row if "time_" in k})
            row.update(gbytes_per_s=None, gflops_per_s=None, kernel_s=None)
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "results.csv").unlink(missing_ok=True)
    return run


def test_a_baseline_backend_takes_its_device_that_timed_rows(run: Path, tmp_path: Path) -> None:
    """`--baseline opencl` took the backend's first device even where its rows failed
    and another of its devices timed them: no speedups at all."""
    need_backend("opencl")
    run = _not_ok(_two_devices_of_one_backend(run), "opencl:0")
    out = tmp_path / "report"
    proc = harness("report", str(run), "--baseline", "opencl", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "no speedups" not in (out / "report.md").read_text()
    assert "Speedup vs opencl:1 (Second device)" in (out / "report.md").read_text()


def test_a_failed_row_is_not_said_to_have_not_run(run: Path, tmp_path: Path) -> None:
    """The portability table put a device whose row failed under 'Did not run': a
    rerun on that device was what it told, where the kernel ran there and failed."""
    need_backend("opencl")
    run = _not_ok(run, "opencl:0", "fail")
    out = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = (out / "report.md").read_text()
    assert "Did not run" not in text
    assert "| PP (application) | Ran on | No ok row on |" in text


def _timed_at(run: Path, device_id: str, median: float) -> Path:
    """``run`` with its rows on ``device_id`` timed at ``median`` seconds: every time
    scaled alike, and the rates their work over it, as a run writes them."""
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        if row["device_id"] == device_id:
            scale = median / row["time_median_s"]
            for key in [k for k in row if k.startswith("time_") or k == "kernel_s"]:
                if row[key] is not None:
                    row[key] *= scale
            row["gbytes_per_s"] = row["bytes_per_rep"] / median / 1e9
            row["gflops_per_s"] = row["flops_per_rep"] / median / 1e9
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "results.csv").unlink(missing_ok=True)
    return run


def test_rajaperf_files_do_not_round_a_tiny_time_or_speedup_to_zero(
    run: Path, tmp_path: Path
) -> None:
    """A row timed at 1 ns read 0.000000 s in RAJAPerf-timing-Average.csv, no time at
    all, and a device ten million times slower 0.000 in the speedup file."""
    need_backend("opencl")
    run = _timed_at(_timed_at(run, "opencl:0", 1e-9), "cpu:0", 1e-2)
    out = tmp_path / "report"
    proc = harness("report", str(run), "--baseline", "opencl:0", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    rows = {r["device_id"]: r for r in results.read_journal(run)}
    timing = (out / "RAJAPerf-timing-Average.csv").read_text().splitlines()
    cells = [c.strip() for c in timing[3].split(",")]
    assert cells[2] == f"{rows['opencl:0']['time_mean_s'] * 3:.5e}", timing
    assert float(cells[1]) == pytest.approx(rows["cpu:0"]["time_mean_s"] * 3, abs=1e-6)
    speedup = (out / "RAJAPerf-speedup-Average.csv").read_text().splitlines()
    ratio = rows["opencl:0"]["time_mean_s"] / rows["cpu:0"]["time_mean_s"]
    assert [c.strip() for c in speedup[3].split(",")] == ["Stream_COPY", f"{ratio:.2e}", "1.000"]


def test_a_row_timed_at_zero_is_reported_without_a_python_warning(
    run: Path, tmp_path: Path
) -> None:
    """A row timed at 0 (a timer's tick past a tiny kernel) printed numpy's
    'RuntimeWarning: divide by zero' with a source line into report's stderr; its
    speedup is now left blank, as its rates are."""
    need_backend("opencl")
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        if row["device_id"] == "opencl:0":
            row.update({k: 0.0 for k in row if k.startswith("time_") and row[k] is not None})
            row.update(time_std_s=None, kernel_s=0.0, gbytes_per_s=None, gflops_per_s=None)
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "results.csv").unlink()
    out = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr
    line = next(x for x in (out / "report.md").read_text().splitlines() if "| opencl:0" in x)
    assert line.endswith("| ok | 0 ns | - | - | - | - |"), line


def test_a_speedup_map_of_one_device_over_itself_is_not_drawn(tmp_path: Path) -> None:
    """A run on one CPU device drew speedup_heatmap, each cell that device over itself
    at 1.00x, where naming it with --baseline skipped the map as nothing to compare."""
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--sizes", "100", "--reps", "1",
        "--out", str(tmp_path / "runs"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "plots"
    proc = harness("plot", str(run_folder(tmp_path / "runs")), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (
        "note: skipped speedup_heatmap: only one device has timed rows; nothing to compare"
        in proc.stderr.splitlines()
    )
    assert not (out / "speedup_heatmap.png").exists()
    assert (out / "time_by_kernel.png").exists()


def test_a_failed_row_that_kept_its_time_shows_no_rate(run: Path, tmp_path: Path) -> None:
    """A failed row that keeps its time (raja-perf.exe's FAILED checksum, imported)
    showed its GB/s and GFLOP/s in show's table and the report's, a rate of wrong
    results read as the device's."""
    need_backend("opencl")
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        if row["device_id"] == "opencl:0":
            row.update(status="fail", reason="checksum check FAILED")
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "results.csv").unlink()
    shown = harness("show", str(run))
    assert shown.returncode == 1, shown.stderr
    line = next(x for x in shown.stdout.splitlines() if "opencl:0" in x).split()
    assert line[4:] == ["fail", *line[5:7], "-", "-", "0"], line
    out = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = (out / "report.md").read_text().splitlines()
    header = next(x for x in text if x.startswith("| Kernel | Backend | Device |"))
    line = next(x for x in text if "| opencl:0" in x)
    cells = dict(zip(header.split(" | "), line.split(" | "), strict=True))
    assert (cells["Status"], cells["GB/s"], cells["GFLOP/s"]) == ("fail", "-", "-"), line
    assert cells["Median"].endswith("s"), line


def test_plot_names_the_failed_rows_its_figures_leave_out(run: Path, tmp_path: Path) -> None:
    """plot of a run with a failed row drew a gap where the row would be, without a
    word: a kernel that failed read as one never run, and plot's output said nothing."""
    need_backend("opencl")
    run = _not_ok(run, "opencl:0", "fail")
    proc = harness("plot", str(run), "--out", str(tmp_path / "plots"))
    assert proc.returncode == 0, proc.stderr
    notes = [x for x in proc.stderr.splitlines() if "failed or errored" in x]
    assert len(notes) == 1, proc.stderr
    assert notes[0].startswith(
        "note: 1 row(s) that failed or errored are in no plot (a gap where each would be): "
        "Stream_COPY n=100 on opencl:0 ("
    ), notes


def test_the_report_warns_of_throttled_and_sized_down_rows_as_show_does(
    run: Path, tmp_path: Path
) -> None:
    """show warned of a row timed while its device throttled and noted a row sized
    down to fit its time budget; the report showed both as any other row."""
    need_backend("opencl")
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        if row["device_id"] == "opencl:0":
            row.update(clocks_dropped=True, clocks_note="throttled: thermal")
        else:
            row.update(sized_from=400)
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "results.csv").unlink()
    out = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    story = (out / "report.md").read_text().splitlines()
    assert (
        "- 1 row(s) ran while their device's clock fell or it throttled; rerun before "
        "trusting them: Stream_COPY f64 n=100 on opencl:0 (throttled: thermal)."
    ) in story
    assert (
        "- 1 row(s) sized down to fit their time budget (--max-time; --size keeps a size): "
        "Stream_COPY f64 n=100 on cpu:0, from n=400."
    ) in story


def test_bandwidth_bars_are_no_percent_of_a_peak_never_measured(run: Path) -> None:
    """Without a measured or given peak the bandwidth plot's bars were labelled as a
    percent of the device's best Stream_COPY (1074% at a size the caches held), read
    as a percent of a peak; they now give their GB/s, the line kept as a reference."""
    need_backend("opencl")
    from harness.reporting import frames, plot

    frame, _ = frames.load_runs([run])
    fig = plot.plot_bandwidth(frame)
    for ax in fig.axes:
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend[0].startswith("best Stream_COPY: ")
        labels = [t.get_text().strip() for t in ax.texts if t.get_text().strip()]
        assert labels and not any(x.endswith("%") for x in labels), labels
    fig = plot.plot_bandwidth(frame, {"*": 100.0})
    labels = [t.get_text().strip() for t in fig.axes[0].texts if t.get_text().strip()]
    assert labels and all(x.endswith("%") for x in labels), labels


def test_a_line_still_rising_at_its_largest_size_is_not_ringed_as_saturated(
    tmp_path: Path,
) -> None:
    """The saturation plot ringed a line that reached 90% of its best only at the
    largest size swept, as where it saturates, where the report says it may not have
    yet; a flat line is ringed at its first size still."""
    from harness.reporting import frames, plot

    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--sizes", "100,1000,10000", "--reps", "1",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    journal = folder / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for gbs in ("rising", "flat"):
        for row in rows:
            rate = row["size"] / 1000 if gbs == "rising" else 5.0
            median = row["bytes_per_rep"] / rate / 1e9
            row.update({k: median for k in row if k.startswith("time_") and row[k] is not None})
            row.update(time_std_s=None, kernel_s=median, gbytes_per_s=rate)
        journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
        (folder / "results.csv").unlink(missing_ok=True)
        frame, _ = frames.load_runs([folder])
        ax = next(a for a in plot.plot_saturation(frame).axes if a.get_visible())
        rings = [c.get_offsets()[0].tolist() for c in ax.collections]
        assert rings == ([] if gbs == "rising" else [[100, 5.0]]), (gbs, rings)


def test_the_report_says_why_a_timed_row_has_no_speedup(tmp_path: Path) -> None:
    """With --baseline a device whose row of a case failed, the other devices' timed
    rows of it had '-' for speedup and were left out of the geometric means without
    a word: the summary names them and why."""
    need_backend("opencl")
    proc = harness(
        "run", "-k", "Stream_COPY", "Stream_TRIAD", "-b", "cpu", "opencl", "--sizes", "100",
        "--reps", "1", "--out", str(tmp_path / "runs"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(tmp_path / "runs")
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        if (row["kernel"], row["device_id"]) == ("Stream_COPY", "opencl:0"):
            row.update(status="fail", reason="lost", **{k: None for k in row if "time_" in k})
            row.update(gbytes_per_s=None, gflops_per_s=None, kernel_s=None)
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "results.csv").unlink()
    out = tmp_path / "report"
    proc = harness("report", str(run), "--baseline", "opencl:0", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (
        "- No speedup for 1 timed row(s): opencl:0 has no ok row of their case (failed, "
        "errored, skipped or not run): Stream_COPY f64 n=100 on cpu:0."
    ) in (out / "report.md").read_text().splitlines()

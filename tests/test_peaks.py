"""`harness peak`: device limits measured with the harness's own kernels, kept per
device, and every later row placed against them, on a roofline too."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import harness, need_backend, run_folder

from harness.execution import peaks, results
from harness.reporting import frames, plot

#: Another machine's device in the store, which a measurement here must keep.
FOREIGN = "elsewhere | cuda | H100 | 580 | CUDA"
#: Small sizes; --force keeps what a loaded machine measures (flagged).
SMALL = ("--bandwidth-size", "100000", "--fma-size", "4096", "--max-time", "0.3", "--span", "0.3",
         "--force")  # fmt: skip


@pytest.fixture
def store(tmp_path, monkeypatch):
    path = tmp_path / "peaks.json"
    monkeypatch.setenv("HARNESS_PEAKS", str(path))
    path.write_text(
        json.dumps({"elsewhere | cuda | H100 | 580 | CUDA": {"copy_gbytes_per_s": 3000}})
    )
    return path


def test_peak_measures_keeps_and_places_every_row(tmp_path, store) -> None:
    need_backend("opencl")
    proc = harness("peak", "-b", "cpu", "opencl", *SMALL)
    assert proc.returncode == 0, proc.stderr
    kept = json.loads(store.read_text())
    assert FOREIGN in kept, "another device's entry was lost"
    mine = {v["device"]["id"]: v for k, v in kept.items() if k != FOREIGN}
    assert all(k == peaks.device_key(v["device"]) for k, v in kept.items() if k != FOREIGN)
    assert set(mine) == {"cpu:0", "opencl:0"}
    for peak in mine.values():
        assert peak["copy_gbytes_per_s"] > 0 and peak["triad_gbytes_per_s"] > 0
        assert set(peak["fma_gflops_per_s"]) == {"f64", "f32"}
        assert all(v > 0 for v in peak["fma_gflops_per_s"].values())
        assert peak["copy_size"] == 100000 and not peak["notes"]
        assert peak["copy_samples"] > 0 and peak["triad_samples"] > 0
        assert f"{peak['device']['id']} ({peak['device']['name']}): copy" in proc.stdout

    args = ("-k", "Stream_TRIAD", "Apps_PRESSURE", "Algorithm_SORT", "-b", "opencl")
    run = harness("run", *args, "--size", "100000", "--reps", "3", "--out", str(tmp_path / "r"))
    assert run.returncode == 0, run.stderr
    folder = run_folder(tmp_path / "r")
    peak = results.read_metadata(folder)["peaks"]["opencl:0"]
    assert peak == mine["opencl:0"]
    with (folder / results.RESULTS).open() as f:
        rows = {r["kernel"]: r for r in csv.DictReader(f)}
    best = max(peak["copy_gbytes_per_s"], peak["triad_gbytes_per_s"])
    for row in rows.values():
        assert float(row["pct_peak_bw"]) == pytest.approx(100 * float(row["gbytes_per_s"]) / best)
    flops = peak["fma_gflops_per_s"]["f64"]
    triad = rows["Stream_TRIAD"]
    assert float(triad["pct_peak_flops"]) == pytest.approx(
        100 * float(triad["gflops_per_s"]) / flops
    )
    assert rows["Algorithm_SORT"]["pct_peak_flops"] == "", "a kernel of no FLOPs has no share"

    figure = plot.plot_roofline(frames.load(folder))
    key = " ".join(t.get_text() for ax in figure.axes for t in ax.texts)
    for kernel in rows:
        assert kernel in key
    numbers = [t.get_text() for ax in figure.axes for t in ax.texts if t.get_text().isdigit()]
    assert sorted(numbers, key=int) == [str(i) for i in range(1, len(rows) + 1)]


def test_bandwidth_is_sampled_for_the_whole_span(store) -> None:
    # The noise rule would end each bandwidth row within --max-time; the span
    # keeps it sampling for its whole length (arrays long enough that the most
    # samples a row keeps take longer than the span).
    span = 0.8
    start = time.perf_counter()
    proc = harness("peak", "-b", "cpu", "--bandwidth-size", "1000000", "--fma-size", "4096",
                   "--max-time", "0.05", "--span", str(span), "--force")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert time.perf_counter() - start > 2 * span


def test_a_run_without_peaks_says_how_to_measure_them(tmp_path, store) -> None:
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3",
                   "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0
    assert "no measured peak for cpu:0" in proc.stderr
    assert "harness peak --device cpu:0" in proc.stderr
    folder = run_folder(tmp_path)
    with pytest.raises(plot.NothingToPlot, match="run 'harness peak'"):
        plot.plot_roofline(frames.load(folder))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--device", "opencl:9"), "--device 'opencl:9': no such device (BACKEND:INDEX;"),
        (("-b", "vulkan"), "-b 'vulkan': no such backend; choose from"),
        (("--fma-size", "0"), "'0' must be a positive whole number"),
        (("--fma-size", "1"), "--fma-size 1: too small to measure a peak at; give at least 1024"),
        (
            ("--bandwidth-size", "1"),
            "--bandwidth-size 1: too small to measure a peak at; give at least 65536",
        ),
        (
            ("-b", "cpu", "--bandwidth-size", "1000000000000000000"),
            "--bandwidth-size 1000000000000000000: Stream_COPY's arrays would take "
            "16000000000000000000 bytes, more than cpu:0",
        ),
        (("-b", "cpu", "--fma-size", "10000000000000000"), "PeakFMA's arrays would take"),
        (("--device", ""), "--device '': not BACKEND:INDEX as 'harness devices' lists it"),
        (("--device", "cpu:"), "--device 'cpu:': not BACKEND:INDEX"),
        (("--device", " cpu:0"), "--device ' cpu:0': not BACKEND:INDEX"),
        (("--device", "cpu:\u00b2"), "--device 'cpu:\u00b2': not BACKEND:INDEX"),
        (("--device", "vulkan:0"), "--device 'vulkan:0': no such backend 'vulkan'; choose from"),
    ],
)
def test_bad_peak_arguments_get_one_line(store, args, message) -> None:
    before = store.read_bytes()
    proc = harness("peak", *args)
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert store.read_bytes() == before, "a refused command changed the stored peaks"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_peak_keeps_nothing_half_measured_and_exits_130(store, signum) -> None:
    # To the whole process group, as Ctrl-C and a batch system's stop send it.
    before = store.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "peak", "-b", "cpu", "--span", "5"],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={"XDG_RUNTIME_DIR": "/tmp", **os.environ},
        start_new_session=True,
        # A test process may have been started with SIGINT ignored; a shell's is not.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    assert "measuring cpu:0" in proc.stderr.readline()
    time.sleep(1)
    os.killpg(proc.pid, signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted: no peak of cpu:0 kept (a stored one stays)" in err
    assert "Traceback" not in err
    assert store.read_bytes() == before

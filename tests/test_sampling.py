"""Noise-based stopping, the median's interval, raw samples in the run folder,
and cold-cache repetitions."""

from __future__ import annotations

import csv
import json
import statistics

import numpy as np
import pytest
from conftest import harness, need_backend, run_folder

from harness.backends import get as get_backend
from harness.backends.base import DeviceInfo
from harness.execution import results
from harness.execution.flush import (
    FLUSH,
    UNKNOWN_CACHE_BYTES,
    Flusher,
    flush_length,
    host_cache_bytes,
    last_level_cache,
)
from harness.execution.runner import make_inputs
from harness.execution.sampling import (
    MAX_BATCH,
    MIN_REPS,
    STOPS,
    Sampler,
    StopRule,
    batch_size,
    median_interval,
    summarise,
)
from harness.model import sources
from harness.reporting.table import format_rows
from harness.suite import BY_NAME


def _fed(rule: StopRule, times: list[float], elapsed: float = 0.0) -> tuple[int, str | None]:
    """Feed samples one at a time; how many were taken when the rule said stop."""
    sampler = Sampler(rule)
    for i, t in enumerate(times):
        sampler.add([t])
        stop = sampler.stop(elapsed)
        if stop:
            return i + 1, stop
    return len(times), None


def test_quiet_samples_stop_on_noise_once_enough_samples_and_time_are_in() -> None:
    rule = StopRule(min_samples=10, min_time=0.05, max_time=10)
    assert _fed(rule, [0.01] * 100) == (10, "noise")
    assert _fed(StopRule(min_samples=10, min_time=0.5, max_time=10), [0.01] * 100) == (50, "noise")


def test_noisy_samples_stop_when_their_noise_settles_above_the_target() -> None:
    rng = np.random.default_rng(1)
    times = list(1.0 + 0.2 * rng.random(5000))
    taken, stop = _fed(StopRule(min_samples=10, min_time=0.0, max_time=1e9), times)
    assert stop == "settled"
    assert StopRule().window < taken < len(times)
    sampler = Sampler(StopRule())
    sampler.add(times[:taken])
    assert sampler.noise > StopRule().max_noise


def test_the_budget_stops_a_row_but_never_before_three_samples() -> None:
    sampler = Sampler(StopRule(max_time=1.0))
    sampler.add([0.5, 0.9])
    assert sampler.stop(elapsed=5.0) is None
    sampler.add([0.7])
    assert sampler.stop(elapsed=5.0) == "budget"
    assert sampler.stop(elapsed=0.5) is None


def test_a_row_keeps_at_most_max_samples() -> None:
    rule = StopRule(max_samples=200, min_time=1e6, max_time=1e9)
    assert _fed(rule, [1e-6, 2e-6] * 500) == (200, "samples")
    sampler = Sampler(rule)
    sampler.add([1e-6] * 190)
    assert sampler.next_count(per_sample=1e-6, remaining=100.0) == 10


def test_batches_fill_their_time_stay_in_the_budget_and_reach_three_reps() -> None:
    sampler = Sampler(StopRule(batch_time=0.05))
    assert sampler.next_count(per_sample=0.001, remaining=2.0) == 50
    assert sampler.next_count(per_sample=0.001, remaining=0.01) == 10
    assert sampler.next_count(per_sample=5.0, remaining=2.0) == MIN_REPS
    sampler.add([5.0] * 3)
    assert sampler.next_count(per_sample=5.0, remaining=0.0) == 1


def test_a_batch_covers_the_sample_time_within_its_limit() -> None:
    rule = StopRule(sample_time=0.001)
    assert batch_size(1e-5, rule) == 100
    assert batch_size(3e-4, rule) == 4
    assert batch_size(0.001, rule) == batch_size(0.5, rule) == 1
    assert batch_size(1e-9, rule) == MAX_BATCH
    assert batch_size(0.0, rule) == 1
    assert batch_size(1e-5, StopRule(sample_time=0.0)) == 1


def test_batched_samples_count_all_their_repetitions_towards_min_time() -> None:
    """Ten samples of 10 ms means are 0.1 s alone, but 1 s of measured time
    when each is the mean of ten repetitions."""
    rule = StopRule(min_samples=10, min_time=0.5, max_time=60.0)
    for batch, judged in ((1, False), (10, True)):
        sampler = Sampler(rule, batch)
        sampler.add([0.01] * 10)
        assert (sampler.stop(elapsed=1.0) == "noise") is judged


def test_the_median_interval_covers_the_true_median_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(7)
    trials = 2000
    hits = 0
    for _ in range(trials):
        low, high = median_interval(rng.exponential(1.0, 41))
        hits += low <= np.log(2) <= high
    assert 0.93 <= hits / trials <= 0.98


def test_summary_of_samples() -> None:
    times = [4.0, 1.0, 3.0, 2.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]
    row = summarise(times, StopRule(max_noise=0.005), "budget")
    assert row["time_median_s"] == 6.0
    assert (row["time_q1_s"], row["time_q3_s"]) == (3.5, 8.5)
    assert row["time_ci_low_s"] <= 6.0 <= row["time_ci_high_s"]
    assert row["samples"] == 11 and row["stop"] == "budget"
    assert row["noise"] == pytest.approx(statistics.stdev(times) / statistics.fmean(times))
    assert row["noise_met"] is False
    quiet = summarise([1.0] * 9 + [1.001], StopRule(max_noise=0.005), "noise")
    assert quiet["noise_met"] is True
    few = summarise([1.0, 1.0, 1.0], StopRule(max_noise=0.005), "budget")
    assert few["noise_met"] is False, "three samples are too few to claim the target"


def test_spread_repetitions_are_flagged_unstable() -> None:
    rule = StopRule()
    assert not summarise([1.0, 1.02, 0.99, 1.01], rule, "reps")["unstable"]
    assert summarise([1.0, 1.0, 1.0, 2.5], rule, "reps")["unstable"]
    assert summarise([1.0, 1.3, 0.7, 1.2, 0.8], rule, "reps")["unstable"]


def _rows(folder) -> list[dict]:
    with (folder / results.RESULTS).open() as f:
        return list(csv.DictReader(f))


def test_a_default_run_stops_on_noise_and_keeps_every_sample(tmp_path) -> None:
    need_backend("opencl")
    args = ("-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "opencl", "--size", "100000")
    proc = harness("run", *args, "--max-time", "0.4", "--min-time", "0.1", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    rows = _rows(folder)
    samples = results.read_samples(folder)
    assert sorted(samples) == list(range(1, len(rows) + 1))
    for number, row in enumerate(rows, 1):
        times = samples[number]
        assert row["stop"] in STOPS and row["stop"] != "reps"
        assert int(row["samples"]) == len(times) >= MIN_REPS
        assert int(row["reps"]) == int(row["samples"]) * int(row["batch"])
        assert float(row["time_median_s"]) == pytest.approx(statistics.median(times), abs=1e-9)
        assert float(row["time_min_s"]) == pytest.approx(min(times), abs=1e-9)
        q1, median, q3 = (float(row[k]) for k in ("time_q1_s", "time_median_s", "time_q3_s"))
        assert q1 <= median <= q3
        assert float(row["time_ci_low_s"]) <= median <= float(row["time_ci_high_s"])
        assert row["noise_met"] == str(row["stop"] == "noise" or float(row["noise"]) < 0.005)
    summary = (folder / results.SUMMARY).read_text()
    met = sum(r["noise_met"] == "True" for r in rows)
    assert f"noise target 0.5%: {met} row(s) met it, {len(rows) - met} did not" in summary


def test_fixed_reps_still_time_that_many(tmp_path) -> None:
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "7",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = _rows(run_folder(tmp_path))
    assert (row["reps"], row["samples"], row["stop"]) == ("7", "7", "reps")
    line = json.loads((run_folder(tmp_path) / results.SAMPLES).read_text())
    assert len(line["samples_ns"]) == 7 and line["kernel"] == "Stream_COPY"


@pytest.mark.parametrize("backend", ["cpu", "opencl", "wgpu"])
def test_each_backend_times_a_batch_as_back_to_back_repetitions(backend) -> None:
    """DAXPY adds a*x to y each repetition: after 2 samples of 3 repetitions,
    y has had it added 6 times (the 2 warm repetitions' results excluded)."""
    need_backend(backend)
    spec = BY_NAME["Basic_DAXPY"]
    size = 4099
    inputs = make_inputs(spec, size, 1, "f64")
    chosen = get_backend(backend)
    source = None
    if chosen.language:
        source = sources.find(chosen.language, chosen.extension, spec.name)
    session = chosen.open(0)
    execution = session.load(spec, "f64", source, {a.name: inputs[a.name] for a in spec.arrays})
    launches = spec.resolve(size, inputs, "f64")
    times = execution.time(launches, 2, True, 3)
    y = execution.read("y")[:size]
    execution.close()
    assert len(times) == 2 and all(t > 0 for t in times)
    expected = dict(inputs)
    for _ in range(6):
        expected = {**expected, "y": spec.reference(expected)["y"]}
    np.testing.assert_allclose(y, expected["y"][:size], rtol=1e-12)
    once = {**inputs, "y": spec.reference(inputs)["y"]}
    assert not np.allclose(expected["y"], once["y"])


def test_short_hot_rows_batch_cold_and_fixed_ones_do_not(tmp_path) -> None:
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--cache", "hot", "cold",
        "--max-time", "0.3", "--min-time", "0.05", "--out", str(tmp_path / "auto"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    listed = _rows(run_folder(tmp_path / "auto"))
    rows = {r["cache"]: r for r in listed}
    assert int(rows["hot"]["batch"]) > 1 and rows["cold"]["batch"] == "1"
    # A flush takes milliseconds: the cold row's budget of 0.3 s holds few (it
    # once asked for 10,000 at once, sized by the repetition alone).
    assert rows["cold"]["stop"] != "samples" and int(rows["cold"]["samples"]) < 1000
    hot = results.read_samples(run_folder(tmp_path / "auto"))[listed.index(rows["hot"]) + 1]
    assert int(rows["hot"]["samples"]) == len(hot)
    # Each sample is a mean of a millisecond's worth of repetitions, as the
    # calibration's fastest sample timed them: judged by the median sample, since
    # on a busy host single samples run at twice or half the calibrated speed.
    assert statistics.median(hot) * int(rows["hot"]["batch"]) >= 0.001 / 4
    for option in (("--sample-time", "0"), ("--reps", "5")):
        out = tmp_path / option[0].strip("-")
        proc = harness(
            "run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", *option,
            "--max-time", "0.3", "--min-time", "0.05", "--out", str(out),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        (row,) = _rows(run_folder(out))
        assert row["batch"] == "1" and row["reps"] == row["samples"]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--sample-time", "-1", "'-1' is out of range: give 0 (each repetition timed alone)"),
        ("--sample-time", "11", "'11' is out of range"),
        ("--max-noise", "0", "'0' is out of range: give more than 0 and under 100"),
        ("--max-noise", "lots", "'lots' is not a number of percent"),
        ("--min-samples", "0", "'0' must be a positive whole number"),
        ("--cache", "warm", "argument --cache: invalid choice: 'warm'"),
    ],
)
def test_bad_timing_options_get_one_line(tmp_path, option, value, message) -> None:
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", option, value, "--out", str(tmp_path))
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("backend", ["cpu", "opencl", "wgpu"])
@pytest.mark.parametrize("length", [10_007, 4_096])
def test_the_flush_kernel_reads_its_whole_buffer(backend, length) -> None:
    """Its digest of every element (each sink word XORs a strided slice) is right,
    and it leaves the buffer as it was."""
    need_backend(backend)
    chosen = get_backend(backend)
    session = chosen.open(0)
    inputs = FLUSH.init(length, 3, "f64")
    source = None
    if chosen.language:
        source = sources.find(chosen.language, chosen.extension, FLUSH.source_name, ())
    execution = session.load(FLUSH, "f64", source, inputs)
    execution.run(FLUSH.resolve(length, inputs, "f64"))
    sink = execution.read("sink")[: FLUSH.lengths(length)["sink"]]
    scratch = execution.read("scratch")[:length]
    execution.close()
    expected = FLUSH.reference(inputs)["sink"]
    np.testing.assert_array_equal(sink, expected)
    np.testing.assert_array_equal(scratch, inputs["scratch"])
    flipped = inputs["scratch"].copy()
    flipped[-1] ^= 1
    assert not np.array_equal(FLUSH.reference({"scratch": flipped})["sink"], expected)


def test_the_flush_buffer_is_twice_the_last_level_cache_within_limits() -> None:
    need_backend("opencl")
    session = get_backend("opencl").open(0)
    cache = session.info.limits["cache_bytes"]
    assert cache > 0
    assert flush_length(session.info, None) * 4 == min(2 * cache, session.info.memory_bytes // 4)
    assert flush_length(session.info, 1 << 20) * 4 == 1 << 20
    assert flush_length(session.info, None, 3 << 20) * 4 == 3 << 20
    assert flush_length(session.info, 1 << 20, 3 << 20) * 4 == 1 << 20
    flusher = Flusher(session, "opencl", ".cl")
    assert flusher.bytes == flush_length(session.info, session.array_limit()[1]) * 4
    flusher.close()
    host = host_cache_bytes()
    assert host is None or host >= 1 << 16


def test_an_opencl_gpus_cache_figure_is_a_floor_cudas_is_its_l2() -> None:
    """NVIDIA's OpenCL says 4 MiB of global memory cache for an H100 (whose L2
    holds 50 MiB): flushing or sizing past that would stay inside the L2."""

    def device(backend: str, kind: str, cache: int) -> DeviceInfo:
        limits = {"cache_bytes": cache}
        return DeviceInfo(backend, 0, "d", "v", kind, 80 << 30, 132, "", "", frozenset(), limits)

    assert last_level_cache(device("opencl", "gpu", 4 << 20)) == (UNKNOWN_CACHE_BYTES, "assumed")
    assert last_level_cache(device("opencl", "gpu", 512 << 20)) == (512 << 20, "device")
    assert last_level_cache(device("cuda", "gpu", 50 << 20)) == (50 << 20, "device")
    assert last_level_cache(device("opencl", "cpu", 32 << 20)) == (32 << 20, "device")


def test_cold_rows_stand_beside_hot_ones(tmp_path) -> None:
    need_backend("opencl")
    need_backend("wgpu")
    proc = harness(
        "run", "-k", "Stream_TRIAD", "-b", "cpu", "opencl", "wgpu", "--size", "10000",
        "--reps", "3", "--cache", "hot", "cold", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = _rows(run_folder(tmp_path))
    assert sorted((r["device_id"], r["cache"]) for r in rows) == sorted(
        (d, c) for d in ("cpu:0", "opencl:0", "wgpu:0") for c in ("hot", "cold")
    )
    for row in rows:
        assert row["status"] == "ok"
        assert bool(row["flush_bytes"]) == (row["cache"] == "cold")
        assert row["cache"] == "hot" or int(row["flush_bytes"]) > 0
    assert "Stream_TRIAD[cold]" in format_rows(rows)


def test_flush_bytes_sets_what_a_cold_row_reads(tmp_path) -> None:
    need_backend("opencl")
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "opencl", "--size", "1000", "--reps", "3",
        "--cache", "cold", "--flush-bytes", "3MiB", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    cache, _ = last_level_cache(get_backend("opencl").devices()[0])
    assert ("3 MiB is less than opencl:0's last-level cache" in proc.stderr) == (cache > 3 << 20)
    folder = run_folder(tmp_path)
    rows = _rows(folder)
    assert [(r["device_id"], r["flush_bytes"]) for r in rows] == [
        ("cpu:0", str(3 << 20)),
        ("opencl:0", str(3 << 20)),
    ]
    meta = json.loads((folder / "metadata.json").read_text())
    assert meta["options"]["flush_bytes"] == 3 << 20


@pytest.mark.parametrize(
    ("value", "message"),
    [("0", "'0' must be more than 0 bytes"), ("lots", "'lots' is not a byte count")],
)
def test_a_bad_flush_size_is_named(value: str, message: str) -> None:
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "--flush-bytes", value)
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) <= 2

"""Clocks and temperatures around each row, and the flag for rows whose clock fell."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import harness, run_folder

from harness.execution import clocks, results
from harness.reporting.table import format_rows


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_cpufreq_and_thermal_zones_are_read_where_present(tmp_path) -> None:
    root = _tree(
        tmp_path,
        {
            "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq": "3000000\n",
            "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq": "2000000\n",
            "sys/class/thermal/thermal_zone0/temp": "51000\n",
            "sys/class/hwmon/hwmon2/temp1_input": "64500\n",
            "proc/cpuinfo": "cpu MHz\t\t: 1234.5\n",
        },
    )
    assert clocks.host_sample(root) == {
        "clock_mhz": 2500.0,
        "clock_min_mhz": 2000.0,
        "temp_c": 64.5,
    }


def test_proc_cpuinfo_is_the_fallback_and_nothing_is_nothing(tmp_path) -> None:
    root = _tree(tmp_path / "a", {"proc/cpuinfo": "cpu MHz\t: 1000.0\nx\ncpu MHz\t: 3000.0\n"})
    assert clocks.host_sample(root) == {"clock_mhz": 2000.0, "clock_min_mhz": 1000.0}
    assert clocks.host_sample(tmp_path / "empty") == {}


def test_this_host_has_a_clock_for_its_cpu_devices() -> None:
    probe = clocks.probe({"id": "opencl:0", "backend": "opencl", "kind": "cpu"})
    if not clocks.host_sample():
        pytest.skip("this host reports no CPU frequency")
    assert probe is not None and probe.read()["clock_mhz"] > 0


def test_a_device_without_a_clock_source_has_no_probe() -> None:
    assert clocks.probe({"id": "wgpu:0", "backend": "wgpu", "kind": "gpu", "vendor": "AMD"}) is None


def test_a_clock_drop_past_the_threshold_or_a_new_throttle_is_flagged() -> None:
    steady = clocks.columns({"clock_mhz": 2000.0}, {"clock_mhz": 1850.0, "temp_c": 70})
    assert steady == {
        "clock_mhz_before": 2000.0,
        "clock_mhz_after": 1850.0,
        "temp_c_after": 70,
        "clocks_dropped": False,
    }
    fell = clocks.columns({"clock_mhz": 2000.0}, {"clock_mhz": 1700.0})
    assert fell["clocks_dropped"] and fell["clocks_note"] == "clock fell from 2000 to 1700 MHz"
    throttled = clocks.columns(
        {"clock_mhz": 1980.0, "throttle": "sw_power_cap"},
        {"clock_mhz": 1980.0, "throttle": "sw_power_cap,hw_thermal"},
    )
    assert throttled["clocks_dropped"] and throttled["clocks_note"] == "throttled: hw_thermal"
    assert clocks.columns({}, {}) == {}


def test_rows_carry_their_clocks_and_the_summary_names_a_dropped_one(tmp_path) -> None:
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with (run_folder(tmp_path) / results.RESULTS).open() as f:
        (row,) = list(csv.DictReader(f))
    if clocks.host_sample():
        assert float(row["clock_mhz_before"]) > 0 and float(row["clock_mhz_after"]) > 0
        assert row["clocks_dropped"] in ("True", "False")
    row.update(clocks_dropped="True", clocks_note="clock fell from 2000 to 1700 MHz")
    assert (
        "ran while their device's clock fell or it throttled: Stream_COPY f64 n=1000 on cpu:0 "
        "(clock fell from 2000 to 1700 MHz)" in format_rows([row])
    )


class _Governor:
    """A GPU clock that rises by ``step`` MHz for each repetition run, and a clock
    of seconds that advances by ``tick`` at each reading: the ramp's inputs."""

    def __init__(self, clock: float, step: float, highest: float | None = 1980.0) -> None:
        self.clock, self.step, self.highest = clock, step, highest
        self.runs, self.seconds = 0, 0.0

    def read(self) -> clocks.Sample:
        sample: clocks.Sample = {"clock_mhz": self.clock}
        if self.highest:
            sample["clock_max_mhz"] = self.highest
        return sample

    def work(self) -> None:
        self.runs += 1
        self.clock = min(self.clock + self.step, self.highest or self.clock)

    def now(self) -> float:
        self.seconds += 0.01
        return self.seconds


def test_a_low_clock_is_ramped_up_by_untimed_repetitions() -> None:
    # 345 MHz, the H200's idle clock, rising 400 MHz a repetition: past 90% of
    # 1980 (1782) after 4 repetitions.
    gpu = _Governor(345.0, 400.0)
    waited = clocks.ramp(gpu.read, gpu.work, limit_s=1.0, now=gpu.now)
    assert gpu.runs == 4 and gpu.clock >= 0.9 * 1980
    assert waited == pytest.approx(0.05)  # 5 readings of the clock of seconds past the first


def test_a_clock_that_never_rises_is_waited_for_at_most_the_limit() -> None:
    gpu = _Governor(345.0, 0.0)
    waited = clocks.ramp(gpu.read, gpu.work, limit_s=0.5, now=gpu.now)
    assert waited == pytest.approx(0.5, abs=0.011) and gpu.runs == 49


def test_no_ramp_at_the_working_clock_or_without_a_highest_clock() -> None:
    at_work = _Governor(1800.0, 100.0)
    assert clocks.ramp(at_work.read, at_work.work, now=at_work.now) == 0.0
    assert at_work.runs == 0
    unknown = _Governor(345.0, 100.0, highest=None)
    assert clocks.ramp(unknown.read, unknown.work, now=unknown.now) == 0.0
    assert unknown.runs == 0


def test_a_row_keeps_its_device_highest_clock_and_the_summary_names_low_rows() -> None:
    row = clocks.columns({"clock_mhz": 1290.0, "clock_max_mhz": 1980.0}, {"clock_mhz": 1290.0})
    assert row["clock_max_mhz"] == 1980.0 and row["clock_mhz_before"] == 1290.0
    base = {"status": "ok", "kernel": "Stream_MUL", "precision": "f64", "size": 10}
    rows = [
        {**base, "device_id": "wgpu:0", **row, "clock_ramp_s": 1.0},
        {**base, "device_id": "cuda:0", "clock_mhz_before": 1980.0, "clock_max_mhz": 1980.0},
        {**base, "device_id": "wgpu:0", "clock_mhz_before": 1900.0, "clock_max_mhz": 1980.0,
         "clock_ramp_s": 0.25},
        {**base, "device_id": "cpu:0", "clock_mhz_before": 800.0},
    ]  # fmt: skip
    lines = format_rows(rows).splitlines()
    assert (
        "note: 2 row(s) first ran untimed for their device's clock to rise "
        f"(up to 1 s; a row waits about {clocks.RAMP_S:g} s at most)"
    ) in lines
    assert (
        "warning: 1 row(s) were timed more than 10% below their device's highest clock: "
        "Stream_MUL f64 n=10 on wgpu:0 (1290 of 1980 MHz)"
    ) in lines


def test_a_row_on_a_device_below_its_highest_clock_is_ramped_then_timed(monkeypatch) -> None:
    """The runner's ramp on a real row: a device whose probe reads 345 of 1980 MHz
    until repetitions have run (NVML's readings, which no device here gives) is
    run untimed in batches, then timed and verified as ever, and the row records
    the wait and the highest clock."""
    from harness.backends.cpu import CpuExecution
    from harness.execution.runner import Runner, RunOptions, Task

    batches: list[int] = []
    timed = CpuExecution.time

    def counted(self, launches, reps, hold=True, batch=1):  # type: ignore[no-untyped-def]
        batches.append(batch)
        return timed(self, launches, reps, hold, batch)

    def ramped() -> list[int]:
        return [b for b in batches if b > 1]

    def read() -> clocks.Sample:
        # The clock rises once two batches have kept the device busy.
        return {"clock_mhz": 1980.0 if len(ramped()) >= 2 else 345.0, "clock_max_mhz": 1980.0}

    monkeypatch.setattr(CpuExecution, "time", counted)
    monkeypatch.setattr(clocks, "probe", lambda device: clocks.ClockProbe(read))
    row = Runner(RunOptions(reps=3, warmup=1)).execute(Task("Stream_TRIAD", "cpu", 0, 4096, "f64"))
    assert row["status"] == "ok", row.get("reason")
    assert row["clock_ramp_s"] > 0 and row["clock_max_mhz"] == 1980.0
    assert row["clock_mhz_before"] == 1980.0
    # Two batches of untimed repetitions of about RAMP_WORK_S each (a fixed --reps
    # row's own samples are single repetitions), and the timed ones after them.
    assert len(ramped()) == 2 and batches[-1] == 1


def test_a_ramp_aims_at_the_clock_an_earlier_whole_ramp_reached() -> None:
    """A GPU whose steady load holds it below its highest clock (a power limit:
    1600 of 1980 MHz) would cost every row the whole wait; given the ceiling an
    earlier ramp reached, a row at that clock waits for nothing, and one below it
    for that clock alone."""
    capped = _Governor(1600.0, 0.0)
    assert clocks.ramp(capped.read, capped.work, now=capped.now, ceiling=1600.0) == 0.0
    assert capped.runs == 0
    idle = _Governor(345.0, 400.0)
    clocks.ramp(idle.read, idle.work, now=idle.now, ceiling=1600.0)
    assert idle.runs == 3 and idle.clock == 1545.0  # within 10% of 1600


def _two_rows_at_345_mhz(monkeypatch, throttle: str) -> tuple[dict, dict]:
    """Two rows on a device held at 345 of 1980 MHz whatever runs, NVML giving
    ``throttle`` as its throttle reasons."""
    from harness.execution.runner import Runner, RunOptions, Task

    def read() -> clocks.Sample:
        return {"clock_mhz": 345.0, "clock_max_mhz": 1980.0, "throttle": throttle}

    monkeypatch.setattr(clocks, "probe", lambda device: clocks.ClockProbe(read))
    runner = Runner(RunOptions(reps=3, warmup=1))
    first, second = (
        runner.execute(Task(kernel, "cpu", 0, 4096, "f64"))
        for kernel in ("Stream_COPY", "Stream_MUL")
    )
    assert first["status"] == second["status"] == "ok"
    assert first["clock_ramp_s"] >= clocks.RAMP_S
    return first, second


def test_a_runner_waits_once_for_a_clock_its_device_never_reaches(monkeypatch) -> None:
    """A power-capped device: the first row waits the whole ramp, and the runner's
    later rows on it aim at the clock that ramp reached, so they wait for nothing."""
    _, second = _two_rows_at_345_mhz(monkeypatch, "sw_power_cap")
    assert "clock_ramp_s" not in second and second["clock_mhz_before"] == 345.0


def test_a_clock_low_for_want_of_load_is_waited_for_again_by_each_row(monkeypatch) -> None:
    """A clock low through a whole ramp with no power or thermal limit said
    (NVIDIA's under Vulkan, with the host encoding slower than the GPU ran) is no
    ceiling: the next row waits for the highest clock again (on an H200 one such
    ramp set every later WebGPU row's target at 630 MHz)."""
    _, second = _two_rows_at_345_mhz(monkeypatch, "")
    assert second["clock_ramp_s"] >= clocks.RAMP_S


def test_low_clock_rows_whose_device_idled_are_named_as_paced_by_the_host() -> None:
    """Of the rows timed below their device's highest clock, those whose device
    ran its repetitions under half their timed wall time are counted apart: the
    host, not the GPU, set their pace (an H200's WebGPU rows, 2026-12-01)."""
    from harness.reporting.table import device_busy

    base = {"status": "ok", "kernel": "Stream_TRIAD", "precision": "f64", "timer": "device"}
    starved = {**base, "size": 1, "reps": 68040, "time_mean_s": 10.4e-6, "timed_wall_s": 2.03}
    steady = {**base, "size": 2, "reps": 230769, "time_mean_s": 4.5e-6, "timed_wall_s": 1.02}
    clock = {"device_id": "wgpu:0", "clock_mhz_before": 630.0, "clock_max_mhz": 1980.0}
    assert device_busy(starved) == pytest.approx(0.349, abs=1e-3)
    assert device_busy(steady) == 1.0  # clamped: a mean over a wall a little short
    assert device_busy({**starved, "timer": "host"}) is None
    lines = format_rows([{**starved, **clock}, {**steady, **clock}]).splitlines()
    assert any(line.startswith("warning: 2 row(s) were timed more than 10%") for line in lines)
    assert (
        "note: 1 of them kept their device busy less than 50% of their timed wall time "
        "(repetitions times their mean over timed_wall_s): the host's launching set their "
        "pace, and a GPU whose clock follows its load slowed for it"
    ) in lines
    only_steady = format_rows([{**steady, **clock}]).splitlines()
    assert not any("kept their device busy" in line for line in only_steady)

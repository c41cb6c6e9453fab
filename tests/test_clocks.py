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

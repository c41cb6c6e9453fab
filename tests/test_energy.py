"""Energy per repetition: counter arithmetic, RAPL's files, and what a run records here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import harness, run_folder

from harness.execution import energy, results
from harness.reporting import table


def test_a_counter_rises_across_one_wrap_and_one_that_went_back_gives_nothing() -> None:
    assert energy.rise(1_000, 4_500, None) == 3_500
    assert energy.rise(1_000, 4_500, 10_000) == 3_500
    # Wrapped at 10,000: 9,000 -> 10,000 -> 0 -> 500.
    assert energy.rise(9_000, 500, 10_000) == 1_500
    assert energy.rise(9_000, 500, None) is None


def _counters(*values: list[int], unit: float = 1e-6, wrap: int | None = None) -> energy.Reader:
    """A reader of counters that give these values, one per read."""
    counters = [
        energy.Counter(f"package-{i}", iter(v).__next__, unit, wrap) for i, v in enumerate(values)
    ]
    return energy.Reader("rapl", counters)


def test_a_reader_sums_its_counters_in_joules() -> None:
    # Two packages, microjoules, the second wrapping at 2^32.
    meter = _counters([5_000_000, 7_500_000], [2**32 - 1_000_000, 500_000], wrap=2**32)
    before, after = meter.read(), meter.read()
    assert meter.joules(before, after) == pytest.approx(2.5 + 1.5)
    assert meter.joules(None, after) is None
    nvml = energy.Reader("nvml", [energy.Counter("total energy", iter([10, 4]).__next__, 1e-3)])
    assert nvml.joules(nvml.read(), nvml.read()) is None  # went back: a reloaded driver


def test_a_counter_that_fails_gives_no_reading() -> None:
    meter = _counters([1])
    assert meter.read() == (1,)
    assert meter.read() is None


def test_energy_per_repetition_is_mean_power_times_the_median() -> None:
    # 12 J over 3 s of timed repetitions: 4 W; a 2 ms median repetition: 8 mJ.
    row = energy.columns(12.0, 3.0, 0.002, bytes_per_rep=8_000_000, flops_per_rep=4_000_000)
    assert row["power_w"] == pytest.approx(4.0)
    assert row["energy_j_per_rep"] == pytest.approx(0.008)
    assert row["gbytes_per_j"] == pytest.approx(1.0)
    assert row["gflops_per_j"] == pytest.approx(0.5)
    without_flops = energy.columns(12.0, 3.0, 0.002, bytes_per_rep=8, flops_per_rep=0)
    assert without_flops["gflops_per_j"] is None and without_flops["gbytes_per_j"] is not None
    nothing = dict.fromkeys(energy.COLUMNS)
    assert energy.columns(None, 3.0, 0.002, 8, 4) == nothing
    assert energy.columns(0.0, 3.0, 0.002, 8, 4) == nothing  # a counter that did not tick


def _zone(root: Path, zone: str, name: str, energy_uj: int, wrap: int) -> None:
    folder = root / zone
    folder.mkdir(parents=True)
    (folder / "name").write_text(f"{name}\n")
    (folder / "energy_uj").write_text(f"{energy_uj}\n")
    (folder / "max_energy_range_uj").write_text(f"{wrap}\n")


def test_rapl_reads_package_domains_only(tmp_path) -> None:
    _zone(tmp_path, "intel-rapl:0", "package-0", 1_000, 262_143_328_850)
    _zone(tmp_path, "intel-rapl:0:0", "core", 500, 262_143_328_850)
    _zone(tmp_path, "intel-rapl:1", "package-1", 2_000, 65_532_610_987)
    _zone(tmp_path, "intel-rapl:2", "psys", 9_000, 262_143_328_850)
    meter = energy.rapl(tmp_path)
    assert isinstance(meter, energy.Reader)
    assert meter.describe() == {"source": "rapl", "counters": ["package-0", "package-1"]}
    assert [c.wrap for c in meter.counters] == [262_143_328_850, 65_532_610_987]
    before = meter.read()
    (tmp_path / "intel-rapl:1" / "energy_uj").write_text("3000500\n")
    assert meter.joules(before, meter.read()) == pytest.approx(2.9985)


def test_rapl_says_why_it_reads_nothing(tmp_path, monkeypatch) -> None:
    assert energy.rapl(tmp_path / "none") == (
        f"no RAPL counters readable here: {tmp_path / 'none'} has none"
    )
    _zone(tmp_path, "intel-rapl:0:0", "core", 500, 1_000)
    assert "has no package domain" in str(energy.rapl(tmp_path))
    _zone(tmp_path, "intel-rapl:0", "package-0", 1_000, 1_000_000)
    locked = tmp_path / "intel-rapl:0" / "energy_uj"
    read_text = Path.read_text

    def denied(path: Path, *args: object, **kwargs: object) -> str:
        if path == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return read_text(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", denied)
    assert energy.rapl(tmp_path) == f"RAPL counters not readable here: permission denied ({locked})"


def test_a_device_without_a_counter_says_so() -> None:
    found = energy.reader({"id": "wgpu:0", "backend": "wgpu", "kind": "gpu", "vendor": "AMD"})
    assert found == "no energy counter known for this device (a gpu of AMD)"
    assert energy.describe(found) == {"source": None, "why": found}


def test_timed_rows_have_the_energy_columns_and_the_metadata_says_where_from(tmp_path) -> None:
    proc = harness(
        "run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "100000",
        "--min-time", str(energy.MIN_WINDOW_S), "--max-time", str(2 * energy.MIN_WINDOW_S),
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    (row,) = results.read_journal(folder)
    meta = json.loads((folder / results.METADATA).read_text())
    (device,) = meta["devices"]
    assert set(energy.COLUMNS) <= set(row)
    found = energy.rapl()
    if isinstance(found, str):
        # No counter here: empty columns, and the metadata says why.
        assert all(row[c] is None for c in energy.COLUMNS)
        assert device["energy"] == {"source": None, "why": found}
    else:
        assert device["energy"]["source"] == "rapl"
        assert row["power_w"] > 0 and row["energy_j_per_rep"] > 0
        assert row["gbytes_per_j"] > 0 and row["gflops_per_j"] > 0


def test_a_stretch_under_the_least_window_gives_no_energy() -> None:
    """A counter's steps make a short stretch noise: 0.3 J over 0.06 s would read
    5 W, or 0 or 900 W a step earlier or later, so it gives nothing."""
    nothing = dict.fromkeys(energy.COLUMNS)
    assert energy.columns(0.3, 0.06, 0.002, 8, 4) == nothing
    below = energy.MIN_WINDOW_S * 0.99
    assert energy.columns(12.0, below, 0.002, 8, 4) == nothing
    row = energy.columns(12.0, energy.MIN_WINDOW_S, 0.002, 8, 4)
    assert row["power_w"] == pytest.approx(12.0 / energy.MIN_WINDOW_S)


def test_the_summary_names_rows_too_short_for_energy_on_a_metered_device() -> None:
    """Rows of a device whose other rows have energy, timed for less than the least
    window, are counted in a note; a device with no energy anywhere (no counter:
    the metadata says why) is not."""
    base = {"status": "ok", "kernel": "Stream_COPY", "precision": "f64", "size": 10}
    rows = [
        {**base, "device_id": "cuda:0", "power_w": 300.0, "timed_wall_s": 1.2},
        {**base, "device_id": "cuda:0", "power_w": None, "timed_wall_s": 0.06},
        {**base, "device_id": "cuda:0", "power_w": None, "timed_wall_s": 0.07},
        {**base, "device_id": "wgpu:1", "power_w": None, "timed_wall_s": 0.06},
    ]
    text = table.format_rows(rows)
    assert (
        "note: 2 timed row(s) have no energy figures: their timed repetitions lasted under "
        f"{energy.MIN_WINDOW_S:g} s, too short for the energy counter's steps "
        f"(--min-time {energy.MIN_WINDOW_S:g} times every row that long)"
    ) in text.splitlines()
    assert table.short_energy(rows[:1] + rows[3:]) is None

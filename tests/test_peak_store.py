"""The peaks store: a peak keeps the conditions it was measured in, one taken
under load or one that would lose or lower a stored figure is kept only with
--force (flagged), a run says which peak it uses, and a store that cannot be
read or written is named in one line before anything is measured."""

from __future__ import annotations

import datetime
import errno
import json
import math
import os
import tempfile

import pytest
from conftest import harness, run_folder

from harness.backends import get as get_backend
from harness.cli import main
from harness.execution import peaks, results
from harness.execution.runner import Runner

SMALL = ["--bandwidth-size", "65536", "--fma-size", "1024", "--max-time", "0.05", "--span", "0.05"]
MEASURE = ["peak", "-b", "cpu", *SMALL]
#: A good peak of this host's CPU device, measured on a quiet machine.
GOOD = {
    "measured": "2026-01-01T00:00:00+0000",
    "copy_gbytes_per_s": 1e6,
    "triad_gbytes_per_s": 1e6,
    "fma_gflops_per_s": {"f64": 1e6, "f32": 1e6},
    "notes": [],
    "warnings": [],
    "conditions": {"host": "here", "cpus": 2, "load_before": [0.1] * 3, "others_busy": 0.0},
}


@pytest.fixture
def cpu_key() -> str:
    return peaks.device_key(get_backend("cpu").default_devices()[0].as_dict())


@pytest.fixture
def store(tmp_path, monkeypatch):
    path = tmp_path / "peaks.json"
    monkeypatch.setenv("HARNESS_PEAKS", str(path))
    return path


@pytest.fixture
def quiet(monkeypatch):
    """A quiet machine: no load, no other process busy, no bandwidth swings."""
    monkeypatch.setattr(peaks.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(peaks, "_cpu_seconds", lambda: None)
    monkeypatch.setattr(peaks, "SPREAD", math.inf)


def test_a_quiet_peak_is_kept_with_its_conditions(store, quiet, capsys) -> None:
    assert main(MEASURE) == 0, capsys.readouterr().err
    (entry,) = json.loads(store.read_text()).values()
    assert entry["flagged"] is False and entry["warnings"] == []
    state = entry["conditions"]
    assert state["host"] and state["cpus"] == os.cpu_count()
    assert state["load_before"] == [0.0] * 3 and state["load_after"] == [0.0] * 3
    assert "others_busy" in state
    assert f"kept in {store}" in capsys.readouterr().err


def test_a_peak_under_load_is_refused_unless_forced(store, cpu_key, quiet, monkeypatch, capsys):
    monkeypatch.setattr(peaks.os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    store.write_text(json.dumps({cpu_key: GOOD}))
    before = store.read_bytes()
    assert main(MEASURE) == 1
    err = capsys.readouterr().err
    assert f"measured under load: the load average was 9.00 on {os.cpu_count()} CPUs" in err
    assert "not kept (the stored peak of 2026-01-01T00:00:00+0000 stays)" in err
    assert "keep it flagged with --force" in err
    assert store.read_bytes() == before

    store.unlink()
    assert main([*MEASURE, "--force"]) == 0
    entry = json.loads(store.read_text())[cpu_key]
    assert entry["flagged"] is True and entry["conditions"]["load_before"] == [9.0] * 3
    assert any("measured under load" in w for w in entry["warnings"])
    assert "kept flagged (--force)" in capsys.readouterr().err


def test_other_busy_processes_flag_a_cpu_peak() -> None:
    info = get_backend("cpu").default_devices()[0]
    state = {"cpus": 2, "load_before": [0.2] * 3, "others_busy": 0.6}
    assert "other processes took 60% of its CPU time" in peaks.under_load(info, state)
    assert peaks.under_load(info, {**state, "others_busy": 0.1}) is None
    busy = peaks.conditions(peaks.conditions())
    assert busy["others_busy"] is None or 0 <= busy["others_busy"] <= 1


def test_a_figure_far_below_the_stored_one_does_not_replace_it(store, cpu_key, quiet, capsys):
    store.write_text(json.dumps({cpu_key: GOOD}))
    before = store.read_bytes()
    assert main(MEASURE) == 1
    err = capsys.readouterr().err
    assert "is far below the stored 1e+06 GB/s (2026-01-01T00:00:00+0000)" in err
    assert "not kept" in err and store.read_bytes() == before


@pytest.mark.parametrize(("seconds", "amount"), [(0.0, 8.0), (1.0, 0.0), (math.nan, 8.0)])
def test_a_nonsense_measurement_is_noted_and_keeps_the_stored_one(
    store, cpu_key, quiet, monkeypatch, capsys, seconds, amount
) -> None:
    def execute(self, task):
        return {"status": "ok", "bytes_per_rep": amount, "flops_per_rep": amount,
                "time_min_s": seconds, "time_median_s": seconds, "gbytes_per_s": 1.0,
                "samples_s": [seconds]}  # fmt: skip

    monkeypatch.setattr(Runner, "execute", execute)
    store.write_text(json.dumps({cpu_key: GOOD}))
    before = store.read_bytes()
    assert main(MEASURE) == 1
    err = capsys.readouterr().err
    assert "note: Stream_COPY: measured " in err and "which no device does" in err
    assert "copy: not measured; the stored 1e+06 GB/s (2026-01-01T00:00:00+0000) would go" in err
    assert store.read_bytes() == before


def test_losses_name_each_figure_lost_or_lowered() -> None:
    new = {"copy_gbytes_per_s": 10.0, "triad_gbytes_per_s": 9e5, "fma_gflops_per_s": {"f64": 1e6}}
    assert peaks.losses(new, GOOD) == [
        "copy 10 GB/s is far below the stored 1e+06 GB/s (2026-01-01T00:00:00+0000)",
        "FMA f32: not measured; the stored 1e+06 GFLOP/s (2026-01-01T00:00:00+0000) would go",
    ]
    assert peaks.losses(new, None) == []


def test_describe_names_flagged_old_and_unrecorded_peaks() -> None:
    today = datetime.date(2026, 1, 10)
    assert peaks.describe(GOOD, today) == ("2026-01-01T00:00:00+0000", [])
    assert peaks.describe(GOOD, datetime.date(2026, 6, 1))[1] == ["old: measured 151 days ago"]
    flagged = {**GOOD, "flagged": True, "warnings": ["measured under load: ..."]}
    assert peaks.describe(flagged, today)[1] == ["flagged: measured under load: ..."]
    bare = {"copy_gbytes_per_s": 5.0}
    assert peaks.describe(bare, today) == (
        "at an unknown date",
        ["the load it was measured under was not recorded"],
    )


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (
            {"measured": "{now}"},
            "note: cpu:0's rows are placed against its peak of 1e+06 GB/s from {store}, "
            "measured {now}",
        ),
        (
            {"measured": "{now}", "flagged": True, "warnings": ["measured under load: 9"]},
            "warning: cpu:0's rows are placed against a doubtful peak of 1e+06 GB/s from "
            "{store}, measured {now}: flagged: measured under load: 9; measure again with: "
            "harness peak --device cpu:0",
        ),
        (
            {"measured": "2020-01-01T00:00:00+0000"},
            "warning: cpu:0's rows are placed against a doubtful peak of 1e+06 GB/s from "
            "{store}, measured 2020-01-01T00:00:00+0000: old: measured",
        ),
    ],
)
def test_a_run_says_once_which_peak_it_uses(tmp_path, store, cpu_key, entry, said) -> None:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S%z")
    entry = {k: (now if v == "{now}" else v) for k, v in entry.items()}
    store.write_text(json.dumps({cpu_key: {**GOOD, **entry}}))
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3",
                   "--out", str(tmp_path / "r"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert said.format(store=store, now=now) in proc.stderr
    assert proc.stderr.count("cpu:0's rows are placed against") == 1
    meta = results.read_metadata(run_folder(tmp_path / "r"))
    assert meta["peaks"]["cpu:0"]["copy_gbytes_per_s"] == 1e6


def test_a_run_names_a_damaged_store_and_leaves_it(tmp_path, store) -> None:
    store.write_text('{\n  "a": 1,\n  oops\n}\n')
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3",
                   "--out", str(tmp_path / "r"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"warning: peaks store {store}: damaged at line 3, column 3" in proc.stderr
    assert "no row is placed against a peak" in proc.stderr
    assert store.read_text() == '{\n  "a": 1,\n  oops\n}\n'


def _refused(capsys, message: str) -> str:
    """The measurement ends with exit status 2 and one line, before measuring."""
    assert main(MEASURE) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    return err


def test_a_store_that_is_a_folder(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("HARNESS_PEAKS", str(tmp_path))
    _refused(capsys, f"peaks store {tmp_path}: is a folder; point HARNESS_PEAKS at a file")


def test_a_store_that_is_no_regular_file(monkeypatch, capsys) -> None:
    monkeypatch.setenv("HARNESS_PEAKS", os.devnull)
    _refused(capsys, f"peaks store {os.devnull}: not a regular file")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{\n  "a": 1,\n  oops\n}\n', "damaged at line 3, column 3 (Expecting property name"),
        ("[1, 2]\n", "holds a JSON array, not the object of peaks harness peak writes"),
        ("", "damaged at line 1, column 1 (Expecting value)"),
    ],
)
def test_a_damaged_store_is_named_and_left(store, capsys, text, message) -> None:
    store.write_text(text)
    assert "it is left as it is" in _refused(capsys, f"peaks store {store}: {message}")
    assert store.read_text() == text


def test_a_read_only_store(store, capsys) -> None:
    store.write_text("{}\n")
    store.chmod(0o444)
    _refused(capsys, f"peaks store {store}: is read-only; point HARNESS_PEAKS at a file")


def test_a_store_in_a_read_only_folder(store, monkeypatch, capsys) -> None:
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    _refused(capsys, f"peaks store {store}: cannot write there (Permission denied)")


def test_a_store_on_a_full_disk(store, monkeypatch, capsys) -> None:
    def full(handle):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    _refused(capsys, f"peaks store {store}: cannot write there (No space left on device)")
    assert [p.name for p in store.parent.iterdir()] == [], "the probe was left behind"


def test_a_store_under_a_file(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("HARNESS_PEAKS", str(tmp_path / "file" / "peaks.json"))
    _refused(capsys, "cannot make its folder")


def test_a_disk_that_fills_while_measuring_leaves_the_store(store, cpu_key, quiet, monkeypatch,
                                                            capsys) -> None:  # fmt: skip
    store.write_text(json.dumps({cpu_key: GOOD}))
    before = store.read_bytes()

    def full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    assert main([*MEASURE, "--force"]) == 2
    err = capsys.readouterr().err
    assert f"peaks store {store}: cannot write it (No space left on device); it is left" in err
    assert store.read_bytes() == before
    assert not store.with_name("peaks.json.tmp").exists()

"""A row's host cost (its wall time besides its timed repetitions) and the summary's line."""

from __future__ import annotations

import pytest
from conftest import harness, run_folder

from harness.execution import results
from harness.execution.workers import host_cost
from harness.reporting.table import format_rows, host_summary


def test_host_cost_is_the_wall_time_less_the_timed_repetitions() -> None:
    assert host_cost({"timed_wall_s": 1.25}, 1.5)["host_s"] == pytest.approx(0.25)
    assert host_cost({"timed_wall_s": None}, 0.5)["host_s"] == 0.5  # nothing timed
    assert host_cost({}, 0.5)["host_s"] == 0.5


def test_the_summary_gives_the_median_and_names_the_costliest_row() -> None:
    rows = [
        {"kernel": "Stream_COPY", "device_id": "opencl:0", "size": 10, "host_s": 0.1},
        {"kernel": "Stream_ADD", "device_id": "opencl:0", "size": 20, "host_s": "0.3"},
        {"kernel": "Basic_DAXPY", "device_id": "cpu:0", "size": 30, "host_s": 2.5},
        {"kernel": "Stream_DOT", "device_id": "cpu:0", "size": 40, "host_s": ""},
    ]
    line = (
        "host cost per row (time besides the timed repetitions): median 300 ms, "
        "largest 2.5 s (Basic_DAXPY n=30 on cpu:0)"
    )
    assert host_summary(rows) == line
    assert line in format_rows(rows)
    assert host_summary([{"kernel": "Stream_COPY"}]) is None


def test_every_row_records_its_host_cost_and_the_summary_gives_it(tmp_path) -> None:
    proc = harness(
        "run", "-k", "Stream_COPY", "Stream_ADD", "-b", "cpu", "--size", "10000",
        "--reps", "3", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    rows = results.read_journal(folder)
    assert len(rows) == 2
    for row in rows:
        assert row["host_s"] > 0 and row["timed_wall_s"] > 0
    assert (
        "host cost per row (time besides the timed repetitions): median"
        in (folder / results.SUMMARY).read_text()
    )


def test_a_check_row_costs_its_whole_wall_time(tmp_path) -> None:
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--check", "--in-process", "--out", str(tmp_path)
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path))
    assert rows and all(r["host_s"] > 0 and "timed_wall_s" not in r for r in rows)


def test_a_worker_asks_for_inputs_at_the_size_it_runs_and_drops_stale_arena_views() -> None:
    from multiprocessing import Pipe

    from harness import suite
    from harness.execution import workers
    from harness.execution.runner import RunOptions, Task, data_key, make_data

    spec = suite.spec_of("Stream_COPY")
    planned, fitted = (Task("Stream_COPY", "cpu", 0, n, "f64") for n in (4096, 1024))
    here, there = Pipe()
    runner = workers._Supplied(RunOptions(), there)
    arena = workers._Arena()
    try:
        # The parent sent the planned size's data; the row runs smaller, so it asks.
        runner.take(planned, arena.share(make_data(spec, planned, 1)))
        here.send({"inline": make_data(spec, fitted, 1)})
        (timed, *_) = runner._inputs(spec, fitted)
        assert here.recv() == ("data", fitted) and timed.inputs["a"].size == 1024
        # Arena views go when a task comes without data; data of its own stay.
        runner.take(planned, arena.share(make_data(spec, planned, 1)))
        runner.take(fitted, None)
        assert runner._data_key is None
        runner.take(fitted, {"inline": make_data(spec, fitted, 1)})
        runner.take(fitted, None)
        assert runner._data_key == data_key(fitted)
    finally:
        arena.close()
        here.close()
        there.close()

"""Round 29 probes: each test says what was wrong before."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    harness,
    harness_mpi,
    mpi_env,
    mpirun,
    need_backend,
    one_error,
    run_folder,
)

from harness.execution import peaks, results


@pytest.fixture(scope="module")
def mpi_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole MPI run of two ranks, two kernels each, to copy and damage."""
    out = tmp_path_factory.mktemp("mpi")
    proc = harness_mpi("run", "-k", "Basic_DAXPY", "Stream_TRIAD", "-b", "cpu",
                       "--size", "1000", "--reps", "1", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def _stopped(mpi_run: Path, tmp_path: Path, rows: int = 2, **meta_change: Any) -> Path:
    """A copy of ``mpi_run`` as an interrupted run leaves it, with its first ``rows``
    rows (each rank's first, in a run of two ranks) and ``meta_change`` made."""
    run = tmp_path / mpi_run.name
    shutil.copytree(mpi_run, run)
    journal = run / "journal.jsonl"
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:rows]))
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta.update(interrupted=True, journal_rows=rows, **meta_change)
    path.write_text(json.dumps(meta))
    return run


def _lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "journal.jsonl").read_text().splitlines()]


def _write(run: Path, rows: list[dict[str, Any]]) -> str:
    text = "".join(json.dumps(row) + "\n" for row in rows)
    (run / "journal.jsonl").write_text(text)
    return text


@pytest.mark.full  # a job of MPI ranks
@pytest.mark.parametrize("field", ["name", "driver"])
def test_an_mpi_resume_refuses_a_rank_whose_device_is_another_now(
    mpi_run: Path, tmp_path: Path, field: str
) -> None:
    """A resume in one process refuses a device id that names another device now; an
    MPI resume never looked, ran the rows left on the other device under the run's
    id, and overwrote the run's metadata with the new device's name."""
    run = _stopped(mpi_run, tmp_path)
    rows = _lines(run)
    assert [r["rank"] for r in rows] == [0, 1]
    here = rows[1]["device" if field == "name" else "device_driver"]
    rows[1]["device" if field == "name" else "device_driver"] = "Another device"
    journal = _write(run, rows)
    proc = harness_mpi("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert (
        f"harness: error: --resume: the run's cpu:0 of rank 1 has {field} 'Another device' "
        f"in its journal's line 2, {here!r} here: its rows would be two devices' under one "
        "id; resume where the run began, or begin a new run"
    ) in proc.stderr.splitlines()
    assert "Traceback" not in proc.stderr
    assert (run / "journal.jsonl").read_text() == journal
    assert results.read_metadata(run)["interrupted"] is True


@pytest.mark.full  # a job of MPI ranks
def test_an_mpi_resume_names_a_row_its_options_do_not_plan(mpi_run: Path, tmp_path: Path) -> None:
    """A row of a size the run never asked for was taken into an MPI resume without a
    word (a resume in one process names it and does not count it done)."""
    run = _stopped(mpi_run, tmp_path)
    rows = _lines(run)
    _write(run, [*rows, dict(rows[0], size=2000)])
    proc = harness_mpi("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"warning: {run / 'journal.jsonl'}:3: a row the run's options do not plan "
        "(Stream_TRIAD f64 n=2000 on cpu:0; 1 such row(s)): not counted as done"
    ) in proc.stderr.splitlines()
    done = sorted((r["rank"], r["kernel"], r["size"]) for r in results.read_journal(run))
    assert done == [
        (0, "Basic_DAXPY", 1000),
        (0, "Stream_TRIAD", 1000),
        (0, "Stream_TRIAD", 2000),
        (1, "Basic_DAXPY", 1000),
        (1, "Stream_TRIAD", 1000),
    ]


@pytest.mark.full  # a job of MPI ranks
@pytest.mark.parametrize(
    "ranks",
    [[1, 2], "ab", [{"rank": 0, "devices": ["cpu:0"]}, {"rank": 1}]],
    ids=["numbers", "text", "no-devices"],
)
def test_a_resume_whose_ranks_are_damaged_is_one_line(
    mpi_run: Path, tmp_path: Path, ranks: Any
) -> None:
    """An MPI run's metadata whose ``ranks`` was not a list of each rank's devices
    ended rank 0 in a traceback; the other rank waited until its planning timed out
    and said that rank 0 fell silent. Under mpirun and without it, one line now."""
    run = _stopped(mpi_run, tmp_path, ranks=ranks)
    said = (
        f"--resume: {run / 'metadata.json'}: 'ranks' is {ranks!r}; a list of each MPI "
        'rank\'s {"rank": ..., "devices": [device ids]}, as harness run writes it, is accepted'
    )
    if not isinstance(ranks, list) or not all(isinstance(r, dict) for r in ranks):
        # Not a list of objects: every reader refuses it, as a field of the wrong type.
        said = (
            f"{run / 'metadata.json'}:1: 'ranks' is {json.dumps(ranks)}; a list of each MPI "
            'rank\'s {"rank": ..., "host": ..., "devices": [...]} is accepted'
        )
    alone = harness("run", "--resume", str(run))
    assert alone.returncode == 2, alone.stderr
    assert one_error(alone.stderr) == said
    ranked = harness_mpi("run", "--resume", str(run))
    assert ranked.returncode == 2, ranked.stderr
    assert f"harness: error: {said}" in ranked.stderr.splitlines()
    assert "Traceback" not in ranked.stderr
    assert "fell silent" not in ranked.stderr
    assert len(_lines(run)) == 2


@pytest.mark.full  # a job of MPI ranks
def test_an_mpi_resume_of_a_folder_rank_0_refuses_ends_every_rank_at_once(
    tmp_path: Path,
) -> None:
    """Rank 0 refused a run folder to resume (missing, not a run) alone: the other
    ranks waited for its options until the launcher stopped them, each then saying
    'rank 1 interrupted; rank 0 ends the run' under the one line of the refusal."""
    proc = harness_mpi("run", "--resume", str(tmp_path / "gone"))
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "harness" in line]
    assert errors == [f"harness: error: {tmp_path / 'gone'}: no such run folder"]


@pytest.mark.full  # a job of MPI ranks
def test_an_mpi_resume_checks_the_run_s_size_factors(mpi_run: Path, tmp_path: Path) -> None:
    """A hand-edited size factor that gives every kernel a size below 1 is refused by a
    resume in one process; an MPI resume ran on with it."""
    options = json.loads((mpi_run / "metadata.json").read_text())["options"]
    run = _stopped(mpi_run, tmp_path, options=dict(options, size=None, size_factors=[1e-9]))
    proc = harness_mpi("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert (
        f"harness: error: --resume: {run / 'metadata.json'}: options.size_factors 1e-09 gives "
        "every selected kernel a size below 1 (the largest default size, Stream_TRIAD's "
        "1000000, times 1e-09); a factor of at least 1e-06 is accepted"
    ) in proc.stderr.splitlines()
    assert len(_lines(run)) == 2


def _two_opencl_devices() -> list[str]:
    """Two OpenCL devices here that are not the simulator, or the test is skipped."""
    need_backend("opencl")
    proc = harness("devices", "--json")
    assert proc.returncode == 0, proc.stderr
    found = [
        device["id"]
        for backend in json.loads(proc.stdout)
        if backend["backend"] == "opencl"
        for device in backend["devices"]
        if device["kind"] != "simulator"
    ]
    if len(found) < 2:
        pytest.skip("fewer than two OpenCL devices here")
    return found[:2]


@pytest.mark.full  # a job of MPI ranks, and two devices' peaks measured
def test_an_mpi_run_places_each_rank_s_rows_against_its_own_device_s_peak(
    tmp_path: Path,
) -> None:
    """Ranks on a node of several devices each take one (four ranks, four GPUs), but
    only rank 0 looked up its device's measured peak: the other ranks' rows had no
    pct_peak_bw, and the report no peak for their devices, though each was measured."""
    devices = _two_opencl_devices()
    store = tmp_path / "peaks.json"
    for device in devices:
        proc = harness(
            "peak", "--device", device, "--span", "0.2", "--max-time", "0.2",
            "--bandwidth-size", "65536", "--fma-size", "1024", "--force",
            env={"HARNESS_PEAKS": str(store)},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out"
    env = {**mpi_env(), "HARNESS_PEAKS": str(store)}
    command = [mpirun(), "-n", "2", "--oversubscribe", sys.executable, "-m", "harness", "run",
               "-k", "Stream_TRIAD", "--device", devices[0], "--device", devices[1],
               "--size", "100000", "--reps", "2", "--out", str(out)]  # fmt: skip
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    meta = results.read_metadata(run)
    assert sorted(meta["peaks"]) == sorted(devices)
    rows = results.read_journal(run)
    assert sorted((r["rank"], r["device_id"]) for r in rows) == [(0, devices[0]), (1, devices[1])]
    for row in rows:
        peak = meta["peaks"][row["device_id"]]
        assert peak["device"]["name"] == row["device"]
        best = peaks.bandwidth(peak)
        assert row["pct_peak_bw"] == pytest.approx(100 * row["gbytes_per_s"] / best)


@pytest.mark.full  # a job of MPI ranks
def test_a_report_names_each_host_s_device_of_one_id_by_its_own_name(
    mpi_run: Path, tmp_path: Path
) -> None:
    """An MPI job over two hosts whose cuda:0 are two models (a node of each kind)
    keeps each row's device name, but the report labelled every row of the id with
    the first row's name: the second host's rows under the first host's model."""
    run = tmp_path / mpi_run.name
    shutil.copytree(mpi_run, run)
    rows = _lines(run)
    for row in rows:
        if row["rank"] == 1:
            row.update(host="node2", device="Another CPU")
    _write(run, rows)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["ranks"][1]["host"] = "node2"
    path.write_text(json.dumps(meta))
    here = rows[0]["host"]
    proc = harness("report", str(run), "--out", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    assert (
        f"- 2 kernels on 2 devices ({here}: cpu:0 r0 ({rows[0]['device']}); node2: cpu:0 r1 "
        "(Another CPU)): 4 rows, 4 ok, 0 fail, 0 error, 0 skipped."
    ) in text.splitlines()

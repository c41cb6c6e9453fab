"""Rows that move their data in the timed region (--transfers): what each mode
moves, that the results after the moves are verified, and the plot of the parts."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

from harness import suite
from harness.execution import results, transfers
from harness.execution.runner import Runner, RunOptions, Task, make_inputs
from harness.model.modes import TRANSFER_MODES

BACKENDS = ("cpu", "opencl", "wgpu")


def test_per_rep_moves_inputs_in_and_outputs_out_around_all_launches() -> None:
    spec = suite.spec_of("Apps_ENERGY")
    launches = spec.resolve(1000, make_inputs(spec, 1000, 1, "f64"), "f64")
    (step,) = transfers.steps(spec, launches, "per-rep")
    intent = {a.name: a.intent for a in spec.arrays}
    assert step.launches == tuple(launches)
    assert {intent[n] for n in step.uploads} <= {"in", "inout"}
    assert set(step.downloads) == {a.name for a in spec.outputs}


def test_per_launch_moves_each_launch_arguments_and_intermediates() -> None:
    spec = suite.spec_of("Apps_ENERGY")
    launches = spec.resolve(1000, make_inputs(spec, 1000, 1, "f64"), "f64")
    steps = transfers.steps(spec, launches, "per-launch")
    assert [s.launches for s in steps] == [(launch,) for launch in launches]
    intent = {a.name: a.intent for a in spec.arrays}
    written: set[str] = set()
    for step, launch in zip(steps, launches, strict=True):
        assert set(step.uploads) | set(step.downloads) <= set(launch.arrays)
        # An array written by an earlier launch is read back in as an input.
        assert set(step.uploads) == {
            n for n in launch.arrays if intent[n] in ("in", "inout") or n in written
        }
        assert set(step.downloads) == {n for n in launch.arrays if intent[n] != "in"}
        written |= set(step.downloads)
    # ENERGY's first launch writes e_new, which later launches read and update.
    assert "e_new" in steps[0].downloads and "e_new" in steps[1].uploads


def test_an_unknown_mode_is_refused_by_name() -> None:
    spec = suite.spec_of("Stream_COPY")
    with pytest.raises(ValueError, match="'resident' has no steps"):
        transfers.steps(spec, [], "resident")


def test_three_modes_give_verified_rows_split_into_parts(tmp_path: Path) -> None:
    for backend in BACKENDS:
        need_backend(backend)
    proc = harness(
        "run", "-k", "Apps_ENERGY", "-b", *BACKENDS, "--size", "20000", "--reps", "5",
        "--transfers", "resident", "per-rep", "per-launch", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    with (folder / results.RESULTS).open() as f:
        rows = {(r["backend"], r["transfers"]): r for r in csv.DictReader(f)}
    assert set(rows) == {(b, m) for b in BACKENDS for m in TRANSFER_MODES}
    for (_, mode), row in rows.items():
        assert row["status"] == "ok", row["reason"]
        h2d, kernel, d2h = (float(row[c]) for c in ("h2d_s", "kernel_s", "d2h_s"))
        assert kernel > 0
        if mode == "resident":
            assert h2d == d2h == 0 and kernel == float(row["time_median_s"])
        else:
            assert h2d > 0 and d2h > 0
    for backend in BACKENDS:
        moved = {m: int(rows[(backend, m)]["h2d_bytes_per_rep"]) for m in TRANSFER_MODES}
        # Per launch re-sends the intermediates and the inputs every launch needs.
        assert moved["resident"] == 0 < moved["per-rep"] < moved["per-launch"]
    assert rows[("opencl", "per-rep")]["transfer_timer"] == "device"
    assert rows[("wgpu", "per-rep")]["transfer_timer"] == "host"
    plots = harness("plot", str(folder), "--out", str(tmp_path / "plots"))
    assert plots.returncode == 0, plots.stderr
    assert (tmp_path / "plots" / "transfers.png").stat().st_size > 10_000


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_download_left_out_fails_the_row(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    need_backend(backend)
    real = transfers.steps

    def without_downloads(*args: object) -> list[transfers.Step]:
        return [transfers.Step(s.uploads, s.launches, ()) for s in real(*args)]  # type: ignore[arg-type]

    monkeypatch.setattr(transfers, "steps", without_downloads)
    runner = Runner(RunOptions(reps=2))
    try:
        row = runner.execute(Task("Stream_TRIAD", backend, 0, 5000, "f64", transfers="per-rep"))
    finally:
        runner.close()
    assert row["status"] == "fail"
    # Triad writes a; the host's copy of it keeps its inputs.
    assert row["reason"].startswith("with per-rep transfers: a: 5000 of 5000 elements off")

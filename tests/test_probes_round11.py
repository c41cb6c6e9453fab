"""Hostile-user probes, eleventh round: journal lines and peaks edited by hand into
shapes no run writes (lists and objects where readers key on text, a host cost
given as text, peaks whose notes are a number, in a run's metadata or in the
peaks store), and a resume of saved work-group sizes the command line refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import harness, one_error

from harness.backends import get as get_backend
from harness.execution import peaks

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]


def _edit_row(run: Path, number: int, **values: object) -> Path:
    """Set ``values`` in line ``number`` (from 1) of the run's journal; its path."""
    journal = run / "journal.jsonl"
    lines = journal.read_text().splitlines()
    lines[number - 1] = json.dumps({**json.loads(lines[number - 1]), **values})
    journal.write_text("\n".join(lines) + "\n")
    return journal


@pytest.mark.parametrize(("command", "status"), [("compare", 1), ("export", 0), ("report", 0)])
def test_a_list_in_a_column_rows_are_keyed_on_is_a_damaged_line(
    command: str, status: int, quick_run: Path, run: Path, tmp_path: Path
) -> None:
    """A journal row whose partition was a list was 'TypeError: unhashable type:
    list', a traceback, in compare, export and report."""
    journal = _edit_row(run, 1, partition=["item"])
    args = {
        "compare": ["compare", str(quick_run), str(run)],
        "export": ["export", str(run), "--thicket", "--out", str(tmp_path / "out")],
        "report": ["report", str(run), "--out", str(tmp_path / "out")],
    }[command]
    proc = harness(*args)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == status, proc.stderr
    assert (
        f"warning: {journal}:1: skipped a torn or corrupt line: 'partition' is a list, not text"
    ) in proc.stderr.splitlines()


def test_a_resume_runs_again_a_row_whose_cache_is_an_object(run: Path) -> None:
    """--resume of a journal whose row had an object for its cache stopped on a
    traceback (unhashable type: 'dict') and ran nothing: the run could never finish."""
    journal = _edit_row(run, 1, cache={"hot": True})
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [(r["kernel"], r["cache"]) for r in rows] == [
        ("Stream_TRIAD", {"hot": True}),
        ("Basic_DAXPY", "hot"),
        ("Stream_TRIAD", "hot"),
    ]


def test_a_host_cost_given_as_text_is_no_cost_shown(run: Path) -> None:
    """A journal row whose host_s was the text '-5' passed as a number: show said
    'host cost per row ...: median -2.5e+09 ns'."""
    journal = _edit_row(run, 1, host_s="-5")
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"warning: {journal}:1: skipped a torn or corrupt line: 'host_s' is a string, not a number"
    ) in proc.stderr.splitlines()
    (cost,) = [x for x in proc.stdout.splitlines() if x.startswith("host cost per row")]
    assert "-" not in cost.split("median ")[1].split(",")[0], cost
    assert cost.endswith("(Basic_DAXPY f64 n=1000 on cpu:0)"), cost


def test_a_report_of_peaks_whose_notes_are_a_number_is_one_line(run: Path, tmp_path: Path) -> None:
    """A run's metadata whose device peaks had notes 5 made report stop on
    'TypeError: Value after * must be an iterable, not int'."""
    meta = json.loads((run / "metadata.json").read_text())
    meta["peaks"] = {"cpu:0": {"copy_gbytes_per_s": 10.0, "notes": 5}}
    (run / "metadata.json").write_text(json.dumps(meta))
    proc = harness("report", str(run), "--out", str(tmp_path / "report"))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{run / 'metadata.json'}:1: 'peaks' is an object; an object of each device's peaks "
        "(objects, FMA rates an object by precision, notes and warnings lists) is accepted"
    )
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        ({"warnings": 5}, "its warnings is 5, not a list"),
        ({"fma_gflops_per_s": [1.0]}, "its fma_gflops_per_s is [1.0], not an object"),
        ({"copy_gbytes_per_s": "abc"}, 'its copy_gbytes_per_s is "abc"'),
        ({"triad_gbytes_per_s": -5}, "its triad_gbytes_per_s is -5"),
        ({"fma_gflops_per_s": {"f64": True}}, "its fma_gflops_per_s f64 is true"),
    ],
    ids=["warnings", "fma", "text", "negative", "true"],
)
def test_a_store_of_damaged_peaks_places_no_row_and_the_run_stays_readable(
    damage: dict[str, object], named: str, tmp_path: Path
) -> None:
    """A peaks store whose entry had warnings 5 made every run stop on a traceback
    after making its run folder; one whose FMA rates were a list was copied into
    the run's metadata, which every command then refused: a run nothing could read."""
    device = get_backend("cpu").default_devices()[0].as_dict()
    entry = {"device": device, "measured": "2026-11-29T10:00:00+0000", "notes": []}
    entry.update(copy_gbytes_per_s=10.0, warnings=[], fma_gflops_per_s={"f64": 1.0})
    entry.update(damage)
    store = tmp_path / "peaks.json"
    key = peaks.device_key(device)
    store.write_text(json.dumps({key: entry}))
    before = store.read_bytes()
    out = tmp_path / "out"
    proc = harness(
        "run", *QUICK, "--reps", "3", "--out", str(out), env={"HARNESS_PEAKS": str(store)}
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        f"warning: peaks store {store}: {key!r} holds damaged peaks ({named}; figures should "
        "be positive numbers, FMA rates an object of them by precision, notes and warnings "
        "lists); it is left as it is: repair or remove it, or point HARNESS_PEAKS at another "
        "file; no row is placed against a peak"
    ) in proc.stderr.splitlines()
    (folder,) = out.iterdir()
    shown = harness("show", str(folder))
    assert shown.returncode == 0, shown.stderr
    assert "pct_peak_bw" not in (folder / "journal.jsonl").read_text()
    assert store.read_bytes() == before


@pytest.mark.parametrize("groups", [[3], [8192]])
def test_a_resume_refuses_a_saved_group_size_the_command_line_refuses(
    groups: list[int], run: Path
) -> None:
    """A run's metadata edited to hold options.groups [3] (or 8192) resumed, ran a
    row at that work-group size, which --group refuses, and passed."""
    journal = run / "journal.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[0])
    before = journal.read_bytes()
    meta = json.loads((run / "metadata.json").read_text())
    meta["options"]["groups"] = groups
    (run / "metadata.json").write_text(json.dumps(meta))
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--resume: {run / 'metadata.json'}: options.groups is {groups!r}; a list of powers "
        "of two from 32 to 4096 is accepted"
    )
    assert journal.read_bytes() == before


@pytest.mark.parametrize("size", ["1", "2"])
def test_nested_init_checks_at_the_smallest_sizes(size: str, tmp_path: Path) -> None:
    """Basic_NESTED_INIT's check case (edges n, n-1, n-2) gave a negative edge at
    sizes 1 and 2: an error row, 'OverflowError: Python integer -1 out of bounds
    for uint32'."""
    proc = harness(
        "run", "--check", "-k", "Basic_NESTED_INIT", "-b", "cpu", "opencl",
        "--size", size, "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "2 ok, 0 fail, 0 error, 0 skipped" in proc.stdout

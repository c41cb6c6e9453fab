"""Hostile-user probes, fourteenth round: rows that contradict their run's metadata
(an ok row over its kernel's tolerance, a device named otherwise, a mode no run
measures in), journals with rows removed or a case measured twice, which compare
passed, an include the preprocessor skips, and RAJAPerf details with no reps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, harness, one_error, run_folder

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000", "--reps", "3"]


def _quick_run(tmp_path: Path, *more: str) -> Path:
    out = tmp_path / "out"
    proc = harness("run", *QUICK, *more, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "journal.jsonl").open()]


def _write_rows(run: Path, rows: list[dict]) -> None:
    (run / "journal.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: ")]


def test_an_ok_row_over_its_kernels_tolerance_is_damage(tmp_path: Path) -> None:
    """A row whose error was 0.5, a hundred thousand times Basic_DAXPY's tolerance
    at f64, was shown and compared as ok."""
    run = _quick_run(tmp_path)
    rows = _rows(run)
    daxpy = next(i for i, r in enumerate(rows) if r["kernel"] == "Basic_DAXPY")
    rows[daxpy]["max_rel_error"] = 0.5
    _write_rows(run, rows)
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == [
        f"warning: {run / 'journal.jsonl'}:{daxpy + 1}: skipped a damaged row: 'status' is "
        "'ok', but its 'max_rel_error' (0.5) is above the tolerance of Basic_DAXPY at f64 "
        "(1e-10) in metadata.json; a row that passed its check is within it"
    ]
    assert "Basic_DAXPY" not in proc.stdout


def test_a_kernel_with_its_own_check_keeps_an_error_its_check_allows(tmp_path: Path) -> None:
    """Demo_MANDELBROT's check lets up to 1% of pixels differ, its tolerance is 0: its
    error is a fraction of pixels, not a relative error held to the tolerance."""
    out = tmp_path / "out"
    proc = harness("run", "-k", "Demo_MANDELBROT", "-b", "cpu", "--size", "4096", "--reps", "2",
                   "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    meta = json.loads((run / "metadata.json").read_text())
    assert meta["kernels"]["Demo_MANDELBROT"]["own_check"] is True
    rows = _rows(run)
    rows[0]["max_rel_error"] = 0.005
    _write_rows(run, rows)
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == []
    assert "Demo_MANDELBROT" in proc.stdout


@pytest.mark.parametrize(
    ("key", "value", "accepted"),
    [
        ("cache", "lukewarm", "hot, cold"),
        ("transfers", "teleport", "resident, per-rep, per-launch"),
    ],
)
def test_a_mode_no_run_measures_in_is_damage(
    tmp_path: Path, key: str, value: str, accepted: str
) -> None:
    """A row of cache 'lukewarm' or transfers 'teleport' was read as a mode of its own."""
    run = _quick_run(tmp_path)
    rows = _rows(run)
    rows[1][key] = value
    _write_rows(run, rows)
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == [
        f"warning: {run / 'journal.jsonl'}:2: skipped a torn or corrupt line: {key!r} is "
        f"{value!r}; one of {accepted} is accepted"
    ]


def test_a_row_naming_another_device_than_the_metadata_is_named(tmp_path: Path) -> None:
    """A row whose device name was not the metadata's for its id was labelled with the
    metadata's device's kind and peaks without a word."""
    run = _quick_run(tmp_path)
    rows = _rows(run)
    listed = rows[0]["device"]
    rows[0]["device"] = "NVIDIA H200"
    _write_rows(run, rows)
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == [
        f"warning: {run / 'journal.jsonl'}:1: the row names device cpu:0 'NVIDIA H200', but "
        f"metadata.json names it {listed!r}; it is read as the journal gives it, its kind and "
        "peaks as metadata.json gives them"
    ]
    assert "NVIDIA H200" in (run / "results.csv").read_text()


def test_a_row_removed_from_a_base_fails_the_gate(tmp_path: Path) -> None:
    """A base whose regressing row was deleted (not damaged) left the new row with
    nothing to be judged against, and the gate passed."""
    base, new = _quick_run(tmp_path / "base"), _quick_run(tmp_path / "new")
    assert json.loads((base / "metadata.json").read_text())["journal_rows"] == 2
    _write_rows(base, _rows(base)[1:])
    proc = harness("show", str(base))
    assert _warnings(proc.stderr) == [
        f"warning: {base / 'journal.jsonl'}: 1 row(s) fewer than metadata.json counts at the "
        "run's end (its 'journal_rows'): rows were removed from it"
    ]
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 1, proc.stderr
    assert (
        f"fail: {base / 'journal.jsonl'}: 1 row(s) fewer than metadata.json counts at the "
        f"run's end (its 'journal_rows'): rows were removed from it, and 1 row(s) of {new} "
        "have no base row to be judged against: they may be the lost ones"
    ) in proc.stderr.splitlines()
    # Removed from the new run instead, the base row it lacks may be the regressed one.
    proc = harness("compare", str(new), str(base))
    assert proc.returncode == 1, proc.stderr
    assert "rows were removed from it, and 1 row(s) of the base are not in it" in proc.stderr


@pytest.mark.parametrize("which", ["base", "new"])
def test_a_case_measured_twice_fails_the_gate(tmp_path: Path, which: str) -> None:
    """A new journal holding a case twice, fast first and 100x slower after, was judged
    on its first row: the slower was dropped with a warning and the gate passed."""
    base, new = _quick_run(tmp_path / "base"), _quick_run(tmp_path / "new")
    edited = base if which == "base" else new
    rows = _rows(edited)
    slower = dict(rows[0])
    for key, value in rows[0].items():
        if key.startswith(("time_", "kernel_s")) and isinstance(value, float):
            slower[key] = value * 100
    for rate, work in (("gbytes_per_s", "bytes_per_rep"), ("gflops_per_s", "flops_per_rep")):
        if slower.get(rate) is not None:
            slower[rate] = slower[work] / slower["time_median_s"] / 1e9
    _write_rows(edited, [*rows, slower])
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 1, proc.stderr
    assert (
        f"fail: {edited / 'journal.jsonl'}:3 measures the case of line 1 again (1 such "
        "line(s)): which is the run's measurement cannot be told, so the comparison cannot pass"
    ) in proc.stderr.splitlines()


def test_a_run_id_of_the_wrong_type_is_named_with_its_value(tmp_path: Path) -> None:
    """A run_id of 42 was 'should be text (an identifier)', naming no value."""
    run = _quick_run(tmp_path)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["run_id"] = 42
    path.write_text(json.dumps(meta, indent=2))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if '"run_id"' in text)
    proc = harness("show", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{path}:{line}: 'run_id' is 42; text (an identifier) is accepted"
    )


def test_an_include_inside_if_0_need_not_exist(tmp_path: Path) -> None:
    """An #include of a file not there, inside #if 0, which a C preprocessor skips,
    was refused: 'gone.h: cannot be read'."""
    folder = tmp_path / "src"
    (folder / "c").mkdir(parents=True)
    body = (ROOT / "kernels" / "c" / "Basic_DAXPY.c").read_text()
    (folder / "c" / "Basic_DAXPY.c").write_text(f'#if 0 // old\n#include "gone.h"\n#endif\n{body}')
    out = tmp_path / "out"
    proc = harness("run", "--check", "-k", "Basic_DAXPY", "-b", "opencl", "--sources",
                   str(folder), "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert {r["status"] for r in _rows(run_folder(out))} == {"ok"}
    # Its #else branch is compiled: an include there must exist.
    (folder / "c" / "Basic_DAXPY.c").write_text(f'#if 0\n#else\n#include "gone.h"\n#endif\n{body}')
    proc = harness("run", "--check", "-k", "Basic_DAXPY", "-b", "opencl", "--sources",
                   str(folder), "--out", str(out))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--sources {str(folder)!r}: gone.h: cannot be read (No such file or directory)"
    )


def test_rajaperf_details_with_no_reps_leave_them_unknown(tmp_path: Path) -> None:
    """Reps 0 for a kernel raja-perf.exe timed was imported as a row of 0 reps."""
    folder = tmp_path / "rajaperf"
    folder.mkdir()
    for path in (FIXTURES / "rajaperf_output").iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    details = folder / "RAJAPerf-kernel-details.csv"
    lines = details.read_text().splitlines(keepends=True)
    header = next(line for line in lines if line.startswith("Kernel "))
    at = [c.strip() for c in header.split(",")].index("Reps")
    number = next(i for i, line in enumerate(lines) if line.startswith("Stream_COPY"))
    cells = lines[number].split(",")
    cells[at] = " 0"
    lines[number] = ",".join(cells)
    details.write_text("".join(lines))
    out = tmp_path / "out"
    proc = harness("import-rajaperf", str(folder), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"warning: {details}:{number + 1}: Reps is '0'; a whole number from 1 to 1e+18 is "
        "accepted: left out"
    ) in proc.stderr.splitlines()
    copies = [r for r in _rows(run_folder(out)) if r["kernel"] == "Stream_COPY"]
    assert copies and all(r["reps"] is None for r in copies)

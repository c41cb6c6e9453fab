"""Hostile-user probes, fourteenth round: rows that contradict their run's metadata
(an ok row over its kernel's tolerance, a device named otherwise, a mode no run
measures in), journals with rows removed or a case measured twice, which compare
passed, an include the preprocessor skips, and RAJAPerf details with no reps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import (
    FIXTURES,
    ROOT,
    copy_run,
    harness,
    need_backend,
    one_error,
    run_folder,
    source_names,
    started_until,
)

from harness.api import run_arguments
from harness.backends import get as get_backend
from harness.execution import peaks

# Each test here runs the harness end to end on an edge case, seconds of
# subprocesses apiece: the full tier's, so that the fast tier keeps to its minutes.
pytestmark = pytest.mark.full

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


def _shown_edited(run: Path, kernel: str, values: dict[str, object]) -> tuple[int, list[str]]:
    """``harness show`` of the run once its row of ``kernel`` has ``values``: that row's
    line number and the warnings show gave (it exits 0)."""
    rows = _rows(run)
    number = next(i for i, r in enumerate(rows, 1) if r["kernel"] == kernel)
    rows[number - 1].update(values)
    _write_rows(run, rows)
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    return number, _warnings(proc.stderr)


def test_an_ok_row_over_its_kernels_tolerance_is_damage(tmp_path: Path) -> None:
    """A row whose error was 0.5, a hundred thousand times Basic_DAXPY's tolerance
    at f64, was shown and compared as ok."""
    run = _quick_run(tmp_path)
    number, warned = _shown_edited(run, "Basic_DAXPY", {"max_rel_error": 0.5})
    assert warned == [
        f"warning: {run / 'journal.jsonl'}:{number}: skipped a damaged row: 'status' is "
        "'ok', but its 'max_rel_error' (0.5) is above the tolerance of Basic_DAXPY at f64 "
        "(1e-10) in metadata.json; a row that passed its check is within it"
    ]
    assert "Basic_DAXPY" not in (run / "results.csv").read_text()


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
    assert _shown_edited(run, "Demo_MANDELBROT", {"max_rel_error": 0.005}) == (1, [])
    assert "Demo_MANDELBROT" in (run / "results.csv").read_text()


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
    number, warned = _shown_edited(run, "Basic_DAXPY", {key: value})
    assert warned == [
        f"warning: {run / 'journal.jsonl'}:{number}: skipped a torn or corrupt line: {key!r} "
        f"is {value!r}; one of {accepted} is accepted"
    ]


def test_a_row_naming_another_device_than_the_metadata_is_named(tmp_path: Path) -> None:
    """A row whose device name was not the metadata's for its id was labelled with the
    metadata's device's kind and peaks without a word."""
    run = _quick_run(tmp_path)
    listed = _rows(run)[0]["device"]
    number, warned = _shown_edited(run, "Stream_TRIAD", {"device": "NVIDIA H200"})
    assert warned == [
        f"warning: {run / 'journal.jsonl'}:{number}: the row names device cpu:0 'NVIDIA H200', "
        f"but metadata.json names it {listed!r}; it is read as the journal gives it, its kind "
        "and peaks as metadata.json gives them"
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
    lines = (FIXTURES / "rajaperf_output" / DETAILS).read_text().splitlines(keepends=True)
    header = next(line for line in lines if line.startswith("Kernel "))
    at = [c.strip() for c in header.split(",")].index("Reps")
    number = next(i for i, line in enumerate(lines) if line.startswith("Stream_COPY"))
    cells = lines[number].split(",")
    cells[at] = " 0"
    lines[number] = ",".join(cells)
    folder = _raja(tmp_path, DETAILS, lambda t: "".join(lines))
    said, rows = _imported(tmp_path, folder)
    assert (
        f"warning: {folder / DETAILS}:{number + 1}: Reps is '0'; a whole number from 1 to 1e+18 "
        "is accepted: left out"
    ) in said
    copies = [r for r in rows if r["kernel"] == "Stream_COPY"]
    assert copies and all(r["reps"] is None for r in copies)


def test_a_peak_too_small_for_any_device_places_no_row(tmp_path: Path) -> None:
    """A store's bandwidth peak of 1e-300 GB/s made a row's pct_peak_bw 2e302, which the
    run's own reader then skipped as corrupt: 0 rows, exit 0, the measurement lost."""
    device = get_backend("cpu").default_devices()[0].as_dict()
    entry = {"device": device, "measured": "2026-11-29T10:00:00+0000", "notes": []}
    entry.update(copy_gbytes_per_s=1e-300, warnings=[], fma_gflops_per_s={"f64": 1e-300})
    store = tmp_path / "peaks.json"
    store.write_text(json.dumps({peaks.device_key(device): entry}))
    out = tmp_path / "out"
    proc = harness("run", *QUICK, "--out", str(out), env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 0, proc.stderr
    rows = _rows(run_folder(out))
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert not any("pct_peak_bw" in r or "pct_peak_flops" in r for r in rows)
    assert "skipped" not in proc.stderr


def test_an_include_of_a_device_or_pipe_is_refused(tmp_path: Path) -> None:
    """An #include of a named pipe waited for ever; of /dev/zero it read until the
    machine ran out of memory."""
    folder = tmp_path / "src"
    (folder / "c").mkdir(parents=True)
    os.mkfifo(tmp_path / "pipe")
    (folder / "c" / "Basic_DAXPY.c").write_text(f'#include "{tmp_path / "pipe"}"\n')
    proc = harness("cuda-compile", "--arch", "80", "--sources", str(folder), timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--sources {str(folder)!r}: pipe is not a regular file (a device, pipe or socket), "
        "where a source file is expected"
    )


def test_a_line_directive_in_a_source_is_refused(tmp_path: Path) -> None:
    """A #line directive renumbered compiled lines past the file's end: their mutants
    counted as code the kernel does not compile, and --fail-under 100 passed."""
    folder = tmp_path / "src"
    (folder / "c").mkdir(parents=True)
    body = (ROOT / "kernels" / "c" / "Basic_DAXPY.c").read_text()
    (folder / "c" / "Basic_DAXPY.c").write_text(f"#line 300\n{body}")
    proc = harness("run", "--check", "-k", "Basic_DAXPY", "-b", "opencl", "--sources",
                   str(folder), "--out", str(tmp_path / "out"))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--sources {str(folder)!r}: Basic_DAXPY.c:1: '#line 300': a #line directive renumbers "
        "the lines the harness numbers itself (compiler messages, mutants); a source without "
        "one is accepted"
    )


def test_mutants_lines_with_no_last_line_is_refused(tmp_path: Path) -> None:
    """--lines Basic_DAXPY.c:5- was taken as line 5 alone, where 6-5 and -5 are refused."""
    proc = harness("mutants", "-k", "Basic_DAXPY", "-b", "opencl", "--lines", "Basic_DAXPY.c:5-",
                   "--out", str(tmp_path / "out"))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "'Basic_DAXPY.c:5-' is not FILE:LINE or FILE:FIRST-LAST" in one_error(proc.stderr)
    assert not (tmp_path / "out").exists()


def _raja(tmp_path: Path, name: str, edit: Callable[[str], str]) -> Path:
    folder = tmp_path / "rajaperf"
    folder.mkdir(exist_ok=True)
    for path in (FIXTURES / "rajaperf_output").iterdir():
        if not (folder / path.name).exists():
            (folder / path.name).write_bytes(path.read_bytes())
    path = folder / name
    path.write_text(edit(path.read_text()))
    return folder


def _imported(tmp_path: Path, folder: Path) -> tuple[list[str], list[dict]]:
    """import-rajaperf of ``folder`` (it exits 0): its stderr lines and the run's rows."""
    out = tmp_path / "out"
    proc = harness("import-rajaperf", str(folder), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return proc.stderr.splitlines(), _rows(run_folder(out))


RUN_DATA = "RAJAPerf-kernel-run-data.csv"
DETAILS = "RAJAPerf-kernel-details.csv"


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            lambda t: t.replace("Mean time per rep (sec.)", "Mean time per rep (usec.)"),
            "the time column is 'Mean time per rep (usec.)'; 'Mean time per rep (sec.)', the "
            "time in seconds that raja-perf.exe writes, is accepted",
        ),
        (
            lambda t: t.replace("Mean Bandwidth (GiB per sec.)", "Kernel", 1),
            "the header names column 'Kernel' twice, so which of its cells is meant cannot be "
            "told; a header naming each column once is accepted",
        ),
    ],
    ids=["unit", "twice"],
)
def test_a_rajaperf_header_that_misleads_is_refused(
    tmp_path: Path, edit: Callable[[str], str], said: str
) -> None:
    """A time column in microseconds was read as seconds, all rows ok; a column named
    twice was read from its last copy, every row relabelled."""
    folder = _raja(tmp_path, RUN_DATA, edit)
    header = next(
        i for i, line in enumerate((folder / RUN_DATA).read_text().splitlines(), 1) if "," in line
    )
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"{folder / RUN_DATA}:{header}: {said}"


def test_a_rajaperf_file_with_a_byte_order_mark_or_old_mac_lines_is_read(tmp_path: Path) -> None:
    """A byte-order mark glued to 'Kernel' made 'the header has no Kernel column'; so
    did lines ended by carriage returns alone."""
    folder = _raja(tmp_path, RUN_DATA, lambda t: "\ufeff" + t)
    details = folder / DETAILS
    details.write_bytes(details.read_bytes().replace(b"\n", b"\r"))
    _, rows = _imported(tmp_path, folder)
    copy = next(r for r in rows if r["kernel"] == "Stream_COPY")
    assert copy["reps"] == 1 and copy["bytes_per_rep"] == 1600000


@pytest.mark.parametrize(
    ("old", "new", "warned"),
    [
        ("2.00000e-05", "2_0e-6", "'Mean time per rep (sec.)' is '2_0e-6'"),
        ("2.00000e-05", "\uff12e-5", "'Mean time per rep (sec.)' is '\uff12e-5'"),
    ],
    ids=["separator", "fullwidth"],
)
def test_rajaperf_numbers_it_never_writes_are_damage(
    tmp_path: Path, old: str, new: str, warned: str
) -> None:
    """float() read 2_0e-6 as 2e-5 s and a full-width digit as its ASCII one."""
    folder = _raja(tmp_path, RUN_DATA, lambda t: t.replace(old, new, 1))
    said, _ = _imported(tmp_path, folder)
    assert any(
        line.startswith(f"warning: {folder / RUN_DATA}:") and warned in line for line in said
    ), said


def test_a_rajaperf_time_never_checked_is_no_ok_row(tmp_path: Path) -> None:
    """A row whose Checksum said 'Not run' beside a time was imported ok."""
    folder = _raja(tmp_path, RUN_DATA, lambda t: t)
    lines = (folder / RUN_DATA).read_text().splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if "Not run" in line)
    cells = lines[number].split(",")
    at = next(i for i, c in enumerate(cells) if c.strip() == "Not run" and i > 3)
    cells[at + 1] = " 3.0e-06 "
    lines[number] = ",".join(cells)
    (folder / RUN_DATA).write_text("".join(lines))
    said, rows = _imported(tmp_path, folder)
    assert (
        f"warning: {folder / RUN_DATA}:{number + 1}: 'Checksum' is 'Not run' beside a time; a "
        "timed row says PASSED or FAILED: made an error row"
    ) in said
    daxpy = [r for r in rows if r["kernel"] == "Basic_DAXPY"]
    assert sorted(r["status"] for r in daxpy) == ["error", "ok"]


def test_a_rajaperf_variant_that_would_name_another_device_is_skipped(tmp_path: Path) -> None:
    """Variant 'Base_Seq default' with tuning 'x' and variant 'Base_Seq' with tuning
    'default x' became one device, with two timings of one kernel."""
    extra = (
        "Stream_COPY    , Base_Seq default, x,      100000 , PASSED     ,  9.00000e-05 ,   1 ,  1\n"
    )
    folder = _raja(tmp_path, RUN_DATA, lambda t: t + extra)
    number = len((folder / RUN_DATA).read_text().splitlines())
    said, rows = _imported(tmp_path, folder)
    assert (
        f"warning: {folder / RUN_DATA}:{number}: variant or tuning 'Base_Seq default' holds a "
        "space or '-': skipped"
    ) in said
    devices = [r["device"] for r in rows if r["kernel"] == "Stream_COPY"]
    assert len(devices) == len(set(devices))


def test_the_api_writes_where_a_path_like_out_leads(tmp_path: Path) -> None:
    """out= an os.DirEntry made a folder named "<DirEntry 'target'>" in the current folder."""
    (tmp_path / "target").mkdir()
    entry = next(e for e in os.scandir(tmp_path) if e.name == "target")
    assert run_arguments({"out": entry, "suite": [entry]}) == [
        "--out",
        str(tmp_path / "target"),
        "--suite",
        str(tmp_path / "target"),
    ]


#: A row's times that a delay moves (its spread, time_std_s, it does not).
TIMES = ("time_min_s", "time_median_s", "time_mean_s", "time_max_s", "time_q1_s", "time_q3_s",
         "time_ci_low_s", "time_ci_high_s", "kernel_s")  # fmt: skip


def _on_host(run: Path, host: str) -> Path:
    """The run made one of machine ``host``."""
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["host"]["hostname"] = host
    path.write_text(json.dumps(meta, indent=2))
    return run


def _slower(run: Path, kernel: str, factor: float) -> None:
    """The run's row of ``kernel`` ``factor`` times slower (every time later by the same
    amount, so its spread stays), its numbers still agreeing."""
    rows = _rows(run)
    for row in rows:
        if row["kernel"] != kernel:
            continue
        later = (factor - 1) * row["time_median_s"]
        for key, value in list(row.items()):
            if key in TIMES and isinstance(value, float):
                row[key] = value + later
        for rate, work in (("gbytes_per_s", "bytes_per_rep"), ("gflops_per_s", "flops_per_rep")):
            if row.get(rate) is not None:
                row[rate] = row[work] / row["time_median_s"] / 1e9
    _write_rows(run, rows)


def test_merged_runs_of_a_cluster_are_compared_host_by_host(tmp_path: Path) -> None:
    """Two merged runs of nodes X and Y: only the last node's row of each case was
    compared, and a 20x regression on node X passed the gate."""
    base, new = _quick_run(tmp_path / "base"), _quick_run(tmp_path / "new")
    runs = {}
    for name, run in (("base", base), ("new", new)):
        for node in ("nodeX", "nodeY"):
            runs[name, node] = _on_host(copy_run(run, tmp_path / f"{name}-{node}"), node)
    _slower(runs["new", "nodeX"], "Basic_DAXPY", 20)
    merged = {}
    for name in ("base", "new"):
        out = tmp_path / f"merged-{name}"
        proc = harness("merge", str(runs[name, "nodeX"]), str(runs[name, "nodeY"]),
                       "--out", str(out))  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        merged[name] = run_folder(out)
    proc = harness("compare", str(merged["base"]), str(merged["new"]))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1].endswith("1 regression"), lines[-1]
    [regressed] = [line for line in lines[:-1] if line.rstrip().endswith("regression")]
    assert regressed.startswith("Basic_DAXPY") and "@nodeX" in regressed


@pytest.mark.parametrize(
    ("values", "said"),
    [
        (
            {"device_id": "cpu:7"},
            "'device_id' is 'cpu:7', a device metadata.json does not list; one of cpu:0 is "
            "accepted",
        ),
        ({"backend": "wgpu"}, "'backend' is 'wgpu', but metadata.json lists cpu:0 as a cpu device"),
        (
            {"kernel": "Basic_DAXPY "},
            "'kernel' is 'Basic_DAXPY ', which is none of the run's in metadata.json",
        ),
        ({"samples": 0}, "'samples' is 0, beside a 'time_median_s': a time is taken over one"),
        ({"reps": 0}, "'reps' is 0, beside a 'time_median_s': a time is taken over one"),
        ({"noise": -1}, "'noise' is -1; a spread from 0 is accepted"),
        ({"unstable": "no"}, "'unstable' is \"no\"; true, false or null is accepted"),
    ],
)
def test_a_row_its_run_cannot_hold_is_damage(tmp_path: Path, values: dict, said: str) -> None:
    """A row of a device, backend or kernel its run never had was read as its run's (a
    regression it held became 'only in' and the gate passed); rows timed over no
    sample or repetition, of negative noise, or unstable 'no' were shown ok."""
    run = _quick_run(tmp_path)
    number, [warned] = _shown_edited(run, "Basic_DAXPY", values)
    assert warned.startswith(f"warning: {run / 'journal.jsonl'}:{number}: skipped a "), warned
    assert said in warned, warned


def test_a_device_listed_twice_in_the_metadata_is_named(tmp_path: Path) -> None:
    """metadata.json listing cpu:0 twice, the second another device: the later entry
    labelled every row, without a word."""
    run = _quick_run(tmp_path)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["devices"].append(dict(meta["devices"][0], name="Some Other GPU"))
    path.write_text(json.dumps(meta, indent=2))
    ids = [i for i, t in enumerate(path.read_text().splitlines(), 1) if '"id": "cpu:0"' in t]
    proc = harness("show", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{path}:{ids[-1]}: 'devices' lists device 'cpu:0' twice; a list of each device once "
        "is accepted"
    )


def test_compare_refuses_a_run_beside_a_merged_run_that_holds_it(tmp_path: Path) -> None:
    """compare BASE merge(NEW, BASE) matched BASE's rows with themselves: 'noise' for all,
    and NEW's regression in the merged run was never judged."""
    base, new = _quick_run(tmp_path / "base"), _quick_run(tmp_path / "new")
    out = tmp_path / "merged"
    assert harness("merge", str(new), str(base), "--out", str(out)).returncode == 0
    merged = run_folder(out)
    for first, second in ((base, merged), (merged, base)):
        proc = harness("compare", str(first), str(second))
        assert proc.returncode == 2, proc.stderr
        assert one_error(proc.stderr) == (
            f"compare: {base} is inside {merged} (in its merged_from), whose rows of it would "
            "be compared with themselves; compare two runs apart"
        )


def test_a_journal_linked_from_another_run_is_that_run(tmp_path: Path) -> None:
    """A new run whose journal.jsonl was a link to the base's was compared with the
    base: every row 'noise', exit 0."""
    base, new = _quick_run(tmp_path / "base"), _quick_run(tmp_path / "new")
    (new / "journal.jsonl").unlink()
    (new / "journal.jsonl").symlink_to(base / "journal.jsonl")
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"compare: {base} and {new} are one run (one folder, or a copy of it); compare two runs"
    )


def test_a_merged_run_that_lost_its_merged_from_is_refused(tmp_path: Path) -> None:
    """A merged run whose merged_from was null, merged again with one of its sources,
    held that source's rows twice under one label."""
    first, second = _quick_run(tmp_path / "a"), _quick_run(tmp_path / "b")
    out = tmp_path / "merged"
    assert harness("merge", str(first), str(second), "--out", str(out)).returncode == 0
    merged = run_folder(out)
    path = merged / "metadata.json"
    meta = json.loads(path.read_text())
    meta["merged_from"] = None
    path.write_text(json.dumps(meta, indent=2))
    proc = harness("merge", str(merged), str(first), "--out", str(tmp_path / "again"))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"merge: {merged}'s rows name the runs they came from (source_run), so it is a merged "
        "run, but its metadata.json has no merged_from: which runs it holds cannot be told, "
        "and one of them given beside it would count twice"
    )
    assert not (tmp_path / "again").exists()


def test_a_nested_merge_keeps_two_runs_of_one_name_apart(tmp_path: Path) -> None:
    """A merged run holding a run folder named nightly, merged with another run folder
    named nightly of the same machine, gave both runs' rows one label."""
    monday = _quick_run(tmp_path / "mon")
    tuesday = _quick_run(tmp_path / "tue")
    other = _quick_run(tmp_path / "other")
    monday = monday.rename(monday.parent / "nightly")
    tuesday = tuesday.rename(tuesday.parent / "nightly")
    first = tmp_path / "m1"
    assert harness("merge", str(monday), str(other), "--out", str(first)).returncode == 0
    out = tmp_path / "m2"
    proc = harness("merge", str(run_folder(first)), str(tuesday), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    rows = _rows(run_folder(out))
    daxpy = [(r["host"], r["device_id"]) for r in rows if r["kernel"] == "Basic_DAXPY"]
    assert len(daxpy) == 3 and len(set(daxpy)) == 3, daxpy


def test_compare_writes_no_table_over_a_runs_lock(tmp_path: Path) -> None:
    """--csv NEW/.lock replaced the run's lock file with the table."""
    base, new = _quick_run(tmp_path / "base"), _quick_run(tmp_path / "new")
    lock = new / ".lock"
    proc = harness("compare", str(base), str(new), "--csv", str(lock))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--csv {str(lock)!r}: is a run folder's own file; give a file outside the run folders"
    )


def test_a_signal_while_python_exits_is_ignored(tmp_path: Path) -> None:
    """SIGTERM once Python had given its handlers back (as it exits, after every
    write) killed the command, status 143, where it had ended 0."""
    script = (
        "import atexit, os, signal\n"
        "atexit.register(lambda: os.kill(os.getpid(), signal.SIGTERM))\n"
        "from harness.__main__ import _ignore_late_signals\n"
        "atexit.register(_ignore_late_signals)\n"
        "signal.signal(signal.SIGTERM, lambda *a: None)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_a_last_row_without_its_newline_is_kept_by_a_resume(tmp_path: Path) -> None:
    """A journal whose last, whole row lacked only its newline: the resume counted
    the row done, then cut it as a torn line, and rewrote the count to match."""
    run = _quick_run(tmp_path)
    journal = run / "journal.jsonl"
    journal.write_bytes(journal.read_bytes().rstrip(b"\n"))
    meta = json.loads((run / "metadata.json").read_text())
    meta["interrupted"] = True
    (run / "metadata.json").write_text(json.dumps(meta))
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert [r["kernel"] for r in _rows(run)] == ["Stream_TRIAD", "Basic_DAXPY"]
    assert _warnings(proc.stderr) == []


def test_a_resume_counts_no_row_its_options_do_not_plan(tmp_path: Path) -> None:
    """A journal row of a size the run never asked for was counted among the rows done."""
    run = _quick_run(tmp_path)
    rows = _rows(run)
    _write_rows(run, [rows[0], dict(rows[0], size=2000)])
    meta = json.loads((run / "metadata.json").read_text())
    meta.update(interrupted=True, journal_rows=2)
    (run / "metadata.json").write_text(json.dumps(meta))
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"warning: {run / 'journal.jsonl'}:2: a row the run's options do not plan "
        "(Stream_TRIAD f64 n=2000 on cpu:0; 1 such row(s)): not counted as done"
    ) in proc.stderr.splitlines()
    assert f"resuming {run}: 1 rows done" in proc.stderr.splitlines()
    assert [(r["kernel"], r["size"]) for r in _rows(run)][-1] == ("Basic_DAXPY", 1000)


@pytest.mark.parametrize("value", ["-inf", "-1e3", "-nan"])
def test_a_negative_value_argparse_took_for_an_option_is_named(value: str) -> None:
    """--threshold -inf was 'expected one argument', naming neither the value nor what
    is accepted, where --threshold=-inf named both."""
    proc = harness("compare", "a", "b", "--threshold", value)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"argument --threshold: {value!r}: give a percentage above 0 and below 100 (see "
        "'harness compare --help')"
    )


def test_a_resume_of_a_whole_sort_run_runs_nothing(tmp_path: Path) -> None:
    """A sort's row leaves the options its strategy does not use (steps, tile_bytes)
    null, which its planned task leaves out: the resume took the run's own row for one
    it does not plan and measured it again, a case compare then found twice."""
    out = tmp_path / "out"
    proc = harness("run", "-k", "Algorithm_SORT", "-b", "cpu", "--size", "1000", "--reps", "2",
                   "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"nothing to resume: {run} ran to its end (1 row); it is left as it was"
        in proc.stderr.splitlines()
    )
    assert _warnings(proc.stderr) == []
    assert len(_rows(run)) == 1


def test_a_merge_with_an_import_keeps_the_imported_rows(tmp_path: Path) -> None:
    """An imported run names its kernels without facts: the merged run's kernels left
    them out, and every reader then skipped their rows as none of the run's."""
    ours = _quick_run(tmp_path)
    proc = harness("import-rajaperf", str(FIXTURES / "rajaperf_output"), "--out",
                   str(tmp_path / "imported"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    imported = run_folder(tmp_path / "imported")
    out = tmp_path / "merged"
    proc = harness("merge", str(ours), str(imported), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    merged = run_folder(out)
    proc = harness("show", str(merged))
    assert _warnings(proc.stderr) == [], proc.stderr
    assert len(_rows(merged)) == len(_rows(ours)) + len(_rows(imported))
    assert {r["kernel"] for r in _rows(imported)} <= set(
        json.loads((merged / "metadata.json").read_text())["kernels"]
    )


def test_a_merge_of_two_tolerances_holds_no_row_to_the_other(tmp_path: Path) -> None:
    """Runs describing Basic_DAXPY with two tolerances: the merged run kept the first's,
    and the second's ok rows, within their own, were skipped as over it."""
    first, second = _quick_run(tmp_path / "a"), _quick_run(tmp_path / "b")
    path = first / "metadata.json"
    meta = json.loads(path.read_text())
    meta["kernels"]["Basic_DAXPY"]["tolerance"] = {"f64": 0.0, "f32": 0.0}
    path.write_text(json.dumps(meta))
    _shown_edited(second, "Basic_DAXPY", {"max_rel_error": 1e-12})
    out = tmp_path / "merged"
    proc = harness("merge", str(first), str(second), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    proc = harness("show", str(run_folder(out)))
    assert _warnings(proc.stderr) == [], proc.stderr
    assert len(_rows(run_folder(out))) == 4


def test_compare_refuses_two_merged_runs_that_share_a_run(tmp_path: Path) -> None:
    """compare merge(A, B) merge(A, C) matched A with itself, host by host, and B's rows
    never met C's: every row noise or only in one, exit 0."""
    a, b, c = (_quick_run(tmp_path / name) for name in "abc")
    merged = {}
    for name, other in (("ab", b), ("ac", c)):
        out = tmp_path / name
        assert harness("merge", str(a), str(other), "--out", str(out)).returncode == 0
        merged[name] = run_folder(out)
    proc = harness("compare", str(merged["ab"]), str(merged["ac"]))
    assert proc.returncode == 2, proc.stderr
    shared = source_names(merged["ab"])[0]
    assert one_error(proc.stderr) == (
        f"compare: {merged['ab']} and {merged['ac']} both hold {shared} (in their "
        "merged_from), whose rows would be compared with themselves; compare runs that share "
        "no run"
    )


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--sizes", "-1,2", "'-1': sizes must be positive and rising"),
        ("--group", "-32,64", "'-32' is not a work-group size"),
    ],
)
def test_a_negative_list_is_named(option: str, value: str, said: str) -> None:
    """--sizes -1,2 was 'expected one argument', naming no value."""
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", option, value)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr).startswith(f"argument {option}: {said}")


def test_a_group_sweep_runs_the_host_backend_once(tmp_path: Path) -> None:
    """--group 64,128 on the numpy backend, which has no work-groups, ran the same work
    twice, and the report named a best group size from the noise between them."""
    out = tmp_path / "out"
    proc = harness("run", *QUICK, "--group", "64,128", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (
        "note: --group 64,128 is for devices with work-groups (OpenCL, CUDA, wgpu); none is "
        "selected, so each row runs once, at no group size"
    ) in proc.stderr.splitlines()
    rows = _rows(run_folder(out))
    assert [(r["kernel"], r["work_group"]) for r in rows] == [
        ("Stream_TRIAD", None),
        ("Basic_DAXPY", None),
    ]


@pytest.mark.parametrize(
    ("more", "said"),
    [
        (
            ["--max-time", "0.2"],
            "note: --reps 3 sets each row's repetitions: --max-time changes nothing",
        ),
        (["--check"], "note: --check verifies and times nothing: --reps changes nothing"),
    ],
)
def test_options_a_fixed_count_overrules_are_named(
    tmp_path: Path, more: list[str], said: str
) -> None:
    """--reps 3 --max-time 0.2 timed a row for two seconds, and --check --reps 3 timed
    nothing, both without a word of the option left unused."""
    proc = harness("run", *QUICK, *more, "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert said in proc.stderr.splitlines()


def test_a_flush_larger_than_the_device_takes_is_named(tmp_path: Path) -> None:
    """--flush-bytes 64GiB was cut to a quarter of the memory without a word (said as
    the run is planned; the run is killed then, as flushing gigabytes a repetition
    would take a minute, and a check's rows are hot alone)."""
    proc, err = started_until(
        ["run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--reps", "1",
         "--cache", "cold", "--flush-bytes", "64GiB", "--out", str(tmp_path / "out")],
        "(each row's flush_bytes)",
    )  # fmt: skip
    proc.kill()
    proc.communicate(timeout=60)
    [said] = [line for line in err.decode().splitlines() if "--flush-bytes" in line]
    memory = get_backend("cpu").default_devices()[0].memory_bytes
    assert said == (
        "note: --flush-bytes 65536 MiB is more than a quarter of cpu:0's memory: its cold rows "
        f"flush {4 * (memory // 4 // 4) / 2**20:g} MiB (each row's flush_bytes)"
    )


def test_runs_of_two_asked_partitions_are_not_one_case(tmp_path: Path) -> None:
    """A run asking --partition item and one asking stride: compare matched their rows
    as one case and called the difference a regression."""
    need_backend("opencl")
    runs = []
    for dealt in ("item", "stride"):
        out = tmp_path / dealt
        proc = harness("run", "-k", "Stream_TRIAD", "-b", "opencl", "--size", "4096", "--reps",
                       "3", "--partition", dealt, "--out", str(out))  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        runs.append(run_folder(out))
    proc = harness("compare", *map(str, runs))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "have no row in common" in one_error(proc.stderr)

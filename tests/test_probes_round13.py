"""Hostile-user probes, thirteenth round: text from a run that rewrote report.md's
Markdown or broke a plot, merges that mixed two descriptions of a kernel or took a
copy of a run for another run, options that silently changed nothing, damaged
kernel sources and RAJAPerf checksums, mutants of code that never ran, devices
peak was not asked for, and compare gates that passed on rows nobody compared or
on rows whose numbers contradict each other."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, harness, one_error, run_folder

from harness.api import run_arguments
from harness.errors import UsageError
from harness.execution import merge
from harness.model import sources
from harness.reporting.report import md_text

# Each test here runs the harness end to end on an edge case, seconds of
# subprocesses apiece: the full tier's, so that the fast tier keeps to its minutes.
pytestmark = pytest.mark.full

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]
HOSTILE = "boom <script>alert(1)</script> | [x](http://e) `code`\n# heading *em*"


def _quick_run(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    proc = harness("run", *QUICK, "--reps", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def test_an_error_message_cannot_rewrite_the_markdown_report(tmp_path: Path) -> None:
    """A reason holding HTML, a table bar, a link, backticks and a newline went into
    report.md as it was: a live <script> tag, a heading, and a list item cut in two."""
    run = _quick_run(tmp_path)
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.open()]
    rows[0].update(status="error", reason=HOSTILE)
    rows[0]["device_name"] = "GPU | <b>bold</b>"
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))

    assert harness("report", str(run)).returncode == 0
    text = (run / "report" / "report.md").read_text()
    assert not re.search(r"(?<!\\)<", text), "an HTML tag left live"
    assert not re.search(r"^# heading", text, re.M)
    problems = text.split("### Rows that are not ok\n\n", 1)[1].split("\n\n", 1)[0]
    [line] = problems.splitlines()
    assert line.startswith("- Stream_TRIAD on cpu:0 ")
    assert line.endswith(
        "(f64, n=1000): error: boom \\<script>alert(1)\\</script> "
        "\\| \\[x](http://e) \\`code\\` # heading \\*em\\*"
    )
    results = text.split("## Results\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    widths = {len(re.split(r"(?<!\\)\|", line)) for line in results}
    assert len(widths) == 1, results


def test_a_merge_of_two_descriptions_of_a_kernel_says_which_it_keeps(tmp_path: Path) -> None:
    """Runs whose metadata describe a kernel differently (two versions of the harness)
    were merged into one description, the last run's, without a word."""
    first, second = _quick_run(tmp_path / "a"), _quick_run(tmp_path / "b")
    path = second / "metadata.json"
    meta = json.loads(path.read_text())
    meta["kernels"]["Stream_TRIAD"]["tolerance"] = {"f64": 0.5, "f32": 0.5}
    meta["kernels"]["Stream_TRIAD"]["complexity"] = "N^2"
    path.write_text(json.dumps(meta))

    out = tmp_path / "merged"
    proc = harness("merge", str(first), str(second), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    a, b = merge.run_names([first, second])
    assert (
        f"warning: Stream_TRIAD is described differently in {a} and {b} (complexity, tolerance);"
        f" the merged run keeps {a}'s, and each run's own stays in merged_from; its rows are"
        " held to neither's tolerance"
    ) in proc.stderr.splitlines()
    merged = json.loads((run_folder(out) / "metadata.json").read_text())
    kept = json.loads((first / "metadata.json").read_text())["kernels"]
    # Checked to two tolerances, its rows are held to neither (no own_check to say how).
    kept["Stream_TRIAD"].pop("own_check")
    assert merged["kernels"] == kept
    sources = {s["run"]: s["kernels"]["Stream_TRIAD"]["complexity"] for s in merged["merged_from"]}
    assert sources == {a: "N", b: "N^2"}


def test_options_for_devices_none_of_which_is_selected_are_named(tmp_path: Path) -> None:
    """--wgsl-checks off and --partition chunk on the CPU alone ran as if never given,
    and said nothing: a user then reads the rows as measured without the checks."""
    proc = harness("run", *QUICK, "--reps", "2", "--wgsl-checks", "off",
                   "--partition", "chunk", "--out", str(tmp_path / "out"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if line.startswith("note: --")]
    assert notes == [
        "note: --wgsl-checks off is for wgpu's devices (naga's runtime checks); none is "
        "selected, so it changes nothing",
        "note: --partition chunk is for devices with work-items (OpenCL, CUDA, wgpu); none is "
        "selected, so it changes nothing",
    ]


def test_a_value_given_twice_is_named_and_runs_once(tmp_path: Path) -> None:
    """--size-factor 0.001 0.001 made one row per kernel without a word, where a user
    may have counted on two."""
    out = tmp_path / "out"
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", "--reps", "2",
                   "--size-factor", "0.001", "0.001", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "note: --size-factor 0.001 given more than once; each value runs once" in (
        proc.stderr.splitlines()
    )
    rows = [json.loads(line) for line in (run_folder(out) / "journal.jsonl").open()]
    assert [(r["kernel"], r["size"]) for r in rows] == [("Stream_TRIAD", 1000)]


def _sources(tmp_path: Path, daxpy: bytes | None) -> Path:
    """A --sources folder with Stream_ADD's shipped body and ``daxpy`` as Basic_DAXPY's
    (None: a folder in its place)."""
    folder = tmp_path / "src"
    (folder / "c").mkdir(parents=True)
    shutil.copy(ROOT / "kernels" / "c" / "Stream_ADD.c", folder / "c")
    target = folder / "c" / "Basic_DAXPY.c"
    if daxpy is None:
        target.mkdir()
    else:
        target.write_bytes(daxpy)
    return folder


@pytest.mark.parametrize(
    ("daxpy", "said"),
    [
        (b"\xff\xfe\x00garbage", "Basic_DAXPY.c:1: not UTF-8 text"),
        (b"", "Basic_DAXPY.c: empty, where a kernel's source is expected"),
        (b" \n\n", "Basic_DAXPY.c: empty, where a kernel's source is expected"),
        (b'#include "gone.h"\n', "gone.h: cannot be read (No such file or directory)"),
        (None, "c/Basic_DAXPY.c is a folder"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [["cuda-compile", "--arch", "80"], ["run", "-k", "Basic_DAXPY", "-b", "opencl", "--reps", "2"]],
)
def test_a_damaged_source_in_a_sources_folder_is_one_line(
    tmp_path: Path, command: list[str], daxpy: bytes | None, said: str
) -> None:
    """cuda-compile --sources gave a traceback on an undecodable or empty source and
    passed over a folder in a source's place; run recorded the empty one as an error
    row reading 'zip() argument 2 is shorter than argument 1'."""
    folder = _sources(tmp_path, daxpy)
    out = tmp_path / "out"
    proc = harness(
        *command, "--sources", str(folder), *(["--out", str(out)] if command[0] == "run" else [])
    )
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--sources {str(folder)!r}: {said}"
    assert not out.exists()


def test_a_form_feed_in_a_comment_stays_in_its_line(tmp_path: Path) -> None:
    """A form feed or U+2028 in a // comment split the line where str.splitlines
    does, and the comment's rest compiled as code: a valid kernel recorded as a
    compile error."""
    body = (ROOT / "kernels" / "c" / "Basic_DAXPY.c").read_text()
    folder = _sources(tmp_path, f"// page\fbreak\u2028 and on\n{body}".encode())
    out = tmp_path / "out"
    proc = harness("run", "--check", "-k", "Basic_DAXPY", "-b", "opencl", "--sources",
                   str(folder), "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (run_folder(out) / "journal.jsonl").open()]
    assert {r["status"] for r in rows} == {"ok"}
    assert sources.lines_of("a\fb\u2028c\r\nd\n\ne") == ["a\fb\u2028c", "d", "", "e"]


def test_a_copy_taken_before_a_resume_is_the_same_run(tmp_path: Path) -> None:
    """A copy of an interrupted run, merged with the run once resumed, doubled the
    rows they share: the resume had moved the run's end, by which merge told runs apart."""
    run = _quick_run(tmp_path)
    journal = run / "journal.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[0])
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    path.write_text(json.dumps(dict(meta, end=None, interrupted=True)))
    copy = tmp_path / "copy" / run.name
    shutil.copytree(run, copy)
    assert harness("run", "--resume", str(run)).returncode == 0
    assert json.loads(path.read_text())["run_id"] == meta["run_id"]

    out = tmp_path / "merged"
    proc = harness("merge", str(run), str(copy), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"merge: {run} and {copy} are the same run (one is a copy of the other, perhaps taken "
        "before the run was resumed); give one of them"
    )
    assert not out.exists()


def test_mutants_of_a_library_variant_are_not_survivors(tmp_path: Path) -> None:
    """--impl library ran CLBlast, not the mutated source, and listed the source's
    mutants as ones the check cannot tell from the kernel (0 killed)."""
    out = tmp_path / "out"
    proc = harness("mutants", "-k", "Polybench_GEMM", "-b", "opencl", "--impl", "library",
                   "--sample", "3", "--precision", "f64", "--out", str(out))  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    said = (
        "Polybench_GEMM on opencl:0: unmutated: every row of its check calls the device's "
        "library (--impl library), no kernel of its source, so no mutant could be told from "
        "the kernel; choose a variant that launches the source"
    )
    assert f"  {said}" in proc.stdout.splitlines()
    assert "survived" not in proc.stdout.split("not run:")[1]


def _rajaperf(tmp_path: Path, **edits: tuple[str, str]) -> Path:
    """A copy of the RAJAPerf output fixture with each named file's text edited
    (``old``, ``new``: the first ``old`` replaced)."""
    folder = tmp_path / "rajaperf"
    shutil.copytree(FIXTURES / "rajaperf_output", folder)
    for name, (old, new) in edits.items():
        path = folder / name
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))
    return folder


CHECKSUMS = "RAJAPerf-checksum.txt"
RUN_DATA = "RAJAPerf-kernel-run-data.csv"
COPY_LINE = "Base_OpenMP-default PASSED  0.0000000000000000000       19998.626827262827492"


@pytest.mark.parametrize(
    ("edits", "warned", "variant", "checksum"),
    [
        (
            {CHECKSUMS: ("19998.626827262827492", "nan")},
            f"{CHECKSUMS}:11: checksum 'nan' is no finite number: left out",
            "Seq",
            None,
        ),
        (
            # The line repeated whole, five cells each as raja-perf.exe writes them.
            {CHECKSUMS: (COPY_LINE, f"{COPY_LINE} 0.0\nBase_OpenMP-default PASSED 0.0 12345.0")},
            f"{CHECKSUMS}:13: repeats Stream_COPY Base_OpenMP-default of line 12 with another "
            "verdict or checksum (PASSED 12345.0): left out; the first is kept",
            "OpenMP",
            19998.626827262827492,
        ),
    ],
)
def test_a_damaged_checksum_is_named(
    tmp_path: Path, edits: dict, warned: str, variant: str, checksum: float | None
) -> None:
    """A checksum of 'nan' became no checksum, and a variant's second checksum line
    replaced its first, both without a word."""
    folder = _rajaperf(tmp_path, **edits)
    out = tmp_path / "out"
    proc = harness("import-rajaperf", str(folder), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"warning: {folder}/{warned}" in proc.stderr.splitlines()
    rows = [json.loads(line) for line in (run_folder(out) / "journal.jsonl").open()]
    copy = next(r for r in rows if r["kernel"] == "Stream_COPY" and variant in r["device"])
    assert copy["checksum"] == checksum


def test_a_checksum_verdict_the_two_files_disagree_on_is_a_failed_row(tmp_path: Path) -> None:
    """The run-data file said PASSED where RAJAPerf-checksum.txt said FAILED, and the
    row was imported as ok."""
    line = "Stream_TRIAD   , Base_OpenMP   , default   ,          100000 , "
    folder = _rajaperf(tmp_path, **{RUN_DATA: (f"{line}FAILED", f"{line}PASSED")})
    out = tmp_path / "out"
    proc = harness("import-rajaperf", str(folder), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    why = f"'Checksum' is PASSED, but FAILED in {CHECKSUMS}:18"
    assert f"warning: {folder}/{RUN_DATA}:6: {why}: made a failed row" in proc.stderr.splitlines()
    rows = [json.loads(line) for line in (run_folder(out) / "journal.jsonl").open()]
    triad = next(r for r in rows if r["kernel"] == "Stream_TRIAD" and "OpenMP" in r["device"])
    assert (triad["status"], triad["reason"]) == ("fail", f"{RUN_DATA}:6: {why}")


def test_merge_refuses_to_write_into_a_run_it_merges(tmp_path: Path) -> None:
    """merge --out RUN, RUN one of its sources, wrote the merged run inside it."""
    first, second = _quick_run(tmp_path / "a"), _quick_run(tmp_path / "b")
    before = sorted(p.name for p in first.iterdir())
    proc = harness("merge", str(first), str(second), "--out", str(first))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"merge: --out {first} is inside {first}, a run folder it merges; the merged run would "
        "be written into one of its sources: give --out another folder"
    )
    assert sorted(p.name for p in first.iterdir()) == before


def test_peak_measures_only_the_devices_asked_for(tmp_path: Path) -> None:
    """peak -b opencl --device cpu:0 measured opencl:0 and cpu:0, where run refuses a
    device outside its -b backends."""
    proc = harness("peak", "-b", "opencl", "--device", "cpu:0",
                   env={"HARNESS_PEAKS": str(tmp_path / "peaks.json")})  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "--device 'cpu:0': cpu is not among -b opencl; add it to -b, or leave -b out"
    )
    assert not (tmp_path / "peaks.json").exists()


def test_a_switch_is_taken_by_its_flags_name_from_python() -> None:
    """harness.run(..., no_hold=True) was a TypeError, where the README says options
    are taken by their long names."""
    assert run_arguments({"no_hold": True}) == ["--no-hold"]
    assert run_arguments({"no_hold": False}) == []
    assert run_arguments({"hold": False}) == ["--no-hold"]
    with pytest.raises(TypeError, match=r"takes no option 'no_holds'; it takes .*no_hold"):
        run_arguments({"no_holds": True})
    with pytest.raises(UsageError) as given:
        run_arguments({"hold": True, "no_hold": True})
    assert str(given.value) == (
        "hold=True and no_hold=True: one switch given twice; give hold or no_hold"
    )


def _edit_rows(run: Path, **values: object) -> None:
    """Set ``values`` in every row of a run's journal."""
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.open()]
    journal.write_text("".join(json.dumps({**r, **values}) + "\n" for r in rows))


def test_a_dollar_in_a_device_name_is_drawn_as_written(tmp_path: Path) -> None:
    """A '$' pair in a device's name started a matplotlib formula: one that did not
    parse was a traceback from plot and report --html."""
    run = _quick_run(tmp_path)
    name = "GPU $\\frac{a$ x"
    _edit_rows(run, device=name)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["devices"][0]["name"] = name
    path.write_text(json.dumps(meta))
    plots = harness("plot", str(run), "--out", str(tmp_path / "plots"))
    assert plots.returncode == 0, plots.stderr
    assert "frac" in (tmp_path / "plots" / "time_by_kernel.svg").read_text()
    report = harness("report", str(run), "--html", "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    assert name in (tmp_path / "report" / "report.html").read_text()


def test_a_baseline_of_the_only_device_leaves_out_the_speedup_plot(tmp_path: Path) -> None:
    """plot --baseline naming the run's only device was KeyError: 'size'."""
    run = _quick_run(tmp_path)
    out = tmp_path / "plots"
    proc = harness("plot", str(run), "--baseline", "cpu:0", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "only the baseline device has timed rows; nothing to compare" in proc.stderr
    assert (out / "time_by_kernel.svg").is_file() and not (out / "speedup_heatmap.svg").exists()


@pytest.mark.parametrize("command", [["show"], ["report"], ["plot"], ["compare", "BASE"]])
def test_a_loop_of_links_is_one_line(tmp_path: Path, command: list[str]) -> None:
    """A run folder that is a link to itself was 'RuntimeError: Symlink loop' from
    report, plot and compare."""
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    args = [str(_quick_run(tmp_path)) if word == "BASE" else word for word in command]
    proc = harness(*args, str(loop))
    assert proc.returncode == 2, proc.stderr
    assert f"{str(loop)!r}: a loop of symbolic links, which names no file or folder" in one_error(
        proc.stderr
    )


def _two_runs(tmp_path: Path) -> tuple[Path, Path]:
    return _quick_run(tmp_path / "base"), _quick_run(tmp_path / "new")


def test_compare_with_a_base_that_timed_nothing_compares_nothing(tmp_path: Path) -> None:
    """A base whose rows all failed made every row 'fixed', and compare passed, though
    its help promises exit 2 where no row is timed in both."""
    base, new = _two_runs(tmp_path)
    _edit_rows(base, status="fail", reason="bad")
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{base} and {new}: no row has timings in both runs (check-only runs?), so nothing "
        "was compared; compare two timed runs"
    )


def test_a_damaged_base_line_fails_the_gate(tmp_path: Path) -> None:
    """A torn line in the base lost its row, the new run's row then had nothing to be
    judged against, and the gate passed."""
    base, new = _two_runs(tmp_path)
    journal = base / "journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text(lines[0][:60] + "\n" + "".join(lines[1:]))
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 1, proc.stderr
    assert (
        f"fail: {journal} has 1 damaged line(s) (1), and 1 row(s) of {new} have no "
        "base row to be judged against: they may be the lost ones"
    ) in proc.stderr.splitlines()


@pytest.mark.parametrize(
    ("values", "said"),
    [
        ({"time_std_s": 1000.0}, "'time_std_s' (1000) is above 'time_max_s' - 'time_min_s'"),
        ({"size": None}, "no 'size', where the row ran ('status' ok)"),
        ({"precision": None}, "no 'precision', where the row ran ('status' ok)"),
        (
            {"time_median_s": None},
            "'gbytes_per_s' is given, but no 'time_median_s' above 0 it was taken over",
        ),
        ({"gbytes_per_s": 1e6}, "'gbytes_per_s' (1e+06) is not 'bytes_per_rep' over"),
        ({"time_mean_s": 1.0}, "'time_mean_s' (1) is outside 'time_min_s' to 'time_max_s'"),
        ({"time_q3_s": 1e-12}, "'time_q3_s' (1e-12) is outside 'time_min_s' to 'time_max_s'"),
        ({"time_ci_low_s": 5.0}, "'time_ci_low_s' (5) is outside 'time_min_s' to 'time_max_s'"),
    ],
)
def test_a_row_whose_numbers_disagree_is_damage(tmp_path: Path, values: dict, said: str) -> None:
    """A spread of 1000 s on a median of milliseconds made a 3x regression noise; a
    row with no size or precision was compared as another row; a rate with no time,
    or not the row's bytes over its time, was shown as measured; a mean of 1 s on a
    row of microseconds went into RAJAPerf's timing file, as did quartiles and
    intervals outside the range."""
    run = _quick_run(tmp_path)
    _edit_rows(run, **values)
    proc = harness("show", str(run))
    assert proc.returncode == 2, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if line.startswith("warning: ")]
    assert warned and all(said in line for line in warned), proc.stderr


def test_show_of_a_run_without_metadata_says_so(tmp_path: Path) -> None:
    """show of a run whose metadata.json is gone printed its rows as a whole run's,
    where report named the loss."""
    run = _quick_run(tmp_path)
    (run / "metadata.json").unlink()
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"note: {run} has no metadata.json: whether it ran to its end, and on what devices and "
        "options, is unknown; its journal's rows are shown as they are"
    ) in proc.stderr.splitlines()


def test_markdown_text_from_a_run_links_and_emphasises_nothing() -> None:
    """A kernel named '[y]: https://evil' made its list item a link definition, which
    hid the error row and linked every '[y]'; '_em_', '~~s~~' and entities rendered."""
    assert md_text('[y]: https://evil "t" ![i](u) _em_ __b__ ~~s~~ &lt; Basic_DAXPY') == (
        '\\[y]: https://evil "t" !\\[i](u) \\_em\\_ \\_\\_b\\_\\_ \\~\\~s\\~\\~ \\&lt; Basic_DAXPY'
    )


def test_a_source_with_a_byte_order_mark_or_a_commented_include_compiles(tmp_path: Path) -> None:
    """A byte-order mark before a source's first line, and an include followed by a
    comment, reached the compiler as they were: both errors on a valid kernel."""
    body = (ROOT / "kernels" / "c" / "Basic_DAXPY.c").read_text()
    folder = _sources(tmp_path, b'\xef\xbb\xbf#include "body.h" // the kernel\n')
    (folder / "c" / "body.h").write_bytes(b"\xef\xbb\xbf" + body.encode())
    out = tmp_path / "out"
    proc = harness("run", "--check", "-k", "Basic_DAXPY", "-b", "opencl", "--sources",
                   str(folder), "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (run_folder(out) / "journal.jsonl").open()]
    assert {r["status"] for r in rows} == {"ok"}


def test_an_include_cycle_is_named_whole(tmp_path: Path) -> None:
    """A cycle a.h, b.h, a.h was 'a.h includes itself', naming neither b.h nor the chain."""
    folder = _sources(tmp_path, b'#include "a.h"\n')
    (folder / "c" / "a.h").write_text('#include "b.h"\n')
    (folder / "c" / "b.h").write_text('#include "a.h"\n')
    proc = harness("run", "-k", "Basic_DAXPY", "-b", "opencl", "--sources", str(folder))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--sources {str(folder)!r}: an include cycle: a.h includes b.h includes a.h"
    )


@pytest.mark.parametrize("run_id", [None, "drop"])
def test_a_copy_whose_run_id_was_taken_out_is_still_the_run(
    tmp_path: Path, run_id: str | None
) -> None:
    """A copy with its run_id null or removed shared no mark with the run, and merge
    doubled their rows."""
    run = _quick_run(tmp_path)
    copy = shutil.copytree(run, tmp_path / "copy" / run.name)
    path = copy / "metadata.json"
    meta = json.loads(path.read_text())
    if run_id == "drop":
        del meta["run_id"]
    else:
        meta["run_id"] = run_id
    path.write_text(json.dumps(meta))
    proc = harness("merge", str(run), str(copy), "--out", str(tmp_path / "merged"))
    assert proc.returncode == 2, proc.stderr
    assert "are the same run" in one_error(proc.stderr)

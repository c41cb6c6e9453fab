"""Hostile-user probes, thirteenth round: text from a run (an error message, a
device's name) that would have rewritten report.md's Markdown."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import harness, run_folder

from harness.execution import merge

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
        "\\| \\[x\\](http://e) \\`code\\` # heading \\*em\\*"
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
        f" the merged run keeps {a}'s, and each run's own stays in merged_from"
    ) in proc.stderr.splitlines()
    merged = json.loads((run_folder(out) / "metadata.json").read_text())
    kept = json.loads((first / "metadata.json").read_text())["kernels"]
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

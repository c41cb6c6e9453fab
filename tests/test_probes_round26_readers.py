"""Hostile probes, round 26: the commands that read and write run folders (`show`,
`report`, `plot`, `compare`, `merge`, `export`, `import-rajaperf`) and `harness.load`,
with damaged inputs, odd values and outputs that cannot be written."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, copy_run, finished_run, harness, need_backend, one_error

import harness as api
from harness.errors import UsageError

RAJAPERF = ROOT / "tests" / "fixtures" / "rajaperf_output"
QUICK = ["-k", "Stream_COPY", "Stream_ADD", "-b", "cpu", "--sizes", "100", "--reps", "1"]


def test_an_output_that_cannot_be_written_is_refused_before_damaged_lines_are_named(
    tmp_path: Path,
) -> None:
    """`merge` and `import-rajaperf` read their inputs, warning of each damaged line,
    before they refused an --out that could never be written: the warnings came
    first, as if the work had begun. The refusal is the one line printed."""
    run = finished_run(tmp_path / "a", *QUICK)
    with (run / "journal.jsonl").open("a") as f:
        f.write("{torn\n")
    other = copy_run(run, tmp_path / "b")
    raja = shutil.copytree(RAJAPERF, tmp_path / "raja")
    with (raja / "RAJAPerf-kernel-run-data.csv").open("a") as f:
        f.write("garbage,,line\n")
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "out"
    for args in (["merge", str(run), str(other)], ["import-rajaperf", str(raja)]):
        proc = harness(*args, "--out", str(out))
        assert proc.returncode == 2, proc.stderr
        assert one_error(proc.stderr) == (
            f"output folder {out}: cannot make it (Not a directory); give --out a folder "
            "this user can write, on a disk with free space"
        )
    assert not (tmp_path / "fresh").exists()
    proc = harness("merge", str(run), str(other), "--out", str(tmp_path / "fresh" / "deep"))
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of QUICK: a run to copy and damage."""
    return finished_run(tmp_path_factory.mktemp("quick"), *QUICK)


def _with_metadata(run: Path, tmp_path: Path, change: Callable[[dict], None]) -> Path:
    """A copy of ``run`` under ``tmp_path`` whose metadata took ``change``."""
    copy = copy_run(run, tmp_path / "copy")
    meta = json.loads((copy / "metadata.json").read_text())
    change(meta)
    (copy / "metadata.json").write_text(json.dumps(meta, indent=2))
    return copy


def test_show_refuses_a_machine_name_that_is_no_text(quick: Path, tmp_path: Path) -> None:
    """A metadata.json whose host.hostname was a number was refused by every reader
    but `show`, which exited 0 on it, naming nothing. It names the field, as they do."""
    copy = _with_metadata(quick, tmp_path, lambda m: m["host"].update(hostname=-1))
    proc = harness("show", str(copy))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"harness: error: {copy}/metadata.json: 'host.hostname' is -1; text (the machine's "
        "name) is accepted"
    )


def test_a_device_api_that_is_no_text_is_metadata_damage(quick: Path, tmp_path: Path) -> None:
    """A device whose 'api' (or driver, vendor) was `true` in metadata.json was read
    as good: `compare` named the device 'AMD EPYC (True)', as if True were its API,
    and report listed it. It is damage, named with its line, by every reader."""
    copy = _with_metadata(quick, tmp_path, lambda m: m["devices"][0].update(api=True))
    line = (copy / "metadata.json").read_text().splitlines().index('      "api": true,') + 1
    for args in (
        ["show", str(copy)],
        ["report", str(copy)],
        ["compare", str(quick), str(copy)],
        ["export", "--thicket", str(copy)],
    ):
        proc = harness(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.splitlines()[-1] == (
            f"harness: error: {copy}/metadata.json:{line}: device 1 of 'devices' has 'api' "
            "true; text is accepted"
        )
    with pytest.raises(UsageError):
        api.load(copy)


def test_a_baseline_that_timed_no_row_is_said_to_give_no_speedups(tmp_path: Path) -> None:
    """`--baseline DEVICE` naming a device whose every row failed was taken: the
    report's speedup column was blank throughout, its RAJAPerf speedup file all
    'Not run', and plot drew a speedup heat map of nothing, none saying why. Both
    say the baseline timed no row, and neither draws nor writes speedups."""
    need_backend("opencl")
    args = ["-k", "Stream_COPY", "-b", "cpu", "opencl", "--sizes", "100", "--reps", "1"]
    run = copy_run(finished_run(tmp_path / "a", *args), tmp_path / "b")
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        if row["backend"] == "opencl":
            row.update(status="fail", reason="max error too big")
    journal.write_text("".join(json.dumps(row) + "\n" for row in rows))
    # The device as the report names it (its name shortened), then why.
    said = (
        r"no speedups: --baseline 'opencl' \(opencl:0 \(.+\)\) timed no row ok \(its rows "
        r"failed, errored or were skipped\); give a device that did\n"
    )
    proc = harness("report", str(run), "--baseline", "opencl", "--out", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"> \*\*Note:\*\* " + said, (tmp_path / "r" / "report.md").read_text())
    assert not (tmp_path / "r" / "RAJAPerf-speedup-Average.csv").exists()
    proc = harness("plot", str(run), "--baseline", "opencl", "--out", str(tmp_path / "p"))
    assert proc.returncode == 0, proc.stderr
    assert re.search("note: skipped speedup_heatmap: " + said, proc.stderr)
    assert not (tmp_path / "p" / "speedup_heatmap.png").exists()


def test_a_second_sigterm_as_a_stopped_command_exits_ends_it_by_sigterm(quick: Path) -> None:
    """A second SIGTERM that reached a command a signal had stopped (130) while
    Python unloaded its modules, past its exit functions, was ignored: the process,
    still there, exited 130, where a second SIGTERM gives 143. It now ends the
    process by SIGTERM, as it does a moment before."""
    code = (
        "import os, signal, sys, time, weakref\n"
        "class Late:\n"
        "    pass\n"
        "late = Late()\n"
        # A finalizer made before the command's exit functions runs after them.
        "weakref.finalize(late, lambda: (os.kill(os.getpid(), signal.SIGTERM), time.sleep(5)))\n"
        "from harness.execution import results\n"
        "def stopped(run_dir):\n"
        "    raise KeyboardInterrupt\n"
        "results.ensure_csv = stopped\n"
        f"sys.argv = ['harness', 'show', {str(quick)!r}]\n"
        "from harness.__main__ import entry\n"
        "sys.exit(entry())\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGTERM, proc.stderr
    assert proc.stderr == "\nharness show: interrupted; what it was writing may be incomplete\n"


def test_an_export_says_which_rows_no_profile_holds(quick: Path, tmp_path: Path) -> None:
    """`export --thicket` of a run whose rows failed left them out of its profiles
    without a word (the profiles read as the whole run), and of a run whose every
    row failed said 'a check-only run?'. It counts the rows left out, and why."""
    run = copy_run(quick, tmp_path / "copy")
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    rows[0].update(status="fail", reason="max error too big")
    journal.write_text("".join(json.dumps(row) + "\n" for row in rows))
    proc = harness("export", "--thicket", str(run), "--out", str(tmp_path / "a"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        f"note: {run}: rows with no time are in no profile: 1 failed verification\n"
    )
    rows[1].update(status="error", reason="out of memory")
    journal.write_text("".join(json.dumps(row) + "\n" for row in rows))
    proc = harness("export", "--thicket", str(run), "--out", str(tmp_path / "b"))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{run}: no timed rows to export (1 failed verification, 1 errored); a profile "
        "holds rows that were timed"
    )
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("given", ["5%", "five", ""])
def test_a_threshold_that_is_no_number_says_what_is_accepted(quick: Path, given: str) -> None:
    """`compare --threshold 5%` said only "'5%' is not a percentage", where a number
    out of range is told what is accepted. Both say it."""
    proc = harness("compare", str(quick), str(quick), "--threshold", given)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"argument --threshold: {given!r} is not a percentage: give a number above 0 and "
        "below 100 (5 for 5%) (see 'harness compare --help')"
    )


def test_runs_of_other_variants_alone_are_said_to_differ_by_variant(
    quick: Path, tmp_path: Path
) -> None:
    """Compare of a run measured with a cold cache against one with a hot cache said
    they had no row 'in common (same kernel, device, precision and size)', where
    they had: their rows differ by variant, which the message now names too."""
    cold = finished_run(tmp_path / "cold", *QUICK, "--cache", "cold")
    proc = harness("compare", str(quick), str(cold))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{quick} and {cold} have no row in common (same kernel, device, precision, size and "
        "variant), so there is nothing to compare"
    )


def test_a_merge_or_import_stopped_as_it_reads_says_nothing_was_written(
    quick: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """A merge or import stopped by a signal as it read its inputs (thousands of rows)
    said only 'what it was writing may be incomplete', of a folder not yet begun,
    which sent the user looking for it. It says nothing of it was written."""
    from harness.execution import merge, results
    from harness.reporting import rajaperf_import

    def stopped(*args: object) -> None:
        raise KeyboardInterrupt

    out = tmp_path / "out"
    said = (
        f"\nnote: interrupted before the new run folder in {out} was begun: nothing of it "
        "was written\n"
    )
    monkeypatch.setattr(results, "read_numbered", stopped)
    with pytest.raises(KeyboardInterrupt):
        merge.merge([quick, copy_run(quick, tmp_path / "copy")], out, str)
    assert capsys.readouterr().err == said
    monkeypatch.setattr(rajaperf_import, "rows_of", stopped)
    with pytest.raises(KeyboardInterrupt):
        rajaperf_import.import_folder(RAJAPERF, out)
    assert capsys.readouterr().err == said
    assert not out.exists()


def test_an_export_into_a_file_system_of_no_disk_is_not_called_full(quick: Path) -> None:
    """`export --thicket --out /proc/sys` said the folder's disk had 0 bytes free and
    asked for space to be freed: /proc is no disk, and no space can be. It says the
    folder cannot be written, as report and plot do."""
    proc = harness("export", "--thicket", str(quick), "--out", "/proc/sys")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "output folder /proc/sys: cannot write there (No such file or directory); give "
        "--out a folder this user can write, on a disk with free space"
    )

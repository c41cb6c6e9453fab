"""Hostile-user probes, fifth round: an option given twice, inputs refused after an
output folder was made, two peaks for one device, RAJAPerf rows with no checksum
verdict, a byte-order mark, a compare gate over rows lost to damage, and a signal
while a command starts or lists its devices."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FIXTURES, copy_run, harness, one_error

from harness.cli import main
from harness.errors import UsageError
from harness.execution import results, workers

QUICK = ["-k", "Stream_COPY", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["list", "-k", "Stream_COPY", "-k", "Basic_DAXPY"],
            "argument -k/--kernels: given twice ('Stream_COPY', then 'Basic_DAXPY'); "
            "give every value after one -k/--kernels",
        ),
        (
            ["run", "-k", "Stream_COPY", "-b", "cpu", "-b", "opencl"],
            "argument -b/--backends: given twice ('cpu', then 'opencl')",
        ),
        (
            ["run", "--reps", "3", "--reps", "5"],
            "argument --reps: given twice ('3', then '5'); give it once",
        ),
        (["run", "--check", "--check", "full"], "argument --check: given twice ('quick', then"),
        (["cuda-compile", "--arch", "80", "--arch", "90"], "--arch: given twice ('80', then '90')"),
        (
            ["compare", "a", "b", "--threshold", "5", "--threshold", "9"],
            "--threshold: given twice ('5.0', then '9.0')",
        ),
    ],
)
def test_an_option_given_twice_is_refused(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The second value silently replaced the first: -k A -k B listed and ran B
    alone, -b cpu -b opencl ran opencl alone, --arch 80 --arch 90 compiled 90 alone."""
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in one_error(err)


def test_options_meant_to_repeat_still_repeat(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "-k", "Stream_COPY", "Basic_DAXPY"]) == 0
    out, _ = capsys.readouterr()
    assert "Stream_COPY" in out and "Basic_DAXPY" in out


def test_refused_input_leaves_no_output_folder(run: Path, tmp_path: Path) -> None:
    """merge and import-rajaperf made --out before reading their inputs, export
    before reading the run: a refused input left an empty folder behind."""
    empty = tmp_path / "empty"
    empty.mkdir()
    broken = copy_run(run, tmp_path / "broken")
    (broken / results.METADATA).write_text("")
    for args, named in (
        (["merge", str(run), str(empty)], str(empty)),
        (["import-rajaperf", str(empty)], str(empty)),
        (["export", str(broken), "--thicket"], "metadata.json:1"),
        (["export", str(empty), "--thicket"], str(empty)),
    ):
        out = tmp_path / "out"
        proc = harness(*args, "--out", str(out))
        assert proc.returncode == 2, proc.stderr
        assert named in one_error(proc.stderr)
        assert not out.exists(), args


def test_export_of_a_run_with_no_timed_row_makes_no_folder(run: Path, tmp_path: Path) -> None:
    journal = run / results.JOURNAL
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        row.update(status="error", reason="planted", time_median_s=None)
        row.update(gbytes_per_s=None, gflops_per_s=None)
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    proc = harness("export", str(run), "--thicket", "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert "no timed rows to export" in one_error(proc.stderr)
    assert not out.exists()


@pytest.mark.parametrize(
    ("peaks", "message"),
    [
        (["cpu:0=5", "cpu:0=7"], "--peak-gbs cpu:0=7: 'cpu:0' already has a peak of 5 GB/s"),
        (["5", "7"], "--peak-gbs 7: every device already has a peak of 5 GB/s"),
    ],
)
def test_two_peaks_for_one_device_are_refused(
    peaks: list[str], message: str, run: Path, tmp_path: Path
) -> None:
    """Both were taken and one of them drawn, silently."""
    for command in ("report", "plot"):
        out = tmp_path / command
        given = [word for peak in peaks for word in ("--peak-gbs", peak)]
        proc = harness(command, str(run), *given, "--out", str(out))
        assert proc.returncode == 2, proc.stderr
        assert message in one_error(proc.stderr)
        assert not out.exists()


def test_the_same_peak_twice_and_a_device_beside_its_backend_are_taken(
    run: Path, tmp_path: Path
) -> None:
    proc = harness(
        "plot", str(run), "--peak-gbs", "5", "--peak-gbs", "5", "--peak-gbs", "cpu:0=9",
        "--out", str(tmp_path / "p"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def _rajaperf(tmp_path: Path, edit: Callable[[list[str]], list[str]]) -> Path:
    """A copy of the RAJAPerf output fixture whose run-data lines ``edit`` changes."""
    folder = tmp_path / "rajaperf"
    folder.mkdir()
    for path in (FIXTURES / "rajaperf_output").iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    data = folder / "RAJAPerf-kernel-run-data.csv"
    data.write_text("\n".join(edit(data.read_text().splitlines())) + "\n")
    return folder


def test_rajaperf_run_data_without_a_checksum_column_is_refused(tmp_path: Path) -> None:
    """Every row became ok, a FAILED one too: nothing said whether any was right."""

    def drop(lines: list[str]) -> list[str]:
        return [",".join(c for i, c in enumerate(line.split(",")) if i != 4) for line in lines]

    out = tmp_path / "out"
    proc = harness("import-rajaperf", str(_rajaperf(tmp_path, drop)), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    error = one_error(proc.stderr)
    assert "RAJAPerf-kernel-run-data.csv:2: the header has no Checksum column" in error
    assert not out.exists()


def test_a_rajaperf_checksum_verdict_that_is_neither_passed_nor_failed_is_an_error_row(
    tmp_path: Path,
) -> None:
    def damage(lines: list[str]) -> list[str]:
        return [lines[0], lines[1], lines[2].replace("PASSED", "PASS?? "), *lines[3:]]

    out = tmp_path / "out"
    proc = harness("import-rajaperf", str(_rajaperf(tmp_path, damage)), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (
        "RAJAPerf-kernel-run-data.csv:3: 'Checksum' is 'PASS??'; 'PASSED', 'FAILED' or "
        "'Not run' is accepted: made an error row" in proc.stderr
    )
    (folder,) = out.iterdir()
    rows = results.read_journal(folder)
    first = next(r for r in rows if r["kernel"] == "Stream_COPY" and r["device_id"] == "rajaperf:0")
    assert first["status"] == "error" and "PASS??" in first["reason"]
    assert [r["status"] for r in rows].count("fail") == 1


def test_a_byte_order_mark_is_no_damage(run: Path) -> None:
    """A journal saved by an editor that marks UTF-8 lost its first row as corrupt."""
    for name in (results.JOURNAL, results.METADATA):
        path = run / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr
    assert len(results.read_journal(run)) == 2
    assert "Stream_COPY" in proc.stdout and "Basic_DAXPY" in proc.stdout


def test_compare_fails_where_the_new_run_may_have_lost_rows(quick_run: Path, run: Path) -> None:
    """A row of the new run's journal that was damaged was skipped, and the base's
    row then counted as 'only in base': the gate passed on a row nobody compared."""
    journal = run / results.JOURNAL
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join([lines[0].replace('"ok"', '"bogus"'), *lines[1:]]) + "\n")
    proc = harness("compare", str(quick_run), str(run))
    assert proc.returncode == 1, proc.stderr
    assert (
        f"fail: {journal} has 1 damaged line(s) (1), and 1 row(s) of the base are not in it"
        in proc.stderr
    )
    # Damaged in the base, the lost row leaves the new run's row unjudged: no pass either.
    proc = harness("compare", str(run), str(quick_run))
    assert proc.returncode == 1, proc.stderr
    assert f"fail: {journal} has 1 damaged line(s) (1), and 1 row(s) of {quick_run} have" in (
        proc.stderr
    )


def test_compare_fails_where_nothing_says_the_new_run_ended(quick_run: Path, run: Path) -> None:
    (run / results.METADATA).unlink()
    # Its journal, the same byte for byte, is all that tells the copy: it is one run.
    proc = harness("compare", str(quick_run), str(run))
    assert proc.returncode == 2, proc.stderr
    assert "are one run (one folder, or a copy of it)" in proc.stderr
    journal = run / results.JOURNAL
    journal.write_text(journal.read_text().splitlines()[1] + "\n")
    proc = harness("compare", str(quick_run), str(run))
    assert proc.returncode == 1, proc.stderr
    assert f"fail: {run} has no metadata.json, so whether it ran to its end is unknown" in (
        proc.stderr
    )


_INTERRUPTED_IMPORT = """
import os, signal, sys, time

class Interrupt:
    def find_spec(self, name, *args):
        if name == "harness.cli":
            if sys.argv[1] == "SIGTERM":
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(10)
            raise KeyboardInterrupt

sys.meta_path.insert(0, Interrupt())
from harness.__main__ import entry
sys.exit(entry())
"""


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_command_imports_is_one_line_and_130(signal_name: str) -> None:
    """Ctrl-C in the moment the command's modules import printed a traceback; a
    SIGTERM then ended it with a silent 143."""
    proc = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_IMPORT, signal_name],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip() == "harness: interrupted while starting; nothing was done"


def test_a_sigterm_while_suites_load_is_one_line_and_130(tmp_path: Path) -> None:
    """A SIGTERM before the command's handler (as --suite files load) was a silent 143."""
    suite_file = tmp_path / "kernels.py"
    suite_file.write_text(
        "import os, signal, time\nos.kill(os.getpid(), signal.SIGTERM)\ntime.sleep(10)\n"
    )
    proc = harness("list", "--suite", str(suite_file), timeout=60)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip() == "harness: interrupted while starting; nothing was done"


def test_ctrl_c_while_devices_are_listed_stops_the_listing_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Workers take no signal: those started to list devices and not yet kept were
    left running, and the command waited for them at its exit for ever."""
    started: list[workers._Worker] = []

    class Listing(workers._Worker):
        def __init__(self, backend: str) -> None:
            super().__init__(backend)
            started.append(self)

        def catalog(self, timeout: float) -> workers.Catalog:
            raise KeyboardInterrupt

    monkeypatch.setattr(workers, "_Worker", Listing)
    pool = workers.Workers()
    with pytest.raises(KeyboardInterrupt):
        pool.catalogs(["cpu", "opencl"])
    pool.close()
    assert len(started) == 2
    assert not any(w.process.is_alive() for w in started)


def test_the_api_refuses_a_progress_that_is_no_switch(tmp_path: Path) -> None:
    import harness as api

    with pytest.raises(UsageError, match=r"progress='no': expected True or False"):
        api.run("Stream_COPY", "cpu", size=1000, out=tmp_path, progress="no")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("blank", ["", "  "])
def test_the_api_refuses_to_load_a_blank_path(
    blank: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """harness.load("") read the current folder."""
    import harness as api

    monkeypatch.chdir(tmp_path)
    with pytest.raises(results.RunFolderError, match=f"^{blank!r} is no path: give a run folder"):
        api.load(blank)


@pytest.mark.parametrize("given", [None, 5, ["a", "b"]])
def test_the_api_refuses_to_load_what_is_no_path(given: object) -> None:
    """A list, None or a number raised Python's own TypeError, not the API's error."""
    import harness as api

    with pytest.raises(UsageError, match=rf"^{re.escape(repr(given))} is no path: give a run"):
        api.load(given)  # type: ignore[arg-type]

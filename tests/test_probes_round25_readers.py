"""Hostile probes, round 25: the commands that read and write run folders (`show`,
`report`, `plot`, `compare`, `merge`, `export --thicket`, `import-rajaperf`) and
`harness.load`, with damaged inputs, odd paths and outputs that cannot be written."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, copy_run, harness, one_error, run_folder

import harness as api
from harness.errors import UsageError
from harness.execution import merge

RAJAPERF = ROOT / "tests" / "fixtures" / "rajaperf_output"


def test_an_import_of_a_row_naming_no_rajaperf_kernel_skips_it_naming_its_line(
    tmp_path: Path,
) -> None:
    """A run-data row whose kernel was no RAJAPerf kernel (a damaged name,
    'Stream_TRIAX') was imported as good: a kernel of its own in every report. It is
    named with its line and skipped, and the run says a line of it was not read."""
    folder = shutil.copytree(RAJAPERF, tmp_path / "raja")
    data = folder / "RAJAPerf-kernel-run-data.csv"
    data.write_text(
        data.read_text().replace("Stream_TRIAD   , Base_Seq", "Stream_TRIAX , Base_Seq")
    )
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        f"warning: {data}:5: kernel 'Stream_TRIAX' is none of RAJAPerf's (a damaged name?); "
        "a kernel of its groups as 'harness list' names them, or one of its MPI kernels "
        "(Comm_HALO_SENDRECV, Comm_HALO_EXCHANGE, Comm_HALO_EXCHANGE_FUSED), is accepted: "
        "skipped"
    )
    meta = json.loads((run_folder(tmp_path / "out") / "metadata.json").read_text())
    assert meta["kernels"] == ["Stream_COPY", "Stream_TRIAD", "Basic_DAXPY"]
    assert meta["unread_lines"] == {"file": "RAJAPerf-kernel-run-data.csv", "lines": [5]}


def test_load_of_a_symbolic_link_loop_names_the_loop(tmp_path: Path) -> None:
    """`harness.load` of a loop of symbolic links (or a path through one) said 'no
    such run folder', as for a path naming nothing. It names the loop."""
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    for given in (tmp_path / "a", tmp_path / "a" / "run"):
        with pytest.raises(UsageError) as raised:
            api.load(given)
        assert str(raised.value) == (
            f"{given}: a loop of symbolic links, which names no run folder; give the path "
            "of a real one"
        )


@pytest.mark.parametrize("command", ["show", "report", "plot", "merge", "export", "compare"])
def test_a_run_folder_name_too_long_for_the_file_system_is_one_line(
    tmp_path: Path, command: str
) -> None:
    """A run folder named by a name longer than a file system takes (300 letters)
    ended `show` and `merge` in a traceback (File name too long). It is one line."""
    name = str(tmp_path / ("a" * 300))
    args = {"export": ["--thicket", name], "merge": [name, name], "compare": [name, name]}
    proc = harness(command, *args.get(command, [name]))
    assert proc.returncode == 2, proc.stderr
    label = "BASE_RUN" if command == "compare" else "RUN_DIR"
    assert one_error(proc.stderr) == (
        f"argument {label}: {name!r}: a name longer than the file system takes (File name "
        f"too long), which names no file or folder; give a shorter path (see 'harness "
        f"{command} --help')"
    )


def test_load_of_a_name_too_long_is_a_usage_error(tmp_path: Path) -> None:
    """`harness.load` of a name longer than a file system takes raised OSError."""
    given = tmp_path / ("a" * 300)
    with pytest.raises(UsageError) as raised:
        api.load(given)
    assert str(raised.value) == (
        f"{given}: a name longer than the file system takes, which names no run folder; "
        "give a shorter path"
    )


def test_a_merge_syncs_each_file_once_not_each_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merge synced its journal and samples to disk after every row, into a folder
    no reader sees until it is whole: a merge of three runs of 300 rows made 1800
    fsyncs and spent seconds in them. Each file is synced once, every row kept."""
    sizes = ",".join(str(n) for n in range(100, 400))
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--sizes", sizes, "--reps", "1",
        "--warmup", "0", "--out", str(tmp_path / "runs"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    first = run_folder(tmp_path / "runs")
    runs = [first, copy_run(first, tmp_path / "b"), copy_run(first, tmp_path / "c")]
    synced: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    made = merge.merge(runs, tmp_path / "merged", lambda rows: f"{len(rows)} rows")
    assert len(synced) <= 10, len(synced)
    assert (made / "journal.jsonl").read_text().count("\n") == 900
    assert (made / "samples.jsonl").read_text().count("\n") == 900

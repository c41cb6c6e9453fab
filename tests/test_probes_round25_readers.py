"""Hostile probes, round 25: the commands that read and write run folders (`show`,
`report`, `plot`, `compare`, `merge`, `export --thicket`, `import-rajaperf`) and
`harness.load`, with damaged inputs, odd paths and outputs that cannot be written."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import (
    ROOT,
    copy_run,
    cut_journal,
    harness,
    one_error,
    run_folder,
    source_names,
)

import harness as api
from harness.errors import UsageError
from harness.execution import merge

RAJAPERF = ROOT / "tests" / "fixtures" / "rajaperf_output"


def test_an_import_of_a_row_naming_no_rajaperf_kernel_skips_it_naming_its_line(
    tmp_path: Path,
) -> None:
    """A run-data row whose kernel was no kernel raja-perf.exe ran (a damaged name,
    'Stream_TRIAX', with no line in the details file) was imported as good: a kernel
    of its own in every report. It is named with its line and skipped, and the run
    says a line of it was not read. A kernel this suite lacks (an MPI one, one of a
    RAJAPerf fork) that the details file describes is imported."""
    folder = shutil.copytree(RAJAPERF, tmp_path / "raja")
    data = folder / "RAJAPerf-kernel-run-data.csv"
    text = data.read_text().replace("Stream_TRIAD   , Base_Seq", "Stream_TRIAX , Base_Seq")
    data.write_text(text.replace("Basic_DAXPY    , Base_Seq", "Comm_HALO_EXCHANGE , Base_Seq"))
    details = folder / "RAJAPerf-kernel-details.csv"
    daxpy = next(line for line in details.read_text().splitlines() if line.startswith("Basic_"))
    with details.open("a") as f:
        f.write(daxpy.replace("Basic_DAXPY    ", "Comm_HALO_EXCHANGE") + "\n")
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        f"warning: {data}:5: kernel 'Stream_TRIAX' has no line in RAJAPerf-kernel-details.csv, "
        "where raja-perf.exe describes every kernel it runs, and is none of RAJAPerf's that "
        "'harness list' names (a damaged name?): skipped"
    )
    meta = json.loads((run_folder(tmp_path / "out") / "metadata.json").read_text())
    assert meta["kernels"] == ["Stream_COPY", "Stream_TRIAD", "Comm_HALO_EXCHANGE", "Basic_DAXPY"]
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


def _merged_with_a_torn_source(tmp_path: Path, run: Path) -> Path:
    """The run that merges a copy of ``run`` whose journal's first line is cut short
    with an import of RAJAPerf's output (other devices): the rows of that
    line are lost in the merged run too."""
    torn = copy_run(run, tmp_path / "torn")
    journal = torn / "journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text(lines[0][:40] + "\n" + "".join(lines[1:]))
    proc = harness("import-rajaperf", str(RAJAPERF), "--out", str(tmp_path / "raja"))
    assert proc.returncode == 0, proc.stderr
    imported = run_folder(tmp_path / "raja")
    proc = harness("merge", str(torn), str(imported), "--out", str(tmp_path / "merged"))
    assert proc.returncode == 0, proc.stderr
    return run_folder(tmp_path / "merged")


def test_a_merged_run_whose_source_lost_rows_says_so_when_read(
    copy_run_of_two: Path, tmp_path: Path
) -> None:
    """A run merged from one with a torn journal line was shown, plotted, exported and
    reported as whole, without a word: the merged metadata keeps the source's
    damaged lines, but only compare read them. Each command says so now."""
    merged = _merged_with_a_torn_source(tmp_path, copy_run_of_two)
    torn = source_names(merged)[0]
    said = (
        f"note: {merged} merges {torn}, whose journal had 1 damaged line(s) when merged: the "
        "rows it kept are {}, and the rows lost may be any of that run's\n"
    )
    proc = harness("show", str(merged))
    assert proc.returncode == 1, proc.stderr  # the import's FAILED checksum
    assert proc.stderr == said.format("shown")
    proc = harness("export", "--thicket", str(merged), "--out", str(tmp_path / "th"))
    assert proc.returncode == 0, proc.stderr
    # The import's failed and skipped rows have no time, so no profile holds them.
    untimed = f"note: {merged}: rows with no time are in no profile: 1 failed verification, "
    assert proc.stderr == untimed + "1 skipped\n" + said.format("exported")
    proc = harness("report", str(merged), "--out", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    report = (tmp_path / "report" / "report.md").read_text()
    assert (
        f"> **Note:** {merged.name}: {merged} merges {torn}, whose journal had 1 damaged "
        "line(s) when merged; the report holds the 7 rows it could read\n"
    ) in report, report


def test_compare_fails_a_merged_base_whose_source_lost_the_rows_new_has(
    copy_run_of_two: Path, tmp_path: Path
) -> None:
    """Compare passed (exit 0) against a merged base one of whose runs had a torn
    journal line, though the new run's row of that line had no base row to be
    judged against: the base's loss was read from its own journal only."""
    merged = _merged_with_a_torn_source(tmp_path, copy_run_of_two)
    new = copy_run(copy_run_of_two, tmp_path / "new")
    proc = harness("compare", str(merged), str(new))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.endswith(
        f"fail: {merged} merges {source_names(merged)[0]}, whose journal had 1 damaged "
        "line(s) when merged, and "
        f"1 row(s) of {new} have no base row to be judged against: they may be the lost ones\n"
    ), proc.stderr


def test_a_run_folder_format_of_zero_is_refused_naming_what_is_accepted(
    copy_run_of_two: Path, tmp_path: Path
) -> None:
    """A metadata.json whose 'format' was 0 was refused saying 'a whole number ... is
    accepted', which 0 is. The message names the lowest format and the newest read."""
    run = copy_run(copy_run_of_two, tmp_path)
    meta = json.loads((run / "metadata.json").read_text())
    (run / "metadata.json").write_text(json.dumps(meta | {"format": 0}))
    proc = harness("show", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"{run / 'metadata.json'}:1: 'format' is 0; a whole number from 1 (the run folder's "
        "format: this harness reads up to 2) is accepted"
    )


def test_compare_fails_a_merged_run_whose_source_measured_a_case_twice(
    copy_run_of_two: Path, tmp_path: Path
) -> None:
    """A journal measuring a case twice fails compare (which row is the measurement
    cannot be told), but merged with another run it passed: the merge kept the
    first row and the merged run no longer knew of the second. The merged run keeps
    the repeat in its metadata: compare fails on it, as base or as new, and show
    says which row it shows."""
    twice = copy_run(copy_run_of_two, tmp_path / "twice")
    journal = twice / "journal.jsonl"
    row = json.loads(journal.read_text().splitlines()[0])
    for key, value in list(row.items()):
        if isinstance(value, float) and key.startswith("time_"):
            row[key] = value * 3
        elif isinstance(value, float) and key.endswith("_per_s"):
            row[key] = value / 3
    journal.write_text(journal.read_text() + json.dumps(row) + "\n")
    proc = harness("import-rajaperf", str(RAJAPERF), "--out", str(tmp_path / "raja"))
    assert proc.returncode == 0, proc.stderr
    imported = run_folder(tmp_path / "raja")
    proc = harness("merge", str(twice), str(imported), "--out", str(tmp_path / "merged"))
    assert proc.returncode == 0, proc.stderr
    merged = run_folder(tmp_path / "merged")
    name = source_names(merged)[0]
    proc = harness("show", str(merged))
    assert proc.returncode == 1, proc.stderr  # the import's FAILED checksum
    assert proc.stderr == (
        f"note: {merged} merges {name}, whose journal's line 3 measured the case of line 1 "
        "again when merged (1 such line(s)): the first row of each such case is shown\n"
    )
    other = copy_run(copy_run_of_two, tmp_path / "other")
    for base, new in ((other, merged), (merged, other)):
        proc = harness("compare", str(base), str(new))
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert proc.stderr.endswith(
            f"fail: {merged} merges {name}, whose journal's line 3 measured the case of line 1 "
            "again when merged (1 such line(s)): which is the run's measurement cannot be "
            "told, so the comparison cannot pass\n"
        ), proc.stderr


def test_an_export_copies_no_run_metadata_per_row(
    copy_run_of_two: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export kept the run's metadata in the frame's attrs, which pandas deep-copies
    into every frame made of it: each row the profiles walk copied a merged run's
    metadata (every source's), most of an export of a long sweep (21 s of 26 for
    900 rows). The metadata is copied no more, and the profiles are as before."""
    import pandas.core.generic

    from harness.reporting import thicket_export

    merged = merge.merge(
        [copy_run(copy_run_of_two, tmp_path / "a"), copy_run(copy_run_of_two, tmp_path / "b")],
        tmp_path / "merged",
        lambda rows: "",
    )
    copied: list[object] = []
    real = pandas.core.generic.deepcopy

    def deepcopy(value: object, *args: object) -> object:
        if isinstance(value, dict) and "metadata" in value:
            copied.append(value)
        return real(value, *args)

    monkeypatch.setattr(pandas.core.generic, "deepcopy", deepcopy)
    written = thicket_export.write(merged, tmp_path / "th")
    assert len(written) == 2
    assert len(copied) < 5, len(copied)


def test_a_merge_interrupted_as_it_writes_says_nothing_of_it_is_left(
    copy_run_of_two: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A merge stopped by Ctrl-C as it wrote its folder removed it, but said only 'what
    it was writing may be incomplete', which sent the user looking for it. It says
    nothing of the new run folder is left, and none is."""
    runs = [copy_run(copy_run_of_two, tmp_path / "a"), copy_run(copy_run_of_two, tmp_path / "b")]

    def summarise(rows: list[dict[str, object]]) -> str:
        raise KeyboardInterrupt  # Ctrl-C once the rows are written, before the summary

    with pytest.raises(KeyboardInterrupt):
        merge.merge(runs, tmp_path / "merged", summarise)
    assert capsys.readouterr().err == (
        f"\nnote: interrupted before the new run folder in {tmp_path / 'merged'} was whole: "
        "nothing of it is left\n"
    )
    assert list((tmp_path / "merged").iterdir()) == []


def test_a_baseline_not_in_runs_of_two_machines_lists_what_is_accepted(
    copy_run_of_two: Path, tmp_path: Path
) -> None:
    """A --baseline absent from runs of two machines whose devices share an id said
    'they have cpu, cpu:0', but cpu:0 is refused there as naming two devices: the
    names accepted for each (host, id and name) were not listed. They are now."""
    other = copy_run(copy_run_of_two, tmp_path / "other")
    meta = json.loads((other / "metadata.json").read_text())
    meta["host"]["hostname"] = "node7"
    (other / "metadata.json").write_text(json.dumps(meta))
    proc = harness(
        "report", str(copy_run_of_two), str(other), "--baseline", "vm: cpu:0",
        "--out", str(tmp_path / "report"),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    ours = json.loads((copy_run_of_two / "metadata.json").read_text())
    host, name = ours["host"]["hostname"], ours["devices"][0]["name"]
    assert one_error(proc.stderr) == (
        f"--baseline 'vm: cpu:0': not in these runs; they have cpu, {host}: cpu:0 ({name}), "
        f"node7: cpu:0 ({name})"
    )
    assert not (tmp_path / "report").exists()


def test_load_of_the_home_folder_of_no_user_names_it() -> None:
    """`harness.load("~nouser/run")` said 'no such run folder', as if that user's home
    folder lacked the run; there is no such user. It says so, as the command line
    does for such a path."""
    with pytest.raises(UsageError) as raised:
        api.load("~harness-no-such-user/run")
    assert str(raised.value) == (
        "'~harness-no-such-user/run': no home folder for '~harness-no-such-user'; give a "
        "path without it"
    )


def test_a_merged_run_of_a_run_without_metadata_says_its_end_is_unknown(
    copy_run_of_two: Path, tmp_path: Path
) -> None:
    """`show` of a run without metadata.json says whether it ran to its end is unknown;
    merged with another run, its rows were shown and reported without a word, the
    merged run's own end saying it had ended. Both say so now."""
    bare = copy_run(copy_run_of_two, tmp_path / "bare")
    (bare / "metadata.json").unlink()
    # Another run's rows: a journal the same as the other's, byte for byte, is a copy.
    cut_journal(bare, 1)
    other = copy_run(copy_run_of_two, tmp_path / "other")
    proc = harness("merge", str(bare), str(other), "--out", str(tmp_path / "merged"))
    assert proc.returncode == 0, proc.stderr
    merged = run_folder(tmp_path / "merged")
    name = source_names(merged)[0]
    proc = harness("show", str(merged))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        f"note: {merged} merges {name}, with no metadata.json (or no end in it) when merged: "
        "whether it ran to its end is unknown; its rows are shown as they are\n"
    )
    proc = harness("report", str(merged), "--out", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"> **Note:** {merged.name}: merges {name}, with no metadata.json (or no end in it) "
        "when merged: whether it ran to its end is unknown\n"
    ) in (tmp_path / "report" / "report.md").read_text()


def test_walking_a_loaded_merged_run_copies_no_metadata_per_row(
    copy_run_of_two: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`harness.load` kept the run's metadata in the frame's attrs, which pandas
    deep-copies into every frame made of it: walking a merged run's rows
    (``iterrows``) copied all of its sources' metadata once per row, 20 times slower
    for 900 rows. The metadata is shared by those copies now."""
    import pandas.core.generic

    merged = merge.merge(
        [copy_run(copy_run_of_two, tmp_path / "a"), copy_run(copy_run_of_two, tmp_path / "b")],
        tmp_path / "merged",
        lambda rows: "",
    )
    rows = api.load(merged)
    copied: list[int] = []
    real = pandas.core.generic.deepcopy

    def deepcopy(value: object, memo: dict[int, object] | None = None) -> object:
        memo = {} if memo is None else memo
        made = real(value, memo)
        copied.append(len(memo))
        return made

    monkeypatch.setattr(pandas.core.generic, "deepcopy", deepcopy)
    walked = [row["kernel"] for _, row in rows.iterrows()]
    assert len(walked) == 4
    assert sum(copied) < 3 * len(walked), sum(copied)
    assert rows.attrs["metadata"]["merged_from"][0]["run"] == source_names(merged)[0]

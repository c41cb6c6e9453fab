"""Hostile probes, round 23: the commands that read and write run folders besides
``run`` (`merge`, `export --thicket`, `import-rajaperf`, `peak`, `show`, `compare`,
`list`, `devices`) and the Python API, with odd inputs: runs of other machines and
versions mixed, damaged rows and metadata, full disks."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import (
    ROOT,
    copy_run,
    first_row_edited,
    harness,
    need_backend,
    one_error,
    one_quick_run,
    run_folder,
)

from harness.backends import get as get_backend
from harness.cli import main
from harness.execution import peaks
from harness.execution.runner import Runner

#: A two-rank MPI run on an H100, kept with the reference results.
MPI_RUN = ROOT / "results" / "reference" / "h100-2026-11-27" / "cuda-mpi-two-ranks"


def _globals(profile: Path) -> dict[str, str]:
    """A .cali profile's metadata (its globals) by name."""
    nodes: dict[str, tuple[str, str]] = {}
    refs: list[str] = []
    for line in profile.read_text().splitlines():
        fields = dict(f.split("=", 1) for f in line.split(",") if "=" in f)
        if fields.get("__rec") == "node":
            nodes[fields["id"]] = (fields["attr"], fields["data"])
        elif fields.get("__rec") == "globals":
            refs = line.split("ref=", 1)[1].split("=")
    return {nodes[nodes[r][0]][1]: nodes[r][1] for r in refs}


@pytest.mark.full
def test_export_of_an_mpi_run_merged_with_one_without_gives_its_rows_no_rank(
    tmp_path: Path,
) -> None:
    """A merged run of an MPI job and a run without MPI was exported with the second's
    profiles named ``r-1`` and given ``mpi.rank`` -1, a rank no process had. They
    have no rank now; the MPI job's profiles keep theirs."""
    mpi = shutil.copytree(MPI_RUN, tmp_path / "mpi")
    ours = one_quick_run(tmp_path / "ours")
    proc = harness("merge", str(mpi), str(ours), "--out", str(tmp_path / "merged"))
    assert proc.returncode == 0, proc.stderr
    merged = run_folder(tmp_path / "merged")
    proc = harness("export", "--thicket", str(merged), "--out", str(tmp_path / "th"))
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in (tmp_path / "th").iterdir())
    assert not [n for n in names if "r-1" in n], names
    ranks = {name: _globals(tmp_path / "th" / name).get("mpi.rank") for name in names}
    assert sorted(r for r in ranks.values() if r is not None) == ["0", "1"], ranks
    (own,) = [n for n in names if "cpu_0" in n]
    assert ranks[own] is None


def test_export_of_an_mpi_run_gives_its_job_size_as_its_ranks(tmp_path: Path) -> None:
    """RAJAPerf's ``jobsize`` is the job's count of MPI ranks, but every profile said 1,
    that of a two-rank job too. It says 2 there now, and 1 for a run without MPI."""
    mpi = shutil.copytree(MPI_RUN, tmp_path / "mpi")
    proc = harness("export", "--thicket", str(mpi), "--out", str(tmp_path / "th"))
    assert proc.returncode == 0, proc.stderr
    profiles = sorted((tmp_path / "th").iterdir())
    assert len(profiles) == 2
    assert [_globals(p)["jobsize"] for p in profiles] == ["2", "2"]
    ours = one_quick_run(tmp_path / "ours")
    proc = harness("export", "--thicket", str(ours), "--out", str(tmp_path / "own"))
    assert proc.returncode == 0, proc.stderr
    (profile,) = (tmp_path / "own").iterdir()
    assert _globals(profile)["jobsize"] == "1"


@contextlib.contextmanager
def _small_disk(tmp_path: Path, free_kib: int) -> Iterator[Path]:
    """A folder on a tmpfs of its own with about ``free_kib`` KiB left; skips where
    this process may not mount one, and is always unmounted."""
    if not shutil.which("mount"):
        pytest.skip("no mount here")
    folder = tmp_path / "small"
    folder.mkdir(parents=True)
    mount = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], capture_output=True
    )
    if mount.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mount.stderr.decode().strip()}")
    try:
        free = shutil.disk_usage(folder).free
        (folder / "fill").write_bytes(bytes(max(free - free_kib * 1024, 0)))
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


@pytest.mark.full
def test_an_export_that_does_not_fit_its_disk_is_refused_before_a_profile_is_written(
    tmp_path: Path,
) -> None:
    """An export of more profiles than its disk had room for wrote the first ones, then
    stopped on the full disk: a folder of some of the run's profiles, which Thicket reads
    as the run. It is refused before any is written, saying how much room it needs."""
    sizes = ",".join(str(n) for n in range(100, 130))
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--sizes", sizes, "--reps", "1",
        "--warmup", "0", "--out", str(tmp_path / "runs"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(tmp_path / "runs")
    with _small_disk(tmp_path, 80) as small:
        out = small / "thicket"
        proc = harness("export", "--thicket", str(run), "--out", str(out))
        assert proc.returncode == 2, proc.stderr
        said = one_error(proc.stderr)
        assert re.fullmatch(
            rf"output folder {re.escape(str(out))}: its disk has \d+ bytes free, and the 30 "
            r"profile\(s\) need \d+; free some space or give --out another disk",
            said,
        ), said
        assert not out.exists()


def test_a_row_filed_under_another_group_than_its_kernel_s_is_damage(tmp_path: Path) -> None:
    """A row whose group was not its kernel's (Stream_TRIAD in Basic) was read as good:
    reports and profiles filed it under that group. The metadata names each kernel's
    group, and such a row is skipped as damaged, named by its line."""
    run = first_row_edited(
        copy_run(one_quick_run(tmp_path / "runs"), tmp_path / "copy"), group="Basic"
    )
    proc = harness("show", str(run))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(
        f"warning: {run / 'journal.jsonl'}:1: skipped a damaged row: 'group' is 'Basic', but "
        "metadata.json has Stream_TRIAD in group 'Stream'\n"
    ), proc.stderr


def test_a_peak_of_no_figure_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A device whose every measurement failed or was nonsense (the simulator, whose
    bandwidth is under a megabyte a second) had an entry of no figure kept for it,
    "kept in" the store: later runs then said their rows were placed against it. It
    is not kept now, and the command exits 1."""
    store = tmp_path / "peaks.json"
    monkeypatch.setenv("HARNESS_PEAKS", str(store))

    def execute(self: Runner, task: object) -> dict[str, object]:
        return {"status": "error", "reason": "out of device memory"}

    monkeypatch.setattr(Runner, "execute", execute)
    small = ["--bandwidth-size", "65536", "--fma-size", "1024", "--max-time", "0.05"]
    assert main(["peak", "-b", "cpu", *small, "--span", "0.05"]) == 1
    err = capsys.readouterr().err
    assert "  note: Stream_COPY: error: out of device memory\n" in err
    assert "  not kept (none stored): no figure was measured\n" in err
    assert "kept in" not in err
    assert not store.exists()


def test_a_stored_peak_of_no_figure_places_no_row_and_is_not_said_to(tmp_path: Path) -> None:
    """A run beside a stored entry of no figure (kept by an earlier harness) said its
    rows were placed against that peak, where none was placed. It is no peak."""
    store = tmp_path / "peaks.json"
    device = get_backend("cpu").default_devices()[0].as_dict()
    entry = {"measured": "2026-01-01T00:00:00+0000", "fma_gflops_per_s": {}, "notes": []}
    entry |= {"warnings": [], "conditions": {"host": "here", "cpus": 2}}
    store.write_text(json.dumps({peaks.device_key(device): entry}))
    proc = harness(
        "run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--reps", "2",
        "--out", str(tmp_path / "runs"), env={"HARNESS_PEAKS": str(store)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "placed against" not in proc.stderr
    assert "note: no measured peak for cpu:0, so its rows get no pct_peak_bw" in proc.stderr


@pytest.mark.full
def test_a_merge_of_a_run_under_a_folder_named_across_two_lines_keeps_rows_on_one(
    tmp_path: Path,
) -> None:
    """Two runs of one machine are told apart by their folders' names, which name their
    rows' host: a folder whose name held a line break gave every row of its run a host
    across two lines, and the merged run's table a row split in two. The break is
    escaped."""
    first = one_quick_run(tmp_path / "a\nb")
    second = copy_run(first, tmp_path / "c")
    proc = harness("merge", str(first), str(second), "--out", str(tmp_path / "merged"))
    assert proc.returncode == 0, proc.stderr
    table = proc.stdout.split("\n\n")[0].splitlines()
    assert len(table) == 3, proc.stdout
    assert f" (a\\nb/{first.name})  " in table[1], table
    rows = (run_folder(tmp_path / "merged") / "journal.jsonl").read_text().splitlines()
    hosts = [json.loads(line)["host"] for line in rows]
    assert all(host.isprintable() for host in hosts), hosts
    assert hosts[0].endswith(f" (a\\nb/{first.name})"), hosts


@pytest.mark.full
def test_show_of_merged_checks_that_verified_nothing_exits_as_each_does(tmp_path: Path) -> None:
    """`harness show` of a --check whose every row was skipped exits 1, as the run did,
    but of a merge of two such checks it exited 0: the merged run's metadata holds no
    options, so it was taken for a timed run. A merge of checks alone is a check."""
    need_backend("wgpu")
    args = ["--check", "-k", "Stream_COPY", "-b", "wgpu", "--partition", "stride"]
    runs = []
    for name in ("a", "b"):
        proc = harness("run", *args, "--out", str(tmp_path / name))
        assert proc.returncode == 1, proc.stderr
        runs.append(run_folder(tmp_path / name))
    proc = harness("merge", *map(str, runs), "--out", str(tmp_path / "merged"))
    assert proc.returncode == 0, proc.stderr
    proc = harness("show", str(run_folder(tmp_path / "merged")))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("nothing was verified: all 4 rows were ")


@pytest.mark.parametrize("column", ["power_w", "energy_j_per_rep", "gflops_per_j", "gbytes_per_j"])
def test_a_row_of_negative_energy_is_damage(
    copy_run_of_two: Path, tmp_path: Path, column: str
) -> None:
    """A row's power, energy and work per joule are from 0, but a row of -1 W was read
    as good: shown, and in results.csv and the API's rows. It is damage, named."""
    run = first_row_edited(copy_run(copy_run_of_two, tmp_path), **{column: -1})
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(
        f"warning: {run / 'journal.jsonl'}:1: skipped a torn or corrupt line: '{column}' is -1; "
        "a number from 0 to 1e+15 is accepted\n"
    ), proc.stderr
    assert "Stream_COPY" not in proc.stdout and "Stream_ADD" in proc.stdout


@pytest.mark.parametrize(
    ("column", "value", "kind"),
    [("reason", 1e30, "number"), ("stop", True, "boolean"), ("host", 7, "number")],
)
def test_a_text_column_holding_a_number_is_damage(
    copy_run_of_two: Path, tmp_path: Path, column: str, value: object, kind: str
) -> None:
    """A run writes its rows' reasons, stop rules and hosts as text, but a row whose
    reason was 1e+30 (or whose stop rule was true) was read as good, shown as it was.
    It is damage, named as one whose precision or group is no text is."""
    run = first_row_edited(copy_run(copy_run_of_two, tmp_path), **{column: value})
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(
        f"warning: {run / 'journal.jsonl'}:1: skipped a torn or corrupt line: '{column}' is a "
        f"{kind}, not text\n"
    ), proc.stderr


def test_an_import_of_a_run_data_file_holding_its_header_twice_makes_no_row_of_it(
    tmp_path: Path,
) -> None:
    """A run-data file with a second table appended (its header again, then rows) made
    a row of the second header: kernel 'Kernel', an error, on a third device named
    'Variant Tuning' that raja-perf.exe never ran. The header is named and skipped."""
    folder = shutil.copytree(ROOT / "tests" / "fixtures" / "rajaperf_output", tmp_path / "raja")
    data = folder / "RAJAPerf-kernel-run-data.csv"
    lines = data.read_text().splitlines(keepends=True)
    data.write_text("".join([*lines, *lines[1:3]]))
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[:2] == [
        f"warning: {data}:{len(lines) + 1}: repeats the header of line 2: skipped",
        f"warning: {data}:{len(lines) + 2}: repeats Stream_COPY Base_Seq default of line 3: "
        "skipped",
    ]
    meta = json.loads((run_folder(tmp_path / "out") / "metadata.json").read_text())
    assert [d["name"] for d in meta["devices"]] == ["Base_Seq default", "Base_OpenMP default"]
    assert meta["kernels"] == ["Stream_COPY", "Stream_TRIAD", "Basic_DAXPY"]


@pytest.mark.full
def test_an_export_stopped_as_it_lists_its_profiles_says_they_are_whole(tmp_path: Path) -> None:
    """Ctrl-C once every profile was written, as their paths were printed (to a reader
    that had not yet read them), ended the export in 'what it was writing may be
    incomplete': the user exported again what was whole. It says they are whole."""
    sizes = ",".join(str(n) for n in range(100, 140))
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--sizes", sizes, "--reps", "1",
        "--warmup", "0", "--out", str(tmp_path / "runs"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # Paths long enough that their list fills the pipe nobody reads yet.
    out = tmp_path.joinpath(*(letter * 200 for letter in "abcdefghij"))
    run = run_folder(tmp_path / "runs")
    export = subprocess.Popen(
        [sys.executable, "-m", "harness", "export", "--thicket", str(run), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )
    deadline = time.monotonic() + 60
    while not (out.is_dir() and len(list(out.glob("*.cali"))) == 40):
        assert time.monotonic() < deadline and export.poll() is None
        time.sleep(0.05)
    time.sleep(0.5)
    export.send_signal(signal.SIGINT)
    listed, err = export.communicate(timeout=60)
    assert export.returncode == 130, err
    assert len(listed.splitlines()) < 40
    assert err.decode().endswith(
        f"\nexported: 40 profile(s) in {out}, written whole; their list was cut short\n\n"
        "harness export: stopped by a signal, which reached it only once its work was done: "
        "its output is whole\n"
    ), err

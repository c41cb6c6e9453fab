"""Hostile probes, round 21: input and output faults of the commands that read and
write files: a standard error that cannot be written, full disks, unwritable
caches and stores, inputs that are no files."""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import copy_run, cut_journal, harness, need_backend, one_error, run_folder

from harness.execution import peaks, results

# Each test here runs the harness end to end on an edge case, seconds of
# subprocesses apiece: the full tier's, so that the fast tier keeps to its minutes.
pytestmark = pytest.mark.full

RUN = ["-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3"]


def _environment() -> dict[str, str]:
    """The environment a command of these tests runs in."""
    return {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}


def _whole(run: Path) -> None:
    """Assert that ``run`` ended as a finished run folder: its one row, its table and
    its summary written, its metadata ended."""
    assert [row["status"] for row in results.read_journal(run)] == ["ok"]
    assert (run / results.RESULTS).is_file() and (run / results.SUMMARY).is_file()
    assert results.read_metadata(run)["end"]


def test_a_run_whose_standard_error_is_on_a_full_disk_still_ends(tmp_path: Path) -> None:
    """``harness run ... 2>log`` with the log's disk full (here /dev/full) died at its
    first progress line in an OSError traceback no one could read, exit 1, leaving
    a run folder that had not ended. The messages are lost; the run is not."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "harness", "run", *RUN, "--out", str(tmp_path)],
            stdout=subprocess.PIPE, stderr=full, text=True, env=_environment(), timeout=120,
        )  # fmt: skip
    assert proc.returncode == 0
    assert "Stream_COPY" in proc.stdout
    _whole(run_folder(tmp_path))


def test_a_run_with_its_standard_error_closed_still_ends(tmp_path: Path) -> None:
    """``harness run ... 2>&-`` ended in an AttributeError on a stderr of None once its
    rows began (exit 1, the folder not ended, no results.csv), and the notes meant
    for stderr were printed into the table on stdout."""
    command = [sys.executable, "-m", "harness", "run", *RUN, "--out", str(tmp_path)]
    proc = subprocess.run(
        ["sh", "-c", 'exec "$@" 2>&-', "sh", *command],
        stdout=subprocess.PIPE, text=True, env=_environment(), timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0
    assert proc.stdout.startswith("kernel "), proc.stdout
    run = run_folder(tmp_path)
    _whole(run)


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


def test_cuda_compile_with_its_scratch_disk_full_is_one_line_not_a_compile_error(
    tmp_path: Path,
) -> None:
    """nvcc's scratch folder (TMPDIR) on a full disk ended ``harness cuda-compile`` in
    an OSError traceback from writing the source there, or, with room for the source
    but not for nvcc's own files, failed every kernel as 'failed to compile' (exit 1),
    as if its sources were wrong. It is one line naming the folder, exit 2."""
    if not shutil.which("nvcc"):
        pytest.skip("no nvcc here")
    for free in (8, 60):
        with _small_disk(tmp_path / str(free), free) as small:
            env = {"TMPDIR": str(small), "XDG_CACHE_HOME": str(tmp_path / str(free))}
            proc = harness("cuda-compile", "--compiler", "nvcc", "--arch", "80",
                           "--precision", "f64", env=env)  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert "failed to compile" not in proc.stdout
        said = one_error(proc.stderr.splitlines()[-1] + "\n")
        assert said == (
            f"temporary folder {small}: nvcc cannot write its files there (No space left on "
            "device); free some space there, or point TMPDIR at a folder with room"
        ), said


@contextlib.contextmanager
def _immutable(path: Path) -> Iterator[None]:
    """``path`` made immutable (``chattr +i``: not even root replaces or removes it);
    skips where the file system or this process cannot."""
    made = shutil.which("chattr") and subprocess.run(["chattr", "+i", str(path)]).returncode == 0
    if not made:
        pytest.skip("cannot make a file immutable here")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_report_that_cannot_remove_an_earlier_file_says_so(tmp_path: Path) -> None:
    """A report over an earlier one whose report.md could not be replaced (immutable;
    a folder made read-only) stopped its cleaning at that file: the new RAJAPerf
    files stayed beside the earlier report.md, passing for one report, while the
    line said 'none of its files was kept'. The cleaning goes on, and the line
    names the file it could not remove."""
    out = tmp_path / "report"
    first = harness("run", *RUN, "--out", str(tmp_path / "runs"))
    assert first.returncode == 0, first.stderr
    run = run_folder(tmp_path / "runs")
    assert harness("report", str(run), "--out", str(out)).returncode == 0
    with _immutable(out / "report.md"):
        proc = harness("report", str(run), "--out", str(out))
        left = sorted(p.name for p in out.iterdir())
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"output folder {out}: writing stopped at {out / 'report.md'} (Operation not "
        f"permitted); it could not remove {out / 'report.md'} (Operation not permitted), "
        "an earlier report's, which is no whole report: remove it, then run it again"
    )
    assert left == ["report.md"]


def test_a_plot_file_that_cannot_be_replaced_is_named_not_its_temporary_file(
    tmp_path: Path,
) -> None:
    """A plot's file name taken by a folder stopped the plot 'at
    time_by_kernel.png.tmp (Is a directory)': a file that is not there, and no
    folder of that name. The line names the file it could not replace."""
    runs = tmp_path / "runs"
    assert harness("run", *RUN, "--out", str(runs)).returncode == 0
    out = tmp_path / "plots"
    (out / "time_by_kernel.png").mkdir(parents=True)
    proc = harness("plot", str(run_folder(runs)), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"harness: error: output folder {out}: writing stopped at {out / 'time_by_kernel.png'} "
        "(Is a directory); the files written before are whole, the rest are missing; give "
        "--out another folder"
    )
    assert sorted(p.name for p in out.iterdir()) == ["time_by_kernel.png"]


def test_a_pipe_at_a_temporary_file_s_name_does_not_hang_a_command(tmp_path: Path) -> None:
    """A FIFO left where a file is written before it is renamed into place
    (results.csv.tmp, report.md.tmp, peaks.json.tmp) hung show, report and peak for
    ever, waiting for a reader: opening a pipe to write waits for one. It is
    replaced by the file, as a leftover temporary file is."""
    runs = tmp_path / "runs"
    assert harness("run", *RUN, "--out", str(runs)).returncode == 0
    run = run_folder(runs)
    good = (run / results.RESULTS).read_text()
    (run / results.RESULTS).write_text("garbage\n")
    os.mkfifo(run / "results.csv.tmp")
    proc = harness("show", str(run), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (run / results.RESULTS).read_text() == good
    assert not (run / "results.csv.tmp").exists()

    out = tmp_path / "report"
    out.mkdir()
    os.mkfifo(out / "report.md.tmp")
    proc = harness("report", str(run), "--out", str(out), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (out / "report.md").is_file() and not (out / "report.md.tmp").exists()


def test_a_pipe_at_the_peaks_store_s_temporary_name_does_not_hang_keep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`harness peak` writes its store through peaks.json.tmp: a FIFO there hung it,
    after its measurement, for ever."""
    store = tmp_path / "peaks.json"
    monkeypatch.setenv("HARNESS_PEAKS", str(store))
    os.mkfifo(tmp_path / "peaks.json.tmp")
    device = {"backend": "cpu", "name": "a CPU", "driver": "1", "api": "numpy"}
    peak = {"copy_gbytes_per_s": 10.0, "notes": [], "warnings": []}
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        kept = pool.submit(peaks.keep, device, peak)
        try:
            assert kept.result(timeout=30) == store
        finally:
            if not kept.done():
                # Let the hung open go, so that the test ends.
                with open(tmp_path / "peaks.json.tmp", "rb"):
                    pass
    assert json.loads(store.read_text())[peaks.device_key(device)] == peak


def test_a_run_whose_summary_met_a_full_disk_is_finished_by_its_resume(tmp_path: Path) -> None:
    """A disk that filled once a run's end was in its metadata, as its summary.txt was
    written, exited 2 saying to continue with ``harness run --resume``, which then
    said 'nothing to resume: it ran to its end' and left the folder without its
    summary for good. The resume now writes it."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    runs = tmp_path / "runs"
    proc = harness("run", "-k", "Stream_COPY", "Stream_ADD", *RUN[2:], "--out", str(runs))
    assert proc.returncode == 0, proc.stderr
    run = run_folder(runs)
    cut_journal(run, 1)
    meta = json.loads((run / results.METADATA).read_text())
    meta.update(end=None, interrupted=True)
    (run / results.METADATA).write_text(json.dumps(meta))
    (run / results.SUMMARY).unlink()
    # summary.txt is written through summary.txt.tmp: here that is /dev/full.
    (run / "summary.txt.tmp").symlink_to("/dev/full")
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert f"continue with: harness run --resume {run}" in proc.stderr
    assert results.read_metadata(run)["end"] and not (run / results.SUMMARY).exists()
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "nothing to resume" not in proc.stderr
    assert len(results.read_journal(run)) == 2
    assert "Stream_ADD" in (run / results.SUMMARY).read_text()


def test_opencl_rows_with_the_cache_folder_on_a_full_disk_are_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With XDG_CACHE_HOME on a full disk, PoCL could not write a built kernel into its
    cache there: every OpenCL row was an error, 'Stream_COPY.c failed to compile',
    and ``harness devices`` said the device's compiler 'fails on a trivial kernel',
    advising another PoCL. A cache costs time, never a result: the kernels are
    built in a scratch folder of the user's under the temporary folder."""
    need_backend("opencl")
    # PoCL's own folder where none is named (one named is the user's choice, kept).
    monkeypatch.delenv("POCL_CACHE_DIR", raising=False)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    with _small_disk(tmp_path, 0) as small:
        env = {"XDG_CACHE_HOME": str(small / "cache"), "TMPDIR": str(scratch)}
        proc = harness("run", *RUN[:2], "-b", "opencl", *RUN[4:], "--out",
                       str(tmp_path / "runs"), env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path / "runs"))
    assert rows and all(row["status"] == "ok" for row in rows), [row["reason"] for row in rows]
    assert [p.name for p in scratch.iterdir()] == [f"harness-pocl-{os.getuid()}"]


def test_a_closed_standard_output_is_refused_before_a_merge_or_plot_is_made(
    tmp_path: Path,
) -> None:
    """``harness merge ... >&-`` made the merged run folder, then exited 2 on printing
    its name, 'cannot write the standard output': a script that takes 2 for nothing
    done merged again, into a second folder. plot, export and import-rajaperf wrote
    their files the same way. Each now refuses before its work, as run and report do."""
    runs = tmp_path / "runs"
    assert harness("run", *RUN, "--out", str(runs)).returncode == 0
    run = run_folder(runs)
    other = copy_run(run, tmp_path / "copy")
    for args in (["merge", str(run), str(other), "--out", str(tmp_path / "merged")],
                 ["plot", str(run), "--out", str(tmp_path / "plots")]):  # fmt: skip
        command = [sys.executable, "-m", "harness", *args]
        proc = subprocess.run(
            ["sh", "-c", 'exec "$@" >&-', "sh", *command],
            stderr=subprocess.PIPE, text=True, env=_environment(), timeout=120,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr == (
            "harness: error: cannot write the standard output (it is closed); give the "
            "command one (a file, a pipe or the terminal)\n"
        )
        assert not any(p.is_file() for p in Path(args[-1]).rglob("*")), args


def test_a_merge_whose_standard_output_is_full_names_the_folder_it_made(tmp_path: Path) -> None:
    """``harness merge ... > /dev/full`` made the merged run folder, then exited 2,
    'cannot write the standard output', naming no folder: the merge was done, and
    one made again was a second merged folder of the same runs. As a run's end,
    it is a warning naming the folder, and the merge's status."""
    runs = tmp_path / "runs"
    assert harness("run", *RUN, "--out", str(runs)).returncode == 0
    run = run_folder(runs)
    other = copy_run(run, tmp_path / "copy")
    merged = tmp_path / "merged"
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "harness", "merge", str(run), str(other), "--out", str(merged)],
            stdout=full, stderr=subprocess.PIPE, text=True, env=_environment(), timeout=120,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(merged)
    assert proc.stderr == (
        "harness: warning: cannot write the standard output (No space left on device); "
        f"the run folder is written whole: {folder}\n"
    )


def test_wgpu_rows_with_the_cache_folder_on_a_full_disk_are_measured(tmp_path: Path) -> None:
    """With XDG_CACHE_HOME on a full disk, Mesa's shader cache (a file it maps and
    grows there) killed the worker with SIGBUS: every wgpu row was an error,
    'worker crashed: signal 7', as if its kernel had crashed. The shader cache is
    left off where the cache folder takes no file: it costs compiles, not rows."""
    need_backend("wgpu")
    with _small_disk(tmp_path, 0) as small:
        env = {"XDG_CACHE_HOME": str(small / "cache")}
        proc = harness("run", *RUN[:2], "-b", "wgpu", *RUN[4:], "--out",
                       str(tmp_path / "runs"), env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path / "runs"))
    assert rows and all(row["status"] == "ok" for row in rows), [row["reason"] for row in rows]


def test_a_run_whose_shared_memory_is_too_small_for_its_arrays_is_measured(
    tmp_path: Path,
) -> None:
    """A row's arrays are handed to the workers through a file in /dev/shm: where that
    was smaller than they (a container's 64 MiB), writing them killed ``harness run``
    itself with SIGBUS (exit 135, no word), its folder not ended. The worker now
    makes them itself, as for arrays too large to share."""
    if not shutil.which("unshare"):
        pytest.skip("no unshare here")
    out = tmp_path / "runs"
    command = [sys.executable, "-m", "harness", "run", "-k", "Stream_TRIAD", "-b", "cpu",
               "--size", "1000000", "--reps", "3", "--out", str(out)]  # fmt: skip
    # A mount namespace of its own: this /dev/shm of 1 MiB is the command's alone.
    script = 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec "$@"'
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs tmpfs /dev/shm"],
                           capture_output=True)  # fmt: skip
    if probe.returncode != 0:
        pytest.skip(f"cannot mount in a namespace of its own: {probe.stderr.decode().strip()}")
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c", script, "sh", *command],
        capture_output=True, text=True, env=_environment(), timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    assert [row["status"] for row in results.read_journal(run)] == ["ok"]
    assert results.read_metadata(run)["end"]


def test_mutants_whose_standard_output_is_full_still_writes_its_folder(tmp_path: Path) -> None:
    """``harness mutants ... > /dev/full`` checked every mutant, then exited 2 on
    printing the table, before its folder was written: the check's minutes were
    lost. The folder is written, and the warning names its summary."""
    need_backend("opencl")
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "harness", "mutants", "-k", "Stream_COPY", "-b", "opencl",
             "--precision", "f64", "--out", str(tmp_path)],
            stdout=full, stderr=subprocess.PIPE, text=True, env=_environment(), timeout=120,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (folder,) = tmp_path.iterdir()
    assert "Stream_COPY" in (folder / "mutants.csv").read_text()
    assert proc.stderr.splitlines()[-1] == (
        "harness: warning: cannot write the standard output (No space left on device); "
        f"the table is in {folder / 'summary.txt'}"
    )


def test_a_peak_whose_standard_output_is_full_is_still_kept(tmp_path: Path) -> None:
    """``harness peak > /dev/full`` measured the device (half a minute), then exited 2
    on printing its line, before the peak was stored: the measurement was lost.
    It is kept, and the warning names the store."""
    store = tmp_path / "peaks.json"
    env = {**_environment(), "HARNESS_PEAKS": str(store)}
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "harness", "peak", "-b", "cpu", "--force", "--max-time",
             "0.1", "--span", "0.1", "--fma-size", "65536", "--bandwidth-size", "65536"],
            stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=300,
        )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    assert len(json.loads(store.read_text())) == 1
    assert proc.stderr.splitlines()[-1] == (
        "harness: warning: cannot write the standard output (No space left on device); "
        f"the peaks measured are kept in {store}"
    )


def test_mutants_with_its_scratch_folder_on_a_full_disk_names_it(tmp_path: Path) -> None:
    """The mutated sources are written to a scratch folder under TMPDIR: on a full
    disk, copying a sort's headers there ended ``harness mutants`` in an OSError
    traceback, and what it had checked was not written. The kernel's problem is
    now named, and the mutants folder is written."""
    need_backend("opencl")
    with _small_disk(tmp_path, 8) as small:
        env = {"TMPDIR": str(small)}
        proc = harness("mutants", "-k", "Algorithm_SORT", "-b", "opencl", "--precision", "f64",
                       "--sample", "1", "--out", str(tmp_path / "out"), env=env)  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert (
        f"  scratch folder {small}: cannot write the kernel's sources there (No space left "
        "on device); free some space there, or point TMPDIR at a folder with room\n"
    ) in proc.stderr
    (folder,) = (tmp_path / "out").iterdir()
    assert "scratch folder" in (folder / "summary.txt").read_text()

"""Hostile probes, round 20: the run side of the command line (user kernel suites,
resumes of folders not of this run's making, the environment the harness reads) and
the commands beside it (devices, list, show, compare, cuda-compile)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, copy_run, cut_journal, harness, need_backend, one_error, run_folder

EXAMPLE = ROOT / "examples" / "my_kernels"


def _rows(run: Path) -> list[dict]:
    """The journal rows of a run folder."""
    return [json.loads(line) for line in (run / "journal.jsonl").read_text().splitlines()]


def test_a_user_kernel_without_a_source_names_the_user_s_folder(tmp_path: Path) -> None:
    """A user suite's kernel with no WGSL source was skipped naming the shipped
    ``kernels/wgsl/My_SAXPY.wgsl``, a file the user never had to write: the reason
    now names the suite's own folder, where the source was looked for."""
    need_backend("wgpu")
    suite = tmp_path / "mine"
    shutil.copytree(EXAMPLE, suite)
    (suite / "wgsl" / "My_SAXPY.wgsl").unlink()
    out = tmp_path / "out"
    proc = harness(
        "run", "--suite", str(suite / "kernels.py"), "-k", "My_SAXPY", "-b", "wgpu",
        "--size", "1000", "--reps", "3", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = _rows(run_folder(out))
    assert row["status"] == "skipped"
    assert row["reason"] == f"no source {suite}/wgsl/My_SAXPY.wgsl"


@pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None, reason="mpi4py not installed")
def test_a_run_under_one_launched_rank_does_not_hang_its_opencl_worker(tmp_path: Path) -> None:
    """Under a launcher's variables (``srun -n 1`` sets PMI_SIZE=1) the run starts
    MPI, and a PoCL worker forked after that hung until its row timed out (an error
    row after 120 s): a process that started MPI now spawns its workers."""
    need_backend("opencl")
    out = tmp_path / "out"
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "opencl", "--size", "1000", "--reps", "3",
        "--timeout", "30", "--out", str(out), env={"PMI_SIZE": "1"}, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = _rows(run_folder(out))
    assert row["status"] == "ok", row["reason"]


def _suite_with(tmp_path: Path, old: str, new: str) -> Path:
    """The example suite copied under ``tmp_path`` with ``old`` (once in its
    kernels.py) made ``new``: the copy's kernels.py."""
    suite = tmp_path / "mine"
    shutil.copytree(EXAMPLE, suite)
    path = suite / "kernels.py"
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))
    return path


def _line_of(path: Path, text: str) -> int:
    """The line of ``path`` (from 1) that holds ``text``."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize(
    ("old", "new", "raised"),
    [
        ("return [Launch(\"saxpy\", size, 256",
         "assert size > 5000, 'tiny'\n    return [Launch(\"saxpy\", size, 256",
         "AssertionError: tiny"),
        ("traffic=lambda n, b: Traffic(read=n * b, modify_write=n * b),",
         "traffic=lambda n, b: Traffic(read=n * b, modify_write=n * b) if n > 5000 else 1 // 0,",
         "ZeroDivisionError: integer division or modulo by zero"),
    ],
)  # fmt: skip
def test_a_user_description_raising_at_an_asked_size_is_one_line(
    tmp_path: Path, old: str, new: str, raised: str
) -> None:
    """A description whose plan or traffic raises at a size the run asks for (not its
    default, which loading tries) ended `harness run` in a traceback while it planned:
    it is now one line naming the file, the kernel and the line, exit 2, no folder."""
    path = _suite_with(tmp_path, old, new)
    out = tmp_path / "out"
    proc = harness(
        "run", "--suite", str(path), "-k", "My_SAXPY", "-b", "cpu", "--sizes", "1000,10000",
        "--reps", "3", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    line = _line_of(path, new.split("\n")[0].strip())
    assert one_error(proc.stderr) == f"--suite {path}: kernel My_SAXPY: line {line}: {raised}"
    assert not out.exists()


def test_a_user_count_of_nan_at_an_asked_size_names_no_size_of_none(tmp_path: Path) -> None:
    """A description whose FLOPs are NaN at the size asked for was refused as a size
    "past what a run records", with "its sizes up to None are accepted": a NaN is
    no size too large, and None no size. The line now says the row would be damage."""
    path = _suite_with(
        tmp_path, "flops=lambda n: 2 * n,", "flops=lambda n: 2 * n if n > 5000 else math.nan,"
    )
    proc = harness(
        "run", "--suite", str(path), "-k", "My_SAXPY", "-b", "cpu", "--size", "1000",
        "--reps", "3", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "My_SAXPY at size 1000: its row would hold what a run folder refuses as damage "
        "('flops_per_rep' is NaN; a whole number from 0 to 1e+18 is accepted)"
    )


def _stopped_copy(run: Path, parent: Path, **options: object) -> Path:
    """A copy of ``run`` made a run that was interrupted after its first row, with
    ``options`` set in its saved options."""
    copy = copy_run(run, parent)
    cut_journal(copy, 1)
    path = copy / "metadata.json"
    meta = json.loads(path.read_text())
    meta.update(end=None, interrupted=True)
    meta["options"].update(options)
    path.write_text(json.dumps(meta))
    return copy


@pytest.mark.parametrize(
    ("name", "value", "accepted"),
    [
        ("caches", [], "a list of one or more of hot, cold is accepted"),
        ("transfers", [], "a list of one or more of resident, per-rep, per-launch is accepted"),
        ("sources", [""], "a list of folder names is accepted"),
        ("sizes", [0], "a list of whole numbers from 1 to 1e+18 is accepted"),
    ],
)
def test_a_resume_refuses_saved_options_that_plan_nothing(
    copy_run_of_two: Path, tmp_path: Path, name: str, value: object, accepted: str
) -> None:
    """A resumed run whose saved cache or transfer modes were an empty list planned no
    row: it called the rows it had foreign, ran nothing, wrote the run as ended
    and exited 0. An empty source folder name was read as the current folder. The
    damaged option is now named, before the run is touched."""
    run = _stopped_copy(copy_run_of_two, tmp_path, **{name: value})
    before = (run / "metadata.json").read_text()
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--resume: {run / 'metadata.json'}: options.{name} is {value!r}; {accepted}"
    )
    assert (run / "metadata.json").read_text() == before


def test_compare_fails_a_row_the_new_run_sized_down(copy_run_of_two: Path, tmp_path: Path) -> None:
    """A new run whose row was sized down to fit its time budget (``sized_from``, as
    on a slower machine) never timed the base's size: the base row was "only in
    base" and the gate passed (exit 0). It is now "no longer timed", exit 1."""
    new = copy_run(copy_run_of_two, tmp_path / "new")
    journal = new / "journal.jsonl"
    rows = _rows(new)
    row = rows[0]
    row.update(sized_from=row["size"], size=row["size"] // 2, reason="sized down from 1000 to 500")
    row.update(bytes_per_rep=row["bytes_per_rep"] / 2, flops_per_rep=row["flops_per_rep"] / 2)
    row["gbytes_per_s"] = row["bytes_per_rep"] / row["time_median_s"] / 1e9
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = harness("compare", str(copy_run_of_two), str(new))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdicts = {
        tuple(line.split()[:4]): line.split("  ")[-1].strip()
        for line in proc.stdout.splitlines()
        if line.startswith(row["kernel"])
    }
    assert verdicts[(row["kernel"], "cpu:0", "f64", "1000")] == "no longer timed"
    assert verdicts[(row["kernel"], "cpu:0", "f64", "500")] == "only in new"
    assert "sized down" in proc.stdout


def test_cuda_compile_refuses_an_arch_older_than_its_compiler_builds() -> None:
    """``--arch 35`` with a compiler that builds sm_75 and newer compiled nothing for
    it: every kernel at each precision printed an error line of its own, and the
    command exited 1 as if sources were wrong. It is one line naming the arch and
    the compiler's range, exit 2, before anything compiles."""
    from harness.backends import cuda_compile

    found = cuda_compile.available()
    known = cuda_compile.supported_arches(found[0]) if found else ()
    if not known or known[0] <= 10:
        pytest.skip("no CUDA compiler here, or one that lists no architecture past sm_10")
    old = known[0] - 1
    proc = harness("cuda-compile", "--arch", "80", str(old))
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert one_error(proc.stderr) == (
        f"--arch {old}: {cuda_compile.version(found[0])} cannot compile for sm_{old}; give "
        f"architectures from {known[0]} (it builds sm_{known[0]} to sm_{known[-1]}, and newer "
        "ones as PTX), or install an older CUDA compiler for that device"
    )


@pytest.mark.parametrize(
    ("field", "said"),
    [
        ("default_size=0", "default_size 0: give a whole number, 1 or more"),
        ("default_size=2.5", "default_size 2.5: give a whole number, 1 or more"),
        ("check_sizes=(100, -1)", "check_sizes -1: give a whole number, 1 or more"),
    ],
)
def test_a_user_kernel_s_own_size_below_one_is_refused(
    tmp_path: Path, field: str, said: str
) -> None:
    """A description with ``default_size=0`` ran rows of size 0 that every reader then
    skipped as damage: the run exited 0 with an empty table. A size of 2.5 was a
    TypeError from its plan. Each is now named, at load, in one line."""
    path = _suite_with(tmp_path, '    name="My_SAXPY",\n', f'    name="My_SAXPY",\n    {field},\n')
    out = tmp_path / "out"
    proc = harness(
        "run", "--suite", str(path), "-k", "My_SAXPY", "-b", "cpu", "--reps", "3",
        "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--suite {path}: kernel My_SAXPY: {said}"
    assert not out.exists()


def test_a_resume_from_another_folder_keeps_the_run_s_relative_sources(tmp_path: Path) -> None:
    """``--sources mine`` was saved as given, relative: a resume started in another
    folder found it "no longer exists" and ran the rest of the run's rows on the
    shipped sources, beside rows of the user's. It is saved in full now."""
    need_backend("opencl")
    here = tmp_path / "here"
    (here / "mine" / "c").mkdir(parents=True)
    shutil.copy(ROOT / "kernels" / "c" / "Stream_COPY.c", here / "mine" / "c")
    command = [sys.executable, "-m", "harness", "run"]
    env = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
    proc = subprocess.run(
        [*command, "-k", "Stream_COPY", "-b", "opencl", "--size", "1000", "--reps", "3",
         "--sources", "mine", "--out", "out"],
        cwd=here, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(here / "out")
    cut_journal(run, 0)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta.update(end=None, interrupted=True)
    path.write_text(json.dumps(meta))
    proc = subprocess.run(
        [*command, "--resume", str(run)],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "no longer exists" not in proc.stderr
    (row,) = _rows(run)
    assert row["source"] == str((here / "mine" / "c" / "Stream_COPY.c").resolve())


def test_a_peaks_store_of_an_unknown_user_s_home_is_named(tmp_path: Path) -> None:
    """``HARNESS_PEAKS=~nobody_here/peaks.json`` (a user this system lacks) ended
    ``harness run`` in a RuntimeError traceback from Path.expanduser: the run now
    warns and places no row against a peak, as for any unreadable store, and
    ``harness peak`` refuses it in one line before measuring."""
    env = {"HARNESS_PEAKS": "~nobody_here_20/peaks.json"}
    said = (
        "HARNESS_PEAKS='~nobody_here_20/peaks.json': no home folder for '~nobody_here_20'; "
        "give a path without it"
    )
    out = tmp_path / "out"
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3",
        "--out", str(out), env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"warning: {said}; no row is placed against a peak\n" in proc.stderr
    assert [row["status"] for row in _rows(run_folder(out))] == ["ok"]
    proc = harness("peak", "-b", "cpu", env=env)
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == said


@pytest.mark.parametrize(
    ("param", "said"),
    [
        ('Param("size", ("1", "2"), ("1",), "mine")',
         "run option 'size': harness has an option so named; give it another name"),
        ('Param("max_time", ("1", "2"), ("1",), "mine")',
         "run option 'max_time': harness has an option so named; give it another name"),
        ('Param("strategy", ("a", "b"), ("a",), "mine")',
         "run option 'strategy': the suite has one so named, with other choices"),
        ('Param("bins", ("a", "b"), ("c",), "mine")',
         "run option bins: default 'c' is none of its choices"),
        ('Param("bins", (), (), "mine")',
         "run option bins: choices (): give a tuple of words, each once"),
    ],
)  # fmt: skip
def test_a_user_kernel_s_run_option_that_cannot_be_one_is_refused(
    tmp_path: Path, param: str, said: str
) -> None:
    """A user kernel's run option becomes ``--NAME``: one named ``size`` ended every
    command in an argparse traceback (a conflicting option); one named ``strategy``
    replaced the sorts' choices with its own, so ``--strategy fused`` was refused for
    them; a default outside its choices ran rows of a choice the option refuses, and
    no choices at all planned nothing. Each is now named at load, in one line."""
    path = _suite_with(
        tmp_path,
        '    name="My_SAXPY",\n',
        f'    name="My_SAXPY",\n    params=({param},),\n'
        "    bind=lambda values: dataclasses.replace(SAXPY, params=(), bind=None),\n",
    )
    path.write_text(
        path.read_text().replace(
            "from harness.model.spec import ",
            "import dataclasses\n\nfrom harness.model.spec import Param, ",
        )
    )
    proc = harness("list", "--suite", str(path), "-k", "My_SAXPY")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--suite {path}: kernel My_SAXPY: {said}"


@pytest.mark.parametrize("field", ["name", "driver"])
def test_a_resume_refuses_a_device_id_that_names_another_device_here(
    copy_run_of_two: Path, tmp_path: Path, field: str
) -> None:
    """A run resumed where its device id names another device (a platform added, a
    driver updated) ran its remaining rows there, under the run's id: the journal
    then held two devices' rows as one device's, with only a reader's warning. The
    resume is refused before any row, naming the id and both names."""
    run = _stopped_copy(copy_run_of_two, tmp_path)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    here = meta["devices"][0][field]
    meta["devices"][0][field] = "Another device"
    path.write_text(json.dumps(meta))
    (row,) = _rows(run)
    row["device" if field == "name" else "device_driver"] = "Another device"
    journal = json.dumps(row) + "\n"
    (run / "journal.jsonl").write_text(journal)
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--resume: the run's cpu:0 has {field} 'Another device' in its metadata, {here!r} "
        "here: its rows would be two devices' under one id; resume where the run began, "
        "or begin a new run"
    )
    assert (run / "journal.jsonl").read_text() == journal


def test_a_user_suite_listing_a_kernel_twice_is_refused(tmp_path: Path) -> None:
    """``KERNELS = (SAXPY, SAXPY)`` ran each case twice, as rows of one run: every
    reader then skipped the second as a repeated measurement, and compare failed on
    it. It is one line at load now."""
    path = _suite_with(tmp_path, "KERNELS = (SAXPY, STENCIL2D)", "KERNELS = (SAXPY, SAXPY)")
    out = tmp_path / "out"
    proc = harness(
        "run", "--suite", str(path), "-k", "My", "-b", "cpu", "--size", "1000",
        "--reps", "3", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--suite {path}: kernel My_SAXPY: KERNELS holds it twice"
    assert not out.exists()

"""Hostile probes, round 20: the tool commands (`harness mutants`, `harness peak`)
and the benchmark scripts: rows that fail, children that fail, and interrupts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import ROOT, harness, need_backend

from harness.mutation import mutants

BENCHMARKS = ROOT / "benchmarks"
#: A size no machine has the memory for: each row of it is an out-of-memory error.
HUGE = "200000000000"


def _script(
    script: str, *args: str, timeout: float = 120, fault: Path | None = None
) -> subprocess.CompletedProcess:
    """The script's run; with ``fault``, every Python it starts imports that folder's
    sitecustomize first (see `_out_of_memory`)."""
    command = [sys.executable, str(BENCHMARKS / script), *args]
    env = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
    if fault is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(fault), str(ROOT)])
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


def _out_of_memory(folder: Path, over: int = 0) -> Path:
    """A sitecustomize in ``folder`` under which every row, and every array a
    script makes, of a size past ``over`` is out of memory: the scripts refuse a
    size no memory holds before they start, so a small size is made to fail so
    instead."""
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(
        textwrap.dedent(
            f"""
            from harness.backends import base
            from harness.execution import runner

            _check, _make = runner.check_memory, runner.make_inputs

            def _no_room(spec, task, *args, **kwargs):
                if task.size > {over}:
                    raise base.DeviceOutOfMemory("out of memory (planted)")
                return _check(spec, task, *args, **kwargs)

            def _no_arrays(spec, size, *args, **kwargs):
                if size > {over}:
                    raise MemoryError("Unable to allocate (planted)")
                return _make(spec, size, *args, **kwargs)

            runner.check_memory = _no_room
            runner.make_inputs = _no_arrays
            """
        )
    )
    return folder


def _left_out(stderr: str) -> list[str]:
    """The script's lines naming rows it left out; nothing else on stderr but them."""
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert all(line.startswith("left out: ") for line in lines), stderr
    return lines


def test_queue_hold_names_rows_that_failed_and_exits_1() -> None:
    """A row that errored (its arrays fit no memory) ended queue_hold.py in a
    ValueError traceback on its empty time."""
    proc = _script("queue_hold.py", "-b", "cpu", "-k", "Stream_TRIAD", "--size", HUGE,
                   "--launches", "1")  # fmt: skip
    assert proc.returncode == 1
    (line,) = _left_out(proc.stderr)
    assert line.startswith(f"left out: Stream_TRIAD n={HUGE} on cpu:0: error: out of memory")


def test_queue_hold_gives_each_kernel_of_a_group_its_own_row() -> None:
    """-k Stream (a group, as harness run takes it) put the medians of all five
    Stream kernels into one row per device, labelled as if it were one kernel."""
    proc = _script("queue_hold.py", "-b", "cpu", "-k", "Stream", "--size", "1000",
                   "--launches", "1")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [line.split()[:2] for line in proc.stdout.splitlines() if "cpu:0" in line]
    kernels = ["Stream_ADD", "Stream_COPY", "Stream_DOT", "Stream_MUL", "Stream_TRIAD"]
    assert rows == [[k, "cpu:0"] for k in kernels]


def test_cache_cold_hot_prints_the_rows_that_finished_and_names_the_others(
    tmp_path: Path,
) -> None:
    """A budget whose rows errored (out of memory, planted past the first budget's
    size) ended cache_cold_hot.py in a ValueError traceback, the placement that was
    measured lost with it."""
    proc = _script("cache_cold_hot.py", "-b", "cpu", "--caches", "0.001", "1",
                   "--launches", "1", "--max-time", "0.1",
                   fault=_out_of_memory(tmp_path / "fault", over=20_000))  # fmt: skip
    assert proc.returncode == 1
    lines = _left_out(proc.stderr)
    assert [line.split(":")[1].split(" n=")[0] for line in lines] == [
        " Stream_TRIAD",
        " Stream_TRIAD[cold]",
    ]
    placed = [line.split()[0] for line in proc.stdout.splitlines() if " x cache " in line]
    assert placed == ["0.001"]


def test_stream_vs_babelstream_names_failed_rows_instead_of_a_traceback(tmp_path: Path) -> None:
    """Rows of the harness that errored ended stream_vs_babelstream.py in a
    ValueError (or KeyError) traceback after BabelStream's launches."""
    fake = tmp_path / "babelstream"
    lines = "".join(f"echo '{k} 1000.0 0.001 0.003 0.002'\n" for k in ("Copy", "Mul", "Add",
                                                                     "Triad", "Dot"))  # fmt: skip
    fake.write_text("#!/bin/sh\necho 'Function MBytes/sec Min Max Average'\n" + lines)
    fake.chmod(0o755)
    proc = _script("stream_vs_babelstream.py", "--babelstream", str(fake), "--device", "cpu:0",
                   "--size", "1000", "--reps", "3", "--launches", "1",
                   fault=_out_of_memory(tmp_path / "fault"))  # fmt: skip
    assert proc.returncode == 1
    named = [line.split(" n=")[0] for line in _left_out(proc.stderr)]
    assert named == [f"left out: Stream_{k}" for k in ("COPY", "MUL", "ADD", "TRIAD", "DOT")]


def test_dispatch_chain_with_failed_rows_ends_in_their_lines() -> None:
    """Rows that errored ended dispatch_chain.py (and revision_ab.py, which take no
    failed rows) in a RuntimeError traceback around the harness's last output."""
    proc = _script("dispatch_chain.py", "-b", "cpu", "--size", HUGE, "--launches", "1")
    assert proc.returncode == 1
    named = [line.split(" n=")[0] for line in _left_out(proc.stderr)]
    assert named == [f"left out: Chain_{n}" for n in (1, 2, 4, 8, 16)]


def test_a_failing_launch_of_cpu_triad_vs_numpy_is_one_line(tmp_path: Path) -> None:
    """A launch that failed (out of memory) ended cpu_triad_vs_numpy.py in a
    CalledProcessError traceback."""
    proc = _script("cpu_triad_vs_numpy.py", "--size", "1000", "--launches", "1", "--reps", "1",
                   fault=_out_of_memory(tmp_path / "fault"))  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr == "launch 1 exited 1: MemoryError: Unable to allocate (planted)\n"
    assert proc.stderr.count("\n") == 1, proc.stderr


def test_a_signal_as_a_harness_run_starts_stops_it_with_the_script(tmp_path: Path) -> None:
    """A SIGTERM that came as Popen returned, before the script knew its child,
    ended the script with 130 and left the harness run going, unsignalled, into
    a scratch folder already removed. Now the run is passed the signal and the
    script waits for it to stop."""
    pids = tmp_path / "pids"
    code = textwrap.dedent(
        f"""
        import os, signal, subprocess, sys
        sys.path.insert(0, {str(BENCHMARKS)!r})
        import common

        class Late(subprocess.Popen):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                with open({str(pids)!r}, "w") as f:
                    f.write(str(self.pid))
                os.kill(os.getpid(), signal.SIGTERM)

        common.subprocess.Popen = Late
        common.run_main(lambda: common.harness_rows(
            "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3",
            "--max-time", "60", "--min-time", "30"))
        """
    )
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "interrupted: stopped before its results were printed\n"
    child = int(pids.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)
    assert time.monotonic() - start < 25


def test_launch_breakdown_refuses_a_size_no_memory_holds_before_measuring() -> None:
    """--size 10^11 ended launch_breakdown.py in numpy's MemoryError traceback."""
    proc = _script("launch_breakdown.py", "-k", "Stream_COPY", "-b", "cpu", "--size", HUGE)
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith(
        f"launch_breakdown.py: error: --size {HUGE}: Stream_COPY's arrays would take "
        f"{int(HUGE) * 16} bytes, more than cpu:0 "
    )
    assert "has room for; give at most " in line


@pytest.mark.parametrize(
    ("script", "args"),
    [
        ("queue_hold.py", ["-b", "cpu", "-b", "opencl"]),
        ("sort_vs_numpy.py", ["--size", "1024", "--size", "2048"]),
        ("cache_cold_hot.py", ["-k", "Stream_COPY", "-k", "Stream_TRIAD"]),
    ],
)
def test_benchmark_scripts_refuse_an_option_given_twice(script: str, args: list[str]) -> None:
    """An option given twice kept its second value alone: ``queue_hold.py -b cpu
    -b opencl`` timed opencl and said nothing of cpu, where harness run refuses it."""
    proc = _script(script, *args, "--launches", "1")
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"{script}: error: argument {args[0]}") and "given twice (" in line


#: A user suite of two kernels: one that doubles ``y``, and one that leaves it as it
#: is, whose source holds no token to mutate.
SUITE = """
import numpy as np

from harness.model.spec import EXACT, Array, KernelSpec, Launch, Scalar, Traffic


def _spec(name, entry, factor):
    return KernelSpec(
        name=name,
        group="Mine",
        summary=name,
        arrays=(Array("y", "real", lambda n: n, "inout"),),
        scalars=(Scalar("n", "u32"),),
        plan=lambda size: [Launch(entry, size, 64, ("y", "n"), {"n": size})],
        init=lambda size, seed, precision: {"y": np.arange(size, dtype=np.float64)},
        reference=lambda x: {"y": np.float64(x["y"]) * factor},
        cpu={entry: lambda grid, y, n: y.__imul__(factor)},
        traffic=lambda n, b: Traffic(read=n * b, write=n * b),
        flops=lambda n: n,
        tolerance=EXACT,
    )


KERNELS = (_spec("Mine_TWICE", "twice", 2.0), _spec("Mine_KEEP", "keep", 1.0))
"""
SOURCES = {
    "Mine_TWICE.c": "KERNEL void twice(GLOBAL REAL* y, const uint n)\n"
    "{\n    FOR_EACH(i, n) {\n        y[i] = 2 * y[i];\n    }\n}\n",
    "Mine_KEEP.c": "KERNEL void keep(GLOBAL REAL* y, const uint n)\n{\n}\n",
}


def test_mutants_names_a_chosen_kernel_with_no_mutant_beside_others(tmp_path: Path) -> None:
    """-k Mine chose a kernel whose source holds no mutant beside one that does:
    it was left out of the table unsaid, and --fail-under passed as if it had
    been checked (a kernel without a source was named; this one was not)."""
    need_backend("opencl")
    (tmp_path / "c").mkdir()
    (tmp_path / "kernels.py").write_text(SUITE)
    for name, text in SOURCES.items():
        (tmp_path / "c" / name).write_text(text)
    proc = harness(
        "mutants", "--suite", str(tmp_path / "kernels.py"), "-k", "Mine", "-b", "opencl",
        "--precision", "f64", "--sample", "1", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        "note: Mine_KEEP has no mutant in its opencl source: nothing of it is checked on opencl:0"
    )
    assert "Mine_KEEP" not in proc.stdout and "Mine_TWICE" in proc.stdout


def test_an_equivalents_file_that_is_not_utf8_is_named_with_its_line(tmp_path: Path) -> None:
    """A byte that is no UTF-8 in the reviewed equivalents ended harness mutants in
    the decoder's message alone ('utf-8' codec can't decode byte 0xff in position
    31), naming neither the file nor the line."""
    path = tmp_path / "eq.txt"
    path.write_bytes(b"A.cl: x = 1;\n  -> x = 2;\n  why: \xff unused\n")
    with pytest.raises(ValueError, match=r"^eq.txt:3: not UTF-8 text \(invalid start byte\)$"):
        mutants.read_equivalents(path)


@pytest.mark.parametrize(
    ("tool", "error"),
    [
        ("false", "false exited 1"),
        ("true", "--rajaperf 'true': it wrote no RAJAPerf-kernel-run-data.csv (No such file"),
    ],
)
def test_rajaperf_compare_names_a_failing_or_foreign_command_in_one_line(
    tool: str, error: str
) -> None:
    """A raja-perf.exe that failed ended rajaperf_compare.py in a
    CalledProcessError, and a command that wrote no RAJAPerf output in a
    FileNotFoundError, each after the harness's rows were measured."""
    proc = _script("rajaperf_compare.py", "--rajaperf", tool, "--device", "cpu:0",
                   "--launches", "1", "-k", "Stream_COPY")  # fmt: skip
    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert line.startswith(error), line


#: A checkout's harness as host_cost.py runs it, reduced to what it is asked: each
#: command line is logged, and a run writes one row of host cost.
FAKE_HARNESS = """
import pathlib, sys

args = sys.argv[1:]
with open(pathlib.Path(__file__).parent / "ran.log", "a") as log:
    log.write(" ".join(args) + "\\n")
run = pathlib.Path(args[args.index("--out") + 1]) / "run-1"
run.mkdir(parents=True, exist_ok=True)
(run / "results.csv").write_text(
    "kernel,size,device_id,status,host_s,timed_wall_s\\nStream_COPY,1000,cpu:0,ok,0.5,0.1\\n"
)
"""


def test_host_cost_profiles_the_rows_of_tree_in_that_tree_s_harness(tmp_path: Path) -> None:
    """--tree ran the rows in that checkout's harness, then profiled the worst of
    them in this one's, under the other's name."""
    package = tmp_path / "tree" / "harness"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(FAKE_HARNESS)
    proc = _script("host_cost.py", "--tree", str(tmp_path / "tree"), "--worst", "1",
                   "--profile", "1", "--", "-b", "cpu")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    ran = (package / "ran.log").read_text().splitlines()
    assert [line.split()[0] for line in ran] == ["run", "run"]
    assert "-k Stream_COPY --size 1000 --in-process" in ran[1]


def test_a_sample_of_every_mutant_is_not_said_to_narrow_the_run(tmp_path: Path) -> None:
    """--sample 5 of Stream_COPY's one mutant checked it, yet the table and
    summary.txt said 'narrowed by: --sample 5 --seed 1', a score of a sample."""
    need_backend("opencl")
    proc = harness(
        "mutants", "-k", "Stream_COPY", "-b", "opencl", "--precision", "f64", "--sample", "5",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Stream_COPY on opencl:0: 1 mutants\n" in proc.stderr
    assert "narrowed by" not in proc.stdout
    (folder,) = tmp_path.iterdir()
    assert "narrowed by" not in (folder / "summary.txt").read_text()


@pytest.mark.parametrize(
    ("script", "tool"),
    [("stream_vs_babelstream.py", "--babelstream"), ("rajaperf_compare.py", "--rajaperf")],
)
def test_scripts_of_one_device_refuse_a_device_word_of_several(script: str, tool: str) -> None:
    """--device all ran every device, and the table set one median per kernel beside
    the other tool's, of the last device's rows (stream_vs_babelstream) or of every
    device's together (rajaperf_compare), naming no device."""
    proc = _script(script, tool, "true", "--device", "all", "--launches", "1")
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"{script}: error: --device 'all': "), line


def _worktrees() -> set[str]:
    """The worktrees of this repository, by path."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "list", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line.split(" ", 1)[1] for line in listed.splitlines() if line.startswith("worktree ")}


def test_revision_ab_interrupted_as_it_makes_its_worktrees_leaves_none(tmp_path: Path) -> None:
    """A SIGTERM as the second worktree was made ended revision_ab.py with the first
    left in the repository (and the second's git going on unsignalled): they were
    made before the block whose end removes them."""
    code = textwrap.dedent(
        f"""
        import os, signal, subprocess, sys
        sys.path.insert(0, {str(BENCHMARKS)!r})
        import common

        class Late(subprocess.Popen):
            def __init__(self, args, *rest, **kwargs):
                super().__init__(args, *rest, **kwargs)
                if "add" in args and any("harness-this-" in str(a) for a in args):
                    os.kill(os.getpid(), signal.SIGTERM)

        common.subprocess.Popen = Late
        sys.argv = ["revision_ab.py", "--base", "HEAD", "--this", "HEAD", "--launches", "1"]
        import revision_ab
        common.run_main(revision_ab.main)
        """
    )
    before = _worktrees()
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
        )
        time.sleep(1)
        left = _worktrees() - before
        assert proc.returncode == 130, proc.stderr
        assert "Traceback" not in proc.stderr
        assert not left
        assert not list(tmp_path.glob("harness-*"))
    finally:
        for tree in _worktrees() - before:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", tree])

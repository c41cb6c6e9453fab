"""Hostile probes, round 19: the benchmark scripts' arguments (each refuses a bad
value in one line with exit 2, before it measures anything) and what their
tables set side by side."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, harness, need_backend

from harness.backends import get as get_backend
from harness.backends.base import BackendUnavailable


def _script(script: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "benchmarks" / script), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def _cuda_here() -> bool:
    """Whether the CUDA backend lists devices on this machine."""
    try:
        return bool(get_backend("cuda").devices())
    except BackendUnavailable:
        return False


def _refused(script: str, *args: str) -> str:
    """A benchmark script's one-line refusal (exit 2, nothing on stdout): its line."""
    proc = _script(script, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and proc.stdout == "", proc.stderr
    return proc.stderr


@pytest.mark.parametrize(
    ("script", "args", "error"),
    [
        ("cache_cold_hot.py", ["--launches", "0"], "argument --launches: '0' must be a positive"),
        ("cache_cold_hot.py", ["--caches", "nan"], "argument --caches: 'nan' is out of range"),
        ("cache_cold_hot.py", ["--flushes", "-1"], "argument --flushes: '-1' is out of range"),
        ("cpu_triad_vs_numpy.py", ["--reps", "0"], "argument --reps: '0' must be a positive"),
        ("cpu_triad_vs_numpy.py", ["--size", "-5"], "argument --size: '-5' must be a positive"),
        ("dispatch_chain.py", ["--launches", "0"], "argument --launches: '0' must be a positive"),
        ("fma_checks.py", ["--size", "0"], "argument --size: '0' must be a positive"),
        ("fma_checks.py", ["--size", "1000"], "--size 1000: too small to measure at; give at"),
        ("fma_checks.py", ["--max-time", "nan"], "argument --max-time: 'nan' is out of range"),
        ("fma_checks.py", ["--rounds", "0"], "argument --rounds: '0' must be a positive"),
        ("host_cost.py", ["--worst", "-1"], "argument --worst: '-1' is out of range"),
        ("launch_breakdown.py", ["-k", "Stream_COPY", "--size", "1000", "--reps", "0"],
         "argument --reps: '0' must be a positive"),
        ("opencl_stream_floor.py", ["--launches", "0"], "argument --launches: '0' must be a"),
        ("opencl_stream_floor.py", ["--size", "0"], "argument --size: '0' must be a positive"),
        ("peak_vs_babelstream.py", ["--babelstream", "true", "--launches", "0"],
         "argument --launches: '0' must be a positive"),
        ("queue_hold.py", ["--launches", "0"], "argument --launches: '0' must be a positive"),
        ("rajaperf_compare.py", ["--rajaperf", "true", "--launches", "0"],
         "argument --launches: '0' must be a positive"),
        ("revision_ab.py", ["--base", "HEAD", "--launches", "0"],
         "argument --launches: '0' must be a positive"),
        ("stream_vs_babelstream.py", ["--babelstream", "true", "--launches", "0"],
         "argument --launches: '0' must be a positive"),
        ("wgpu_triad.py", ["--reps", "2049"], "argument --reps: '2049' is out of range: give 1"),
        ("wgpu_triad.py", ["--size", "0"], "argument --size: '0' must be a positive"),
        ("wgsl_checks.py", ["-k", "Stream_COPY", "--launches", "0"],
         "argument --launches: '0' must be a positive"),
        ("worker_overhead.py", ["--launches", "0"], "argument --launches: '0' must be a positive"),
    ],
)  # fmt: skip
def test_benchmark_scripts_refuse_counts_and_times_of_nothing_in_one_line(
    script: str, args: list[str], error: str
) -> None:
    """No launches, repetitions or rounds, a size of 0 and a NaN time were taken:
    most scripts then ended in a traceback (no median of no times, a buffer of 0
    bytes, a division by zero), some after minutes of work, others printed a table
    of nothing with exit 0; dispatch_chain's and fma_checks' refusals came with
    argparse's usage lines."""
    assert _refused(script, *args).startswith(f"{script}: error: {error}")


def test_a_script_without_options_refuses_arguments_and_times_nothing() -> None:
    """atomic_first_read.py ignored its arguments: --help (or a mistyped option)
    started the timing it would run anyway."""
    need_backend("opencl")
    proc = _script("atomic_first_read.py", "--help")
    assert proc.returncode == 0 and proc.stdout.startswith("usage: atomic_first_read.py")
    assert "plain read" not in proc.stdout
    line = _refused("atomic_first_read.py", "--bogus")
    assert line.startswith("atomic_first_read.py: error: unrecognized arguments: --bogus")


@pytest.mark.parametrize(
    ("script", "args", "error"),
    [
        ("cache_cold_hot.py", ["-b", "cuda"], "--device 'cuda:0': backend cuda is unavailable"),
        ("launch_breakdown.py", ["-k", "Stream_COPY", "--size", "9", "-b", "cuda"],
         "-b 'cuda': backend cuda is unavailable"),
        ("launch_breakdown.py", ["-k", "Stream_COPY", "--size", "9", "-b", "bogus"],
         "-b 'bogus': no such device: unknown backend 'bogus'"),
        ("launch_breakdown.py", ["-k", "Bogus", "--size", "9"], "-k 'Bogus': no such kernel"),
        ("launch_breakdown.py", ["-k", "Stream_COPY", "--size", "9", "--param", "bogus"],
         "--param 'bogus': Stream_COPY takes no run options"),
        ("launch_breakdown.py", ["-k", "Bitonic_U32", "--size", "9", "--param", "strategy=x"],
         "--param 'strategy=x': Bitonic_U32 takes strategy: global, local,"),
        ("opencl_stream_floor.py", ["-k", "Bogus"], "no kernel matches 'Bogus'"),
        ("rajaperf_compare.py", ["--rajaperf", "true", "-k", "Bogus"], "no kernel matches"),
        ("rajaperf_compare.py", ["--rajaperf", "true", "-k", "Bitonic"],
         "-k Bitonic: no RAJAPerf kernel selected"),
    ],
)  # fmt: skip
def test_benchmark_scripts_refuse_a_device_kernel_or_option_of_none_in_one_line(
    script: str, args: list[str], error: str
) -> None:
    """An unavailable backend, an unknown backend or kernel and a run option the
    kernel lacks ended these scripts in a traceback (BackendUnavailable, KeyError,
    ValueError, a SelectionError), or were ignored (``--param bogus``);
    opencl_stream_floor refused an unknown kernel only after its bare timings."""
    if "cuda" in args and _cuda_here():
        pytest.skip("CUDA is available here")
    assert _refused(script, *args).startswith(f"{script}: error: {error}")


@pytest.mark.parametrize(
    ("script", "args", "error"),
    [
        ("rajaperf_compare.py", ["--rajaperf", "/nonexistent/raja-perf.exe"],
         "argument --rajaperf: '/nonexistent/raja-perf.exe' is no program"),
        ("stream_vs_babelstream.py", ["--babelstream", "no-such-stream --x"],
         "argument --babelstream: 'no-such-stream' is no program"),
        ("peak_vs_babelstream.py", ["--babelstream", "'unclosed"],
         "argument --babelstream: \"'unclosed\" is not a command line"),
        ("revision_ab.py", ["--base", "no-such-revision"],
         "--base 'no-such-revision': no such commit in this repository"),
        ("revision_ab.py", ["--base", "HEAD", "--this", "HEAD~999999"],
         "--this 'HEAD~999999': no such commit"),
    ],
)  # fmt: skip
def test_benchmark_scripts_refuse_a_missing_tool_or_revision_before_measuring(
    script: str, args: list[str], error: str
) -> None:
    """A reference tool that is not there was found only when it was first run,
    after the harness's rows of a launch (a FileNotFoundError); an unknown git
    revision failed at its worktree, in a CalledProcessError."""
    assert _refused(script, *args, "--launches", "1").startswith(f"{script}: error: {error}")


@pytest.mark.parametrize(
    ("script", "args", "error"),
    [
        ("host_cost.py", ["--tree", "/nonexistent"], "--tree '/nonexistent': not a checkout"),
        ("host_cost.py", ["--tree", "{tmp}"], "--tree '{tmp}': not a checkout of the harness"),
        ("wgsl_checks.py", ["-k", "Stream_COPY", "--device", "cpu:0"],
         "--device 'cpu:0': give a wgpu device, such as wgpu:0"),
        ("sort_vs_numpy.py", ["-k", "Stream_COPY", "-b", "cpu"],
         "-k 'Stream_COPY': give a bitonic sort (Bitonic_U32,"),
        ("gpu_reference.py", ["--out", "{tmp}/file", "--device", "cpu:0"],
         "--out '{tmp}/file': cannot make {tmp}/file/runs there (Not a directory)"),
    ],
)  # fmt: skip
def test_benchmark_scripts_refuse_a_place_or_choice_they_cannot_use_in_one_line(
    tmp_path: Path, script: str, args: list[str], error: str
) -> None:
    """host_cost's --tree of a missing folder ended in a traceback, and of a folder
    without the harness ran the installed one as that checkout's; wgsl_checks on
    another backend's device printed a table of nothing; sort_vs_numpy on a kernel
    other than a sort ended in a KeyError after its first run; gpu_reference's
    --out on a file, in a NotADirectoryError."""
    (tmp_path / "file").write_text("")
    line = _refused(script, *(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert line.startswith(f"{script}: error: {error.replace('{tmp}', str(tmp_path))}")


def test_rajaperf_compare_prints_its_table(tmp_path: Path) -> None:
    """Every timed row ended the script in a TypeError: it called label() with the
    run options as a second argument, which label() does not take."""
    fake = tmp_path / "raja-perf.exe"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import sys, pathlib\n"
        "out = pathlib.Path(sys.argv[sys.argv.index('--outdir') + 1])\n"
        "(out / 'RAJAPerf-kernel-run-data.csv').write_text(\n"
        "    'Kernel,Variant,Tuning,Mean time per rep (sec.)\\n'\n"
        "    'Stream_COPY,Base_Seq,default,0.002\\n'\n"
        "    'Stream_COPY,Base_OpenMP,default,0.001\\n'\n"
        ")\n"
    )
    fake.chmod(0o755)
    proc = _script(
        "rajaperf_compare.py", "--rajaperf", str(fake), "--device", "cpu:0", "--launches", "1",
        "-k", "Stream_COPY",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = [line for line in proc.stdout.splitlines() if line.startswith("Stream_COPY")]
    assert "2.000ms" in row and "1.000ms" in row


def test_opencl_stream_floor_times_its_bare_kernels_on_the_harness_s_device() -> None:
    """The bare kernels ran on the first OpenCL platform's first device, which was
    the Oclgrind simulator where one was installed (it lists its platform first),
    while the harness's rows set beside them ran on opencl:0."""
    need_backend("opencl")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import opencl_stream_floor as s; "
        "from harness.backends import get; "
        "print(s.first_device().name.strip()); print(get('opencl').devices()[0].name)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "benchmarks")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    bare, harness_device = proc.stdout.splitlines()
    assert bare == harness_device and "Oclgrind" not in bare


@pytest.mark.parametrize("given", [["auto", "chunk"], ["item", "auto"]])
def test_run_refuses_auto_among_partitions_it_sweeps(tmp_path: Path, given: list[str]) -> None:
    """--partition auto chunk ran the chunk row alone: auto, each device's own
    choice, was dropped from the sweep without a word."""
    out = tmp_path / "out"
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--size", "1000", "--reps", "3",
        "--partition", *given, "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 2 and not out.exists()
    assert proc.stderr.splitlines() == [
        f"harness: error: --partition {' '.join(given)}: auto is each device's own choice "
        "(the faster of item and chunk on a CPU, item elsewhere), not a row beside others; "
        "give auto alone, or the partitions to sweep (item, stride, chunk)"
    ]


@pytest.mark.parametrize("budget", ["2^70", "2^52"])
def test_run_refuses_a_memory_budget_past_every_size(tmp_path: Path, budget: str) -> None:
    """--memory-allocated 2^70 (for 2^27, say) ran Stream_COPY at its own size,
    16 MB, with a note that its bytes 'stop growing', which they do not."""
    out = tmp_path / "out"
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cpu", "--reps", "3", "--memory-allocated", budget,
        "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 2 and not out.exists()
    (line,) = proc.stderr.splitlines()
    assert line == (
        f"harness: error: --memory-allocated {2 ** int(budget[2:])}: at or past the bytes of "
        f"every size of Stream_COPY ({2**52} at the largest); give a budget below that"
    )


def test_a_kernel_whose_bytes_stop_growing_still_runs_at_its_own_size(tmp_path: Path) -> None:
    """A budget no size of a kernel of fixed bytes reaches is no mistake: it runs at
    its own size, as before."""
    proc = harness(
        "run", "-k", "Basic_PI_ATOMIC", "-b", "cpu", "--reps", "3", "--memory-allocated",
        "1GiB", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "no size takes --memory-allocated 1073741824 bytes (its bytes stop growing)" in (
        proc.stderr
    )


def test_gpu_reference_passes_an_interrupt_on_to_its_steps(tmp_path: Path) -> None:
    """SIGTERM (or Ctrl-C) ended gpu_reference.py at once, with 143 or a traceback,
    while the step it was running went on without it: each step runs in a session
    of its own, which the signal never reached, so a harness run kept the GPU to
    the end of its rows. Now the running steps finish their row and keep their rows
    (their run folders say interrupted), no step starts after, and it exits 130."""
    out = tmp_path / "ref"
    skip = ["peak", "suite", "stream", "chain", "sort", "sweep", "cache", "transfers"]
    command = [
        sys.executable, str(ROOT / "benchmarks" / "gpu_reference.py"), "--out", str(out),
        "--device", "cpu:0", "--skip", *skip, "two_ranks",
    ]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    checks = out / "runs" / "check"
    deadline = time.monotonic() + 120
    while not any(j.stat().st_size for j in checks.glob("*/journal.jsonl")):
        assert time.monotonic() < deadline and proc.poll() is None, "no check row began"
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupt: the running steps finish their row; no step starts" in stderr
    runs = list(checks.glob("run-*"))
    assert runs
    for run in runs:
        meta = json.loads((run / "metadata.json").read_text())
        assert meta["interrupted"] is True and meta["end"], run


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_benchmark_script_interrupted_mid_run_exits_130_in_one_line(signum: int) -> None:
    """Ctrl-C ended every benchmark script in a KeyboardInterrupt traceback (and
    killed the harness run it was in); SIGTERM ended the script alone, leaving its
    harness run going. Now a harness run finishes its row and the script exits
    130 in one line."""
    command = [sys.executable, str(ROOT / "benchmarks" / "dispatch_chain.py"), "-b", "cpu"]
    proc = subprocess.Popen(
        [*command, "--launches", "50", "--max-time", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # A terminal's Ctrl-C reaches a process group whose SIGINT is not ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "launch 1 of 50 done\n"
    if signum == signal.SIGINT:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert stderr == "interrupted: stopped before its results were printed\n"


@pytest.mark.parametrize(
    ("script", "tool", "error"),
    [
        ("stream_vs_babelstream.py", "false", "--babelstream 'false' exited 1: no message"),
        ("stream_vs_babelstream.py", "true",
         "--babelstream 'true': its output has no figures for Copy, Mul, Add, Triad, Dot, as "
         "BabelStream prints them (Function MBytes/sec Min Max Average)"),
    ],
)  # fmt: skip
def test_a_failing_or_foreign_babelstream_is_named_in_one_line(
    script: str, tool: str, error: str
) -> None:
    """A BabelStream command that failed ended the script in a CalledProcessError,
    and one whose output held no figures in a StatisticsError (no median of none)."""
    proc = _script(
        script, "--babelstream", tool, "--device", "cpu:0", "--size", "1000", "--reps", "2",
        "--launches", "1",
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [error]


def test_peak_vs_babelstream_passes_on_harness_peak_s_refusal() -> None:
    """harness peak's refusal (exit 2) ended the script in a CalledProcessError."""
    line = _refused("peak_vs_babelstream.py", "--babelstream", "true", "--device", "bogus:0")
    assert line.startswith(
        "peak_vs_babelstream.py: error: argument --device: 'bogus:0': no such device: "
        "unknown backend 'bogus'"
    )

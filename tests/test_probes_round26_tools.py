"""Round 26 probes of the commands mutants, peak, cuda-compile, devices and list,
and of the benchmark scripts: each test says what was wrong before."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, harness, need_backend, one_error

ENV = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}


def _script(script: str, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "benchmarks" / script), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=ENV)


@pytest.mark.parametrize(
    ("script", "args", "device", "need"),
    [
        ("cpu_triad_vs_numpy.py", ["--launches", "1", "--reps", "1"], "cpu:0", 3 * 8 * 2**40),
        ("stream_vs_babelstream.py", ["--babelstream", "true", "--device", "cpu:0"], "cpu:0",
         3 * 8 * 2**40),
        # The peers' np.sort runs on the host, after every harness launch.
        ("sort_vs_numpy.py", ["-b", "cpu", "--launches", "1"], "cpu:0", 4 * 2**40),
        ("fma_checks.py", ["--rounds", "1"], "wgpu:0", 16 * 2**40),
    ],
)  # fmt: skip
def test_a_size_no_memory_holds_is_refused_before_any_launch(
    script: str, args: list[str], device: str, need: int
) -> None:
    """``--size 2^40`` started the launches, each allocating until it failed, or
    ran rows that were each out of memory (an empty table): it is now refused up
    front, in one line naming the size and the largest that fits, exit 2."""
    need_backend(device.partition(":")[0])
    proc = _script(script, *args, "--size", str(2**40))
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith(
        f"{script}: error: --size {2**40}: the arrays would take {need} bytes, more than {device} ("
    ), line
    assert " has room for; give at most " in line and line.endswith(" (see --help)")


class _GoneAfterTable:
    """A standard output on a pipe whose reader goes away once a flush has passed it
    the mutants table: a later flush is a broken pipe, until the descriptor is sent
    to /dev/null."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        self.text = ""
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        return len(text)

    def flush(self) -> None:
        pending, self._pending = self._pending, ""
        self.text += pending
        os.write(self._write, pending.encode())
        if "TOTAL" in self.text and self._read >= 0:
            os.close(self._read)
            self._read = -1

    def fileno(self) -> int:
        return self._write

    def isatty(self) -> bool:
        return False

    def close(self) -> None:
        for fd in (self._read, self._write):
            if fd >= 0:
                os.close(fd)


def test_mutants_whose_reader_leaves_after_the_table_keeps_its_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader that went away once it had the table (``| head``) turned the
    verdict into 141: the folder's line, printed unflushed after the table, failed
    at the exit's flush. It is now flushed and caught as the table is."""
    need_backend("opencl")
    from harness import cli

    fake = _GoneAfterTable()
    monkeypatch.setattr(sys, "stdout", fake)
    try:
        status = cli.main(
            [
                "mutants",
                "-k",
                "Stream_TRIAD",
                "-b",
                "opencl",
                "--sample",
                "1",
                "--precision",
                "f64",
                "--out",
                str(tmp_path),
            ]
        )
    finally:
        fake.close()
    assert status == 0
    assert "TOTAL" in fake.text
    (folder,) = tmp_path.iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["mutants.csv", "summary.txt"]


@pytest.mark.parametrize(
    ("args", "note"),
    [
        (["-b", "opencl", "--seed", "5"],
         "note: --seed 5 picks the mutants of --sample; without --sample every mutant is "
         "checked, so it changes nothing"),
        (["-b", "wgpu", "--sample", "1", "--no-simulator"],
         "note: --no-simulator spares an OpenCL device's survivors the simulator's check; "
         "no chosen device (wgpu:0) is one, so it changes nothing"),
        (["-b", "opencl", "opencl", "--sample", "1", "--precision", "f64", "f64"],
         "note: --backends opencl given more than once; each value runs once\n"
         "note: --precision f64 given more than once; each value runs once"),
    ],
)  # fmt: skip
def test_mutants_says_which_options_change_nothing(
    tmp_path: Path, args: list[str], note: str
) -> None:
    """``--seed`` without ``--sample``, ``--no-simulator`` with no OpenCL device to
    spare, and a value given twice were taken unsaid, where ``harness run`` names
    a repeat: each is now noted before the mutants run."""
    for backend in dict.fromkeys(
        args[1 : args.index("--seed" if "--seed" in args else "--sample")]
    ):
        need_backend(backend)
    proc = harness("mutants", "-k", "Stream_TRIAD", "--precision", "f64", *args,
                   "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(note + "\nStream_TRIAD on "), proc.stderr


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("null", "holds a JSON null, not the object of peaks harness peak writes"),
        ('"x"', "holds a JSON string, not the object of peaks harness peak writes"),
        ("{KEY: {\"copy_gbytes_per_s\": NaN}}", "KEY holds damaged peaks (its "
         "copy_gbytes_per_s is NaN; figures should be positive numbers, FMA rates an object "
         "of them by precision, notes and warnings lists)"),
        ("{KEY: {\"notes\": \"slow\"}}", "KEY holds damaged peaks (its notes is \"slow\", not "
         "a list; figures should be positive numbers, FMA rates an object of them by "
         "precision, notes and warnings lists)"),
    ],
    ids=["null", "string", "nan", "notes"],
)  # fmt: skip
def test_a_damaged_peaks_store_names_what_is_damaged(tmp_path: Path, text: str, said: str) -> None:
    """A store of ``null`` was said to hold 'a JSON NoneType', and a device's entry
    with one damaged figure 'damaged peaks' without naming which of its fields: the
    JSON's own name, and the field with its value, are now said."""
    from harness.backends import get as get_backend
    from harness.execution import peaks

    key = json.dumps(peaks.device_key(get_backend("cpu").default_devices()[0].as_dict()))
    store = tmp_path / "peaks.json"
    store.write_text(text.replace("KEY", key))
    before = store.read_bytes()
    proc = harness("peak", "-b", "cpu", env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"peaks store {store}: {said.replace('KEY', repr(json.loads(key)))}; it is left as it "
        "is: repair or remove it, or point HARNESS_PEAKS at another file"
    )
    assert store.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--device", "nope:7"], "argument --device: 'nope:7': no such device: unknown "
         "backend 'nope'; choose from cpu, opencl, wgpu, cuda"),
        (["--device", "cpu:7"], "argument --device: 'cpu:7': no such device; cpu has cpu:0"),
        (["--device", "cpu:0", "--sweep", "Nope"], "--sweep Nope: no kernel matches 'Nope'"),
        (["--device", "cpu:0", "--pycuda-wheels", "{tmp}/none"], "argument --pycuda-wheels: "
         "'{tmp}/none': no such folder; give the folder holding a pycuda wheel, or leave the "
         "option out to build one"),
    ],
    ids=["backend", "index", "sweep", "wheels"],
)  # fmt: skip
def test_gpu_reference_refuses_what_its_steps_would_refuse_before_any(
    tmp_path: Path, args: list[str], error: str
) -> None:
    """A --device naming no device ran every step (each exiting 2, thirteen in all),
    a --sweep selecting no kernel failed the sweep's step after the others, and a
    missing --pycuda-wheels folder failed the pycuda step: each is now refused in
    one line before any step, and no --out folder is made."""
    out = tmp_path / "ref"
    given = [a.replace("{tmp}", str(tmp_path)) for a in args]
    proc = _script("gpu_reference.py", "--out", str(out), *given)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"gpu_reference.py: error: {error.replace('{tmp}', str(tmp_path))}")
    assert proc.stdout == "" and not out.exists()


def test_queue_hold_says_a_strategy_its_kernel_takes_not_is_ignored() -> None:
    """``queue_hold.py -k Stream_TRIAD --strategy tiled`` passed the strategy to harness
    run, which ignored it with a note the script swallowed: the table read as tiled's.
    The script now says so itself."""
    proc = _script("queue_hold.py", "-b", "cpu", "-k", "Stream_TRIAD", "--strategy", "tiled",
                   "--launches", "1", "--size", "100")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "note: Stream_TRIAD takes no --strategy; --strategy tiled is ignored\n"
    assert "Stream_TRIAD cpu:0 " in proc.stdout


@pytest.mark.parametrize("script", ["worker_overhead.py", "cpu_triad_vs_numpy.py", "host_cost.py"])
def test_a_script_started_with_its_standard_output_closed_says_so(script: str) -> None:
    """A script started with its standard output closed (``>&-``) ended in an
    AttributeError traceback and exit 120: it is now one line, exit 2, before any
    work."""
    command = [sys.executable, str(ROOT / "benchmarks" / script)]
    proc = subprocess.run(
        ["bash", "-c", 'exec "$@" >&-', "bash", *command],
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        env=ENV,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        f"{script}: error: cannot write the standard output (it is closed); give the "
        "script one (a file, a pipe or the terminal)\n"
    )


#: A raja-perf.exe stand-in: Stream_COPY's times, and a Base_Seq checksum of 12345.
FAKE_RAJAPERF = """\
import sys, pathlib
out = pathlib.Path(sys.argv[sys.argv.index('--outdir') + 1])
(out / 'RAJAPerf-kernel-run-data.csv').write_text(
    'Kernel,Variant,Tuning,Mean time per rep (sec.)\\n'
    'Stream_COPY,Base_Seq,default,0.002\\n'
    'Stream_COPY,Base_OpenMP,default,0.001\\n'
)
(out / 'RAJAPerf-checksum.txt').write_text(
    'Stream_COPY\\nBase_Seq-default  PASSED  1e-10  12345.0  0\\n'
)
"""


def _rajaperf_compare(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """rajaperf_compare.py of Stream_COPY on cpu:0 beside `FAKE_RAJAPERF`."""
    fake = tmp_path / "raja-perf.exe"
    fake.write_text(f"#!{sys.executable}\n{FAKE_RAJAPERF}")
    fake.chmod(0o755)
    command = [sys.executable, str(ROOT / "benchmarks" / "rajaperf_compare.py"),
               "--rajaperf", str(fake), "--device", "cpu:0", "--launches", "1",
               "-k", "Stream_COPY", *args]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=ENV)


def test_rajaperf_compare_fails_on_a_checksum_outside_tolerance(tmp_path: Path) -> None:
    """``--checksums`` printed 'NO' for a checksum that differed from raja-perf.exe's
    beyond tolerance and exited 0, a comparison that passed: it now says how many
    differ, exit 1."""
    proc = _rajaperf_compare(tmp_path, "--checksums", "--checksum-size", "100")
    assert proc.returncode == 1, proc.stderr
    (row,) = [line for line in proc.stdout.splitlines()[-2:] if line.startswith("Stream_COPY")]
    assert row.endswith("  NO")
    assert proc.stderr == "1 of 1 checksums differ from raja-perf.exe's beyond tolerance\n"


def test_rajaperf_compare_says_a_checksum_size_without_checksums_changes_nothing(
    tmp_path: Path,
) -> None:
    """``--checksum-size`` without ``--checksums`` was taken unsaid, as if the
    checksums had been compared at that size."""
    proc = _rajaperf_compare(tmp_path, "--checksum-size", "100")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        "note: --checksum-size 100 sizes the checksum comparison, which --checksums asks "
        "for; without it, it changes nothing\n"
    )


@pytest.mark.parametrize(("name", "why"), [("missing", "no such folder"), ("file", "not a folder")])
def test_cuda_compile_tells_a_missing_sources_folder_from_a_file(
    tmp_path: Path, name: str, why: str
) -> None:
    """``cuda-compile --sources DIR`` of a folder that is not there said 'not a
    folder', as for a file, and named nothing that is accepted."""
    (tmp_path / "file").write_text("")
    proc = harness("cuda-compile", "--sources", str(tmp_path / name))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--sources {str(tmp_path / name)!r}: {why}; give a sources folder laid out as the "
        "shipped kernels/ (cuda/, c/)"
    )


def test_peak_stopped_by_a_second_sigterm_exits_143(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``harness peak`` sent SIGTERM twice (a batch system's stop, then its insistence)
    ended 130, where every other command ends 143: it counted no second signal."""
    import signal
    import time

    from harness import cli
    from harness.cli import peak as peak_command

    def stopped_twice(*args: object, **kwargs: object) -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        except KeyboardInterrupt:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        raise AssertionError("no signal stopped the measurement")

    monkeypatch.setattr(peak_command, "measure", stopped_twice)
    monkeypatch.setenv("HARNESS_PEAKS", str(tmp_path / "peaks.json"))
    status = cli.main(["peak", "-b", "cpu", "--bandwidth-size", "65536", "--fma-size", "1024"])
    assert status == 143
    assert capsys.readouterr().err.splitlines()[-1] == (
        "interrupted: no peak of cpu:0 kept (a stored one stays); 0 device(s) measured "
        "before it kept theirs"
    )
    assert not (tmp_path / "peaks.json").exists()


def test_a_script_writing_to_a_file_on_a_full_disk_is_refused_before_measuring(
    tmp_path: Path,
) -> None:
    """``cpu_triad_vs_numpy.py > FILE`` on a disk with no block left ran its launches,
    then lost its table, exit 1 (a write of nothing there succeeds, so only the
    disk tells): it is now refused before any launch, exit 2."""
    if not shutil.which("mount"):
        pytest.skip("no mount here")
    small = tmp_path / "small"
    small.mkdir()
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(small)],
                           capture_output=True)  # fmt: skip
    if mount.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mount.stderr.decode().strip()}")
    try:
        with contextlib.suppress(OSError), open(small / "fill", "wb") as fill:
            while True:
                fill.write(bytes(4096))
                fill.flush()
        with open(small / "table", "w") as out:
            proc = subprocess.run(
                [sys.executable, str(ROOT / "benchmarks" / "cpu_triad_vs_numpy.py"),
                 "--size", "1000", "--launches", "1", "--reps", "1"],
                stdout=out, stderr=subprocess.PIPE, text=True, timeout=120, env=ENV,
            )  # fmt: skip
    finally:
        subprocess.run(["umount", "-l", str(small)], check=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        "cpu_triad_vs_numpy.py: error: cannot write the standard output (No space left on "
        "device); send it to a file on a disk with free space\n"
    )


def test_cuda_compile_says_a_value_given_twice_compiles_once(tmp_path: Path) -> None:
    """``cuda-compile --arch 80 80 --precision f64 f64`` compiled each once, unsaid,
    where harness run names a value given twice."""
    (tmp_path / "c").mkdir()
    shutil.copy(ROOT / "kernels" / "c" / "Stream_TRIAD.c", tmp_path / "c")
    proc = harness("cuda-compile", "--arch", "80", "80", "--precision", "f64", "f64",
                   "--sources", str(tmp_path))  # fmt: skip
    if proc.returncode == 2 and "is not available here" in proc.stderr:
        pytest.skip("no CUDA compiler here")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "note: --arch 80 given more than once; each value compiles once",
        "note: --precision f64 given more than once; each value compiles once",
        "1 of 1 compiled",
    ]
    assert proc.stdout == "Stream_TRIAD.c sm_80 f64: ok\n"


def test_gpu_reference_says_a_skipped_step_name_that_names_no_step(tmp_path: Path) -> None:
    """``--skip suite_cpu9`` (a step's name misspelt, or of a device not chosen) was
    taken, as it begins as a step's name does, and left nothing out, unsaid."""
    groups = ["peak", "suite", "stream", "chain", "sort", "check", "sweep", "cache",
              "transfers", "two_ranks"]  # fmt: skip
    proc = _script("gpu_reference.py", "--out", str(tmp_path / "ref"), "--device", "cpu:0",
                   "--skip", *groups, "suite_cpu9")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        "note: --skip suite_cpu9: no step of that name was to run here, so it left nothing out\n"
    )
    assert "devices: exit 0 after" in proc.stdout


def test_mutants_of_a_kernel_without_the_backends_source_says_it_has_none(
    tmp_path: Path,
) -> None:
    """``harness mutants`` of a user's kernel with no OpenCL or C source said none of
    the chosen kernels 'has a mutant in its opencl source', as of a source without
    mutants: it now says it has no source there."""
    need_backend("opencl")
    suite = tmp_path / "my_kernels"
    shutil.copytree(ROOT / "examples" / "my_kernels", suite)
    (suite / "c" / "My_SAXPY.c").unlink()
    proc = harness("mutants", "-k", "My_SAXPY", "-b", "opencl", "--suite",
                   str(suite / "kernels.py"), "--out", str(tmp_path / "out"))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "opencl:0: none of the chosen kernels (My_SAXPY) has a source in opencl (see "
        "'harness list --files'); leave opencl out of -b or choose other kernels"
    )
    assert not (tmp_path / "out").exists()


def test_cache_cold_hot_refuses_a_memory_budget_no_memory_holds() -> None:
    """``cache_cold_hot.py --caches 1e6`` ran every launch, each row of that budget out
    of memory, to an empty table and exit 1: it is now refused before any launch."""
    proc = _script("cache_cold_hot.py", "-b", "cpu", "--caches", "0.5", "1e6", "--launches", "1")
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("cache_cold_hot.py: error: --caches 1e+06: "), line
    assert " bytes of arrays, more than cpu:0 (" in line and " has room for; give at most " in line


@pytest.mark.parametrize("script", ["fma_checks.py", "atomic_first_read.py"])
def test_a_script_refuses_a_form_harness_takes_not_before_measuring(script: str) -> None:
    """``HARNESS_FORM=bogus`` made each row of fma_checks.py an error (an empty table,
    exit 1) and was ignored by atomic_first_read.py, where harness refuses it: each
    script now refuses it in one line, exit 2, before it measures."""
    command = [sys.executable, str(ROOT / "benchmarks" / script)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60,
                          env={**ENV, "HARNESS_FORM": "bogus"})  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr == f"{script}: error: HARNESS_FORM='bogus': expected cpu or gpu (or unset)\n"

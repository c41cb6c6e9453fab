"""Round 24 probes of the Python API (`harness.api`) and of the commands list,
devices, cuda-compile, mutants and peak: each test says what was wrong before."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, harness, need_backend, one_error, run_folder
from test_cuda import _compiler

from harness.api import run_arguments
from harness.backends import get as get_backend
from harness.errors import UsageError
from harness.execution import results
from harness.execution.runner import largest_size
from harness.suite import spec_of

ENV = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
SUITE = ROOT / "examples" / "my_kernels" / "kernels.py"


def _python(code: str, *args: str) -> subprocess.CompletedProcess:
    """``code`` run by a new Python process with ``args``: its output."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
        cwd=ROOT,
    )


def test_an_empty_collection_leaves_an_option_whose_default_is_none_at_it() -> None:
    """harness.run(exclude=[]) (a list of kernels to leave out that came out empty)
    was refused, 'argument -x/--exclude: expected at least one argument', though
    leaving nothing out is the option's default; size_factor=() too."""
    assert run_arguments({"exclude": [], "size_factor": (), "kernels": ["Stream"]}) == [
        "--kernels",
        "Stream",
    ]


@pytest.mark.parametrize(
    ("name", "value"), [("sizes", []), ("kernels", ()), ("transfers", iter([]))]
)
def test_an_empty_collection_for_an_option_that_needs_a_value_is_named(
    name: str, value: object
) -> None:
    """sizes=[] was refused as "argument --sizes: '' is not a size", a value the
    caller never gave, and kernels=() as 'expected at least one argument' of an
    option the caller never typed: the message names the keyword and its value."""
    with pytest.raises(UsageError) as raised:
        run_arguments({name: value})
    assert str(raised.value).startswith(f"{name}=")
    assert "no value given; give at least one, or None for the default" in str(raised.value)


def test_an_unknown_option_names_progress_among_those_there_are() -> None:
    """The TypeError for an unknown keyword listed the options of `harness run` but
    not ``progress``, which harness.run takes too."""
    import harness

    with pytest.raises(TypeError) as raised:
        harness.run("Stream_COPY", "cpu", progres=False)
    assert "takes no option 'progres'" in str(raised.value)
    assert ", progress," in str(raised.value)


_SUITE_GENERATOR = """
import sys, harness
paths = (p for p in [sys.argv[1]])
rows = harness.run("My_SAXPY", "cpu", suite=paths, out=sys.argv[2], size=1000, reps=1,
                   progress=False)
print(sorted(set(rows["kernel"])), sorted(set(rows["status"])))
"""


def test_suite_files_given_as_a_generator_are_loaded(tmp_path: Path) -> None:
    """harness.run(suite=<a generator>) read the generator for the command line, then
    found it empty when loading the suite files: their kernels were never loaded,
    and 'no kernel matches My_SAXPY'."""
    out = tmp_path / "out"
    proc = _python(_SUITE_GENERATOR, str(SUITE), str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['My_SAXPY'] ['ok']"


_NO_STDERR = """
import sys, harness
sys.stderr = None
rows = harness.run("Stream_COPY", "cpu", out=sys.argv[1], size=1000, reps=1)
print(rows.attrs["exit_status"], list(rows["status"]))
"""


def test_a_run_with_its_bar_in_a_process_without_a_standard_error_ends(tmp_path: Path) -> None:
    """In a process without a standard error (sys.stderr None: pythonw, or started
    with it closed), harness.run's progress bar (the default) ended the run in an
    AttributeError from tqdm, its run folder left unended. It now runs without a
    bar, as progress=False ran."""
    out = tmp_path / "out"
    proc = _python(_NO_STDERR, str(out))
    assert proc.returncode == 0, proc.stderr
    # print(file=None) prints to stdout: the run's notes come before the last line.
    assert proc.stdout.strip().splitlines()[-1] == "0 ['ok']"
    assert results.read_metadata(run_folder(out))["interrupted"] is False


def test_mutants_refuses_an_unwritable_out_before_asking_devices_or_making_mutants(
    tmp_path: Path,
) -> None:
    """`harness mutants` checked --out after asking every backend for its devices and
    making every chosen kernel's mutants (50 s for the suite on opencl and wgpu):
    an --out that is a file was refused only then, and a bad --device first."""
    out = tmp_path / "file"
    out.write_text("")
    proc = harness(
        "mutants", "-b", "opencl", "wgpu", "--device", "opencl:99", "--out", str(out),
        timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert one_error(proc.stderr).startswith(f"--out {out}: is a file, not a folder")


def test_mutants_stopped_by_bad_lines_leaves_no_out_folder_it_made(tmp_path: Path) -> None:
    """--out is made and checked first; a usage error found later (--lines on no
    mutant) removes the folders it made, as a refusal of --out itself does."""
    out = tmp_path / "a" / "b"
    proc = harness(
        "mutants", "-k", "Stream_COPY", "-b", "opencl", "--lines", "Stream_COPY.c:1",
        "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 2
    assert "no mutant of the chosen kernels is on these lines" in one_error(proc.stderr)
    assert not (tmp_path / "a").exists()


def test_peak_refuses_a_folder_where_its_store_is_written_first(tmp_path: Path) -> None:
    """A folder named as the store's temporary file (peaks.json.tmp) was found only
    once the peak was measured: keep() ended in an IsADirectoryError traceback,
    raised again as it cleaned up, and the measurement was lost. It is refused
    before measuring."""
    store = tmp_path / "peaks.json"
    (tmp_path / "peaks.json.tmp" / "x").mkdir(parents=True)
    proc = harness("peak", "--device", "cpu:0", env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 2
    assert one_error(proc.stderr) == (
        f"peaks store {store}: {store}.tmp, which the store is written to before it "
        "replaces it, is a folder; remove it, or point HARNESS_PEAKS at a file this user "
        "can write, on a disk with free space"
    )
    assert not store.exists()


@pytest.mark.full
def test_cuda_compile_names_the_kernel_of_each_compile_of_a_shared_source() -> None:
    """Bitonic.c is compiled once for each sort's key type, and cuda-compile printed
    'Bitonic.c sm_80 f64: ok' four times alike: an error in one named no kernel.
    A line of a shared source names its kernel; a kernel's own source stays as it was."""
    _compiler()
    proc = harness("cuda-compile", "--arch", "80", "--precision", "f64")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(set(lines)), [x for x in lines if lines.count(x) > 1]
    assert "Bitonic.c (Bitonic_U32) sm_80 f64: ok" in lines
    assert "Bitonic.c (Bitonic_I32) sm_80 f64: ok" in lines
    assert "Stream_COPY.c sm_80 f64: ok" in lines


_SIGTERM_AS_IT_BEGINS = """
import os, signal, sys, harness
from harness import api

checked = api.run_arguments

def signalled(options):
    os.kill(os.getpid(), signal.SIGTERM)
    return checked(options)

api.run_arguments = signalled
try:
    harness.run("Stream_COPY", "cpu", out=sys.argv[1], size=1000, reps=1, progress=False)
except KeyboardInterrupt as exc:
    print(exc)
print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)
"""


def test_a_sigterm_as_harness_run_begins_raises_keyboard_interrupt(tmp_path: Path) -> None:
    """A SIGTERM while harness.run imported the harness and checked its options
    (its first half second) ended the Python process (status -15: a notebook's
    kernel gone), where the README promises a KeyboardInterrupt as for Ctrl-C;
    run_command took the signal only later. The handler before it is put back."""
    out = tmp_path / "out"
    proc = _python(_SIGTERM_AS_IT_BEGINS, str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "harness.run: interrupted; stopped before its run folder was made; nothing was measured",
        "True",
    ]
    assert not out.exists()


def test_cuda_compile_refuses_a_source_of_its_sources_folder_that_names_no_kernel(
    tmp_path: Path,
) -> None:
    """A --sources folder's c/Stream_COPPY.c (a typo) was left out unsaid: cuda-compile
    compiled the rest, said '2 of 2 compiled' and exited 0, a gate passed on a file
    it never compiled. It is refused before any compile, by name."""
    (tmp_path / "c").mkdir()
    shipped = ROOT / "kernels" / "c" / "Stream_COPY.c"
    (tmp_path / "c" / "Stream_COPY.c").write_text(shipped.read_text())
    (tmp_path / "c" / "Stream_COPPY.c").write_text(shipped.read_text())
    proc = harness("cuda-compile", "--arch", "80", "--sources", str(tmp_path))
    assert proc.returncode == 2
    assert one_error(proc.stderr) == (
        f"--sources {str(tmp_path)!r}: c/Stream_COPPY.c is no kernel's source, so it would "
        "not be compiled; name it as its kernel (see 'harness list'), or give the --suite "
        "file that describes it"
    )
    assert proc.stdout == ""


def test_peak_refuses_a_bandwidth_size_over_a_devices_array_limit_before_measuring(
    tmp_path: Path,
) -> None:
    """`harness peak --device wgpu:0 --bandwidth-size 2^25` measured the FMA peak,
    skipped both bandwidth rows (an array over lavapipe's 128 MiB binding limit) and
    printed 'copy nan GB/s': a size the device cannot take was found only once
    measuring. It is refused first, naming the limit and the largest size that fits."""
    need_backend("wgpu")
    info = get_backend("wgpu").devices()[0]
    limit = min(info.limits["max_storage_buffer_binding_size"], info.limits["max_buffer_size"])
    precision = "f64" if "f64" in info.features else "f32"
    most = largest_size(spec_of("Stream_COPY"), precision, limit)
    assert most is not None
    store = tmp_path / "cache" / "peaks.json"
    proc = harness(
        "peak", "--device", "wgpu:0", "--bandwidth-size", str(most + 1),
        env={"HARNESS_PEAKS": str(store)},
    )  # fmt: skip
    assert proc.returncode == 2
    message = one_error(proc.stderr)
    assert message.startswith(
        f"--bandwidth-size {most + 1}: an array of Stream_COPY would be over wgpu:0 ("
    )
    assert message.endswith(f" of {limit} bytes; give at most {most}")
    assert "measuring" not in proc.stderr
    assert not store.parent.exists()  # refused before the store's folder is made


@pytest.mark.parametrize("options", [[("reps", 1)], "reps=1", None])
def test_run_arguments_given_no_mapping_is_a_type_error_saying_so(options: object) -> None:
    """run_arguments([("reps", 1)]) raised AttributeError ('list' object has no
    attribute 'items'), and None a TypeError about iteration: a wrong type is a
    TypeError that names what it takes."""
    with pytest.raises(TypeError) as raised:
        run_arguments(options)  # type: ignore[arg-type]
    assert str(raised.value).startswith("run_arguments() takes the options as a mapping")


def test_a_stop_as_mutants_are_made_says_it_stops_before_any_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A SIGTERM while `harness mutants` asked for devices and made its mutants said
    'stopping after the current mutant', where none had begun (then 'interrupted
    before any mutant ran'). It says it stops before any runs; the --out folder it
    made for the check is removed."""
    from harness.cli import main
    from harness.cli import mutants as command

    asked = command._devices

    def signalled(args: object) -> object:
        os.kill(os.getpid(), signal.SIGTERM)
        return asked(args)

    monkeypatch.setattr(command, "_devices", signalled)
    out = tmp_path / "out"
    argv = ["mutants", "-k", "Stream_COPY", "-b", "opencl", "--out", str(out)]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "SIGTERM: stopping before any mutant runs" in err
    assert "after the current mutant" not in err
    assert "interrupted before any mutant ran: nothing written" in err
    assert not out.exists()


def test_a_numpy_array_of_no_dimension_is_one_value() -> None:
    """reps=np.array(3) (a 0-d array, as np.asarray gives for a number) raised
    numpy's TypeError 'iteration over a 0-d array': it was taken for a collection.
    It is one value, as a numpy scalar is."""
    import numpy as np

    assert run_arguments({"kernels": np.array("Stream_COPY"), "reps": np.array(3)}) == [
        "--kernels",
        "Stream_COPY",
        "--reps",
        "3",
    ]

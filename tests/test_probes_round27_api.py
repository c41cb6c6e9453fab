"""Round 27 probes of user suites, the Python API, environment variables and signals on
every command: each test says what was wrong before."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, harness, one_error

EXAMPLE = ROOT / "examples" / "my_kernels"


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("raise KeyboardInterrupt", "line 1: KeyboardInterrupt"),
        ("def f():\n    raise KeyboardInterrupt('mine')\n\nf()", "line 2: KeyboardInterrupt: mine"),
        ("raise GeneratorExit", "line 1: GeneratorExit"),
        ("class Stop(BaseException):\n    pass\n\nraise Stop('x')", "line 4: Stop: x"),
        ("raise MemoryError", "line 1: MemoryError"),
    ],
)
def test_a_suite_file_raising_a_base_exception_is_named(
    tmp_path: Path, code: str, said: str
) -> None:
    """A suite file that raised KeyboardInterrupt itself as it loaded (no signal sent)
    stopped the command as "interrupted", status 130; one raising another
    BaseException (GeneratorExit, a class of its own) ended it in a traceback,
    status 1; one of no message was named with a dangling ': ' (``MemoryError: ``)."""
    path = tmp_path / "kernels.py"
    path.write_text(code + "\n")
    result = harness("list", "--suite", str(path))
    assert result.returncode == 2, result.stderr
    assert one_error(result.stderr) == f"--suite {path}: {said}"


def test_a_signal_while_a_suite_file_loads_still_interrupts(tmp_path: Path) -> None:
    """The counterpart of the test above: a Ctrl-C while a suite file's own code runs
    (its last frame the file's) stops the command as interrupted, not as the file's
    error."""
    path = tmp_path / "kernels.py"
    path.write_text(
        "import sys\nsys.stderr.write('loading\\n')\nsys.stderr.flush()\nwhile True:\n    pass\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "list", "--suite", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )
    assert proc.stderr is not None
    assert proc.stderr.readline() == "loading\n"
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip() == "harness: interrupted while starting; nothing was done"


@pytest.mark.parametrize("value", ["", " "])
def test_a_blank_pocl_cache_dir_is_taken_as_unset(tmp_path: Path, value: str) -> None:
    """A blank POCL_CACHE_DIR made PoCL abort the worker listing the OpenCL devices:
    "backend opencl is unavailable: worker crashed: signal 6 (SIGABRT) while listing
    devices", a message that did not name the variable. Blank, it is taken as unset,
    as the harness's own variables are."""
    result = harness(
        "run",
        "-k",
        "Stream_COPY",
        "--device",
        "opencl:0",
        "--check",
        "--out",
        str(tmp_path),
        env={"POCL_CACHE_DIR": value},
    )
    assert result.returncode == 0, result.stderr
    assert "\n2 ok, 0 fail, 0 error, 0 skipped\n" in result.stdout


def test_a_pocl_cache_dir_that_is_a_file_leaves_pocl_out_naming_it(tmp_path: Path) -> None:
    """POCL_CACHE_DIR naming a file made every PoCL row a compile error ("failed to
    build the program"), exit status 1, without a word of the variable; PoCL is now
    left out as a platform of no device, as under a file it was, in a note naming it."""
    (tmp_path / "file").write_text("x")
    result = harness("devices", "--json", env={"POCL_CACHE_DIR": str(tmp_path / "file")})
    assert result.returncode == 0, result.stderr
    (opencl,) = [entry for entry in json.loads(result.stdout) if entry["backend"] == "opencl"]
    assert not any("pthread" in device["name"] for device in opencl["devices"])
    assert opencl["notes"] == [
        "platform 'Portable Computing Language' offers no device: its driver found none "
        "or could not start (see its settings, such as POCL_CACHE_DIR)"
    ]


@pytest.mark.parametrize(
    ("field", "said"),
    [
        ("image=5", "image 5: give a function, or None"),
        ('work_group_bytes="x"', "work_group_bytes 'x': give a whole number of bytes, 0 or more"),
        ("work_group_bytes=-5", "work_group_bytes -5: give a whole number of bytes, 0 or more"),
        ("fixed_group=5", "fixed_group 5: give one line of text saying why, or None"),
    ],
)
def test_a_user_kernel_s_image_or_work_group_memory_of_the_wrong_kind_is_refused(
    tmp_path: Path, field: str, said: str
) -> None:
    """A user kernel's ``image=5`` was taken, and each of its rows was then an error
    at a line of the harness's ("TypeError: 'int' object is not callable
    (runner.py:1436)"); ``work_group_bytes="x"`` made each WebGPU row "TypeError:
    '>' not supported", and a negative one, or a ``fixed_group`` (why --group keeps
    its work-group) that is no text, passed unsaid."""
    shutil.copytree(EXAMPLE, tmp_path / "mine")
    path = tmp_path / "mine" / "kernels.py"
    text = path.read_text()
    assert text.count('    name="My_SAXPY",\n') == 1
    path.write_text(text.replace('    name="My_SAXPY",\n', f'    name="My_SAXPY",\n    {field},\n'))
    result = harness("list", "--suite", str(path), "-k", "My_SAXPY")
    assert result.returncode == 2, result.stderr
    assert one_error(result.stderr) == f"--suite {path}: kernel My_SAXPY: {said}"


def test_a_user_kernel_in_a_rajaperf_group_is_not_counted_as_rajaperf_s(tmp_path: Path) -> None:
    """A user kernel put in group Stream was counted by ``harness list`` as one of
    RAJAPerf's ("1 of them RAJAPerf's (of its 79 ...)"): RAJAPerf's are its shipped
    kernels of those groups."""
    shutil.copytree(EXAMPLE, tmp_path / "mine")
    path = tmp_path / "mine" / "kernels.py"
    path.write_text(
        path.read_text() + "import dataclasses\n\nKERNELS = (*KERNELS, "
        'dataclasses.replace(KERNELS[0], name="My_X", group="Stream"))\n'
    )
    result = harness("list", "--suite", str(path), "-k", "My*")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(
        "\n3 kernels, 0 of them RAJAPerf's (of its 79 that run in one process)\n"
    )


@pytest.mark.parametrize("where", [[], ["--in-process"]])
@pytest.mark.parametrize(
    ("raised", "said"),
    [("GeneratorExit()", "GeneratorExit"), ("Stop('x')", "Stop: x")],
)
def test_a_user_function_raising_a_base_exception_is_its_row_s_error(
    tmp_path: Path, where: list[str], raised: str, said: str
) -> None:
    """A user kernel's numpy function raising a BaseException that is no Exception
    (GeneratorExit, a class of its own) crashed its worker ("worker crashed: exit code
    1"), and ended an --in-process run in a traceback, exit status 1: it is its
    row's error, as any exception is, and the other kernel's row runs."""
    shutil.copytree(EXAMPLE, tmp_path / "mine")
    path = tmp_path / "mine" / "kernels.py"
    head = "def _saxpy_cpu(grid: Grid, x: np.ndarray, y: np.ndarray, a: float, n: int) -> None:\n"
    text = path.read_text()
    assert text.count(head) == 1
    path.write_text(
        text.replace(head, f"{head}    raise {raised}\n", 1)
        + "\n\nclass Stop(BaseException):\n    pass\n"
    )
    out = tmp_path / "out"
    result = harness(
        "run", "--suite", str(path), "-k", "My", "-b", "cpu", "--sizes", "100", "--reps", "1",
        *where, "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    (run,) = out.iterdir()
    rows = {r["kernel"]: r for r in map(json.loads, (run / "journal.jsonl").open())}
    assert rows["My_SAXPY"]["status"] == "error"
    assert rows["My_SAXPY"]["reason"] == f"{said} (kernels.py:36)"
    assert rows["My_STENCIL2D"]["status"] == "ok"


@pytest.mark.parametrize("raised", ["SystemExit(3)", "GeneratorExit()"])
def test_a_user_init_that_exits_is_its_row_s_error_not_the_run_s_end(
    tmp_path: Path, raised: str
) -> None:
    """A user kernel's init calling sys.exit(3) (or raising GeneratorExit) as the run
    made its inputs for a worker ended the whole run there, silent, with status 3
    (or in a traceback), its rows unrun: it is its rows' error, and the other
    kernel's rows run."""
    shutil.copytree(EXAMPLE, tmp_path / "mine")
    path = tmp_path / "mine" / "kernels.py"
    head = "def _saxpy_init(size: int, seed: int, precision: str) -> dict:\n"
    text = path.read_text()
    assert text.count(head) == 1
    path.write_text(text.replace(head, f"{head}    raise {raised}\n", 1))
    out = tmp_path / "out"
    result = harness(
        "run", "--suite", str(path), "-k", "My", "-b", "cpu", "--sizes", "100", "--reps", "1",
        "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    (run,) = out.iterdir()
    rows = {r["kernel"]: r for r in map(json.loads, (run / "journal.jsonl").open())}
    said = "SystemExit: 3" if raised.startswith("SystemExit") else "GeneratorExit"
    assert rows["My_SAXPY"]["status"] == "error"
    assert rows["My_SAXPY"]["reason"] == f"{said} (kernels.py:31)"
    assert rows["My_STENCIL2D"]["status"] == "ok"
    assert json.loads((run / "metadata.json").read_text())["interrupted"] is False


@pytest.mark.parametrize(
    ("raised", "said"), [("SystemExit(3)", "SystemExit: 3"), ("GeneratorExit", "GeneratorExit")]
)
def test_a_user_plan_that_exits_at_an_asked_size_is_named(
    tmp_path: Path, raised: str, said: str
) -> None:
    """A user kernel's plan that calls sys.exit(3) at a size the run asks for (not its
    default size, which loading tries) ended ``harness run`` there, silent, with status
    3; one raising GeneratorExit ended it in a traceback. Both are named as any error
    the plan raises is."""
    shutil.copytree(EXAMPLE, tmp_path / "mine")
    path = tmp_path / "mine" / "kernels.py"
    head = "def _saxpy_plan(size: int) -> list[Launch]:\n"
    text = path.read_text()
    assert text.count(head) == 1
    path.write_text(text.replace(head, f"{head}    if size == 100:\n        raise {raised}\n", 1))
    result = harness(
        "run", "--suite", str(path), "-k", "My", "-b", "cpu", "--sizes", "100", "--reps", "1",
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert one_error(result.stderr) == f"--suite {path}: kernel My_SAXPY: line 27: {said}"

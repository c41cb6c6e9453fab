"""Round 26 probes of user suites (``--suite``) across the commands that take them,
and of the Python API (``import harness``): each test says what was wrong before."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, cut_journal, harness, need_backend, one_error, run_folder

EXAMPLE = ROOT / "examples" / "my_kernels"
ENV = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}


def _python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``code`` run by a new Python process (with ``env`` added): its output."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**ENV, **(env or {})},
        timeout=300,
        cwd=ROOT,
    )


def _suite(tmp_path: Path) -> Path:
    """A copy of the example suite: its kernels.py."""
    shutil.copytree(EXAMPLE, tmp_path / "mine")
    return tmp_path / "mine" / "kernels.py"


def _suite_with_bins(tmp_path: Path) -> Path:
    """A copy of the example suite whose My_SAXPY takes a run option, ``--bins a|b``."""
    suite = _suite(tmp_path)
    suite.write_text(
        suite.read_text()
        .replace(
            '    name="My_SAXPY",\n',
            '    name="My_SAXPY",\n    params=(Param("bins", ("a", "b"), ("a",), "mine"),),\n'
            "    bind=lambda values: dataclasses.replace(SAXPY, params=(), bind=None),\n",
            1,
        )
        .replace(
            "from harness.model.spec import ",
            "import dataclasses\n\nfrom harness.model.spec import Param, ",
            1,
        )
    )
    return suite


@pytest.mark.parametrize("kind", ["folder", "dangling link"])
@pytest.mark.parametrize("command", [["cuda-compile"], ["list"]])
def test_a_user_kernel_s_source_that_is_no_file_is_refused(
    tmp_path: Path, kind: str, command: list[str]
) -> None:
    """A user kernel whose c/NAME.c was a folder (or a link to nothing) was taken to
    have no source: cuda-compile exited 0 with a note, run skipped its rows. It is
    refused as the suite is loaded, naming the kernel and the path."""
    suite = _suite(tmp_path)
    source = suite.parent / "c" / "My_SAXPY.c"
    source.unlink()
    if kind == "folder":
        source.mkdir()
    else:
        source.symlink_to(tmp_path / "nothing")
    what = "a folder" if kind == "folder" else "a link to nothing"
    proc = harness(*command, "--suite", str(suite))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (f"--suite {suite}: kernel My_SAXPY: c/My_SAXPY.c is {what}")


def test_devices_refuses_a_bad_form_as_the_command_does() -> None:
    """harness.devices() listed the devices under HARNESS_FORM=bogus, which
    ``harness devices`` refuses (exit 2): it raises the command's UsageError."""
    proc = _python(
        "import harness\n"
        "from harness.errors import UsageError\n"
        "try:\n"
        "    harness.devices()\n"
        "except UsageError as exc:\n"
        "    print('refused:', exc)\n",
        env={"HARNESS_FORM": "bogus"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "refused: HARNESS_FORM='bogus': expected cpu or gpu (or unset)\n"


def test_a_resume_of_a_user_suite_edited_since_is_refused(tmp_path: Path) -> None:
    """A run of a user kernel resumed after its suite file gave it another tolerance
    ran the rows left at the new one beside rows checked at the old, under one name
    and the run's first description: the resume is refused, naming what changed."""
    suite = _suite(tmp_path)
    out = tmp_path / "out"
    args = ("-k", "My_SAXPY", "-b", "cpu", "--sizes", "100,200", "--reps", "1")
    proc = harness("run", "--suite", str(suite), *args, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    cut_journal(run, 1)
    meta = json.loads((run / "metadata.json").read_text())
    meta.update(interrupted=True, end=None)
    (run / "metadata.json").write_text(json.dumps(meta))
    text = suite.read_text()
    suite.write_text(text.replace("Tolerance(1e-13, 1e-5", "Tolerance(1e-3, 1e-5"))
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--resume: the run's My_SAXPY has tolerance {{'f64': 1e-13, 'f32': 1e-05}} in its "
        f"metadata, {{'f64': 0.001, 'f32': 1e-05}} in {suite} now: its rows would be two "
        "descriptions' under one name; put the file back as the run began, or begin a new run"
    )
    assert len((run / "journal.jsonl").read_text().splitlines()) == 1
    suite.write_text(text)
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert len((run / "journal.jsonl").read_text().splitlines()) == 2


def test_the_api_takes_a_user_kernel_s_run_option(tmp_path: Path) -> None:
    """harness.run(suite=FILE, bins="b"), a run option of the suite's kernel that
    ``harness run --suite FILE --bins b`` takes, raised TypeError 'takes no option
    bins': the options were read before the suite was loaded."""
    suite = _suite_with_bins(tmp_path)
    proc = _python(
        "import harness\n"
        f"rows = harness.run('My_SAXPY', 'cpu', sizes=100, reps=1, bins='b', suite={str(suite)!r},"
        f" out={str(tmp_path / 'out')!r}, progress=False)\n"
        "print(rows[['kernel', 'status', 'bins']].values.tolist(), rows.attrs['exit_status'])\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "[['My_SAXPY', 'ok', 'b']] 0\n"


def test_a_later_api_run_without_the_suite_runs_none_of_its_kernels(tmp_path: Path) -> None:
    """After harness.run(suite=FILE), a later call of the process without suite= still
    ran FILE's kernels (kernels="My_SAXPY" ran, kernels=None ran them beside the
    shipped ones), where ``harness run`` without --suite knows them not: it is
    refused as the command refuses it, and the suite= call runs them still."""
    suite = _suite(tmp_path)
    out = str(tmp_path / "out")
    proc = _python(
        "import harness\n"
        "from harness.errors import UsageError\n"
        "def run(**given):\n"
        f"    rows = harness.run('My_SAXPY', 'cpu', sizes=100, reps=1, out={out!r},"
        " progress=False, **given)\n"
        "    print(rows['kernel'].tolist())\n"
        f"run(suite={str(suite)!r})\n"
        "try:\n"
        "    run()\n"
        "except UsageError as exc:\n"
        "    print('refused:', exc)\n"
        f"run(suite={str(suite)!r})\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "['My_SAXPY']",
        "refused: no kernel matches 'My_SAXPY'; give a kernel name, a group (Stream, Basic, "
        "Lcals, Polybench, Apps, Algorithm, Comm, Sort, Demo) or a glob such as 'Stream_*' "
        "(see 'harness list')",
        "['My_SAXPY']",
    ]


def test_two_suite_files_of_one_kernel_name_name_the_first(tmp_path: Path) -> None:
    """Two --suite files describing a kernel of one name (a copy of a suite beside its
    first) were refused as 'the suite has one so named', read as the shipped suite,
    which has no such kernel: the file that has it is named."""
    first = _suite(tmp_path / "1")
    second = _suite(tmp_path / "2")
    proc = harness("list", "--suite", str(first), "--suite", str(second))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {second}: kernel My_SAXPY: the suite has one so named, from {first}, "
        "loaded before it"
    )


def test_mutants_do_not_say_an_ignored_run_option_narrowed_them(tmp_path: Path) -> None:
    """``mutants --bins b`` of a user kernel that takes no --bins noted the option as
    ignored, then said the score was 'narrowed by: --bins b', as if it counted only
    some of the kernel's mutants: an option no chosen kernel takes narrows nothing."""
    need_backend("opencl")
    suite = _suite_with_bins(tmp_path)
    proc = harness(
        "mutants", "--suite", str(suite), "-k", "My_STENCIL2D", "-b", "opencl",
        "--sample", "1", "--no-simulator", "--bins", "b", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "note: no selected kernel takes --bins; it is ignored" in proc.stderr.splitlines()
    assert "narrowed by: --sample 1 --seed 1" in proc.stdout.splitlines()
    assert "--bins" not in proc.stdout


def test_a_user_kernel_name_too_long_for_a_file_is_refused(tmp_path: Path) -> None:
    """A user kernel named with 300 letters stopped every command with "line ?:
    OSError: [Errno 36] File name too long" as its source was looked up: the length
    is refused, saying the most a name may have."""
    suite = _suite(tmp_path)
    long = "My_" + "A" * 300
    suite.write_text(
        suite.read_text().replace('    name="My_SAXPY",\n', f'    name="{long}",\n', 1)
    )
    proc = harness("list", "--suite", str(suite))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {suite}: kernel name My_AAAAAAAAAAAAAAAAA... is 303 characters long; "
        "give at most 100 (it names files and plots)"
    )


@pytest.mark.parametrize("name", ["kernels", "kernels.txt", "c/My_SAXPY.c"])
def test_a_suite_file_of_another_suffix_says_what_is_taken(tmp_path: Path, name: str) -> None:
    """``--suite kernels`` (the description copied without its .py) was refused as
    'not a Python module' alone, naming nothing that would be taken: the message
    says why and what to give."""
    suite = _suite(tmp_path)
    given = suite.parent / name
    if not given.exists():
        shutil.copy(suite, given)
    proc = harness("list", "--suite", str(given))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {given}: not a Python module (its name does not end in .py); give the "
        "Python file that defines KERNELS"
    )


@pytest.mark.parametrize("command", [["devices"], ["peak", "-b", "cpu"]])
def test_a_command_that_takes_no_suite_does_not_load_one(
    tmp_path: Path, command: list[str]
) -> None:
    """``harness devices --suite FILE`` ran FILE's code before it said that it takes no
    --suite, and a FILE that exits (or is broken) was named instead, as if the option
    were taken: the command says it takes no such option, having run nothing."""
    suite = _suite(tmp_path)
    marker = tmp_path / "ran"
    suite.write_text(
        suite.read_text() + f"\nimport pathlib, sys\npathlib.Path({str(marker)!r}).touch()\n"
        "sys.exit(3)\n"
    )
    proc = harness(*command, "--suite", str(suite))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"unrecognized arguments: --suite {suite} (see 'harness {command[0]} --help')"
    )
    assert not marker.exists()


@pytest.mark.parametrize("where", [[], ["--in-process"]])
def test_a_user_function_raising_keyboard_interrupt_is_its_row_s_error(
    tmp_path: Path, where: list[str]
) -> None:
    """A user kernel's numpy function that raised KeyboardInterrupt itself, no signal
    sent, stopped an --in-process run as interrupted (exit 130, no row kept) and
    crashed a worker ('exit code 1'): it is its row's error, as any exception is,
    and the other kernel's row runs. Its reason names it without a dangling ': ',
    as it has no message."""
    suite = _suite(tmp_path)
    head = "def _saxpy_cpu(grid: Grid, x: np.ndarray, y: np.ndarray, a: float, n: int) -> None:\n"
    suite.write_text(suite.read_text().replace(head, head + "    raise KeyboardInterrupt\n", 1))
    out = tmp_path / "out"
    proc = harness(
        "run", "--suite", str(suite), "-k", "My", "-b", "cpu", "--sizes", "100", "--reps", "1",
        *where, "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    rows = {r["kernel"]: r for r in map(json.loads, (run_folder(out) / "journal.jsonl").open())}
    assert rows["My_SAXPY"]["status"] == "error"
    assert rows["My_SAXPY"]["reason"] == "KeyboardInterrupt (kernels.py:36)"
    assert rows["My_STENCIL2D"]["status"] == "ok"
    assert json.loads((run_folder(out) / "metadata.json").read_text())["interrupted"] is False


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("tolerance=Tolerance(1e-13, 1e-5, floor=0.05)", "tolerance=1e-13",
         "tolerance 1e-13: give a harness.model.spec.Tolerance of finite numbers, 0 or more "
         "(Tolerance(1e-13, 1e-5): the largest relative error at f64 and f32)"),
        ('cpu={"saxpy": _saxpy_cpu}', "cpu=_saxpy_cpu",
         "cpu is function: give a dict of each entry point's name to its numpy function"),
        ('cpu={"saxpy": _saxpy_cpu}', 'cpu={"saxpy": None}',
         "cpu['saxpy'] None: give a numpy function"),
        ("init=_saxpy_init", "init=None", "init None: give a function"),
    ],
)  # fmt: skip
def test_a_user_description_of_the_wrong_kind_is_refused_as_it_loads(
    tmp_path: Path, old: str, new: str, said: str
) -> None:
    """A user kernel whose tolerance was one number (not a Tolerance) ended ``harness
    run`` in a traceback (AttributeError: 'float' object has no attribute 'at'), and
    one whose cpu was its function alone, or whose init or numpy entry was None,
    was a TypeError named at a line of the harness's: each is named as it loads."""
    suite = _suite(tmp_path)
    suite.write_text(suite.read_text().replace(f"    {old},\n", f"    {new},\n", 1))
    proc = harness(
        "run", "--suite", str(suite), "-k", "My_SAXPY", "-b", "cpu", "--sizes", "100",
        "--reps", "1", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--suite {suite}: kernel My_SAXPY: {said}"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ('source="../../c/My_SAXPY"', "source '../../c/My_SAXPY': give a name of letters, "
         "digits and underscores, from a letter (it names its source files), or None"),
        ("source=5", "source 5: give a name of letters, digits and underscores, from a "
         "letter (it names its source files), or None"),
        ('items="keys/s"', "items 'keys/s': give a name of letters, digits and underscores, "
         "from a letter (it names its rate's column), or None"),
    ],
)  # fmt: skip
def test_a_user_kernel_s_source_or_items_that_is_no_name_is_refused(
    tmp_path: Path, given: str, said: str
) -> None:
    """A user kernel's ``source=5`` ran its OpenCL row as skipped for 'no source
    .../5.cl', and a source given as a path was looked up outside the suite's folders;
    ``items`` with a slash named a rate's column and plot: each is refused as it loads."""
    suite = _suite(tmp_path)
    text = suite.read_text()
    suite.write_text(
        text.replace('    name="My_SAXPY",\n', f'    name="My_SAXPY",\n    {given},\n')
    )
    proc = harness("list", "--suite", str(suite))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--suite {suite}: kernel My_SAXPY: {said}"


@pytest.mark.parametrize("given", ["None", '{"N": float("inf")}', '{"A B": 1}'])
def test_a_user_kernel_s_constants_that_no_source_can_take_are_refused(
    tmp_path: Path, given: str
) -> None:
    """A user kernel's ``constants=None`` made each of its OpenCL rows an error,
    "TypeError: 'NoneType' object is not iterable (partition.py:171)", at a line of
    the harness's; a constant of no C name or no finite value can be no compiled
    constant either. Each is refused as the suite loads."""
    suite = _suite(tmp_path)
    text = suite.read_text()
    suite.write_text(
        text.replace('    name="My_SAXPY",\n', f'    name="My_SAXPY",\n    constants={given},\n')
    )
    proc = harness("list", "--suite", str(suite))
    assert proc.returncode == 2, proc.stderr
    value = {"None": "None", '{"N": float("inf")}': "{'N': inf}", '{"A B": 1}': "{'A B': 1}"}
    assert one_error(proc.stderr) == (
        f"--suite {suite}: kernel My_SAXPY: constants {value[given]}: give a dict of C names "
        "(letters, digits and underscores, not from a digit) to finite numbers"
    )


def test_a_suite_removed_since_an_api_run_loaded_it_is_no_file(tmp_path: Path) -> None:
    """A suite file removed after harness.run loaded it was said to have 'changed
    since this process loaded it' and to be run in a new process, where it is no
    file: the call says so, as ``harness run --suite`` does."""
    suite = _suite(tmp_path)
    proc = _python(
        "import os, harness\n"
        "from harness.errors import UsageError\n"
        f"given = dict(sizes=100, reps=1, suite={str(suite)!r}, out={str(tmp_path / 'out')!r},"
        " progress=False)\n"
        "harness.run('My_SAXPY', 'cpu', **given)\n"
        f"os.remove({str(suite)!r})\n"
        "try:\n"
        "    harness.run('My_SAXPY', 'cpu', **given)\n"
        "except UsageError as exc:\n"
        "    print('refused:', exc)\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"refused: --suite {suite}: no such file\n"


@pytest.mark.parametrize(("given", "shown"), [('"x"', "'x'"), ("0", "0"), ("(64, -1)", "(64, -1)")])
def test_a_user_kernel_s_work_group_shape_that_is_none_is_refused(
    tmp_path: Path, given: str, shown: str
) -> None:
    """A user kernel's ``group_size="x"`` made each OpenCL row an error, "ValueError:
    invalid literal for int() ... (spec.py:118)", at a line of the harness's, and 0
    was taken as the sources' GROUP: each is refused as the suite loads."""
    suite = _suite(tmp_path)
    text = suite.read_text()
    suite.write_text(
        text.replace('    name="My_SAXPY",\n', f'    name="My_SAXPY",\n    group_size={given},\n')
    )
    proc = harness("list", "--suite", str(suite))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {suite}: kernel My_SAXPY: group_size {shown}: give a work-group's shape: a "
        "whole number, 1 or more, or a tuple of 2 or 3 of them"
    )


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ('precision_features={"f64": {"nonsense"}}',
         "precision_features {'f64': {'nonsense'}}: give a dict of precisions (f64, f32) to "
         "sets of features (f64, int64, atomics, atomics64, local_memory)"),
        ("precision_features=None",
         "precision_features None: give a dict of precisions (f64, f32) to sets of features "
         "(f64, int64, atomics, atomics64, local_memory)"),
        ('verify="x"', "verify 'x': give a function, or None"),
        ("check_cases=5", "check_cases 5: give a tuple of check cases"),
        ('type_aliases={"idx": "nonsense"}',
         "type_aliases {'idx': 'nonsense'}: give a dict of C names to types (real, f32, f64, "
         "i32, u32, i64, u64)"),
    ],
)  # fmt: skip
def test_a_user_kernel_s_other_fields_of_the_wrong_kind_are_refused(
    tmp_path: Path, given: str, said: str
) -> None:
    """A user kernel's unknown feature at one precision skipped its every row for a
    feature no device has ('needs nonsense'), and a verify, check_cases,
    precision_features or type_aliases of the wrong kind made every row an error at a
    line of the harness's (runner.py, spec.py, base.py): each is refused as it loads."""
    suite = _suite(tmp_path)
    text = suite.read_text()
    suite.write_text(
        text.replace('    name="My_SAXPY",\n', f'    name="My_SAXPY",\n    {given},\n')
    )
    proc = harness("list", "--suite", str(suite))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--suite {suite}: kernel My_SAXPY: {said}"


def test_a_user_array_whose_length_is_no_function_is_refused(tmp_path: Path) -> None:
    """A user kernel's ``Array("x", "real", 5)`` (a length, not a function of the size)
    ended ``harness run`` in a traceback, "TypeError: 'int' object is not callable",
    as it planned its rows' memory: it is refused as the suite loads."""
    suite = _suite(tmp_path)
    text = suite.read_text()
    suite.write_text(text.replace('Array("x", "real", lambda n: n)', 'Array("x", "real", 5)', 1))
    proc = harness(
        "run", "--suite", str(suite), "-k", "My_SAXPY", "-b", "cpu", "--sizes", "100",
        "--reps", "1", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {suite}: kernel My_SAXPY: array x: length 5: give a function of the problem "
        "size (lambda n: n)"
    )
    assert not (tmp_path / "out").exists()


def test_a_user_launch_passing_what_the_kernel_has_not_is_named(tmp_path: Path) -> None:
    """A user kernel whose plan passes 'x' where its array was renamed 'xs' was
    refused as "line ?: KeyError: 'x'", naming neither the launch nor what it may
    pass: the launch, the argument and the kernel's arrays and scalars are named."""
    suite = _suite(tmp_path)
    text = suite.read_text()
    suite.write_text(text.replace('Array("x", "real"', 'Array("xs", "real"', 1))
    proc = harness("list", "--suite", str(suite))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {suite}: kernel My_SAXPY: its plan's launch of saxpy passes 'x', none of "
        "its arrays and scalars (xs, y, a, n)"
    )


@pytest.mark.parametrize(
    ("made", "said"),
    [
        ('dataclasses.replace(SAXPY, params=(), bind=None, name="Other")',
         "its bind at bins=a returned a kernel of name 'Other': keep the kernel's own, "
         "'My_SAXPY'"),
        ("None", "its bind at bins=a returned NoneType None: give a "
         "harness.model.spec.KernelSpec"),
    ],
)  # fmt: skip
def test_a_user_bind_that_makes_another_kernel_is_refused(
    tmp_path: Path, made: str, said: str
) -> None:
    """A user kernel whose bind (one kernel per choice of its run options) returned a
    kernel of another name ran rows named 'Other[a]' that the run's counts left out
    ('0 ok, 0 fail, 0 error' of two rows run, exit 0); one returning None was an
    AttributeError on 'sizes_for_check'. Each is refused as the suite loads."""
    suite = _suite_with_bins(tmp_path)
    text = suite.read_text()
    old = "bind=lambda values: dataclasses.replace(SAXPY, params=(), bind=None),"
    suite.write_text(text.replace(old, f"bind=lambda values: {made},", 1))
    proc = harness(
        "run", "--suite", str(suite), "-k", "My_SAXPY", "-b", "cpu", "--sizes", "100",
        "--reps", "1", "--bins", "a", "b", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--suite {suite}: kernel My_SAXPY: {said}"


def test_cuda_compile_compiles_a_user_kernel_for_each_choice_of_its_run_options(
    tmp_path: Path,
) -> None:
    """cuda-compile compiled a user kernel only as it is without a choice of its run
    options, so a source that fails where the bind of ``--bins b`` gives it another
    constant passed the gate ('N of N compiled', exit 0): each choice is compiled."""
    from harness.backends import cuda_compile

    if not cuda_compile.available():
        pytest.skip("no CUDA compiler here")
    suite = _suite_with_bins(tmp_path)
    old = "bind=lambda values: dataclasses.replace(SAXPY, params=(), bind=None),"
    new = (
        "constants={'SCALE': 1},\n    bind=lambda values: dataclasses.replace(SAXPY, "
        "params=(), bind=None, constants={'SCALE': 1 if values['bins'] == 'a' else 2}),"
    )
    suite.write_text(suite.read_text().replace(old, new, 1))
    source = suite.parent / "c" / "My_SAXPY.c"
    source.write_text("#if SCALE == 2\n#error scale two\n#endif\n" + source.read_text())
    proc = harness(
        "cuda-compile", "--suite", str(suite), "--arch", "80", "--precision", "f64", timeout=600
    )
    assert proc.returncode == 1, proc.stderr
    mine = [line for line in proc.stdout.splitlines() if line.startswith("My_SAXPY.c ")]
    assert len(mine) == 2, proc.stdout
    assert mine[0] == "My_SAXPY.c sm_80 f64: ok"
    assert mine[1].startswith("My_SAXPY.c sm_80 f64: error: ") and "scale two" in mine[1]

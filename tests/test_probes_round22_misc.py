"""Hostile probes, round 22: the commands probed least (`harness devices`, `harness
list`, `harness export`), the Python API beside ``harness.run``, and the command
line itself (no command, unknown commands, abbreviated options)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, harness, need_backend, one_error, run_folder

EXAMPLE = ROOT / "examples" / "my_kernels"


def _suite_copy(tmp_path: Path) -> Path:
    """A copy of the example suite, to edit: its kernels.py."""
    shutil.copytree(EXAMPLE, tmp_path / "mine")
    return tmp_path / "mine" / "kernels.py"


def test_an_abbreviated_suite_option_loads_the_suite(tmp_path: Path) -> None:
    """argparse takes ``--su FILE`` and ``--sui=FILE`` for ``--suite``, but the suite
    was loaded only from ``--suite`` in full: the file went unloaded, so ``harness run
    --su FILE`` ran the shipped kernels alone, without the user's. Its kernels are
    listed now, and a prefix of another option (``harness peak --s``, its ``--span``)
    is not taken for it."""
    for given in (["--su", str(EXAMPLE / "kernels.py")], [f"--sui={EXAMPLE / 'kernels.py'}"]):
        proc = harness("list", *given, "-k", "My")
        assert proc.returncode == 0, proc.stderr
        assert [line.split()[0] for line in proc.stdout.splitlines()[1:3]] == [
            "My_SAXPY",
            "My_STENCIL2D",
        ]
    proc = harness("peak", "--s", "0.5", "-b", "nothing")
    assert proc.returncode == 2
    assert one_error(proc.stderr).startswith("-b 'nothing': no such backend")


def test_a_user_kernel_named_as_a_shipped_one_but_for_case_is_refused(tmp_path: Path) -> None:
    """A user kernel ``stream_triad`` was taken beside the shipped ``Stream_TRIAD``:
    -k ignores case, so it could never be chosen alone (``-k stream_triad`` listed and
    ran both). It is refused as the suite loads, as one of the very same name is."""
    path = _suite_copy(tmp_path)
    path.write_text(path.read_text().replace('name="My_SAXPY"', 'name="stream_triad"'))
    proc = harness("list", "--suite", str(path), "-k", "stream_triad")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {path}: kernel stream_triad: the suite has one so named "
        "(Stream_TRIAD: -k ignores case)"
    )
    assert proc.stdout == ""


def test_two_user_kernels_named_alike_but_for_case_are_refused(tmp_path: Path) -> None:
    """``My_SAXPY`` and ``MY_SAXPY`` in one suite were two kernels that -k, ignoring
    case, always chose together. The second is refused as one listed twice."""
    path = _suite_copy(tmp_path)
    path.write_text(path.read_text().replace('name="My_STENCIL2D"', 'name="MY_SAXPY"'))
    proc = harness("list", "--suite", str(path))
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {path}: kernel My_SAXPY: KERNELS holds it twice (-k ignores case)"
    )


def test_notes_name_a_kernel_s_run_option_as_it_is_spelt(tmp_path: Path) -> None:
    """A run option of the kernels keeps its underscores (``--multi_reduce_num_bins``),
    but the note on a value given twice, and a resume's note on the options it
    ignores, named ``--multi-reduce-num-bins``, an option ``harness run`` refuses."""
    out = tmp_path / "out"
    proc = harness(
        "run", "-k", "Basic_MULTI_REDUCE", "-b", "cpu", "--size", "1000", "--reps", "3",
        "--multi_reduce_num_bins", "10", "10", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "note: --multi_reduce_num_bins 10 given more than once" in proc.stderr
    proc = harness("run", "--resume", str(run_folder(out)), "--multi_reduce_num_bins", "10")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(
        "note: --resume runs with the run's own options; ignored here: --multi_reduce_num_bins\n"
    )


def test_an_opencl_platform_that_offers_no_device_is_named(tmp_path: Path) -> None:
    """PoCL whose POCL_CACHE_DIR it cannot write offers no device: ``harness devices``
    listed the simulator alone without a word of PoCL, and ``-b opencl`` ran on the
    simulator unsaid. The platform is named in a note, in the list and its JSON."""
    need_backend("opencl")
    proc = harness("devices", "--json")
    listed = json.loads(proc.stdout)
    assert all(entry["notes"] == [] for entry in listed)
    (opencl,) = [entry for entry in listed if entry["backend"] == "opencl"]
    names = [device["name"] for device in opencl["devices"]]
    if "Oclgrind Simulator" not in names or not any("pthread" in n for n in names):
        pytest.skip("needs PoCL and the Oclgrind simulator")
    env = {"POCL_CACHE_DIR": str(tmp_path / "a-file" / "cache")}
    (tmp_path / "a-file").write_text("")
    note = (
        "platform 'Portable Computing Language' offers no device: its driver found none "
        "or could not start (see its settings, such as POCL_CACHE_DIR)"
    )
    proc = harness("devices", env=env)
    assert proc.returncode == 0, proc.stderr
    assert f"\n  note: {note}\n" in proc.stdout
    assert "pthread" not in proc.stdout
    proc = harness("devices", "--json", env=env)
    (opencl,) = [entry for entry in json.loads(proc.stdout) if entry["backend"] == "opencl"]
    assert opencl["notes"] == [note]


def test_a_user_group_named_as_another_but_for_case_is_refused(tmp_path: Path) -> None:
    """A user kernel in group ``stream`` made a group beside the shipped ``Stream``
    that -k, ignoring case, never chose alone, and reports showed as two. It is
    refused as the suite loads, naming the group there is."""
    path = _suite_copy(tmp_path)
    path.write_text(path.read_text().replace('group="My"', 'group="stream"', 1))
    proc = harness("list", "--suite", str(path), "-k", "My")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {path}: kernel My_SAXPY: group 'stream': the suite has a group 'Stream' "
        "(-k ignores case); give it that name or another"
    )


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("summary=None", "summary None: give one line of text"),
        ('summary="y = a x\\n+ y"', "summary 'y = a x\\n+ y': give one line of text"),
        ("complexity=2", "complexity 2: give one line of text"),
        (
            'rajaperf_features="Forall"',
            "rajaperf_features 'Forall': give a tuple of words, such as ('Forall',)",
        ),
    ],
)
def test_a_user_kernel_s_words_that_are_no_text_are_refused(
    tmp_path: Path, given: str, said: str
) -> None:
    """A user kernel whose summary or complexity was no text ended ``harness list`` in
    a TypeError traceback, and its RAJAPerf features given as one word were listed
    letter by letter (F,o,r,a,l,l). Each is one line as the suite loads."""
    path = _suite_copy(tmp_path)
    path.write_text(path.read_text().replace('summary="y = a x + y",', f"{given},", 1))
    if not given.startswith("summary"):
        path.write_text(path.read_text().replace(f"{given},", f'summary="y", {given},', 1))
    proc = harness("list", "--suite", str(path), "-k", "My")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == f"--suite {path}: kernel My_SAXPY: {said}"
    assert proc.stdout == ""


def test_load_refuses_a_path_object_whose_name_is_bytes() -> None:
    """``harness.load(b"run")`` is refused as no path (a RunFolderError), but a path
    object whose ``__fspath__`` gives bytes ended in pathlib's TypeError. It is the
    same RunFolderError now."""
    import harness
    from harness.execution.results import RunFolderError

    class BytesPath:
        def __fspath__(self) -> bytes:
            return b"results"

        def __repr__(self) -> str:
            return "BytesPath()"

    with pytest.raises(RunFolderError, match=r"^BytesPath\(\) is no path: give a run folder"):
        harness.load(BytesPath())


def test_list_leaves_out_the_kernels_run_s_exclusions_leave_out() -> None:
    """``harness list`` selects "as 'harness run' selects them", but refused run's
    ``-x`` (unrecognized arguments), so what ``run -k Stream -x TRIAD DOT`` runs could
    not be listed first. It takes -x now, for the table and for --files."""
    proc = harness("list", "-k", "Stream", "-x", "TRIAD", "DOT")
    assert proc.returncode == 0, proc.stderr
    table = [line.split()[0] for line in proc.stdout.splitlines()[1:] if line.strip()]
    assert table[:3] == ["Stream_COPY", "Stream_MUL", "Stream_ADD"]
    assert "Stream_TRIAD" not in proc.stdout and "Stream_DOT" not in proc.stdout
    proc = harness("list", "--files", "Stream", "-x", "COPY", "MUL", "ADD", "DOT")
    assert proc.returncode == 0, proc.stderr
    assert [line for line in proc.stdout.splitlines() if not line.startswith(" ")] == [
        "Stream_TRIAD"
    ]
    proc = harness("list", "-k", "Stream", "-x", "Stream")
    assert proc.returncode == 2
    assert one_error(proc.stderr) == "-x Stream: leaves out every kernel selected; nothing is left"


def test_a_user_run_option_that_abbreviates_a_harness_option_is_refused(tmp_path: Path) -> None:
    """argparse takes ``--prec`` for ``--precision``; a user kernel's run option named
    ``prec`` (choices f32 and f64) took ``--prec f32`` for its own, and a run meant
    at f32 ran at f64, unsaid. Such a name is refused as the suite loads."""
    path = _suite_copy(tmp_path)
    text = path.read_text().replace(
        "from harness.model.spec import",
        "import dataclasses\nfrom harness.model.spec import Param,",
    )
    path.write_text(
        text.replace(
            '    name="My_SAXPY",\n',
            '    name="My_SAXPY",\n    params=(Param("prec", ("f32", "f64"), ("f64",), "mine"),),\n'
            "    bind=lambda values: dataclasses.replace(SAXPY, params=(), bind=None),\n",
            1,
        )
    )
    proc = harness("run", "--suite", str(path), "-k", "Stream_TRIAD", "--prec", "f32")
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        f"--suite {path}: kernel My_SAXPY: run option 'prec': --prec abbreviates "
        "--precision, which it would take the place of; give it another name"
    )

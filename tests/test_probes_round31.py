"""Hostile probes, round 31: imported lines lost without a word, MPI ranks given
other options than rank 0, a copy of a run whose metadata lost its identity, and
stored or imported figures no device gives."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, finished_run, harness, mpi_env, mpirun, run_folder

RAJAPERF = FIXTURES / "rajaperf_output"
RUN_DATA = "RAJAPerf-kernel-run-data.csv"
QUICK = ("-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--max-time", "0.1")


def _imported(tmp_path: Path, name: str, edit: tuple[bytes, bytes] | None) -> tuple[Path, str]:
    folder = shutil.copytree(RAJAPERF, tmp_path / f"raja-{name}")
    if edit is not None:
        data = folder / RUN_DATA
        text = data.read_bytes()
        assert text.count(edit[0]) == 1, edit[0]
        data.write_bytes(text.replace(*edit))
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / name))
    assert proc.returncode == 0, proc.stderr
    return run_folder(tmp_path / name), proc.stderr


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (b"Stream_TRIAD   , Base_Seq ", b"Stream_TRIAD   , Base_Seq\xe9",
         "not UTF-8 text (byte 26 of the line): skipped"),
        (b"Stream_TRIAD   , Base_Seq ", b"               , Base_Seq ",
         "no kernel, variant or tuning: skipped"),
        (b"Stream_TRIAD   , Base_Seq ", "Stream_TRIAD\u200b   , Base_Seq ".encode(),
         "kernel, variant or tuning holds a character that prints as nothing: skipped"),
        (b"Stream_TRIAD   , Base_Seq ", b"Stream_TRIAD   , Base-Seq ",
         "variant or tuning 'Base-Seq' holds a space or '-': skipped"),
    ],
    ids=["not-utf8", "no-kernel", "unprintable", "dash"],
)  # fmt: skip
def test_an_imported_line_skipped_as_damage_is_unread_and_fails_compare(
    tmp_path: Path, old: bytes, new: bytes, said: str
) -> None:
    """Four kinds of damaged run-data line were skipped with a warning but not
    recorded as unread, as a line cut short is: `show` said nothing of them and
    `compare` against the whole import passed, the lost row 'only in base'. Each
    is an unread line of the run now, which `compare` fails on."""
    whole, _ = _imported(tmp_path, "whole", None)
    damaged, err = _imported(tmp_path, "damaged", (old, new))
    assert f"{RUN_DATA}:5: {said}" in err
    meta = json.loads((damaged / "metadata.json").read_text())
    assert meta["unread_lines"] == {"file": RUN_DATA, "lines": [5]}
    shown = harness("show", str(damaged))
    assert f"{RUN_DATA} with 1 line(s) it could not read" in shown.stderr
    proc = harness("compare", str(whole), str(damaged))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{RUN_DATA} with 1 line(s) it could not read, and 1 row(s) of the base" in proc.stderr


@pytest.mark.parametrize(
    ("time", "said"),
    [
        (b"1e-300", "'Mean time per rep (sec.)' is '1e-300'; a time from 1e-12 up to 1e+07 "
         "seconds, or 'Not run', is accepted"),
        (b"1e-12", "'Mean time per rep (sec.)' is '1e-12': 1.6e+09 GB/s for the kernel's "
         "bytes, past any memory's; a time from 1.6e-09 seconds is accepted"),
    ],
)  # fmt: skip
def test_an_imported_time_no_memory_could_run_at_is_an_error_row(
    tmp_path: Path, time: bytes, said: str
) -> None:
    """A time of 1e-300 s was refused naming the journal's 'time_min_s', not the
    CSV's column, and one of 1e-12 s was imported as an ok row at 1.6e9 GB/s."""
    run, err = _imported(tmp_path, "tiny", (b"1.00000e-05", time))
    assert f"{RUN_DATA}:4: {said}: made an error row" in err
    rows = [json.loads(line) for line in (run / "journal.jsonl").read_text().splitlines()]
    bad = [r for r in rows if r["device_id"] == "rajaperf:1" and r["kernel"] == "Stream_COPY"]
    assert [r["status"] for r in bad] == ["error"]
    assert bad[0]["reason"] == f"{RUN_DATA}:4: {said}"
    assert "gbytes_per_s" not in bad[0]


def test_mpi_ranks_given_other_timing_options_or_folder_are_refused(tmp_path: Path) -> None:
    """Rank 1 given --max-time 3 where rank 0 had 0.1 measured its rows under its
    own options while the run's metadata stated rank 0's for every row; a rank
    given another --out had it ignored. Both are refused before any row, naming
    the option and the ranks' values."""
    python = [sys.executable, "-m", "harness", "run", *QUICK[:-2]]
    out = tmp_path / "runs"
    for theirs, said in (
        (["--max-time", "3", "--out", str(out)], "rank 1 was given --max-time 3.0, where rank "
         "0 has 0.1: give every rank the same options"),
        (["--max-time", "0.1", "--out", str(tmp_path / "other")], f"rank 1 was given --out "
         f"'{tmp_path / 'other'}', where rank 0 has '{out}': give every rank the same options"),
        (["--max-time", "0.1", "--seed", "7", "--out", str(out)], "rank 1 was given --seed 7, "
         "where rank 0 has 1: give every rank the same options"),
    ):  # fmt: skip
        command = [mpirun(), "--oversubscribe", "-n", "1", *python, "--max-time", "0.1"]
        command += ["--out", str(out), ":", "-n", "1", *python, *theirs]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120, env=mpi_env())
        assert proc.returncode == 2, proc.stderr
        assert f"harness: error: {said}" in proc.stderr.splitlines()
        assert not (tmp_path / "other").exists()
        assert not out.exists() or not any(out.iterdir())


def test_a_copy_whose_metadata_lost_its_id_and_start_is_still_one_run(tmp_path: Path) -> None:
    """A copy of a run with run_id and start taken out of its metadata was merged
    with it as a second run (every row twice) and compared with it as a run of its
    own. Their journals are the same byte for byte, which only a copy gives."""
    run = finished_run(tmp_path / "runs", *QUICK)
    copy = shutil.copytree(run, tmp_path / "copy")
    meta = json.loads((copy / "metadata.json").read_text())
    del meta["run_id"], meta["start"]
    (copy / "metadata.json").write_text(json.dumps(meta))
    merged = harness("merge", str(run), str(copy), "--out", str(tmp_path / "merged"))
    assert merged.returncode == 2, merged.stderr
    assert merged.stderr.startswith(f"harness: error: merge: {run} and {copy} are the same run")
    assert not (tmp_path / "merged").exists() or not any((tmp_path / "merged").iterdir())
    compared = harness("compare", str(run), str(copy))
    assert compared.returncode == 2, compared.stdout
    assert compared.stderr.startswith(f"harness: error: compare: {run} and {copy} are one run")


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("measured", "yesterday", 'its measured is "yesterday", not a time such as'),
        ("copy_gbytes_per_s", 1e300, "its copy_gbytes_per_s is 1e+300"),
    ],
)
def test_a_stored_peak_no_device_has_places_no_row(
    tmp_path: Path, field: str, value: object, said: str
) -> None:
    """A stored peak 'measured yesterday' was used and printed so, and one of 1e300
    GB/s placed rows at 5.8e-298 % of it: both are damage, named, and place no row."""
    from harness.backends import get as get_backend

    device = get_backend("cpu").devices()[0].as_dict()
    from harness.execution import peaks

    entry = {
        "device": device,
        "measured": "2026-12-01T10:00:00+0000",
        "copy_gbytes_per_s": 10.0,
        "triad_gbytes_per_s": 10.0,
        "notes": [],
        field: value,
    }
    store = tmp_path / "peaks.json"
    store.write_text(json.dumps({peaks.device_key(device): entry}))
    out = tmp_path / "runs"
    proc = harness("run", *QUICK, "--out", str(out), env={"HARNESS_PEAKS": str(store)})
    assert proc.returncode == 0, proc.stderr
    warning = proc.stderr.splitlines()[0]
    assert warning.startswith(f"warning: peaks store {store}: ") and said in warning
    assert warning.endswith("no row is placed against a peak")
    row = json.loads((run_folder(out) / "journal.jsonl").read_text().splitlines()[0])
    assert row["status"] == "ok" and row.get("pct_peak_bw") is None


@pytest.fixture
def two_rows(tmp_path: Path) -> Path:
    return finished_run(tmp_path / "runs", *QUICK[2:], "-k", "Stream_TRIAD", "Stream_COPY")


def test_show_of_a_journal_that_lost_a_row_or_holds_a_case_twice_does_not_pass(
    two_rows: Path,
) -> None:
    """A failed row taken out of the journal, or an ok copy of it put before it,
    left `show` exiting 0 for a run that had failed (compare already failed on
    both): the run's status cannot be told from what is left."""
    journal = two_rows / "journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    assert harness("show", str(two_rows)).returncode == 0
    journal.write_text(lines[0])
    proc = harness("show", str(two_rows))
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"fail: {journal} holds 1 row(s) fewer than the run counted at its end, so the run's "
        "status cannot be told from it"
    )
    again = dict(json.loads(lines[0]), host_s=0.5)
    journal.write_text(lines[0] + lines[1] + json.dumps(again) + "\n")
    proc = harness("show", str(two_rows))
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"fail: {journal}:3 measures the case of line 1 again, so the run's status cannot be "
        "told from it"
    )


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda m: m.pop("devices"), "'devices' does not describe cpu:0"),
        (lambda m: m.update(devices=[]), "'devices' does not describe cpu:0"),
        (lambda m: m["options"]["devices"].append("opencl:0"), "'devices' does not describe "
         "opencl:0"),
        (lambda m: m.update(kernels={}), "'kernels' does not describe Stream_COPY"),
    ],
    ids=["no-devices", "no-device", "other-device", "no-kernels"],
)  # fmt: skip
def test_a_resume_of_metadata_that_does_not_describe_its_options_is_refused(
    two_rows: Path, edit: object, said: str
) -> None:
    """A resume of a run whose metadata had lost its devices ended in a traceback
    (KeyError: 'devices'); with an empty list, or an option's device or kernel it
    does not describe, it measured rows again that every reader then skipped as
    damage (one of them twice). It is refused before any row."""
    path = two_rows / "metadata.json"
    meta = json.loads(path.read_text())
    meta.update(interrupted=True, journal_rows=1)
    edit(meta)  # type: ignore[operator]
    path.write_text(json.dumps(meta))
    journal = two_rows / "journal.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[0])
    proc = harness("run", "--resume", str(two_rows))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"harness: error: --resume: {path}: {said}, a "
        f"{'kernel' if 'kernels' in said else 'device'} of its 'options' (edited by hand?); "
        "the metadata harness run wrote is accepted"
    )
    assert len(journal.read_text().splitlines()) == 1


def test_a_samples_line_holding_other_samples_than_its_row_counts_is_skipped(
    two_rows: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A samples line with six samples more than its journal row counts was read as
    the row's: plots of its distribution showed times its statistics never saw."""
    from harness.execution import results

    path = two_rows / "samples.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    counted = len(lines[0]["samples_ns"])
    lines[0]["samples_ns"] += [1, 2, 3, 4, 5, 6]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    kept = results.read_samples(two_rows)
    assert sorted(kept) == [2]
    assert capsys.readouterr().err == (
        f"warning: {path}:1: skipped a damaged line: it holds {counted + 6} samples, but line 1 "
        f"of the journal counts {counted}\n"
    )


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "my_kernels"


def _variant(tmp_path: Path, lines: str) -> Path:
    """A copy of the example suite whose My_SAXPY is changed by ``lines`` (S: the
    kernel, built from SAXPY)."""
    folder = shutil.copytree(EXAMPLE, tmp_path / "suite")
    kernels = folder / "kernels.py"
    text = kernels.read_text()
    head, _ = text.split("\nKERNELS", 1)
    extra = "import dataclasses\nfrom harness.model.verify import Verdict\n"
    kernels.write_text(f"{head}\n{extra}{lines}\nKERNELS = (S,)\n")
    return kernels


def _saxpy(kernels: Path, out: Path, *more: str) -> subprocess.CompletedProcess:
    return harness(
        "run", "--suite", str(kernels), "-k", "My_SAXPY", "-b", "cpu", "--size", "1000",
        "--reps", "3", "--warmup", "0", "--out", str(out), *more,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("verdict", "shown"),
    [
        ("Verdict(0.5, 5)", "Verdict(max_rel_error=0.5, problem=5)"),
        ('Verdict("tiny", None)', "Verdict(max_rel_error='tiny', problem=None)"),
        ("Verdict(-1.0, None)", "Verdict(max_rel_error=-1.0, problem=None)"),
        ('Verdict(float("nan"), None)', "Verdict(max_rel_error=nan, problem=None)"),
        ("True", "True"),
    ],
)
def test_a_verify_returning_what_no_row_holds_is_a_description_error(
    tmp_path: Path, verdict: str, shown: str
) -> None:
    """A description's own verify returning Verdict(0.5, 5) made a failed row no
    reader takes: it was dropped as corrupt and the run passed, 0 rows failed.
    Verdict('tiny', None) and Verdict(-1, None) passed as ok and were dropped the
    same way. Each is now an error row naming what verify returned."""
    kernels = _variant(
        tmp_path, f"S = dataclasses.replace(SAXPY, verify=lambda i, o, r: {verdict})"
    )
    proc = _saxpy(kernels, tmp_path / "out")
    assert proc.returncode == 1, proc.stderr
    row = json.loads((run_folder(tmp_path / "out") / "journal.jsonl").read_text())
    assert row["status"] == "error"
    assert row["reason"] == (
        f"description error: My_SAXPY: verify returned {shown}; it returns a Verdict of a "
        "worst relative error from 0 and a problem that is None (verified) or text"
    )


@pytest.mark.parametrize(
    ("reference", "said"),
    [
        ("lambda x: {}", "reference gives none of the arrays the kernel writes (y), so "
         "nothing would be verified"),
        ('lambda x: {"x": np.float64(x["x"])}', "reference gives none of the arrays the "
         "kernel writes (y), so nothing would be verified"),
        ('lambda x: {"y": np.float64(x["y"]) + 5j}', "reference gives complex values for "
         "'y'; its arrays hold real numbers"),
    ],
    ids=["empty", "input-only", "complex"],
)  # fmt: skip
def test_a_reference_that_verifies_nothing_is_a_description_error(
    tmp_path: Path, reference: str, said: str
) -> None:
    """A reference giving none of the arrays the kernel writes (with a checksum of
    the description's own) passed a kernel that wrote 12345 everywhere: only the
    arrays a reference gives are compared. A complex one passed, its imaginary part
    dropped with a warning."""
    wrong = "def _wrong(grid, x, y, a, n):\n    y[:n] = 12345.0\n"
    kernels = _variant(
        tmp_path,
        f"{wrong}S = dataclasses.replace(SAXPY, reference={reference}, "
        "checksum=lambda o: 0.0, cpu={'saxpy': _wrong})",
    )
    proc = _saxpy(kernels, tmp_path / "out")
    assert proc.returncode == 1, proc.stderr
    row = json.loads((run_folder(tmp_path / "out") / "journal.jsonl").read_text())
    assert (row["status"], row["reason"]) == ("error", f"description error: My_SAXPY: {said}")


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        ("S = dataclasses.replace(SAXPY, params=None)", "params is None; a tuple of Param "
         "is accepted"),
        ('S = dataclasses.replace(SAXPY, params=("x",))', "params is ('x',); a tuple of "
         "Param is accepted"),
        ('S = dataclasses.replace(SAXPY, plan=lambda n: ["junk"] if n == 1000 else '
         "SAXPY.plan(n))", "its plan at size 1000 returned ['junk']: give a list of "
         "harness.model.spec.Launch, each with its values a dict"),
        ("S = dataclasses.replace(SAXPY, traffic=lambda n, b: None if n == 1000 else "
         "SAXPY.traffic(n, b))", "its traffic at size 1000 returned None: give a "
         "harness.model.spec.Traffic"),
    ],
    ids=["params-none", "params-text", "plan-at-run-size", "traffic-at-run-size"],
)  # fmt: skip
def test_a_description_field_of_the_wrong_type_is_one_line(
    tmp_path: Path, lines: str, said: str
) -> None:
    """params of None or of names, and a plan or traffic of the wrong type at a size
    other than the description's own (which loading checks), ended `list` and
    `run` in a traceback. Each is one line naming the kernel and the field."""
    kernels = _variant(tmp_path, lines)
    proc = _saxpy(kernels, tmp_path / "out")
    assert proc.returncode == 2, proc.stderr
    assert (
        proc.stderr.splitlines()[-1]
        == f"harness: error: --suite {kernels}: kernel My_SAXPY: {said}"
    )
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_suite_file_that_changes_folder_leaves_the_run_folder_where_asked(
    tmp_path: Path,
) -> None:
    """A suite file calling os.chdir('/') as it loaded sent a relative --out to
    /relout, while the run printed 'run folder: relout/...'."""
    kernels = _variant(tmp_path, f"import os\nos.chdir({str(tmp_path / 'elsewhere')!r})\nS = SAXPY")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "here").mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--suite", str(kernels), "-k", "My_SAXPY",
         "-b", "cpu", "--size", "1000", "--reps", "3", "--out", "relout"],
        cwd=tmp_path / "here", capture_output=True, text=True, timeout=300,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert run_folder(tmp_path / "here" / "relout").is_dir()
    assert not (tmp_path / "elsewhere" / "relout").exists()


def test_the_simulator_alone_is_no_default_device(tmp_path: Path) -> None:
    """With PoCL offering no device (POCL_DEVICES=bogus), `harness devices` said the
    simulator is not used by default, and a run with no -b timed Stream_TRIAD on it."""
    from harness.backends import get as get_backend

    if not any(d.kind == "simulator" for d in get_backend("opencl").devices()):
        pytest.skip("no Oclgrind simulator here")
    proc = harness(
        "run", "-k", "Stream_TRIAD", "-b", "cpu", "opencl", "--size", "1000", "--reps", "3",
        "--out", str(tmp_path), env={"POCL_DEVICES": "bogus"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (run_folder(tmp_path) / "journal.jsonl").open()]
    assert [r["device_id"] for r in rows] == ["cpu:0"]


def test_a_stop_signal_that_kills_the_preprocessor_is_an_interrupt(tmp_path: Path) -> None:
    """SIGTERM to the group while a mutant's sources were preprocessed killed cpp,
    and `harness mutants` ended in a traceback ('the C preprocessor failed: '),
    exit 1, its table lost. It stops as interrupted: 130, the partial table."""
    import os
    import select
    import signal
    import time

    from conftest import need_backend

    need_backend("opencl")
    slow = tmp_path / "bin" / "cpp"
    slow.parent.mkdir()
    slow.write_text(f'#!/bin/sh\nsleep 0.3\nexec {shutil.which("cpp")} "$@"\n')
    slow.chmod(0o755)
    env = {**os.environ, "PATH": f"{slow.parent}:{os.environ['PATH']}"}
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    command = [sys.executable, "-m", "harness", "mutants", "-k", "Basic_DAXPY", "-b", "opencl"]
    command += ["--no-simulator", "--sample", "3", "--out", str(tmp_path / "out")]
    proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, start_new_session=True)
    assert proc.stderr is not None
    said = b""
    deadline = time.monotonic() + 120
    # Once the mutants run (planning preprocesses too), at a mutant's preprocessing.
    while b"Basic_DAXPY on opencl:0: 3 mutants" not in said or "cpp" not in _group(proc.pid):
        assert time.monotonic() < deadline and proc.poll() is None, said.decode()
        if select.select([proc.stderr], [], [], 0.02)[0]:
            said += os.read(proc.stderr.fileno(), 65536)
    os.killpg(proc.pid, signal.SIGTERM)
    _, rest = proc.communicate(timeout=300)
    err = (said + rest).decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "preprocessor failed" not in err
    assert "interrupted: 1 of 1 kernel runs not finished; the table is partial" in err


def _group(pgid: int) -> list[str]:
    """The command names of the processes of process group ``pgid`` (from /proc)."""
    names = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, rest = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :]
        if int(rest.split()[2]) == pgid:
            names.append(name)
    return names


def test_a_stop_as_a_new_run_folder_is_moved_in_leaves_it_whole_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A signal just after a merge's folder was moved into place said 'nothing of
    it is left' of a folder there whole, which a second merge then doubled."""
    import os
    import signal

    from harness.execution import results

    moved = os.replace

    def replace_then_stop(source: Path, target: Path) -> None:
        moved(source, target)
        if Path(source).name.startswith(".partial-run-"):  # the folder, not a file in it
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(results.os, "replace", replace_then_stop)
    # Python's own Ctrl-C handler, whatever the test process had set (a worker's may
    # ignore SIGINT).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            results.write_new(tmp_path, lambda folder: (folder / "journal.jsonl").write_text("x\n"))
    finally:
        signal.signal(signal.SIGINT, previous)
    made = [p for p in tmp_path.iterdir() if not p.name.startswith(".")]
    assert len(made) == 1 and (made[0] / "journal.jsonl").read_text() == "x\n"
    assert capsys.readouterr().err == (
        f"\nnote: interrupted once the new run folder was whole: {made[0]}\n"
    )

"""``harness mutants`` under abuse: interrupts and SIGTERM, gates over nothing,
``--lines`` and options that select nothing, outputs that cannot be written.

Each run here is one or two Stream kernels of a few mutants on opencl at f64,
so that it takes seconds."""

from __future__ import annotations

import csv
import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import need_backend

from harness import suite
from harness.backends.base import DeviceInfo
from harness.cli import build_parser, main
from harness.cli import mutants as cli_mutants
from harness.mutation import mutants

#: One kernel of one mutant (Stream_COPY.c's line 5), then one of eight.
TWO = ["-k", "Stream_COPY", "Basic_COPY8", "-b", "opencl", "--precision", "f64"]
#: Stream_COPY alone: one mutant.
ONE = ["-k", "Stream_COPY", "-b", "opencl", "--precision", "f64"]


@pytest.fixture(autouse=True)
def _opencl() -> None:
    need_backend("opencl")


def _start(args: list[str], out: Path) -> subprocess.Popen:
    """``harness mutants ARGS --out OUT`` in a session of its own, output piped."""
    env = {**os.environ}
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    return subprocess.Popen(
        [sys.executable, "-m", "harness", "mutants", *args, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )


def _wait_for(proc: subprocess.Popen, text: str) -> str:
    """Its stderr up to the first line containing ``text``."""
    assert proc.stderr is not None
    seen = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if text in line:
            return "".join(seen)
    proc.kill()
    raise AssertionError(f"no line with {text!r} in:\n{''.join(seen)}")


def _finish(proc: subprocess.Popen, before: str) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, before + err


def _folder(out: Path) -> Path:
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    return folder


def _rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "mutants.csv", newline="") as f:
        return list(csv.DictReader(f))


# 1. and 3. An interrupt keeps what was measured, says it is partial, exits 130.


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM to the group"])
def test_an_interrupt_writes_what_was_measured_and_fails_the_gate_with_130(
    how: str, tmp_path: Path
) -> None:
    proc = _start([*TWO, "--fail-under", "90"], tmp_path)
    before = _wait_for(proc, "Basic_COPY8 on opencl:0")
    if how == "SIGINT":
        os.kill(proc.pid, signal.SIGINT)
    else:
        os.killpg(proc.pid, signal.SIGTERM)
    status, out, err = _finish(proc, before)
    assert status == 130, err
    assert "Traceback" not in err
    name = "interrupt" if how == "SIGINT" else "SIGTERM"
    assert f"{name}: stopping after the current mutant" in err
    assert "--fail-under 90: not judged on a partial run" in err
    assert out.startswith("interrupted: a partial table")
    folder = _folder(tmp_path)
    rows = _rows(folder)
    assert (rows[0]["kernel"], rows[0]["status"]) == ("Stream_COPY", "killed")
    # A mutant whose worker the signal killed is not counted as killed by the check.
    assert not any("SIGTERM" in r["detail"] for r in rows)
    copy8 = [r for r in rows if r["kernel"] == "Basic_COPY8"]
    assert len(copy8) == 8 and {r["status"] for r in copy8} & {"not run"}
    summary = (folder / "summary.txt").read_text()
    assert summary.startswith("interrupted: a partial table")
    assert "Basic_COPY8 on opencl:0: " in summary.split("interrupted before the end:")[1]


#: Basic_REDUCE3_INT's reduction loop: its fourth mutant (``s >= 0``, always true
#: for an unsigned ``s``) never ends, so a stop signal sent while it runs finds
#: the run mid-mutant however fast the machine is.
HANGS = [
    *["-k", "Basic_REDUCE3_INT", "-b", "opencl", "--precision", "f64"],
    *["--lines", "Basic_REDUCE3_INT.c:13-13", "--timeout", "150", "-v"],
]


def test_a_second_sigterm_stops_at_once_writes_and_exits_143(tmp_path: Path) -> None:
    proc = _start(HANGS, tmp_path)
    before = _wait_for(proc, "GROUP / 1; s > 0")
    os.kill(proc.pid, signal.SIGTERM)
    before += _wait_for(proc, "SIGTERM: stopping after the current mutant")
    sent = time.monotonic()
    os.kill(proc.pid, signal.SIGTERM)
    status, out, err = _finish(proc, before)
    assert status == 143, err
    # At once: the hanging mutant's worker is not waited for (its time-out is 150 s).
    assert time.monotonic() - sent < 60
    assert "SIGTERM: stopping now" in err
    assert "Traceback" not in err
    folder = _folder(tmp_path)
    assert [r["status"] for r in _rows(folder)] == ["killed"] * 3 + ["not run"] * 4
    assert (folder / "summary.txt").read_text().startswith("interrupted: a partial table")
    assert out.startswith("interrupted: a partial table")


def test_an_interrupt_during_the_unmutated_check_leaves_the_kernel_not_run(
    tmp_path: Path,
) -> None:
    proc = _start(["-k", "Basic_COPY8", "-b", "opencl", "--precision", "f64"], tmp_path)
    before = _wait_for(proc, "Basic_COPY8 on opencl:0")
    os.kill(proc.pid, signal.SIGINT)
    status, out, err = _finish(proc, before)
    assert status == 130, err
    assert "no source" not in err
    assert out.startswith("interrupted: a partial table")
    summary = (_folder(tmp_path) / "summary.txt").read_text()
    assert "Basic_COPY8 on opencl:0: " in summary.split("interrupted before the end:")[1]


def test_a_sigterm_before_any_mutant_runs_writes_nothing_and_exits_130(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SIGTERM while devices are listed: the mutants are not even planned."""
    listed = cli_mutants._devices

    def then_sigterm(args: object) -> object:
        found = listed(args)
        os.kill(os.getpid(), signal.SIGTERM)
        return found

    monkeypatch.setattr(cli_mutants, "_devices", then_sigterm)
    handler = signal.getsignal(signal.SIGTERM)
    assert main(["mutants", *ONE, "--out", str(tmp_path)]) == 130
    err = capsys.readouterr().err
    assert "SIGTERM: stopping before any mutant runs" in err
    assert "interrupted before any mutant ran: nothing written" in err
    assert not list(tmp_path.iterdir())
    assert signal.getsignal(signal.SIGTERM) is handler


# 2. A gate over nothing fails; --lines that select nothing are a usage error.


def test_lines_holding_no_mutant_are_a_usage_error_naming_the_lines_that_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["mutants", *ONE, "--fail-under", "90", "--out", str(tmp_path)]
    assert main([*args, "--lines", "Stream_COPY.c:1-3"]) == 2
    err = capsys.readouterr().err
    assert "--lines Stream_COPY.c:1-3: no mutant of the chosen kernels is on these lines" in err
    assert "Stream_COPY.c's mutants are on line 5" in err
    assert main([*args, "--lines", "Stream_COPY.c:40-50"]) == 2
    assert "Stream_COPY.c has 7 lines" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_a_gate_with_no_counted_mutant_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stream_COPY's one mutant listed as equivalent: nothing is counted."""
    entry = mutants.Equivalent("Stream_COPY.c", "c[i] = a[i];", "*", "as if it could not matter")
    monkeypatch.setattr(cli_mutants, "read_equivalents", lambda path: {("x",): entry})
    assert main(["mutants", *ONE, "--fail-under", "90", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert (
        "opencl:0: no mutant was counted (0 killed, 0 survived, 0 stillborn, 1 equivalent)" in err
    )
    assert "--fail-under 90 does not pass on nothing" in err


# 4. An output that cannot be written is found first; a failed write is one line.


def test_an_output_that_is_a_file_is_refused_before_any_mutant_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "a-file"
    afile.write_text("")
    for out, problem in ((afile, "is a file"), (afile / "below", "cannot make it")):
        assert main(["mutants", *ONE, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"harness: error: --out {out}: {problem}" in err, err
        assert "on opencl:0" not in err


def test_a_write_failure_at_the_end_is_one_line_after_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(mutants, "_write", full)
    assert main(["mutants", *ONE, "--out", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith("kernel")
    (error,) = [line for line in captured.err.splitlines() if "error" in line]
    assert error.startswith(f"harness: error: cannot write to mutants folder {tmp_path}/mutants-")
    assert error.endswith(
        ": No space left on device; nothing was kept (the table above is the result); free "
        "some space and run it again"
    )
    assert not list(tmp_path.iterdir())


# Other bad input: one line, exit 2, before any mutant runs.


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        (["--device", ""], "--device '': empty; give BACKEND:INDEX or part of one device's name"),
        (["--device", "  "], "--device '  ': empty; give BACKEND:INDEX"),
        (["--device", "opencl:7"], "--device 'opencl:7': no such device; opencl has opencl:0"),
        (["--device", "no-such-name"], "--device 'no-such-name': no device's name contains it"),
        (["--sample", "0"], "'0' must be a positive whole number"),
        (["--max-size", "50"], "--max-size 50 is under every check size of the chosen kernels"),
        (["-b", "cuda"], "backend cuda is unavailable"),
    ],
)
def test_options_that_select_nothing_are_refused_before_any_mutant_runs(
    given: list[str], problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ONE's backend gives way to one the case names (an option given twice is refused).
    one = ["-k", "Stream_COPY", "--precision", "f64", *(["-b", "opencl"] * ("-b" not in given))]
    assert main(["mutants", *one, *given, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert problem in err
    assert "on opencl:0" not in err
    assert not list(tmp_path.iterdir())


def test_a_timeout_under_the_unmutated_kernels_time_runs_no_mutant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each mutant would be killed by the clock, not by the check."""
    assert (
        main(["mutants", *ONE, "--timeout", "0.001", "--fail-under", "90", "--out", str(tmp_path)])
        == 1
    )
    captured = capsys.readouterr()
    assert "--timeout 0.001 s is under 2x the unmutated kernel's slowest row" in captured.err
    assert "not run" in captured.out
    assert not _rows(_folder(tmp_path))


def test_precision_given_twice_checks_each_once() -> None:
    parser = build_parser()
    args = parser.parse_args(["mutants", "-b", "opencl", "--precision", "f64", "f64"])
    assert cli_mutants.precisions(args) == ("f64",)
    args = parser.parse_args(
        ["mutants", "-b", "opencl", "--precision", "f32", "--precision", "f64"]
    )
    assert cli_mutants.precisions(args) == ("f32", "f64")
    assert cli_mutants.precisions(parser.parse_args(["mutants", "-b", "opencl"])) == (
        "f64",
        "f32",
    )


def test_each_mutant_meets_every_variant_of_the_full_check() -> None:
    """Not the quick check's few sort strategies and step counts: a mutant of the
    code only another variant runs would survive it and count against the check."""
    device = DeviceInfo("opencl", 0, "a cpu", "v", "cpu", 0, 0, "d", "a", frozenset())
    spec = suite.BY_NAME["Bitonic_U32"]
    tasks = mutants.mutant_tasks(spec, device, mutants.check_options())
    strategies = {dict(t.params)["strategy"] for t in tasks}
    assert strategies == {"global", "local", "fused", "tiled", "wide"}
    steps = {dict(t.params).get("steps") for t in tasks if dict(t.params)["strategy"] == "tiled"}
    assert len(steps) > 1

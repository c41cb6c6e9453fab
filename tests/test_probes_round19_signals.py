"""Round 19 probes of interrupts, gates and the Python API: signals at each phase
of the commands that do work, `harness mutants`' gates, MPI jobs, and what
`harness.run` raises."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import FIXTURES, finished_run, need_backend

from harness.execution import results

ENV = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}


def _read_until(proc: subprocess.Popen, seen: str, err: bytes = b"") -> bytes:
    """What ``proc`` wrote on stderr up to and including ``seen``."""
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    while seen.encode() not in err:
        assert time.monotonic() < deadline and proc.poll() is None, err.decode()
        if select.select([proc.stderr], [], [], 0.05)[0]:
            err += os.read(proc.stderr.fileno(), 65536)
    return err


def _grown(run: Path, copies: int) -> Path:
    """The run folder ``run`` with its rows repeated ``copies`` times, each copy at
    sizes one larger (so that no row repeats another), as a long run leaves it."""
    journal = run / results.JOURNAL
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    grown = [dict(row, size=row["size"] + i) for i in range(copies) for row in rows]
    journal.write_text("".join(json.dumps(row) + "\n" for row in grown))
    meta = json.loads((run / results.METADATA).read_text())
    meta["journal_rows"] = len(grown)
    (run / results.METADATA).write_text(json.dumps(meta, indent=2))
    return run


def test_a_signal_while_merge_prints_its_table_names_the_whole_merged_run(
    tmp_path: Path,
) -> None:
    """A merge of long runs writes its folder whole, then prints the table of its
    thousands of rows; a SIGTERM while it printed said 'what it was writing may be
    incomplete' and never named the merged run, which was whole: merging again made
    the same run twice. It now names the folder and says it is whole (exit 130)."""
    quick = ["-k", "Stream_COPY", "Stream_DOT", "-b", "cpu", "--size", "1000", "--reps", "3"]
    first = _grown(finished_run(tmp_path / "a", *quick), 400)
    second = _grown(finished_run(tmp_path / "b", *quick), 400)
    out = tmp_path / "merged"
    out.mkdir()
    # stdout is not read: the table (over 64 KiB) fills the pipe and the merge
    # waits there, its folder written, until the signal comes.
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "merge", str(first), str(second), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    deadline = time.monotonic() + 120
    while not [p for p in out.iterdir() if p.name.startswith("run-")]:
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    (merged,) = [p for p in out.iterdir() if p.name.startswith("run-")]
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    err = err.decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert f"run folder: {merged} (written whole" in err, err
    assert "may be incomplete" not in err
    assert len(results.read_journal(merged)) == 1600
    assert results.read_metadata(merged)["interrupted"] is False


_API_RUN = """
import sys, harness
try:
    harness.run("Stream_TRIAD", "opencl", out=sys.argv[1], size=1000, reps=1,
                timeout=100, sources=sys.argv[2], progress=False)
except BaseException as exc:
    print(type(exc).__name__, exc)
else:
    print("returned")
"""


def test_an_interrupted_api_run_raises_keyboard_interrupt_naming_its_folder(
    tmp_path: Path,
) -> None:
    """Ctrl-C in harness.run swallowed the interrupt: a script running one
    harness.run after another went on to the next, and one stopped before its
    first row raised RunFolderError, a usage error, from loading no rows. It now
    raises KeyboardInterrupt, as Ctrl-C does in any Python code, once the run
    folder is written, naming it and how to continue it."""
    need_backend("opencl")
    proc = subprocess.Popen(
        [sys.executable, "-c", _API_RUN, str(tmp_path), str(FIXTURES / "hang")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    _read_until(proc, "run folder:")
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    (folder,) = [p for p in tmp_path.iterdir() if p.name.startswith("run-")]
    assert out.decode().strip() == (
        f"KeyboardInterrupt harness.run: interrupted; the rows measured so far are kept in "
        f"{folder}; continue with harness.run(resume={str(folder)!r})"
    ), err.decode()
    assert results.read_metadata(folder)["interrupted"] is True

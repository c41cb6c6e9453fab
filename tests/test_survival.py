"""A run killed mid-way keeps what it measured; readers survive torn journals."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import harness, need_backend, run_folder

from harness.execution import results


def test_sigkill_keeps_finished_rows_and_show_rebuilds_results(tmp_path: Path) -> None:
    need_backend("opencl")
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness",
            "run",
            "-k",
            "Stream",
            "-b",
            "cpu",
            "opencl",
            "--size",
            "100000",
            "--reps",
            "400",
            "--out",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    deadline = time.monotonic() + 120
    journal = None
    while time.monotonic() < deadline:
        folders = [p for p in tmp_path.iterdir() if p.is_dir()]
        if folders and (folders[0] / results.JOURNAL).exists():
            journal = folders[0] / results.JOURNAL
            if len(journal.read_text().splitlines()) >= 3:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert journal is not None
    folder = run_folder(tmp_path)
    assert not (folder / results.RESULTS).exists()
    kept = results.read_journal(folder)
    assert 3 <= len(kept) < 10

    shown = harness("show", str(folder))
    assert shown.returncode == 130, shown.stderr
    with (folder / results.RESULTS).open() as f:
        rows = list(csv.DictReader(f))
    assert [r["kernel"] for r in rows] == [r["kernel"] for r in kept]
    assert all(r["status"] == "ok" for r in rows)


def test_a_torn_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "--check", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    with (folder / results.JOURNAL).open("a") as f:
        f.write('{"kernel": "Stream_MU')
    shown = harness("show", str(folder))
    assert shown.returncode == 0
    assert "skipped a torn or corrupt line" in shown.stderr
    assert "Stream_COPY" in shown.stdout

"""How each backend queues a timed batch of repetitions, held or not, as rows say."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

from harness.execution import results

#: How wgpu queues its repetitions, held or not: each command buffer is submitted
#: as soon as it is encoded.
WGPU_QUEUE = "held (submitted as encoded)"


@pytest.mark.parametrize(
    ("hold", "queues"),
    [
        ((), {"cpu": "host", "opencl": "held (user event)", "wgpu": WGPU_QUEUE}),
        (("--no-hold",), {"cpu": "host", "opencl": "direct", "wgpu": WGPU_QUEUE}),
    ],
)
def test_each_backend_says_how_it_queued_repetitions(
    tmp_path: Path, hold: tuple[str, ...], queues: dict[str, str]
) -> None:
    for backend in queues:
        need_backend(backend)
    proc = harness(
        "run", "-k", "Basic_INDEXLIST_3LOOP", "-b", *queues, "--size", "5000", "--reps", "4",
        *hold, "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with (run_folder(tmp_path) / results.RESULTS).open() as f:
        rows = {r["backend"]: r for r in csv.DictReader(f)}
    assert {b: r["queue"] for b, r in rows.items()} == queues
    assert all(r["status"] == "ok" and float(r["time_min_s"]) > 0 for r in rows.values())

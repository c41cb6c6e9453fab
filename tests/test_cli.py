"""The command line as a user meets it: listings, runs, exit codes, bad input."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, harness, need_backend, run_folder

from harness.execution import results


def test_devices_lists_every_backend_with_reason_or_devices() -> None:
    proc = harness("devices", "--json")
    assert proc.returncode == 0, proc.stderr
    report = {entry["backend"]: entry for entry in json.loads(proc.stdout)}
    assert report["cpu"]["available"] and report["cpu"]["devices"][0]["id"] == "cpu:0"
    for entry in report.values():
        assert entry["available"] or entry["reason"]


def test_list_selects_by_group_glob_and_name() -> None:
    proc = harness("list", "-k", "Stream", "*DAXPY", "Demo_VADD")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    names = [line.split()[0] for line in lines[1 : lines.index("")]]
    assert names == [
        "Stream_COPY",
        "Stream_MUL",
        "Stream_ADD",
        "Stream_TRIAD",
        "Stream_DOT",
        "Basic_DAXPY",
        "Demo_VADD",
    ]


def test_list_shows_each_kernels_default_size_bytes_and_flops() -> None:
    proc = harness("list", "-k", "Stream_TRIAD", "Polybench_3MM", "Stream_COPY")
    assert proc.returncode == 0, proc.stderr
    header, *rows = proc.stdout.splitlines()[:4]
    assert header.split()[5:8] == ["size", "bytes/rep", "FLOPs/rep"]
    cells = {row.split()[0]: row.split()[5:10] for row in rows}
    # TRIAD at 10^6 doubles reads two arrays and writes one (24 MB) with 2 FLOPs each.
    assert cells["Stream_TRIAD"] == ["1000000", "24", "MB", "2", "MFLOP"]
    # 3MM: three products of 1000 x 1000 (x 1200) matrices, RAJAPerf's counts.
    assert cells["Polybench_3MM"][:1] == ["1000000"] and cells["Polybench_3MM"][3:] == [
        "6.42",
        "GFLOP",
    ]
    assert cells["Stream_COPY"][3] == "-"


def test_list_counts_rajaperfs_kernels() -> None:
    proc = harness("list")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    rows = [line.split() for line in lines[1 : lines.index("")]]
    groups = {"Stream", "Basic", "Lcals", "Polybench", "Apps", "Algorithm", "Comm"}
    rajaperf = [row[0] for row in rows if row[1] in groups]
    assert len(rajaperf) == len(set(rajaperf)) == 79
    assert proc.stdout.splitlines()[-1] == (
        f"{len(rows)} kernels, 79 of them RAJAPerf's (of its 79 that run in one process)"
    )


def test_run_writes_a_complete_run_folder(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "run",
        "-k",
        "Stream_TRIAD",
        "Stream_DOT",
        "-b",
        "cpu",
        "opencl",
        "--size",
        "20000",
        "--reps",
        "3",
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    assert str(folder) in proc.stdout
    with (folder / results.RESULTS).open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["kernel"], r["backend"]) for r in rows] == [
        ("Stream_TRIAD", "cpu"),
        ("Stream_TRIAD", "opencl"),
        ("Stream_DOT", "cpu"),
        ("Stream_DOT", "opencl"),
    ]
    assert all(r["status"] == "ok" and float(r["gbytes_per_s"]) > 0 for r in rows)
    assert list(rows[0])[: len(results.COLUMNS)] == list(results.COLUMNS)
    meta = json.loads((folder / results.METADATA).read_text())
    assert meta["end"] and meta["command"][:2] == ["harness", "run"]
    assert {d["id"] for d in meta["devices"]} == {"cpu:0", "opencl:0"}
    assert "numpy" in meta["libraries"] and meta["host"]["python"]
    assert (folder / results.SUMMARY).read_text().count("ok") >= 4


def test_a_wrong_kernel_fails_its_row_and_the_run(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "run",
        "-k",
        "Stream_TRIAD",
        "Stream_ADD",
        "-b",
        "opencl",
        "--check",
        "--sources",
        str(FIXTURES / "wrong_triad"),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    rows = {r["kernel"]: r for r in results.read_journal(run_folder(tmp_path))}
    assert rows["Stream_TRIAD"]["status"] == "fail"
    assert "relative error" in rows["Stream_TRIAD"]["reason"]
    assert rows["Stream_ADD"]["status"] == "ok"


def test_a_compile_error_is_an_error_row_naming_file_and_line(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "run",
        "-k",
        "Stream_TRIAD",
        "-b",
        "opencl",
        "--check",
        "--size",
        "999",
        "--sources",
        str(FIXTURES / "bad_syntax"),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 1
    (row,) = results.read_journal(run_folder(tmp_path))
    assert row["status"] == "error"
    assert "Stream_TRIAD.cl:7" in row["reason"] and "beta" in row["reason"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-k", "Nope"], "no kernel matches 'Nope'"),
        (["-b", "metal"], "unknown backend 'metal'; choose from cpu"),
        (["--device", "opencl:99"], "--device 'opencl:99': no such device; opencl has opencl:0"),
        (["--device", "opencl:x"], "expected BACKEND:INDEX such as opencl:0"),
        (["--device", "gpu0"], "'gpu0': no device's name contains it; expected all, host, default"),
        (["--device", "vulkan:0"], "unknown backend 'vulkan'"),
        (["--size", "0"], "'0' must be a positive whole number"),
        (["--size", "-3"], "'-3' must be a positive whole number"),
        (["--size", "big"], "'big' is not a whole number"),
        (["--reps", "0"], "'0' must be a positive whole number"),
        (["--size", "99999999999999999999"], "out of range: give 1 to 1e+18"),
        (
            ["-k", "Polybench_GEMM", "--size", "1000000000000000"],
            "Polybench_GEMM at size 1000000000000000 is past what a run records "
            "('flops_per_rep' is 113841999867876737242813; a whole number from 0 to 1e+18 "
            "is accepted); its sizes up to 425728304909 are accepted",
        ),
        (["-k", "Stream_TRIAD", "--sizes", "2^70"], "'size' is 1180591620717411303424"),
        (
            ["-k", "Stream_TRIAD", "--memory-moved", "1B"],
            "nothing to run: no selected kernel fits --memory-moved 1 bytes (the least, "
            "Stream_TRIAD's smallest size, needs 24)",
        ),
        (["--precision", "f16"], "invalid choice: 'f16'"),
    ],
)
def test_bad_input_gets_one_clear_line(args: list[str], message: str, tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness("run", *args, "--out", str(tmp_path))
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("device", "chosen"),
    [
        ("host", lambda d: d["backend"] == "cpu"),
        ("all", lambda d: True),
        ("llvmpipe", lambda d: "llvmpipe" in d["name"]),
    ],
)
def test_devices_by_word_or_name(tmp_path: Path, device: str, chosen: Any) -> None:
    need_backend("opencl")
    need_backend("wgpu")
    listed = json.loads(harness("devices", "--json").stdout)
    every = [d for b in listed if b["available"] for d in b["devices"]]
    want = {d["id"] for d in every if chosen(d)}
    proc = harness(
        "run", "-k", "Stream_COPY", "--check", "--size", "100", "--device", device,
        "--out", str(tmp_path),
    )  # fmt: skip
    rows = results.read_journal(run_folder(tmp_path))
    assert {r["device_id"] for r in rows} == want, proc.stderr
    for row in rows:
        if row["status"] == "ok":
            api = next(d["api"] for d in every if d["id"] == row["device_id"])
            assert row["device_api"] == api and row["device_driver"]


def test_an_out_folder_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    proc = harness("run", "-k", "Stream_COPY", "-b", "cpu", "--out", str(blocker / "runs"))
    assert proc.returncode == 2
    assert f"--out '{blocker / 'runs'}': cannot make a run folder there" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_show_names_a_folder_that_is_not_a_run(tmp_path: Path) -> None:
    proc = harness("show", str(tmp_path))
    assert proc.returncode == 2
    assert f"{tmp_path}: not a run folder (no journal.jsonl in it)" in proc.stderr


def test_a_reader_that_stops_reading_ends_the_command_quietly() -> None:
    """`harness list | head -1`: the pipe closes before the table is written, and
    the command ends with 141 (SIGPIPE's status) and no traceback."""
    env = {**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, err
    assert err == ""

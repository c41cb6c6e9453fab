"""The CUDA backend's host side, on a stand-in driver library: no GPU, no result.

tests/cuda_standin/standin.c is built here against cuda.h into a libcuda.so.1
that keeps device memory on the host, reads each loaded module's kernel
signatures and logs every launch with the bytes of its parameters. It executes
no kernel (but Stream_COPY's and Stream_MUL's, so that rows can pass end to
end), so these tests check only what the host does: argument packing against each compiled
signature, streams, graphs, contexts, faults, memory and version messages.
They claim nothing about results on a GPU.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, harness, required, run_folder

from harness.backends import cuda, cuda_compile
from harness.execution import results
from harness.model.spec import PRECISIONS

STANDIN = Path(__file__).parent / "cuda_standin"
SIGNATURES = FIXTURES / "cuda_signature"


def _cuda_header() -> Path | None:
    """The folder of a cuda.h: the NVIDIA runtime wheel's, else a CUDA toolkit's."""
    spec = importlib.util.find_spec("nvidia")
    places = (spec.submodule_search_locations or []) if spec else []
    wheels = [Path(p) / "cu13" / "include" for p in places]
    toolkits = [Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "include"]
    found = [d for d in (*wheels, *toolkits) if (d / "cuda.h").is_file()]
    return found[0] if found else None


@pytest.fixture(scope="session")
def standin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding the built stand-in libcuda.so.1."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    header = _cuda_header()
    if compiler is None or header is None or not cuda_compile.available():
        missing = "a C compiler" if compiler is None else "cuda.h" if header is None else "NVRTC"
        if required("cuda-compile"):
            pytest.fail(f"the stand-in CUDA driver needs {missing}, which is missing")
        pytest.skip(f"the stand-in CUDA driver needs {missing}")
    folder = tmp_path_factory.mktemp("standin")
    subprocess.run(
        [
            compiler,
            *("-O1", "-Wall", "-Werror", "-shared", "-fPIC", f"-I{header}"),
            "-Wl,-soname,libcuda.so.1",
            "-o",
            str(folder / "libcuda.so.1"),
            str(STANDIN / "standin.c"),
        ],
        check=True,
    )
    # cuBLAS and the cublasLt it is found beside (an empty library here).
    empty = folder / "empty.c"
    empty.write_text("int cublas_lt_standin;\n")
    for name, source in (("libcublas.so.13", "cublas_standin.c"), ("libcublasLt.so.13", empty)):
        subprocess.run(
            [
                compiler,
                *("-O1", "-Wall", "-Werror", "-shared", "-fPIC"),
                f"-Wl,-soname,{name}",
                "-o",
                str(folder / name),
                str(STANDIN / source),
            ],
            check=True,
        )
    return folder


def _env(standin: Path, log: Path, **settings: str) -> dict[str, str]:
    return {
        "LD_LIBRARY_PATH": str(standin),
        "STANDIN_LOG": str(log),
        "HARNESS_CUDA_BINDING": "cuda-python",
        **{f"STANDIN_{k.upper()}": v for k, v in settings.items()},
    }


def _launch_every_kernel(standin: Path, tmp_path: Path, *args: str) -> list[dict]:
    log = tmp_path / "log.jsonl"
    done = subprocess.run(
        [sys.executable, str(STANDIN / "launch_every_kernel.py"), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **_env(standin, log)},
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _packing_problems(line: dict) -> list[str]:
    """How the recorded launches of one kernel differ from what its description
    asks: entry, geometry, parameter count, each pointer and each scalar's bytes."""
    name = f"{line['kernel']} {line['params'] or ''}".strip()
    if line["error"]:
        return [f"{name}: {line['error']}"]
    allocs = [r["pointer"] for r in line["recorded"] if r["call"] == "alloc"]
    launched = [r for r in line["recorded"] if r["call"] == "launch"]
    if len(launched) != len(line["expected"]):
        return [f"{name}: {len(launched)} launches recorded, {len(line['expected'])} planned"]
    problems = []
    for i, (got, want) in enumerate(zip(launched, line["expected"], strict=True)):
        where = f"{name} launch {i} ({want['entry']})"
        if (got["name"], got["grid"], got["block"]) != (want["entry"], want["grid"], want["block"]):
            problems.append(f"{where}: launched {got['name']} {got['grid']} x {got['block']}")
        params = got["params"]
        pointers, scalars = params[: len(want["arrays"])], params[len(want["arrays"]) :]
        if len(params) != len(want["arrays"]) + len(want["scalars"]):
            problems.append(
                f"{where}: the compiled kernel takes {len(params)} parameters, the "
                f"description passes {len(want['arrays'])} arrays and "
                f"{len(want['scalars'])} scalars"
            )
            continue
        for k, (hex_pointer, index) in enumerate(zip(pointers, want["arrays"], strict=True)):
            if int.from_bytes(bytes.fromhex(hex_pointer), "little") != allocs[index]:
                problems.append(f"{where}: parameter {k} is not the address of array {index}")
        for k, (got_bytes, want_bytes) in enumerate(zip(scalars, want["scalars"], strict=True)):
            if got_bytes != want_bytes:
                problems.append(
                    f"{where}: scalar {k} arrives as {len(got_bytes) // 2} bytes {got_bytes}, "
                    f"declared as {len(want_bytes) // 2} bytes {want_bytes}"
                )
    return problems


@pytest.mark.full
@pytest.mark.parametrize("precision", PRECISIONS)
def test_every_kernel_passes_what_its_compiled_signature_takes(
    standin: Path, tmp_path: Path, precision: str
) -> None:
    lines = _launch_every_kernel(standin, tmp_path, precision)
    from harness import suite

    assert {line["kernel"] for line in lines} == {k.name for k in (*suite.ALL, *suite.INTERNAL)}
    assert all(
        r["kind"] == "cubin" for line in lines for r in line["recorded"] if r["call"] == "load"
    )
    problems = [p for line in lines for p in _packing_problems(line)]
    assert not problems, "\n".join(problems)
    assert sum(len(line["expected"]) for line in lines) >= len(lines)


@pytest.mark.parametrize(
    ("plant", "problem"),
    [
        ("dropped", "the compiled kernel takes 4 parameters, the description passes 3 arrays"),
        ("widened", "scalar 1 arrives as 8 bytes"),
    ],
)
def test_a_dropped_parameter_or_a_wider_scalar_is_caught(
    standin: Path, tmp_path: Path, plant: str, problem: str
) -> None:
    (line,) = _launch_every_kernel(
        standin, tmp_path, "f64", "--sources", str(SIGNATURES / plant), "Stream_TRIAD"
    )
    problems = _packing_problems(line)
    assert problems and problem in problems[0], problems


def _rows(out: Path) -> list[dict]:
    with (run_folder(out) / results.RESULTS).open() as f:
        return list(csv.DictReader(f))


def _log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _run_ok(standin: Path, tmp_path: Path, *args: str) -> tuple[list[dict], list[dict]]:
    """``harness run -b cuda ARGS`` on the stand-in, which must succeed: its rows
    and the stand-in's log of driver calls."""
    log = tmp_path / "log.jsonl"
    out = tmp_path / "o"
    proc = harness("run", "-b", "cuda", *args, "--out", str(out), env=_env(standin, log))
    assert proc.returncode == 0, proc.stderr
    return _rows(out), _log(log)


TIMED = ("--min-time", "0.01", "--max-time", "0.05", "--warmup", "1")


def test_an_illegal_address_is_one_error_row_and_a_fresh_worker_takes_the_next(
    standin: Path, tmp_path: Path
) -> None:
    log = tmp_path / "log.jsonl"
    env = _env(standin, log, fault="copy:700")
    proc = harness(
        "run", "-k", "Stream_COPY", "Stream_MUL", "-b", "cuda", "--size", "1000", *TIMED,
        "--out", str(tmp_path / "o"), env=env,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    lost, fine = _rows(tmp_path / "o")
    assert (lost["kernel"], lost["status"]) == ("Stream_COPY", "error")
    assert lost["reason"] == (
        "device lost: illegal address in Stream_COPY (cuStreamSynchronize failed: "
        "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered))"
    )
    assert (fine["kernel"], fine["status"], fine["reason"]) == ("Stream_MUL", "ok", "")
    assert fine["queue"] == "held (graph)"
    calls = [r["call"] for r in _log(log)]
    # Two workers took the primary context; nothing was freed after the fault.
    assert calls.count("retain") == 2
    fault = calls.index("synchronize", calls.index("launch"))
    assert "free" not in calls[fault : calls.index("retain", 1)]


def test_in_process_a_lost_device_fails_later_rows_and_says_so(
    standin: Path, tmp_path: Path
) -> None:
    env = _env(standin, tmp_path / "log.jsonl", fault="copy:700")
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cuda", "--sizes", "1000,2000", "--check",
        "--in-process", "--out", str(tmp_path / "o"), env=env,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    first, later = _rows(tmp_path / "o")
    assert first["reason"].startswith("device lost: illegal address in Stream_COPY (")
    assert later["reason"] == (
        "device lost: the device was lost earlier in this process (illegal address); "
        "without --in-process a fresh worker takes over"
    )


def test_in_process_run_gives_the_context_and_stream_back(standin: Path, tmp_path: Path) -> None:
    (row,), records = _run_ok(
        standin, tmp_path, "-k", "Stream_COPY", "--size", "1000", *TIMED, "--in-process"
    )
    assert row["status"] == "ok"
    calls = [r["call"] for r in records]
    assert calls.count("retain") == calls.count("release") == 1
    assert calls.count("alloc") == calls.count("free") > 0


def test_uploads_downloads_and_launches_share_the_sessions_stream(
    standin: Path, tmp_path: Path
) -> None:
    _, records = _run_ok(standin, tmp_path, "-k", "Stream_COPY", "--size", "1000", "--check")
    (stream,) = {r["stream"] for r in records if r["call"] == "stream"}
    used = [r for r in records if r["call"] in ("copy", "launch")]
    assert {"htod", "dtoh"} <= {r.get("kind") for r in used}
    assert all(r["stream"] == stream for r in used), used
    assert all(r["async"] == 1 for r in used if r["call"] == "copy")


def test_timed_repetitions_are_graph_launches_between_events(standin: Path, tmp_path: Path) -> None:
    (row,), records = _run_ok(
        standin, tmp_path, "-k", "Stream_COPY", "--size", "1000", "--reps", "5"
    )
    assert (row["queue"], row["reps"]) == ("held (graph)", "5")
    calls = [r["call"] for r in records]
    timed = calls[calls.index("capture") :]
    assert timed.count("capture") == 1 and timed.count("launch") == 0
    # Each repetition: an event, the whole repetition as one graph, an event.
    assert "".join(c[0] for c in timed if c in ("event", "graph")) == "ege" * 5


def test_unheld_repetitions_launch_directly(standin: Path, tmp_path: Path) -> None:
    (row,), records = _run_ok(
        standin, tmp_path, "-k", "Stream_COPY", "--size", "1000", "--reps", "5", "--no-hold"
    )
    assert row["queue"] == "direct"
    calls = [r["call"] for r in records]
    assert "capture" not in calls and "graph" not in calls


def _sort_tile(standin: Path, tmp_path: Path, tile: str, **settings: str) -> tuple[dict, list]:
    """A tiled sort at one tile size on the stand-in: its row (which cannot verify:
    the stand-in runs no sort) and the launches' and opt-ins' records."""
    log = tmp_path / "log.jsonl"
    out = tmp_path / "o"
    harness(
        "run", "-b", "cuda", "-k", "Bitonic_PAIRS", "--strategy", "tiled", "--tile_bytes", tile,
        "--size", "20000", "--reps", "1", *TIMED, "--out", str(out),
        env=_env(standin, log, **settings),
    )  # fmt: skip
    (row,) = _rows(out)
    records = _log(log) if log.exists() else []
    return row, [r for r in records if r["call"] in ("launch", "opt_in")]


def test_a_tile_over_48_kib_is_dynamic_shared_memory_each_function_opts_into(
    standin: Path, tmp_path: Path
) -> None:
    row, records = _sort_tile(standin, tmp_path, "131072")
    # Launched and run (the stand-in refuses a launch over 48 KiB without the
    # opt-in): what fails is the verification of a sort that did not run.
    assert row["status"] == "fail", row["reason"]
    launches = [r for r in records if r["call"] == "launch"]
    assert launches and {r["shared"] for r in launches} == {131072}
    opted = {r["name"]: r["shared"] for r in records if r["call"] == "opt_in"}
    assert opted == dict.fromkeys({r["name"] for r in launches}, 131072)
    first = {r["name"]: i for i, r in reversed(list(enumerate(records)))}
    assert all(records[first[name]]["call"] == "opt_in" for name in opted)


def test_a_tile_that_fits_is_declared_and_one_over_the_devices_limit_skipped(
    standin: Path, tmp_path: Path
) -> None:
    row, records = _sort_tile(standin, tmp_path / "fits", "32768")
    assert row["status"] == "fail", row["reason"]
    assert records and {(r["call"], r["shared"]) for r in records} == {("launch", 0)}
    row, records = _sort_tile(standin, tmp_path / "over", "131072", shared_optin="101376")
    assert row["status"] == "skipped" and not records
    assert row["reason"] == (
        "Bitonic_PAIRS needs 131072 bytes of shared memory a block; the device allows "
        "101376 (shared_mem_per_block_optin)"
    )


def test_transfers_are_copies_on_the_stream_timed_between_events(
    standin: Path, tmp_path: Path
) -> None:
    (row,), records = _run_ok(
        standin, tmp_path, "-k", "Stream_MUL", "--size", "1000", "--reps", "3",
        "--transfers", "per-launch",
    )  # fmt: skip
    assert (row["status"], row["transfer_timer"]) == ("ok", "device"), row["reason"]
    assert float(row["h2d_s"]) >= 0 and row["h2d_bytes_per_rep"] == row["d2h_bytes_per_rep"]
    calls = [r["call"] for r in records if r["call"] in ("event", "copy", "graph", "launch")]
    # The last repetition: upload c, the launch of b = alpha * c (a graph of one),
    # download b, each between two events on the stream.
    assert calls[-9:] == [
        "event", "copy", "event", "event", "graph", "event", "event", "copy", "event",
    ]  # fmt: skip
    kinds = [r.get("kind") for r in records if r["call"] == "copy"]
    assert kinds[-2:] == ["htod", "dtoh"]


def test_the_drivers_out_of_memory_is_an_error_row(standin: Path, tmp_path: Path) -> None:
    env = _env(standin, tmp_path / "log.jsonl", free="20000")
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cuda", "--sizes", "1000,2000", "--check",
        "--out", str(tmp_path / "o"), env=env,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    fits, too_big = _rows(tmp_path / "o")
    assert fits["status"] == "ok"
    assert too_big["status"] == "error"
    assert too_big["reason"].startswith(
        "out of memory: out of device memory allocating 33024 bytes (device memory 1073741824 "
        "bytes): cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
    ), too_big["reason"]


def test_a_driver_older_than_the_compiler_is_reported_once(standin: Path, tmp_path: Path) -> None:
    env = _env(standin, tmp_path / "log.jsonl", cuda_version="12040")
    made = ", ".join(cuda_compile.version(c) for c in cuda_compile.available())
    if all(v.split()[-1].startswith("12.") for v in made.split(", ")):
        pytest.skip(f"the compiler here ({made}) is for CUDA 12")
    proc = harness("devices", env=env)
    assert proc.returncode == 0, proc.stderr
    expected = (
        f"cuda: unavailable: the CUDA compiler here ({made}) is newer than the driver "
        "(CUDA 12.4), which cannot load its code: update the driver, or install a compiler "
        "for CUDA 12: pip install 'harness[cuda12]'"
    )
    assert expected in proc.stdout.splitlines(), proc.stdout
    run = harness("run", "-b", "cuda", "--check", "--out", str(tmp_path / "o"), env=env)
    assert run.returncode == 2
    reason = expected.removeprefix("cuda: unavailable: ")
    assert run.stderr.strip().splitlines() == [
        f"harness: error: backend cuda is unavailable: {reason}"
    ], run.stderr


def test_a_cubin_of_the_drivers_major_release_is_used(standin: Path, tmp_path: Path) -> None:
    """NVRTC 13.5's cubins load on a CUDA 13.0 driver: no version complaint."""
    log = tmp_path / "log.jsonl"
    env = _env(standin, log, cuda_version="13000")
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "cuda", "--size", "1000", "--check",
        "--out", str(tmp_path / "o"), env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = _rows(tmp_path / "o")
    assert row["status"] == "ok"
    assert {r["kind"] for r in _log(log) if r["call"] == "load"} == {"cubin"}
    assert cuda.compiler_for(13000) == cuda_compile.available()[0]


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_blas_calls_on_the_device_arrays_verify(
    standin: Path, tmp_path: Path, precision: str
) -> None:
    """The library variants through cuBLAS: the stand-in computes each routine by
    BLAS's column-major definition on the arrays, so a row verifies only where
    the backend maps the row-major routine onto it rightly."""
    names = ("Polybench_GEMM", "Polybench_3MM", "Polybench_ATAX", "Polybench_GESUMMV")
    rows, _ = _run_ok(
        standin, tmp_path, "-k", *names, "--impl", "library", "--check", "--precision", precision
    )
    assert {r["kernel"] for r in rows} == set(names)
    assert all(r["status"] == "ok" and r["impl"] == "library" for r in rows), rows


def test_timed_blas_calls_are_queued_directly(standin: Path, tmp_path: Path) -> None:
    (row,), records = _run_ok(
        standin, tmp_path, "-k", "Polybench_GEMM", "--impl", "library", "--size", "100",
        "--reps", "3",
    )  # fmt: skip
    assert (row["status"], row["queue"], row["reps"]) == ("ok", "direct", "3")
    assert "capture" not in [r["call"] for r in records]

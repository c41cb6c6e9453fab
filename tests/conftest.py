"""Shared test helpers: real backends, real command lines; and the two tiers.

The fast tier (the default) is every unit test and every kernel verified on
every backend at f64; the full tier adds the tests marked ``full``: f32,
every sort strategy and step count, the larger sorts, the Oclgrind simulator,
the mutation gate, every CUDA compile, the device backends' RAJAPerf
checksums and the GPU forms. ``--full`` runs both, ``-m full`` the full tier
alone.
"""

from __future__ import annotations

import datetime
import fnmatch
import itertools
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from harness.backends import get as get_backend

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        help="run the full tier too: the tests marked full (left out by default)",
    )


def _full_tier(config: pytest.Config) -> bool:
    """Whether the tests marked ``full`` are in: with --full, or when a -m
    expression chooses by marks itself (``-m full`` runs the full tier alone)."""
    return bool(config.getoption("--full") or config.option.markexpr)


def pytest_report_header(config: pytest.Config) -> str:
    if _full_tier(config):
        return "tiers: fast and full (as -m selects)"
    return "tiers: fast only (--full adds the tests marked full)"


#: Slow tests of the full tier marked here, by node id (the parametrised cases of a
#: test whose other cases stay fast, and slow end-to-end tests of other tiers'
#: concerns: planted bugs, f32, wheels, sweeps), so that the fast tier fits minutes.
FULL_TIER = (
    "tests/test_plot.py::test_time_plot_of_many_rows_fits_a_screen[[]151-2]",
    "tests/test_transfers.py::test_three_modes_give_verified_rows_split_into_parts",
    "tests/test_mutants.py::test_run_options_narrow_the_check_a_mutant_must_pass",
    "tests/test_library.py::test_blas_shaped_polybench_kernels_verify_as_blas_calls[[]f32]",
    "tests/test_sort.py::test_a_nan_ordering_bug_fails_the_default_check",
    "tests/test_sort.py::test_a_tile_pass_that_leaves_its_later_blocks_fails_the_check",
    "tests/test_sort.py::test_a_tile_merge_that_mirrors_its_first_step_fails_the_check",
    "tests/test_reductions.py::test_edge_sizes[[]*-f32[]]",
    "tests/test_rajaperf_checksums.py::test_checksum_matches_rajaperf[[]Apps_INTSC_HEXHEX-*",
    "tests/test_units.py::test_the_wheel_ships_the_kernel_sources",
    "tests/test_group_sweep.py::test_sweep_rows_skip_over_a_limit_and_the_report_marks_the_best",
    "tests/test_user_suite.py::test_mutants_of_the_example_are_killed",
    "tests/test_partition.py::test_chunked_walks_compile_for_cuda",
    # Scenarios beyond the first features: jobs of several MPI ranks (and losing one),
    # library calls beside kernels and at f32, a measured peak, the full check's
    # plan, a RAJAPerf import, the simulator's place, and plots of real sweeps,
    # of sort strategies and of 150 rows. The crash and the hang stay in the fast
    # tier beside another device's rows (test_check_together).
    "tests/test_mpi.py::*",
    "tests/test_library.py::test_library_and_kernel_verify_side_by_side",
    "tests/test_library.py::test_a_wrong_library_call_fails_its_row[[]f32]",
    "tests/test_library.py::test_sgemv_and_its_library_call_verify_in_single_precision",
    "tests/test_peaks.py::test_peak_measures_keeps_and_places_every_row",
    "tests/test_run_selection.py::test_full_check_from_the_command_line_plans_every_choice",
    "tests/test_rajaperf_import.py::test_rajaperf_beside_our_run_in_one_report_and_plot",
    "tests/test_oclgrind.py::test_the_simulator_comes_last_and_is_never_a_default",
    "tests/test_plot.py::test_time_plot_of_many_rows_fits_a_screen[[]150-3]",
    "tests/test_plot.py::test_saturation_of_a_real_sweep",
    "tests/test_plot.py::test_size_sweep_over_two_runs_is_one_line_per_device",
    "tests/test_plot.py::test_sort_throughput_per_device_and_strategy",
    "tests/test_faults.py::test_a_crashing_kernel_is_an_error_row_and_the_run_goes_on",
    "tests/test_faults.py::test_a_hanging_kernel_times_out_and_the_run_goes_on",
    # Abuse and end-to-end scenarios whose mechanisms other fast tests hold: a
    # second signal, a second writer, a compile cut short, a kill and a resume, a
    # row sized down, a run without kernel facts, plots of damaged or peak-placed
    # runs, the HTML report in Chromium, the device selection by other words.
    "tests/test_cli.py::test_devices_by_word_or_name[[]host-*",
    "tests/test_cli.py::test_devices_by_word_or_name[[]llvmpipe-*",
    "tests/test_damaged_inputs.py::test_commands_take_a_journal_with_an_absurd_time[[]plot-*",
    "tests/test_faults.py::test_sigkill_then_resume_gives_the_rows_of_an_uninterrupted_run",
    "tests/test_mutants_gate.py::test_a_second_sigterm_stops_at_once_writes_and_exits_143",
    "tests/test_plot.py::test_peak_gbs_replaces_the_measured_peak",
    "tests/test_plot.py::test_plot_command_survives_unusable_journal_values",
    "tests/test_report.py::test_html_report_is_self_contained_and_renders_in_chromium",
    "tests/test_report_story.py::test_a_run_without_kernel_facts_reports_without_the_suite",
    "tests/test_run_folder_holes.py::test_a_second_writer_is_refused_naming_the_first*",
    "tests/test_run_folder_holes.py::test_sigterm_finishes_the_row_keeps_the_rows_and_exits_130",
    "tests/test_run_selection.py::test_a_row_that_would_take_minutes_is_sized_down_and_says_so",
    "tests/test_signals.py::test_ctrl_c_during_a_compile_records_no_compile_error",
    # Round 25's probes of the commands that read and write run folders.
    "tests/test_probes_round25_readers.py::*",
    # Round 25's probes of harness run's counts, resumes and signals, and its API.
    "tests/test_probes_round25_run.py::*",
    # Round 25's probes of mutants, peak, cuda-compile, devices, list and the scripts.
    "tests/test_probes_round25_tools.py::*",
    # Round 25's probes of repeats within one comma list and of heavily damaged files.
    "tests/test_probes_round25_misc.py::*",
    # Round 26's probes of harness run, its Python API and MPI jobs.
    "tests/test_probes_round26_run.py::*",
    # Round 26's probes of the commands that read and write run folders.
    "tests/test_probes_round26_readers.py::*",
    # Round 26's probes of mutants, peak, cuda-compile, devices, list and the scripts.
    "tests/test_probes_round26_tools.py::*",
    # Round 26's probes between the commands, and of what earlier rounds left open.
    "tests/test_probes_round26_misc.py::*",
    # Round 26's probes of signals and of two commands at once, on every command.
    "tests/test_probes_round26_signals.py::*",
    # Round 26's probes of user suites and of the Python API, on every command.
    "tests/test_probes_round26_api.py::*",
    # Round 26's probes of what report, plot and show present.
    "tests/test_probes_round26_outputs.py::*",
    # Round 27's probes of harness run, its Python API and MPI jobs.
    "tests/test_probes_round27_run.py::*",
    # Round 27's probes of mutants, peak, cuda-compile, devices, list and the scripts.
    "tests/test_probes_round27_tools.py::*",
    # Round 27's probes of user suites, the Python API and signals on every command.
    "tests/test_probes_round27_api.py::*",
    "tests/test_probes_round32.py::test_rank_0_stopped_as_it_starts_ends_the_job_at_once",
)


#: The longest tests, by node id, run first, so that no core is left with one of
#: them at the end while the other has nothing left to do.
FIRST = (
    "tests/test_mutants.py::test_a_fixed_sample_of_mutants_is_killed*",
    "tests/test_pycuda_wheel.py::*",
    "tests/test_oclgrind.py::test_every_kernel_with_barriers_checks_clean_at_a_small_size",
    "tests/test_cuda_host.py::test_every_kernel_passes_what_its_compiled_signature_takes*",
    "tests/test_device_forms.py::*",
    "tests/test_group_sweep.py::*",
)


def _first(nodeid: str) -> int:
    """Where a test goes in the run: its place in `FIRST`, else after them all."""
    return next((i for i, p in enumerate(FIRST) if fnmatch.fnmatchcase(nodeid, p)), len(FIRST))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The fast tier by default: every unit test and every kernel verified once
    per backend; the tests marked ``full`` (or listed in `FULL_TIER`) are
    deselected unless asked for. The `FIRST` tests go first."""
    for item in items:
        if any(fnmatch.fnmatchcase(item.nodeid, pattern) for pattern in FULL_TIER):
            item.add_marker(pytest.mark.full)
    items.sort(key=lambda item: _first(item.nodeid))
    if _full_tier(config):
        return
    full = [item for item in items if item.get_closest_marker("full")]
    if full:
        config.hook.pytest_deselected(items=full)
        items[:] = [item for item in items if not item.get_closest_marker("full")]


def required(name: str) -> bool:
    """Whether the test set-up promised this backend (then its absence fails)."""
    return name in os.environ.get("HARNESS_REQUIRE_BACKENDS", "").split(",")


def need_backend(name: str) -> None:
    """Skip the calling test when a backend is unavailable, unless it is required."""
    reason = get_backend(name).unavailable_reason()
    if reason is None:
        return
    if required(name):
        pytest.fail(f"{name} is required here but unavailable: {reason}")
    pytest.skip(f"{name} unavailable: {reason}")


def device_without_f64() -> str:
    """A device here that lacks f64 (lavapipe through OpenGL), or the test is skipped."""
    need_backend("wgpu")
    proc = harness("devices", "--json")
    assert proc.returncode == 0, proc.stderr
    for backend in json.loads(proc.stdout):
        for device in backend["devices"]:
            if "f64" not in device["features"]:
                return device["id"]
    pytest.skip("no device without f64 here")


def harness(
    *args: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run ``python -m harness ARGS`` (with ``env`` added to the environment)
    and capture its output."""
    env = {**os.environ, **(env or {})}
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def harness_to_gone_reader(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``harness ARGS | true``: a standard output whose reader has already gone."""
    read, write = os.pipe()
    os.close(read)
    environment = {**os.environ, **(env or {})}
    environment.setdefault("XDG_RUNTIME_DIR", "/tmp")
    try:
        return subprocess.run(
            [sys.executable, "-m", "harness", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
            timeout=300,
        )
    finally:
        os.close(write)


def mpirun() -> str:
    """Open MPI's launcher; the test is skipped where it or mpi4py is missing, or
    fails where HARNESS_REQUIRE_BACKENDS names mpi."""
    path = shutil.which("mpirun")
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        path = None
    if path is None:
        if required("mpi"):
            pytest.fail("mpirun and mpi4py are required here (HARNESS_REQUIRE_BACKENDS)")
        pytest.skip("mpirun or mpi4py is not installed (Debian: openmpi-bin; pip: mpi4py)")
    return path


def mpi_env() -> dict[str, str]:
    """This environment with Open MPI told to run as root, as containers run tests."""
    return {
        **os.environ,
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp"),
    }


def harness_mpi(*args: str, ranks: int = 2, timeout: float = 120) -> subprocess.CompletedProcess:
    """``mpirun -n RANKS python -m harness ARGS``."""
    command = [mpirun(), "-n", str(ranks), "--oversubscribe", sys.executable, "-m", "harness"]
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=timeout, env=mpi_env()
    )


def rank_pid(rank: int, out: Path) -> int | None:
    """The process id of the job's rank ``rank`` writing to ``out``, once it runs."""
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        ours = str(out).encode() in command and b"mpirun" not in command
        if ours and f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ:
            return int(entry.name)
    return None


def run_folder(out: Path) -> Path:
    """The single run folder a run made under ``out``."""
    folders = [p for p in out.iterdir() if p.is_dir()]
    assert len(folders) == 1, folders
    return folders[0]


def source_names(merged: Path) -> list[str]:
    """The names a merged run gives the runs it merged, in order: a folder's name, or
    with folders above it where two runs began in the same second (`merge.run_names`)."""
    meta = json.loads((merged / "metadata.json").read_text())
    return [source["run"] for source in meta["merged_from"]]


def finished_run(out: Path, *args: str) -> Path:
    """The run folder of ``harness run ARGS --out OUT``, which must pass: a run to
    read, or to copy with `copy_run` and damage."""
    proc = harness("run", *args, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def copy_run(folder: Path, parent: Path) -> Path:
    """A copy of the run folder ``folder`` under ``parent``, by the same name, made
    another run (its own id and start): compare, merge and report refuse a run beside
    a copy of itself, where a test means two runs of one machine."""
    copy = parent / folder.name
    shutil.copytree(folder, copy)
    return another_run(copy)


_SHIFTS = itertools.count(1)


def shifted(start: str | None) -> str:
    """A run's start made another run's: earlier by a number of seconds no other
    call gave (so before its end still), as a time `metadata.now` writes."""
    when = datetime.datetime.fromisoformat(start or "2026-01-01T00:00:00+0000")
    return (when - datetime.timedelta(seconds=next(_SHIFTS))).strftime("%Y-%m-%dT%H:%M:%S%z")


def another_run(copy: Path) -> Path:
    """A copied run folder made another run: its own id and start."""
    path = copy / "metadata.json"
    if path.is_file():
        meta = json.loads(path.read_text())
        meta.update(run_id=uuid.uuid4().hex, start=shifted(meta.get("start")))
        path.write_text(json.dumps(meta, indent=2))
    return copy


def cut_journal(run: Path, keep: int) -> Path:
    """The run's journal cut to its first ``keep`` rows, as a run that stopped there
    leaves it: its metadata counts that many (``journal_rows``), where it counts any,
    so that the rows cut are not taken for rows removed by hand."""
    journal = run / "journal.jsonl"
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:keep]))
    path = run / "metadata.json"
    if path.is_file():
        meta = json.loads(path.read_text())
        if "journal_rows" in meta:
            meta["journal_rows"] = keep
            path.write_text(json.dumps(meta, indent=2))
    return journal


@pytest.fixture(scope="module")
def quick_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of the test module's QUICK options with three repetitions a
    row: a run to read, or to copy (fixture ``run``) and damage."""
    return finished_run(tmp_path_factory.mktemp("quick"), *request.module.QUICK, "--reps", "3")


@pytest.fixture
def run(quick_run: Path, tmp_path: Path) -> Path:
    """A copy of the module's quick run to damage."""
    return copy_run(quick_run, tmp_path / "copy")


def one_error(err: str) -> str:
    """The single line of a command that stopped on bad input, less its prefix."""
    assert "Traceback" not in err, err
    assert err.startswith("harness: error: ") and err.count("\n") == 1, err
    return err.strip()[len("harness: error: ") :]


def not_ok(rows: list[dict[str, Any]], *columns: str) -> list[str]:
    """A line per row that did not pass: its kernel, the ``columns`` that tell it
    from its neighbours, its device and its reason (for an assertion message)."""
    return [
        " ".join([str(r["kernel"]), *(f"{c}={r.get(c)}" for c in columns), str(r["device_id"])])
        + f": {r['reason']}"
        for r in rows
        if r["status"] != "ok"
    ]


def plant(root: Path, language: str, file: str, old: str, new: str) -> Path:
    """A ``--sources`` folder ``root`` holding the shipped sources of kernels/``language``
    (opencl, cuda, wgsl, or c for the bodies OpenCL and CUDA share) with one bug
    planted: ``old``, which must occur exactly once in ``file``, becomes ``new``.
    Every source of the folder is copied, so includes resolve as shipped."""
    shipped = Path(__file__).resolve().parent.parent / "kernels" / language
    folder = root / language
    folder.mkdir(parents=True, exist_ok=True)
    for path in shipped.iterdir():
        text = path.read_text(encoding="utf-8")
        if path.name == file:
            assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {file}"
            text = text.replace(old, new)
        (folder / path.name).write_text(text, encoding="utf-8")
    return root


def started_until(args: list[str], seen: str) -> tuple[subprocess.Popen, bytes]:
    """``harness ARGS`` started, once its stderr shows ``seen``: the process and
    what it printed on stderr so far (its stdout a pipe too)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")},
    )
    assert proc.stderr is not None
    err = b""
    deadline = time.monotonic() + 60
    while seen.encode() not in err:
        assert time.monotonic() < deadline and proc.poll() is None, err.decode()
        if select.select([proc.stderr], [], [], 0.05)[0]:
            err += os.read(proc.stderr.fileno(), 65536)
    return proc, err


def interrupted(
    args: list[str], seen: str, signum: int = signal.SIGINT
) -> subprocess.CompletedProcess:
    """``harness ARGS``, sent ``signum`` once its stderr shows ``seen``; what it printed."""
    proc, err = started_until(args, seen)
    proc.send_signal(signum)
    out, rest = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(args, proc.returncode, out.decode(), (err + rest).decode())


def start_run(args: list[str], out: Path, **popen: Any) -> subprocess.Popen:
    """``harness run ARGS --out OUT`` started in the background, stderr piped
    (and stdout, unless ``stdout=`` says otherwise)."""
    env = {**os.environ}
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    popen.setdefault("stdout", subprocess.PIPE)
    return subprocess.Popen(
        [sys.executable, "-m", "harness", "run", *args, "--out", str(out)],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **popen,
    )


def wait_rows(out: Path, count: int) -> Path:
    """The run folder under ``out`` once its journal has ``count`` complete rows."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        folders = [p for p in out.iterdir() if p.is_dir()] if out.exists() else []
        journal = folders[0] / "journal.jsonl" if folders else None
        if journal and journal.exists() and journal.read_text().count("\n") >= count:
            return folders[0]
        time.sleep(0.02)
    raise AssertionError(f"no {count} rows within two minutes")


@pytest.fixture(scope="module")
def copy_run_of_two(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of Stream_COPY and Stream_ADD on the cpu backend at size 1000."""
    out = tmp_path_factory.mktemp("two")
    proc = harness(
        "run", "-k", "Stream_COPY", "Stream_ADD", "-b", "cpu", "--size", "1000",
        "--reps", "3", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def one_quick_run(out: Path) -> Path:
    """A finished run of one quick row on numpy (Stream_TRIAD, size 1000, 2 reps) under ``out``."""
    proc = harness(
        "run", "-k", "Stream_TRIAD", "-b", "cpu", "--size", "1000", "--reps", "2",
        "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def first_row_edited(run: Path, **change: Any) -> Path:
    """``run`` (a copy) with its journal's first row taking ``change``."""
    journal = run / "journal.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    rows[0].update(change)
    journal.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return run

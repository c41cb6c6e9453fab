"""What a run selects: kernels left out with -x, both precisions in one run, the
quick check and the full one, and seeds in range."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

import harness as harness_package
from harness import suite
from harness.backends.base import DeviceInfo
from harness.errors import UsageError
from harness.execution import results
from harness.execution.runner import RunOptions, Task, plan
from harness.model.spec import device_words, param_choices

SORTS = [k.name for k in suite.ALL if any(p.name == "strategy" for p in k.params)]


def _device(backend: str, kind: str) -> DeviceInfo:
    return DeviceInfo(
        backend=backend,
        index=0,
        name=f"{backend} device",
        vendor="",
        kind=kind,
        memory_bytes=2**30,
        compute_units=1,
        driver="",
        api="",
        features=frozenset({"f64"}),
    )


def test_exclude_leaves_kernels_out_as_k_selects_them(tmp_path: Path) -> None:
    proc = harness(
        "run", "-k", "Stream", "-x", "TRIAD", "Stream_D*", "-b", "cpu", "--check",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with (run_folder(tmp_path) / results.RESULTS).open() as f:
        kernels = {row["kernel"] for row in csv.DictReader(f)}
    assert kernels == {"Stream_COPY", "Stream_MUL", "Stream_ADD"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-k", "Stream", "-x", "Stream"], "-x Stream: leaves out every kernel selected"),
        (["-k", "Stream", "-x", "NoSuchKernel"], "NoSuchKernel"),
        (["--seed", "-1"], "'-1' is out of range: give 0 to 4294967295"),
        (["--seed", "4294967296"], "out of range"),
        (["--check", "thorough"], "invalid choice: 'thorough'"),
        (["--device", ""], "--device '': empty; expected all, host, default"),
        (["--device", " "], "--device ' ': empty"),
        (["--precision", "f16"], "invalid choice: 'f16'"),
    ],
)
def test_bad_selection_is_one_line_and_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    proc = harness("run", "-b", "cpu", "--check", *args, "--out", str(tmp_path))
    assert proc.returncode == 2
    assert message in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not list(tmp_path.glob("run-*"))


def test_both_precisions_in_one_run(tmp_path: Path) -> None:
    proc = harness(
        "run", "-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--check",
        "--precision", "f64", "f32", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with (run_folder(tmp_path) / results.RESULTS).open() as f:
        rows = list(csv.DictReader(f))
    found = Counter((r["kernel"], r["precision"]) for r in rows)
    sizes = {
        name: len(suite.BY_NAME[name].sizes_for_check) for name in ("Stream_TRIAD", "Basic_DAXPY")
    }
    assert found == {(k, p): n for k, n in sizes.items() for p in ("f64", "f32")}
    assert all(r["status"] == "ok" for r in rows)


def test_quick_check_times_each_devices_choice_and_one_other_per_kernel() -> None:
    devices = [_device("cpu", "cpu"), _device("opencl", "cpu"), _device("wgpu", "discrete gpu")]
    sorts = [suite.BY_NAME[name] for name in SORTS]
    quick = plan(sorts, devices, RunOptions(check=True))
    full = plan(sorts, devices, RunOptions(check=True, check_all=True))
    assert len(quick) < len(full) / 2
    for spec in sorts:
        for device in devices:
            words = device_words(device.backend, device.kind)
            timed = dict(param_choices(spec, {}, False, words)[0])["strategy"]
            checked = {
                dict(t.params)["strategy"]
                for t in quick
                if t.kernel == spec.name and t.backend == device.backend
            }
            assert timed in checked and len(checked) == 2, (spec.name, device.backend, checked)
    # Across the sorts, the quick check still covers every strategy and step count.
    strategies = {dict(t.params)["strategy"] for t in quick}
    steps = {dict(t.params).get("steps") for t in quick} - {None}
    assert strategies == set(suite.PARAMS["strategy"].choices)
    assert {dict(t.params)["strategy"] for t in quick if t.backend != "cpu"} == set(
        suite.PARAMS["strategy"].checked
    )
    assert steps == set(suite.PARAMS["steps"].checked)
    # The full check runs every combination the quick one does, and more.
    assert {t for t in quick} <= set(full)


def test_full_check_from_the_command_line_plans_every_choice(tmp_path: Path) -> None:
    need_backend("opencl")
    rows = {}
    for mode in ("quick", "full"):
        proc = harness(
            "run", "-k", "Bitonic_U32", "-b", "cpu", "opencl", "--check", mode, "--size", "33",
            "--out", str(tmp_path / mode),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        with (run_folder(tmp_path / mode) / results.RESULTS).open() as f:
            rows[mode] = {
                (r["backend"], r["strategy"], r.get("steps") or "") for r in csv.DictReader(f)
            }
    # Every network at every step count on both; numpy's own sort on the host only.
    assert len([r for r in rows["full"] if r[0] == "opencl"]) == 17
    assert len([r for r in rows["full"] if r[0] == "cpu"]) == 18
    assert ("cpu", "library", "") in rows["full"] - {r for r in rows["full"] if r[0] == "opencl"}
    # Quick: what each device times (np.sort on the host, fused at 4 steps on PoCL)
    # and one other.
    assert rows["quick"] < rows["full"]
    assert ("cpu", "library", "") in rows["quick"] and ("opencl", "fused", "4") in rows["quick"]


def test_the_api_refuses_a_switch_that_is_not_a_bool(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"in_process='no': expected True or False"):
        harness_package.run("Stream_TRIAD", "cpu", in_process="no", out=tmp_path)
    with pytest.raises(UsageError, match="invalid choice: 'no'"):
        harness_package.run("Stream_TRIAD", "cpu", check="no", out=tmp_path)
    with pytest.raises(UsageError, match="NoSuchKernel"):
        harness_package.run("NoSuchKernel", "cpu", check=True, out=tmp_path)
    assert not list(tmp_path.glob("run-*"))


def test_a_row_that_would_take_minutes_is_sized_down_and_says_so(tmp_path: Path) -> None:
    """The numpy backend's global bitonic network takes about a second a repetition
    on 2^20 pairs: with five warm-ups a row of them would outrun its 5 s budget,
    so it is sized down. (With none it was at the budget's edge, and a quick
    machine kept the size.)"""
    proc = harness(
        "run", "-k", "Bitonic_PAIRS", "-b", "cpu", "--strategy", "global", "--warmup", "5",
        "--max-time", "0.5", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = results.read_journal(run_folder(tmp_path))
    default = suite.BY_NAME["Bitonic_PAIRS"].default_size
    assert row["status"] == "ok" and row["sized_from"] == default
    assert row["size"] < default and row["size"] & (row["size"] - 1) == 0
    assert row["reason"].startswith(f"sized down from {default} to {row['size']}: ")
    assert f"({row['reason']})" in proc.stderr
    assert "1 row(s) sized down to fit their time budget" in proc.stdout
    assert row["bytes_per_rep"] < suite.BY_NAME["Bitonic_PAIRS"].traffic(default, 8).moved


def test_a_size_given_is_never_sized_down(tmp_path: Path) -> None:
    proc = harness(
        "run", "-k", "Bitonic_PAIRS", "-b", "cpu", "--strategy", "global", "--warmup", "0",
        "--reps", "1", "--size", "70000", "--max-time", "0.2", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (row,) = results.read_journal(run_folder(tmp_path))
    assert row["size"] == 70000 and "sized_from" not in row


def test_the_plan_says_what_runs_and_about_how_long(tmp_path: Path) -> None:
    proc = harness("run", "-k", "Stream_TRIAD", "Stream_COPY", "-b", "cpu", "--reps", "2",
                   "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "plan: 2 rows (2 kernels on cpu:0), 2 timed repetitions each" in proc.stderr
    from harness.cli.run_plan import MAX_TIME_S, ROW_OVERHEAD_S, row_time

    # A few rows get the most time a row may have; many share the budget.
    assert row_time(2, 300) == MAX_TIME_S
    assert row_time(279, 600) == pytest.approx(600 / 279 - ROW_OVERHEAD_S, abs=0.01)
    assert row_time(100000, 300) == 0.2


def test_a_checks_estimate_counts_the_rows_that_run_at_once() -> None:
    """A check's rows run on as many workers at once as the host has cores: its
    estimate is the rows' host time over them (1146 rows on two cores took 2.8 to
    3.2 minutes), not one row after another (which said 15 minutes)."""
    from harness.cli.run_plan import CHECK_ROW_S, check_seconds, outline
    from harness.execution.workers import CHECK_LANES

    tasks = [Task("Stream_COPY", "cpu", 0, 100, "f64")] * 1146
    assert check_seconds(1146) == pytest.approx(1146 * CHECK_ROW_S / CHECK_LANES)
    minutes = round(check_seconds(1146) / 60)
    assert outline(tasks, RunOptions(check=True)).endswith(
        f"verification only: about {minutes} min"
    )


def test_size_factors_scale_each_kernels_default_and_verify(tmp_path: Path) -> None:
    proc = harness(
        "run", "-k", "Stream_TRIAD", "Apps_VOL3D", "-b", "cpu", "--size-factor", "0.01",
        "0.02", "--sizes", "1000", "--reps", "1", "--warmup", "0", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path))
    for name in ("Stream_TRIAD", "Apps_VOL3D"):
        default = suite.BY_NAME[name].default_size
        sizes = sorted(r["size"] for r in rows if r["kernel"] == name)
        assert sizes == sorted({1000, round(default * 0.01), round(default * 0.02)}), sizes
    assert all(r["status"] == "ok" and r["max_rel_error"] is not None for r in rows)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size-factor", "0"], "'0' is out of range: give a factor above 0"),
        (["--size-factor", "x"], "'x' is not a number such as 0.5 or 2"),
        (["--size-factor", "2", "--size", "100"], "--size-factor with --size"),
    ],
)
def test_bad_size_factors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", *args, "--out", str(tmp_path))
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert not list(tmp_path.glob("run-*"))


def test_a_plan_names_the_simulators_rows_apart_from_its_estimate() -> None:
    """A check of Apps_INTSC_HEXHEX on the simulator was planned at 'about 0 s' and
    took nine minutes: a simulator's rows are named apart, out of the estimate."""
    from harness.backends.base import DeviceInfo
    from harness.cli.run_plan import check_seconds, outline

    cpu = Task("Stream_COPY", "cpu", 0, 100, "f64")
    simulated = Task("Apps_INTSC_HEXHEX", "opencl", 2, 1000, "f64")
    facts = ("Oclgrind Simulator", "Oclgrind", "simulator", 1 << 30, 1, "21.10", "OpenCL 1.2")
    listed = [DeviceInfo("opencl", 2, *facts, frozenset())]
    assert outline([simulated], RunOptions(check=True), listed) == (
        "1 row (1 kernel on opencl:2), verification only; 1 row on the simulator opencl:2, "
        "seconds to many minutes each"
    )
    both = outline([cpu] * 600 + [simulated] * 2, RunOptions(check=True), listed)
    assert both == (
        f"602 rows (2 kernels on cpu:0, opencl:2), verification only: about "
        f"{round(check_seconds(600) / 60)} min; 2 rows on the simulator opencl:2, seconds to "
        "many minutes each"
    )
    timed = outline([cpu, simulated], RunOptions(max_time=1.0, min_time=0.5), listed)
    assert "about 1 s to 3 s in all; 1 row on the simulator opencl:2, seconds to many" in timed

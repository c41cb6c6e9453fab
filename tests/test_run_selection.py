"""What a run selects: kernels left out with -x, both precisions in one run, the
quick check and the full one, and seeds in range."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
from conftest import harness, run_folder

import harness as harness_package
from harness import suite
from harness.backends.base import DeviceInfo
from harness.errors import UsageError
from harness.execution import results
from harness.execution.runner import RunOptions, plan
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
    devices = [_device("cpu", "cpu"), _device("wgpu", "discrete gpu")]
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
    assert strategies == set(suite.PARAMS["strategy"].checked)
    assert steps == set(suite.PARAMS["steps"].checked)
    # The full check runs every combination the quick one does, and more.
    assert {t for t in quick} <= set(full)


def test_full_check_from_the_command_line_plans_every_choice(tmp_path: Path) -> None:
    rows = {}
    for mode in ("quick", "full"):
        proc = harness(
            "run", "-k", "Bitonic_U32", "-b", "cpu", "--check", mode, "--size", "33",
            "--out", str(tmp_path / mode),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        with (run_folder(tmp_path / mode) / results.RESULTS).open() as f:
            rows[mode] = {(r["strategy"], r["steps"]) for r in csv.DictReader(f)}
    assert len(rows["full"]) == 12
    assert rows["quick"] < rows["full"] and ("fused", "4") in rows["quick"]


def test_the_api_refuses_a_switch_that_is_not_a_bool(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"in_process='no': expected True or False"):
        harness_package.run("Stream_TRIAD", "cpu", in_process="no", out=tmp_path)
    with pytest.raises(UsageError, match="invalid choice: 'no'"):
        harness_package.run("Stream_TRIAD", "cpu", check="no", out=tmp_path)
    with pytest.raises(UsageError, match="NoSuchKernel"):
        harness_package.run("NoSuchKernel", "cpu", check=True, out=tmp_path)
    assert not list(tmp_path.glob("run-*"))

"""Reads and writes one past an array's end, which PoCL lets pass: the simulator's
arrays carry no guard zone (where such a read landed on a valid element), and
``harness mutants`` checks an OpenCL device's survivors again on the simulator,
at the small size, in the C form of that device."""

from __future__ import annotations

import csv
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import harness, need_backend, run_folder
from test_oclgrind import _simulator

from harness.cli import main
from harness.execution import results
from harness.model import sources
from harness.model.partition import FORM_ENV
from harness.mutation import mutants

#: Apps_ENERGY's test for a compressed block: `<=` reads delvc one past the block,
#: and past the array's end in the last one (a guard value on PoCL, no output changed).
ENERGY_BOUND = "    for (size_t j = b; j < b + m; ++j) {"
#: product_rows's first loop over its private sums, compiled in the CPU form alone:
#: `<=` writes one past the private array.
ROWS_BOUND = "    for (int r = 0; r < CPU_ROWS; ++r) {"
#: flip_block's reversal of the upper vectors: `<=` runs one past its private array.
FLIP_BOUND = "    for (uint k = v / 2; k < v; ++k) {"


def _line(name: str, text: str) -> int:
    """The number of the first line of a shipped C source that is ``text``."""
    return (sources.shipped_root() / "c" / name).read_text().split("\n").index(text) + 1


def _energy_sources(folder: Path, planted: bool) -> Path:
    """A sources folder with Apps_ENERGY's C body, its bound made `<=` if ``planted``."""
    (folder / "c").mkdir(parents=True)
    shipped = sources.shipped_root() / "c"
    shutil.copy(shipped / "cutoff.h", folder / "c")
    text = (shipped / "Apps_ENERGY.c").read_text()
    assert text.count(ENERGY_BOUND) == 1
    if planted:
        text = text.replace(ENERGY_BOUND, ENERGY_BOUND.replace("j < b", "j <= b"))
    (folder / "c" / "Apps_ENERGY.c").write_text(text)
    return folder


def _energy_check(tmp_path: Path, planted: bool) -> dict:
    name = "planted" if planted else "shipped"
    folder = _energy_sources(tmp_path / name, planted)
    out = tmp_path / f"run-{name}"
    proc = harness(
        "run", "--check", "-k", "Apps_ENERGY", "--precision", "f64", "--size", "97",
        "--device", "oclgrind", "--sources", str(folder), "--out", str(out),
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    (row,) = results.read_journal(run_folder(out))
    return row


@pytest.mark.full
def test_a_read_one_past_an_arrays_end_fails_on_the_simulator(tmp_path: Path) -> None:
    """With a guard zone after delvc the read past its end was a valid one, which
    the simulator did not report, and no output changes; without one it is
    reported. The shipped body passes the same check."""
    _simulator()
    assert _energy_check(tmp_path, planted=False)["status"] == "ok"
    row = _energy_check(tmp_path, planted=True)
    assert row["status"] == "fail"
    at = _line("Apps_ENERGY.c", ENERGY_BOUND) + 1
    assert "Oclgrind: Invalid read of size 8 in global memory (kernel energy" in row["reason"]
    assert f"Apps_ENERGY.c:{at})" in row["reason"]


def _mutants(tmp_path: Path, kernel: str, lines: str, *more: str) -> dict[str, dict]:
    out = tmp_path / ("-".join(more) or "default")
    args = ["mutants", "-k", kernel, "-b", "opencl", "--precision", "f64", "--lines", lines]
    assert main([*args, *more, "--out", str(out)]) == 0
    with open(next(out.iterdir()) / "mutants.csv", newline="") as f:
        return {r["mutated"].strip(): r for r in csv.DictReader(f)}


@pytest.mark.full
def test_a_survivor_of_pocls_check_is_killed_on_the_simulator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Apps_ENERGY's one-past read survives PoCL's check (--no-simulator) and is
    killed when checked again on the simulator, the row's reason naming it; a
    line says so as the check begins, which can take minutes with nothing else said."""
    need_backend("opencl")
    device = _simulator()
    line = _line("Apps_ENERGY.c", ENERGY_BOUND)
    lines = f"Apps_ENERGY.c:{line}"
    mutated = ENERGY_BOUND.replace("j < b", "j <= b").strip()
    alone = _mutants(tmp_path, "Apps_ENERGY", lines, "--no-simulator")[mutated]
    assert alone["status"] == "survived"
    assert alone["device"] == "opencl:0"
    said = f"  checking again on {device['id']} (a survivor on opencl:0), which can take minutes: "
    assert said not in capsys.readouterr().err
    again = _mutants(tmp_path, "Apps_ENERGY", lines)[mutated]
    assert f"{said}Apps_ENERGY.c:{line}: " in capsys.readouterr().err
    assert again["status"] == "killed"
    assert again["device"] == "opencl:0"
    assert again["detail"].startswith(f"on {device['id']}: Apps_ENERGY f64 n={mutants.SMALL_SIZE}")
    assert "Invalid read of size 8 in global memory" in again["detail"]


@pytest.mark.full
def test_the_simulator_checks_a_survivor_in_the_form_of_the_device(tmp_path: Path) -> None:
    """product_rows is compiled for CPU devices alone: the simulator, a device of
    neither kind, runs it only as PoCL's form, and there finds the write one past
    the private sums."""
    need_backend("opencl")
    _simulator()
    lines = f"product_rows.h:{_line('product_rows.h', ROWS_BOUND)}"
    found = _mutants(tmp_path, "Polybench_GEMM", lines, "--impl", "kernel")
    row = found[ROWS_BOUND.replace("r < ", "r <= ").strip()]
    assert row["status"] == "killed"
    assert (
        "Invalid write of size 8 in private memory (kernel gemm, product_rows.h:" in row["detail"]
    )


@pytest.mark.full
def test_the_simulator_checks_a_survivor_at_check_sizes_the_small_one_does_not_reach(
    tmp_path: Path,
) -> None:
    """flip_block's loop one past its private vectors runs only in flip passes of
    2047 keys and more: the simulator kills it at a check size, smallest first."""
    need_backend("opencl")
    _simulator()
    lines = f"bitonic.h:{_line('bitonic.h', FLIP_BOUND)}"
    found = _mutants(tmp_path, "Bitonic_U32", lines, "--strategy", "fused", "--steps", "4")
    row = found[FLIP_BOUND.replace("k < v", "k <= v").strip()]
    assert row["status"] == "killed"
    assert row["detail"].startswith("on opencl:")
    assert " n=4099: fail: undefined behaviour: Oclgrind: Invalid " in row["detail"]
    assert "in private memory (kernel bitonic_pass, bitonic.h:" in row["detail"]
    assert mutants.SMALL_SIZE < 4099 <= mutants.RECHECK_MAX_SIZE


@pytest.mark.parametrize("before", [None, "gpu"])
def test_a_lab_compiles_in_its_form_and_puts_the_environment_back(
    monkeypatch: pytest.MonkeyPatch, before: str | None
) -> None:
    if before is None:
        monkeypatch.delenv(FORM_ENV, raising=False)
    else:
        monkeypatch.setenv(FORM_ENV, before)
    lab = SimpleNamespace(form="cpu", strict=False)
    with mutants._Lab.compiling(lab):
        assert os.environ[FORM_ENV] == "cpu"
    assert os.environ.get(FORM_ENV) == before
    with mutants._Lab.compiling(SimpleNamespace(form=None, strict=False)):
        assert os.environ.get(FORM_ENV) == before

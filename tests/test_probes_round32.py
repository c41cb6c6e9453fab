"""Hostile probes, round 32: a description whose reference is NaN throughout, and
a backend whose driver found no device but whose simulator is listed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "my_kernels"


def _variant(tmp_path: Path, lines: str) -> Path:
    """A copy of the example suite whose My_SAXPY is changed by ``lines`` (S: the
    kernel, built from SAXPY)."""
    folder = shutil.copytree(EXAMPLE, tmp_path / "suite")
    kernels = folder / "kernels.py"
    head, _ = kernels.read_text().split("\nKERNELS", 1)
    kernels.write_text(f"{head}\nimport dataclasses\n{lines}\nKERNELS = (S,)\n")
    return kernels


def test_a_reference_of_nans_throughout_is_an_error_row_not_a_verified_one(
    tmp_path: Path,
) -> None:
    """Inputs all NaN gave a reference all NaN, which a NaN written anywhere
    matched: the row was ok, and verified nothing. It is an error row now."""
    kernels = _variant(
        tmp_path,
        "def _nans(size, seed, precision):\n"
        "    return {'x': np.full(size, np.nan), 'y': np.full(size, np.nan), 'a': 2.5}\n"
        "S = dataclasses.replace(SAXPY, init=_nans)",
    )
    proc = harness(
        "run", "--suite", str(kernels), "-k", "My_SAXPY", "-b", "cpu", "--size", "1000",
        "--reps", "3", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    row = json.loads((run_folder(tmp_path / "out") / "journal.jsonl").read_text())
    assert row["status"] == "error"
    assert (
        "My_SAXPY: reference gives NaN for every element of 'y', so nothing in it would "
        "be verified; give inputs from which it computes numbers"
    ) in row["reason"]


def test_a_backend_left_with_its_simulator_alone_names_it_and_how_to_choose_it(
    tmp_path: Path,
) -> None:
    """With PoCL finding no device, `-b opencl` said only "no backend is available",
    though `harness devices` listed the simulator. The one line now names the
    device that is there, why it does not run by default, and --device."""
    need_backend("opencl")
    listed = harness("devices", "--json", env={"POCL_DEVICES": "none-such"})
    devices = {d["id"] for b in json.loads(listed.stdout) if b["backend"] == "opencl"
               for d in b["devices"]}  # fmt: skip
    if devices != {"opencl:0"}:
        pytest.skip(f"this machine's OpenCL lists {sorted(devices)} with PoCL off")
    proc = harness(
        "run", "-k", "Stream_COPY", "-b", "opencl", "--size", "1000", "--out", str(tmp_path),
        env={"POCL_DEVICES": "none-such"},
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "harness: error: no device runs by default here: opencl:0 (Oclgrind Simulator) is "
        "not used by default: a simulator that reports data races and out-of-bounds "
        "accesses, far slower than any device; name one with --device (see 'harness devices')"
    )
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("cases", "said"),
    [
        ("[1, 2]", "check_cases[0] is 1: give CheckCase(name, init, why) items"),
        ("(CheckCase('timed', _ok, 'w'),)",
         "check_cases[0] is named 'timed': give each check case a name of its own, "
         "other than 'timed' and 'stale'"),
        ("(CheckCase('a', _ok, 'w'), CheckCase('a', _ok, 'w'))",
         "check_cases[1] is named 'a': give each check case a name of its own"),
        ("(CheckCase('a', 5, 'w'),)",
         "check_cases[0] (a) has init 5: give a function of (size, seed, precision) "
         "returning the inputs"),
    ],
    ids=["not-cases", "timed", "twice", "no-init"],
)  # fmt: skip
def test_check_cases_a_timed_run_never_reads_are_refused_as_the_suite_loads(
    tmp_path: Path, cases: str, said: str
) -> None:
    """Check cases of the wrong kind were found only by a --check run; a timed run
    of the same description passed. They are refused as the suite loads now,
    with the item named, before any row."""
    kernels = _variant(
        tmp_path,
        "from harness.model.spec import CheckCase\n"
        f"_ok = SAXPY.init\nS = dataclasses.replace(SAXPY, check_cases={cases})",
    )
    proc = harness(
        "run", "--suite", str(kernels), "-k", "My_SAXPY", "-b", "cpu", "--size", "1000",
        "--reps", "3", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"harness: error: --suite {kernels}: kernel My_SAXPY: {said}")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()

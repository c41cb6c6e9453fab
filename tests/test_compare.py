"""Comparing real runs: same run is noise, a slowed kernel is a regression, a broken one fails."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
from conftest import FIXTURES, copy_run, cut_journal, harness, need_backend, one_error, run_folder

pytest.importorskip("pandas")

from harness.reporting import comparison

#: Stream_TRIAD with the same result but a few hundred dependent FMAs per element first.
SLOW_TRIAD = """
__kernel void triad(__global REAL* a, __global const REAL* b, __global const REAL* c,
                    const REAL alpha, const uint n)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
        REAL acc = c[i];
        for (uint k = 0; k < 400 + n % 7; ++k) {
            acc = fma(acc, alpha, c[i]);
        }
        a[i] = b[i] + alpha * c[i] + (REAL)0 * acc;
    }
}
"""


def _run(out: Path, *args: str) -> Path:
    proc = harness(
        "run", "-b", "cpu", "opencl", "--size", "20000", "--reps", "7", "--out", str(out), *args
    )
    assert proc.returncode in (0, 1), proc.stderr
    return run_folder(out)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A base run, the same kernels with a slowed OpenCL TRIAD, and with a wrong one."""
    need_backend("opencl")
    base = tmp_path_factory.mktemp("compare")
    slow = base / "slow-sources" / "opencl"
    slow.mkdir(parents=True)
    (slow / "Stream_TRIAD.cl").write_text(SLOW_TRIAD)
    runs = {
        "base": _run(base / "base", "-k", "Stream_COPY", "Stream_TRIAD"),
        "slow": _run(
            base / "slow", "-k", "Stream_TRIAD", "Basic_DAXPY", "--sources", str(slow.parent)
        ),
        "wrong": _run(
            base / "wrong", "-k", "Stream_TRIAD", "--sources", str(FIXTURES / "wrong_triad")
        ),
        "check": _run(base / "check", "-k", "Stream_TRIAD", "--check"),
    }
    # The same rows as another run: compare refuses a run beside a copy of itself.
    runs["again"] = copy_run(runs["base"], base / "again")
    runs["check again"] = copy_run(runs["check"], base / "check-again")
    return runs


def _table(stdout: str) -> dict[tuple[str, str], list[str]]:
    """Rows of the printed table by (kernel, device)."""
    rows = {}
    for line in stdout.splitlines()[1:]:
        if not line.strip():
            break
        cells = line.split()
        rows[(cells[0], cells[1])] = cells
    return rows


def test_a_run_against_itself_is_refused_and_its_rows_again_are_noise(
    runs: dict[str, Path],
) -> None:
    """Compared with itself, every row matched itself: a gate that could not fail."""
    same = harness("compare", str(runs["base"]), str(runs["base"]))
    assert same.returncode == 2
    assert one_error(same.stderr) == (
        f"compare: {runs['base']} and {runs['base']} are one run (one folder, or a copy of "
        "it); compare two runs"
    )
    proc = harness("compare", str(runs["base"]), str(runs["again"]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = _table(proc.stdout)
    assert set(rows) == {
        (k, d) for k in ("Stream_COPY", "Stream_TRIAD") for d in ("cpu:0", "opencl:0")
    }
    for cells in rows.values():
        assert cells[-2:] == ["1.000", "noise"]
    assert proc.stdout.rstrip().endswith("4 noise")


def test_a_planted_slowdown_is_a_regression_and_fails_the_gate(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "comparison.csv"
    proc = harness(
        "compare", str(runs["base"]), str(runs["slow"]), "--threshold", "10", "--csv", str(out)
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rows = _table(proc.stdout)
    triad = rows[("Stream_TRIAD", "opencl:0")]
    assert triad[-1] == "regression" and float(triad[-2]) > 3
    for device in ("cpu:0", "opencl:0"):
        assert " ".join(rows[("Stream_COPY", device)][-4:]) == "- only in base"
        assert " ".join(rows[("Basic_DAXPY", device)][-4:]) == "- only in new"
    with out.open() as f:
        table = {(r["kernel"], r["device_id"]): r for r in csv.DictReader(f)}
    assert len(table) == 6
    assert table[("Stream_TRIAD", "opencl:0")]["verdict"] == comparison.REGRESSION
    assert table[("Basic_DAXPY", "cpu:0")]["verdict"] == comparison.ONLY_NEW
    assert math.isnan(float(table[("Basic_DAXPY", "cpu:0")]["ratio"] or "nan"))

    back = harness("compare", str(runs["slow"]), str(runs["base"]), "--threshold", "10")
    assert _table(back.stdout)[("Stream_TRIAD", "opencl:0")][-1] == "improvement"


def test_a_kernel_that_now_fails_verification_is_broken(runs: dict[str, Path]) -> None:
    proc = harness("compare", str(runs["base"]), str(runs["wrong"]))
    assert proc.returncode == 1
    rows = _table(proc.stdout)
    assert rows[("Stream_TRIAD", "opencl:0")][-3:] == ["fail", "-", "broken"]
    back = harness("compare", str(runs["wrong"]), str(runs["base"]))
    assert _table(back.stdout)[("Stream_TRIAD", "opencl:0")][-1] == "fixed"


@pytest.mark.parametrize("interrupted", [False, True])
def test_an_interrupted_run_fails_the_gate_on_the_rows_it_never_ran(
    runs: dict[str, Path], tmp_path: Path, interrupted: bool
) -> None:
    """The base's rows less its last, as a run cut short leaves them: a gate passes
    on work done only, so rows only in the base fail it where the new run stopped
    short, and are listed alone where it chose fewer kernels."""
    new = copy_run(runs["base"], tmp_path / "new")
    cut_journal(new, len((new / "journal.jsonl").read_text().splitlines()) - 1)
    meta = json.loads((new / "metadata.json").read_text())
    meta["interrupted"] = interrupted
    (new / "metadata.json").write_text(json.dumps(meta))
    proc = harness("compare", str(runs["base"]), str(new))
    assert proc.stdout.rstrip().endswith("3 noise, 1 only in base"), proc.stdout
    assert proc.returncode == (1 if interrupted else 0), proc.stderr
    stopped = f"fail: {new} was interrupted (or is still running) before 1 row(s) of the base"
    assert (stopped in proc.stderr) == interrupted


def test_a_row_the_new_run_skipped_fails_the_gate(runs: dict[str, Path], tmp_path: Path) -> None:
    """A gate passes on work done only: a row the base timed that the new run
    skipped has no time to judge, and it may be the one that regressed."""
    new = copy_run(runs["base"], tmp_path / "new")
    journal = new / "journal.jsonl"
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    skipped = lines[-1]
    for name in [k for k in skipped if k.startswith("time_") or k.endswith("_per_s")]:
        skipped[name] = None
    skipped.update(status="skipped", reason="the device is busy")
    journal.write_text("".join(json.dumps(line) + "\n" for line in lines))
    proc = harness("compare", str(runs["base"]), str(new))
    assert proc.returncode == 1, proc.stderr
    row = _table(proc.stdout)[(skipped["kernel"], skipped["device_id"])]
    assert row[-5:] == ["skipped", "-", "no", "longer", "timed"], row
    assert proc.stdout.rstrip().endswith("3 noise, 1 no longer timed"), proc.stdout


def test_check_only_runs_compare_as_not_timed_and_never_pass(runs: dict[str, Path]) -> None:
    """A gate passes on work done only: two runs with nothing timed compare nothing."""
    proc = harness("compare", str(runs["check"]), str(runs["check again"]))
    assert proc.returncode == 2
    assert {tuple(c[-2:]) for c in _table(proc.stdout).values()} == {("not", "timed")}
    assert proc.stderr.strip().endswith(
        "no row has timings in both runs (check-only runs?), so nothing was compared; "
        "compare two timed runs"
    )


def _row(median: float, minimum: float, std: float, status: str = "ok") -> dict:
    return {"status": status, "time_median_s": median, "time_min_s": minimum, "time_std_s": std}


@pytest.mark.parametrize(
    ("base", "new", "verdict"),
    [
        (_row(1.0, 0.99, 0.01), _row(1.2, 1.19, 0.01), comparison.REGRESSION),
        (_row(1.0, 0.99, 0.01), _row(0.8, 0.79, 0.01), comparison.IMPROVEMENT),
        (_row(1.0, 0.99, 0.01), _row(1.04, 1.03, 0.01), comparison.NOISE),  # within threshold
        (_row(1.0, 0.80, 0.15), _row(1.2, 1.0, 0.15), comparison.NOISE),  # within the spread
        (_row(1.0, 0.99, math.nan), _row(1.3, 1.0, math.nan), comparison.NOISE),  # median - min
        (
            _row(1.0, 1.0, 0.0),
            _row(math.nan, math.nan, math.nan, "skipped"),
            comparison.NO_LONGER_TIMED,
        ),
        (
            _row(math.nan, math.nan, math.nan, "skipped"),
            _row(math.nan, math.nan, math.nan, "skipped"),
            comparison.NOT_TIMED,
        ),
        (_row(math.nan, math.nan, math.nan, "skipped"), _row(1.0, 1.0, 0.0), comparison.NOT_TIMED),
        (_row(1.0, 1.0, 0.0), _row(math.nan, math.nan, math.nan, "error"), comparison.BROKEN),
        # One slow repetition makes the deviation large, not the quartiles' range.
        (
            {**_row(1.0, 0.98, 3.0), "time_q1_s": 0.99, "time_q3_s": 1.02},
            {**_row(60.0, 59.9, 0.1), "time_q1_s": 59.95, "time_q3_s": 60.05},
            comparison.REGRESSION,
        ),
        (
            {**_row(1.0, 0.8, 0.01), "time_q1_s": 0.85, "time_q3_s": 1.15},
            {**_row(1.2, 1.1, 0.01), "time_q1_s": 1.15, "time_q3_s": 1.25},
            comparison.NOISE,  # within the quartiles' range
        ),
    ],
)
def test_the_noise_rule(base: dict, new: dict, verdict: str) -> None:
    assert comparison.judge(base, new, 0.05)[0] == verdict


def test_threshold_must_be_a_percentage(runs: dict[str, Path]) -> None:
    for bad in ("0", "100", "five"):
        proc = harness("compare", str(runs["base"]), str(runs["base"]), "--threshold", bad)
        assert proc.returncode == 2 and "--threshold" in proc.stderr
    assert (
        "spread = max(interquartile range, median - minimum)" in harness("compare", "--help").stdout
    )


def test_csv_is_written_whole_and_through_a_link_into_its_target(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """A new CSV goes through a temporary file renamed over it (no table cut short
    under its name); a link, or /dev/stdout, is written in place, the link kept."""
    target = tmp_path / "target.csv"
    target.write_text("earlier\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    proc = harness("compare", str(runs["base"]), str(runs["again"]), "--csv", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and target.read_text().startswith("kernel,")
    fresh = tmp_path / "fresh.csv"
    assert (
        harness("compare", str(runs["base"]), str(runs["again"]), "--csv", str(fresh)).returncode
        == 0
    )
    assert fresh.read_text() == target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.csv", "link.csv", "target.csv"]
    out = harness("compare", str(runs["base"]), str(runs["again"]), "--csv", "/dev/stdout")
    assert out.returncode == 0 and out.stdout.startswith(target.read_text()), out.stdout

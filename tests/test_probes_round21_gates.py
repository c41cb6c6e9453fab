"""Hostile probes, round 21: every gate and exit status, where the harness tells a
script or CI "pass" or "fail" (`harness compare`, `harness run`, `harness show`,
`harness mutants --fail-under`, `harness peak`)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import (
    ROOT,
    copy_run,
    device_without_f64,
    harness,
    one_error,
    source_names,
)


def _rows(run: Path) -> list[dict]:
    """The journal rows of a run folder."""
    return [json.loads(line) for line in (run / "journal.jsonl").read_text().splitlines()]


def _write_rows(run: Path, rows: list[dict]) -> None:
    """Replace a run's journal with ``rows``, its count of rows with theirs."""
    (run / "journal.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "results.csv").unlink(missing_ok=True)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["journal_rows"] = len(rows)
    path.write_text(json.dumps(meta))


def _merged(runs: list[Path], out: Path) -> Path:
    """The merged run of ``runs``, made under ``out``."""
    proc = harness("merge", *map(str, runs), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    (run,) = out.iterdir()
    return run


def test_merged_runs_of_no_common_host_do_not_pass_on_one_host_s_rows(
    copy_run_of_two: Path, tmp_path: Path
) -> None:
    """Two merged runs that share no host (a cluster's nodes, allocated anew each
    night) were matched without hosts, only the last host's row of each case judged:
    a row another host of the new run failed passed the gate, exit 0. Which host's
    row to judge against which cannot be told: it is now refused, exit 2."""
    copies = [copy_run(copy_run_of_two, tmp_path / name) for name in ("a", "b", "c", "d")]
    rows = _rows(copies[2])
    rows[0].update(status="fail", reason="max_rel_error 0.5 > 0")
    _write_rows(copies[2], rows)
    base = _merged(copies[:2], tmp_path / "base")
    new = _merged(copies[2:], tmp_path / "new")
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert one_error(proc.stderr) == (
        "the base and new runs are merged runs that share no host, and the base run holds "
        "2 row(s) of a case another of its hosts measured too: which host's row to judge "
        "against which cannot be told; compare their source runs (their merged_from) host "
        "by host"
    )


def _sized_down(row: dict, size: int) -> dict:
    """``row`` (at size 1000) as a run that sized it down from 1000 to ``size`` wrote it."""
    scale = size / row["size"]
    row = {**row, "sized_from": row["size"], "size": size}
    row.update(reason=f"sized down from 1000 to {size}", iterations_per_rep=size)
    for count in ("bytes_per_rep", "bytes_read_per_rep", "bytes_written_per_rep", "flops_per_rep"):
        row[count] = int(row[count] * scale)
    row["gbytes_per_s"] = row["bytes_per_rep"] / row["time_median_s"] / 1e9
    row["gflops_per_s"] = row["flops_per_rep"] / row["time_median_s"] / 1e9
    return row


def test_a_row_the_new_run_sized_down_further_than_the_base_is_not_passed(
    copy_run_of_two: Path, tmp_path: Path
) -> None:
    """Where both runs sized a row down from its default size, the new run (slower)
    further than the base, the base's row was "only in base" and the new one "only
    in new": the gate passed a row the new run never timed at the base's size, exit
    0. The base's row is now "no longer timed", exit 1."""
    base, new = (
        copy_run(copy_run_of_two, tmp_path / "base"),
        copy_run(copy_run_of_two, tmp_path / "new"),
    )
    copy, add = _rows(copy_run_of_two)
    _write_rows(base, [copy, _sized_down(add, 500)])
    _write_rows(new, [copy, _sized_down(add, 250)])
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdicts = {
        tuple(line.split()[:4]): line.split("  ")[-1].strip()
        for line in proc.stdout.splitlines()
        if line.startswith("Stream_")
    }
    assert verdicts[("Stream_ADD", "cpu:0", "f64", "500")] == "no longer timed"
    assert verdicts[("Stream_ADD", "cpu:0", "f64", "250")] == "only in new"
    assert verdicts[("Stream_COPY", "cpu:0", "f64", "1000")] == "noise"


@pytest.mark.parametrize("metadata", [{}, {"interrupted": False}])
def test_a_new_run_whose_metadata_names_no_end_does_not_pass_on_rows_it_lacks(
    copy_run_of_two: Path, tmp_path: Path, metadata: dict
) -> None:
    """A new run lacking a base row, whose metadata.json named neither a start nor an
    end, was taken for a run that ended whole: the row was "only in base" and the gate
    passed, exit 0, where a run with no metadata.json at all failed it. Whether it ran
    to its end is unknown either way: exit 1."""
    new = copy_run(copy_run_of_two, tmp_path / "new")
    _write_rows(new, _rows(new)[:1])
    (new / "metadata.json").write_text(json.dumps(metadata))
    proc = harness("compare", str(copy_run_of_two), str(new))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"fail: {new} has no end in its metadata.json, so whether it ran to its end is "
        "unknown, and 1 row(s) of the base are not in it"
    )


def test_peak_of_a_device_without_f64_measures_its_bandwidth_and_passes(tmp_path: Path) -> None:
    """On a device without f64 (most GPUs through wgpu) the bandwidth kernels ran at
    f64 and were skipped: no bandwidth peak at all ("copy nan GB/s"), and every
    `harness peak` exited 1 on the FMA f64 row the device cannot run. The bandwidth
    is now streamed in f32, and a precision the device lacks fails nothing."""
    device = device_without_f64()
    store = tmp_path / "peaks.json"
    proc = harness(
        "peak", "--device", device, "--span", "0.2", "--max-time", "0.2",
        "--bandwidth-size", "65536", "--fma-size", "1024", "--force", "--json",
        env={"HARNESS_PEAKS": str(store)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    start = proc.stdout.index("[")
    (peak,) = json.loads(proc.stdout[start:])
    assert peak["notes"] == []
    assert peak["copy_gbytes_per_s"] > 0 and peak["triad_gbytes_per_s"] > 0
    assert list(peak["fma_gflops_per_s"]) == ["f32"]
    (stored,) = json.loads(store.read_text()).values()
    assert stored["copy_gbytes_per_s"] == peak["copy_gbytes_per_s"]


def test_show_of_a_check_that_verified_nothing_exits_as_the_run_did(tmp_path: Path) -> None:
    """`harness run --check` whose every row was skipped exits 1 (it verified
    nothing), but `harness show` of its folder, which exits 1 for a failed row as the
    run does, exited 0 on it: a script reading a run's status from show (an MPI job
    whose mpirun status was lost) passed it. It now exits as the run did."""
    device = device_without_f64()
    out = tmp_path / "out"
    proc = harness(
        "run", "--check", "-k", "Stream_COPY", "--device", device, "--precision", "f64",
        "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    (run,) = out.iterdir()
    assert {row["status"] for row in _rows(run)} == {"skipped"}
    proc = harness("show", str(run))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("nothing was verified: all ")


def _node(run: Path, parent: Path, host: str, device: str) -> Path:
    """A copy of ``run`` made another machine's: its host and its device's name."""
    copy = copy_run(run, parent)
    path = copy / "metadata.json"
    meta = json.loads(path.read_text())
    meta["host"]["hostname"] = host
    for each in meta["devices"]:
        each["name"] = device
    path.write_text(json.dumps(meta))
    _write_rows(copy, [{**row, "device": device} for row in _rows(copy)])
    return copy


def test_merged_runs_of_two_nodes_merged_in_either_order_are_compared(
    copy_run_of_two: Path, tmp_path: Path
) -> None:
    """A merged run lists each host's devices, one id on several hosts; compare took
    each id's device from the last host listed, so merge(A, B) against merge(B, A)
    of two nodes with other CPUs matched no row ("cpu:0 is Xeon in base but EPYC in
    new"), exit 2, and where only some devices differ their rows went unjudged, exit
    0. Each row's device is now its own host's."""
    a1, b1 = (
        _node(copy_run_of_two, tmp_path / "1", "nodeA", "EPYC"),
        _node(copy_run_of_two, tmp_path / "2", "nodeB", "Xeon"),
    )
    a2, b2 = (
        _node(copy_run_of_two, tmp_path / "3", "nodeA", "EPYC"),
        _node(copy_run_of_two, tmp_path / "4", "nodeB", "Xeon"),
    )
    base = _merged([a1, b1], tmp_path / "base")
    new = _merged([b2, a2], tmp_path / "new")
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    devices = sorted(
        re.search(r"cpu:0 @node\w", line)[0]
        for line in proc.stdout.splitlines()
        if line.startswith("Stream_") and line.endswith("noise")
    )
    assert devices == ["cpu:0 @nodeA", "cpu:0 @nodeA", "cpu:0 @nodeB", "cpu:0 @nodeB"]
    assert proc.stdout.splitlines()[-1] == "4 noise"


def test_cuda_compile_names_a_suite_kernel_it_has_no_source_of(tmp_path: Path) -> None:
    """A --suite kernel without cuda/NAME.cu or c/NAME.c was left out unsaid: the
    command exited 0 with "N of N compiled", read as the whole suite's compiled
    where the user's kernel never was. It is now named in a note."""
    from harness.backends import cuda_compile

    if not cuda_compile.available():
        pytest.skip("no CUDA compiler here")
    suite = tmp_path / "mine"
    shutil.copytree(ROOT / "examples" / "my_kernels", suite)
    (suite / "c" / "My_SAXPY.c").unlink()
    proc = harness(
        "cuda-compile", "--suite", str(suite / "kernels.py"), "--arch", "80", "--precision", "f64"
    )
    assert proc.returncode == 0, proc.stderr
    assert "note: My_SAXPY has no CUDA source (cuda/My_SAXPY.cu or c/My_SAXPY.c): not compiled" in (
        proc.stderr.splitlines()
    )
    assert "My_STENCIL2D.c sm_80 f64: ok" in proc.stdout.splitlines()


def test_a_merged_new_run_of_a_run_with_no_end_does_not_pass_on_rows_it_lacks(
    copy_run_of_two: Path, tmp_path: Path
) -> None:
    """A run without metadata.json (its journal alone, copied from a node) merged
    into the new run, and lacking a row of the base, passed the gate: the merge ends
    when it is made, and its source was not taken to have stopped short, as one whose
    metadata has no end is. Whether it ran to its end is unknown: exit 1."""
    whole, cut = (
        copy_run(copy_run_of_two, tmp_path / "1"),
        copy_run(copy_run_of_two, tmp_path / "2"),
    )
    _write_rows(cut, _rows(cut)[:1])
    # Another run's measurements: a journal the same byte for byte as run 3's, with
    # no metadata to tell them apart, is a copy of it.
    _write_rows(whole, [dict(row, host_s=0.5) for row in _rows(whole)])
    for run in (whole, cut):
        (run / "metadata.json").unlink()
    base = _merged([whole, copy_run(copy_run_of_two, tmp_path / "3")], tmp_path / "base")
    new = _merged([cut, copy_run(copy_run_of_two, tmp_path / "4")], tmp_path / "new")
    proc = harness("compare", str(base), str(new))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"fail: {new} merges {source_names(new)[0]}, which had no end in its metadata when "
        f"merged, and 1 row(s) of the base are not in {new}: they may be work that run did not do"
    )

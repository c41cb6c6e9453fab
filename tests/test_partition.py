"""Dealing a walking launch's items to work-items (--partition): which entry
points walk, what each partition launches, every walking kernel verifying under
each on OpenCL, the CPU device's choice by trial, and the rows that say why a
kernel or a backend keeps one item per work-item."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import harness, need_backend, not_ok, plant, run_folder

from harness import suite
from harness.backends import cuda_compile
from harness.execution import results
from harness.execution.runner import Runner, RunOptions, Task, c_walks, task_partitions
from harness.model import partition, sources
from harness.model.spec import KernelSpec
from harness.reporting import frames

SOURCE = """
// A helper that reads its own id (GLOBAL_ID) places every caller.
DEVICE uint here(void) { return GLOBAL_ID(0); }
DEVICE REAL twice(const REAL x) { return x + x; }

KERNEL void walks(GLOBAL REAL* a, const uint n)
{
    FOR_EACH(i, n) { a[i] = twice(a[i]); }  /* { unbalanced in a comment */
}

KERNEL void walks_and_places(GLOBAL REAL* a, const uint n)
{
    FOR_EACH(i, n) { a[i] = here(); }
}

KERNEL void guarded(GLOBAL REAL* a, const uint n)
{
    const size_t i = GLOBAL_ID(0);
    if (i < n) a[i] = 0;
}

KERNEL void tiles(GLOBAL REAL* a, const uint n)
{
    SHARED REAL tile[GROUP];
    FOR_EACH(i, n) { tile[0] = a[i]; }
}
"""


def walking_kernels() -> list[KernelSpec]:
    return [s for s in suite.select(None) if c_walks(s)]


def test_an_entry_walks_only_with_for_each_and_no_id_of_its_own() -> None:
    assert partition.walking_entries(SOURCE) == {"walks"}


def test_the_shipped_walking_entries() -> None:
    triad = sources.find("opencl", ".cl", "Stream_TRIAD")
    dot = sources.find("opencl", ".cl", "Stream_DOT")
    assert triad is not None and dot is not None
    assert partition.walking_entries(sources.expand(triad).text) == {"triad"}
    assert partition.walking_entries(sources.expand(dot).text) == frozenset()
    # Apps_FIR walks in blocks on CPU devices and guards one index elsewhere.
    fir = sources.find("opencl", ".cl", "Apps_FIR")
    assert fir is not None
    text = sources.expand(fir).text
    assert partition.walking_entries(text, partition.device_macros("cpu")) == {"fir"}
    assert partition.walking_entries(text, partition.device_macros("gpu")) == frozenset()
    names = {s.name for s in walking_kernels()}
    assert {"Stream_COPY", "Apps_ENERGY", "Lcals_HYDRO_2D", "Polybench_ATAX", "Apps_FIR"} <= names
    assert {"Polybench_FLOYD_WARSHALL", "Polybench_FDTD_2D"} <= names  # FOR_EACH_2D
    assert not {"Stream_DOT", "Polybench_JACOBI_2D", "Basic_MAT_MAT_SHARED"} & names


def test_a_body_is_read_as_the_device_compiles_it() -> None:
    text = "a\n#ifdef X\nb\n#else\nc\n#endif\n#ifndef X\nd\n#endif\n#if Y > 1\ne\n#else\nf\n#endif"
    text += "\n#ifdef X\ng\n#elif Y\nh\n#else\ni\n#endif"
    assert partition.compiled_lines(text, frozenset({"X"})).split() == [*"abefghi"]
    assert partition.compiled_lines(text, frozenset()).split() == [*"acdefhi"]


def test_stride_and_chunk_launch_fewer_work_items_and_chunk_walks_contiguously() -> None:
    triad = suite.spec_of("Stream_TRIAD")
    assert partition.partitioned(triad, "item", {"triad"}, 2) is triad
    for name in ("stride", "chunk"):
        dealt = partition.partitioned(triad, name, {"triad"}, 2)
        (launch,) = dealt.plan(1_000_000)
        assert launch.items == 2 * partition.GROUPS_PER_UNIT * 256
        (small,) = dealt.plan(1000)
        assert small.items == 1000
        assert (partition.CHUNK_MACRO in dealt.constants) == (name == "chunk")
    # An entry that does not walk keeps its items.
    (kept,) = partition.partitioned(triad, "chunk", set(), 2).plan(1_000_000)
    assert kept.items == 1_000_000
    with pytest.raises(ValueError, match="unknown partition 'rows'; choose from item, stride"):
        partition.partitioned(triad, "rows", {"triad"}, 2)


def test_chunk_deals_a_two_axis_walk_in_whole_rows(tmp_path: Path) -> None:
    floyd = suite.spec_of("Polybench_FLOYD_WARSHALL")
    walking = {"floyd_warshall"}
    (shipped, *_) = floyd.plan(10_000)
    ny = shipped.items[1]
    (launch, *_) = partition.partitioned(floyd, "chunk", walking, 2).plan(10_000)
    groups = 2 * partition.GROUPS_PER_UNIT
    assert (launch.items, launch.group) == (ny, -(-ny // groups))
    (big, *_) = partition.partitioned(floyd, "chunk", walking, 1).plan(100_000_000)
    assert (big.items, big.group) == (partition.GROUPS_PER_UNIT * shipped.threads, shipped.threads)
    (strided, *_) = partition.partitioned(floyd, "stride", walking, 2).plan(10_000)
    assert strided == shipped
    # The last row missed by the chunked walk alone: the check takes both walks.
    need_backend("opencl")
    store = "pout[j + i * n] = direct < through ? direct : through;"
    bug = f"\n#if PARTITION_CHUNK\nif (i + 1 < n)\n#endif\n{store}"
    plant(tmp_path, "c", "Polybench_FLOYD_WARSHALL.c", store, bug)
    planted = Runner(RunOptions(check=True, sources=(tmp_path,)))
    row = planted.execute(Task(floyd.name, "opencl", 0, 10_000, "f64"))
    assert row["status"] == "fail" and row["partition"] == "chunk", row


def test_auto_tries_item_and_chunk_on_cpu_devices_only() -> None:
    assert partition.candidates("cpu", partition.PARTITIONS) == ("item", "chunk")
    assert partition.candidates("gpu", partition.PARTITIONS) == ("item",)
    assert partition.candidates("cpu", ("item",)) == ("item",)


def test_a_sweep_applies_to_walking_kernels_on_backends_with_work_items() -> None:
    options = RunOptions(partitions=("item", "chunk"))
    triad, dot = suite.spec_of("Stream_TRIAD"), suite.spec_of("Stream_DOT")
    assert task_partitions(triad, options, "opencl") == ("item", "chunk")
    assert task_partitions(triad, options, "wgpu") == ("item", "chunk")
    assert task_partitions(triad, options, "cpu") == (partition.AUTO,)
    assert task_partitions(dot, options, "opencl") == (partition.AUTO,)
    assert task_partitions(triad, RunOptions(), "opencl") == (partition.AUTO,)


@pytest.mark.full
def test_every_walking_kernel_verifies_under_stride_and_chunk(tmp_path: Path) -> None:
    need_backend("opencl")
    names = [s.name for s in walking_kernels()]
    proc = harness(
        "run", "-k", *names, "-b", "opencl", "--check", "--partition", "stride", "chunk",
        "--out", str(tmp_path),
    )  # fmt: skip
    rows = results.read_journal(run_folder(tmp_path))
    bad = not_ok(rows, "partition", "size")
    assert not bad, "\n".join(bad[:20])
    assert proc.returncode == 0, proc.stderr
    dealt = {(r["kernel"], r["partition"]) for r in rows}
    missing = {(n, p) for n in names for p in ("stride", "chunk")} - dealt
    # Library variants call no kernel of their own, so they are not dealt.
    assert all("library" in str(suite.spec_of(n).params) for n, _ in missing), missing


def test_a_check_verifies_every_partition_a_cpu_device_may_take(tmp_path: Path) -> None:
    # A bug only the contiguous walk compiles: a check of the item walk alone,
    # which auto's first candidate is, would pass it.
    need_backend("opencl")
    bug = "\n#if PARTITION_CHUNK\n        c[i] = a[i] + 1;\n#else\n        c[i] = a[i];\n#endif\n"
    plant(tmp_path, "c", "Stream_COPY.c", "c[i] = a[i];", bug)
    planted = Runner(RunOptions(check=True, sources=(tmp_path,)))
    row = planted.execute(Task("Stream_COPY", "opencl", 0, 1000, "f64"))
    assert row["status"] == "fail" and row["partition"] == "chunk", row
    shipped = Runner(RunOptions(check=True)).execute(Task("Stream_COPY", "opencl", 0, 1000, "f64"))
    assert shipped["status"] == "ok" and shipped["partition"] == "item+chunk"


def test_a_cpu_device_takes_the_faster_partition_and_says_what_each_took(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "run", "-k", "Stream_COPY", "Stream_DOT", "-b", "opencl", "cpu", "--size", "200000",
        "--reps", "3", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = {(r["kernel"], r["backend"]): r for r in results.read_journal(run_folder(tmp_path))}
    copy = rows[("Stream_COPY", "opencl")]
    trial = dict(part.split(" ", 1) for part in copy["partition_trial"].split("; "))
    assert set(trial) == {"item", "chunk"}
    took = {p: float(t.removesuffix(" ms")) for p, t in trial.items()}
    assert copy["partition"] == min(took, key=took.__getitem__)
    # No launch of DOT walks, and the cpu backend has no work-items.
    assert rows[("Stream_DOT", "opencl")]["partition"] is None
    assert rows[("Stream_COPY", "cpu")]["partition"] is None


def test_wgpu_skips_a_partition_it_cannot_deal_and_a_kept_kernel_says_why(tmp_path: Path) -> None:
    need_backend("wgpu")
    need_backend("opencl")
    proc = harness(
        "run", "-k", "Stream_COPY", "Stream_DOT", "-b", "wgpu", "opencl", "--check",
        "--partition", "item", "chunk", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path))
    copy = {(r["backend"], r["partition"]): r for r in rows if r["kernel"] == "Stream_COPY"}
    assert copy[("wgpu", "item")]["status"] == "ok"
    assert copy[("wgpu", "chunk")]["status"] == "skipped"
    assert copy[("wgpu", "chunk")]["reason"].startswith(
        "wgpu takes one item per work-item (its sources guard one index), not --partition chunk"
    )
    assert copy[("opencl", "chunk")]["status"] == "ok"
    dot = [r for r in rows if r["kernel"] == "Stream_DOT"]
    # One row per backend and check size, not per partition.
    assert len(dot) == 2 * len(suite.BY_NAME["Stream_DOT"].sizes_for_check)
    assert all("none of its launches walks its items with FOR_EACH" in r["reason"] for r in dot)


def test_swept_partitions_are_variants_and_a_devices_own_choice_is_not(tmp_path: Path) -> None:
    need_backend("opencl")
    args = ["-k", "Stream_COPY", "-b", "opencl", "--size", "100000", "--reps", "2"]
    for sweep in (["--partition", "item", "chunk"], []):
        proc = harness("run", *args, *sweep, "--out", str(tmp_path / str(len(sweep))))
        assert proc.returncode == 0, proc.stderr
    swept = frames.prepare(frames.load(run_folder(tmp_path / "3")))
    assert sorted(swept["variant_params"]) == ["chunk partition", "item partition"]
    own = frames.prepare(frames.load(run_folder(tmp_path / "0")))
    assert list(own["variant_params"]) == [""]
    assert own["partition"].iloc[0] in ("item", "chunk")


def test_resume_knows_the_rows_each_partition_made(tmp_path: Path) -> None:
    need_backend("opencl")
    args = ["-k", "Stream_COPY", "Stream_DOT", "-b", "opencl", "--check"]
    proc = harness("run", *args, "--partition", "item", "chunk", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    before = len(results.read_journal(folder))
    proc = harness("run", "--resume", str(folder))
    assert proc.returncode == 0, proc.stderr
    assert "rows done" in proc.stderr
    assert len(results.read_journal(folder)) == before


def test_chunked_walks_compile_for_cuda() -> None:
    compiler = cuda_compile.available()
    if not compiler:
        pytest.skip(cuda_compile.no_compiler_reason())
    for spec in walking_kernels():
        source = sources.find("cuda", ".cu", spec.source_name)
        assert source is not None
        walking = partition.walking_entries(sources.expand(source).text)
        chunked = partition.partitioned(spec, "chunk", walking, 132)
        assert cuda_compile.compile_source(chunked, source, "f64", 80, compiler[0])

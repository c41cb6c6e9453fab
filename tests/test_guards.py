"""Guard zones and read-only inputs: a kernel that writes where it must not fails.

The bugs are planted for real: a kernel source with its bound moved by one
(through ``--sources``), or a numpy entry point that writes one element too
many, and the row must come back ``fail`` naming the array.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from conftest import need_backend, plant

from harness import suite
from harness.backends.wgpu import folded
from harness.execution.runner import Runner, RunOptions, Task
from harness.model import sources
from harness.model.verify import CHUNK, guard_problem, guard_zone, input_problem, with_guard

SIZE = 1001


def _copy_past_end(language: str, extension: str, tmp_path: Path) -> None:
    """Stream_COPY with its bound moved by one: it writes c[n] too."""
    bound, past = ("FOR_EACH(i, n)", "FOR_EACH(i, n + 1)")
    if language == "wgsl":
        bound, past = "if (i < s.n)", "if (i <= s.n)"
    plant(tmp_path, language, f"Stream_COPY{extension}", bound, past)


@pytest.mark.parametrize(
    ("backend", "language", "extension"), [("opencl", "c", ".c"), ("wgpu", "wgsl", ".wgsl")]
)
def test_a_kernel_writing_one_past_the_end_fails(
    backend: str, language: str, extension: str, tmp_path: Path
) -> None:
    need_backend(backend)
    _copy_past_end(language, extension, tmp_path)
    row = Runner(RunOptions(check=True, sources=(tmp_path,))).execute(
        Task("Stream_COPY", backend, 0, SIZE, "f64")
    )
    assert row["status"] == "fail"
    assert row["reason"] == (
        f"c: written past its end: 1 of the 64 guard elements after its {SIZE} changed, "
        "the farthest 1 past the end"
    )
    assert row["source"].startswith(str(tmp_path))


def test_a_numpy_entry_writing_one_past_the_end_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = suite.BY_NAME["Stream_COPY"]

    def copy_one_too_many(grid, a, c, n) -> None:
        c[: n + 1] = a[: n + 1]

    planted = dataclasses.replace(spec, cpu={"copy": copy_one_too_many})
    monkeypatch.setitem(suite.BY_NAME, "Stream_COPY", planted)
    row = Runner(RunOptions(check=True)).execute(Task("Stream_COPY", "cpu", 0, SIZE, "f64"))
    assert row["status"] == "fail"
    assert row["reason"].startswith("c: written past its end: 1 of the 64 guard elements")


def test_a_kernel_writing_into_an_input_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = suite.BY_NAME["Stream_ADD"]

    def add_and_clobber(grid, a, b, c, n) -> None:
        np.add(a[:n], b[:n], out=c[:n])
        a[7] = 0.0

    planted = dataclasses.replace(spec, cpu={"add": add_and_clobber})
    monkeypatch.setitem(suite.BY_NAME, "Stream_ADD", planted)
    row = Runner(RunOptions(check=True)).execute(Task("Stream_ADD", "cpu", 0, SIZE, "f64"))
    assert row["status"] == "fail"
    assert row["reason"].startswith(
        f"a: an input the kernel only reads was changed: 1 of {SIZE} elements, first at index 7"
    )


def test_each_array_has_its_own_guard_values() -> None:
    """Copying a's guard into c's shows; reads past the end see plausible values."""
    guards = [guard_zone(k, np.float64, "in") for k in range(2)]
    a = with_guard(np.arange(5.0), guards[0])
    c = with_guard(np.zeros(5), guards[1])
    c[5] = a[5]
    assert guard_problem("c", c, 5, guards[1]) is not None
    assert guard_problem("a", a, 5, guards[0]) is None
    assert np.all((np.abs(guards[0]) >= 0.5) & (np.abs(guards[0]) <= 2.0))
    assert (guards[0] < 0).any() and (guards[0] > 0).any()
    # Index lists the kernel reads get small valid indices, so a read past the
    # end lands in range; integers it writes get a pattern no count is likely to be.
    assert set(guard_zone(2, np.int32, "in")) <= {0, 1, 2, 3}
    assert np.all(guard_zone(3, np.uint32, "out") == 0x7C7C7C7C)


def test_input_check_compares_bits() -> None:
    """NaN stays NaN and -0 differs from +0: the comparison is of bytes."""
    original = np.array([np.nan, 0.0, 1.0])
    assert input_problem("x", original.copy(), original) is None
    flipped = original.copy()
    flipped[1] = -0.0
    assert "first at index 1" in input_problem("x", flipped, original)


def test_input_check_finds_changes_in_every_chunk_and_element_size() -> None:
    """Changed elements past the first chunk, and elements of a size that is
    no integer's (a 3-byte record), are found and counted."""
    original = np.arange(2 * CHUNK + 9, dtype=np.float64)
    changed = original.copy()
    changed[[5, CHUNK + 1, 2 * CHUNK + 8]] += 0.5
    assert "3 of" in input_problem("x", changed, original)
    records = np.zeros(10, dtype="V3")
    altered = records.copy()
    altered[4] = b"\x00\x01\x00"
    assert "1 of 10 elements, first at index 4" in input_problem("r", altered, records)


def test_timed_rows_are_unaffected_and_record_their_source() -> None:
    need_backend("opencl")
    row = Runner(RunOptions(reps=3, warmup=0)).execute(
        Task("Stream_TRIAD", "opencl", 0, 4096, "f64")
    )
    assert row["status"] == "ok", row["reason"]
    assert row["reps"] == 3 and row["time_median_s"] > 0
    assert row["source"] == "c/Stream_TRIAD.c"
    shipped = sources.find("opencl", ".cl", "Stream_TRIAD")
    assert row["source_sha256"] == sources.digest(shipped)


def test_wgpu_verification_dispatches_launches_as_2d_grids(tmp_path: Path) -> None:
    """The linear group index (wid.x + wid.y * nwg.x) that only launches past 65535
    groups need otherwise is exercised by every verification repetition."""
    need_backend("wgpu")
    assert folded(37, (37, 1)) == (19, 2)  # one extra group
    assert folded(40, (40, 1)) == (14, 3)  # 2 is a divisor; 3 leaves two extra groups
    assert folded(2, (2, 1)) == (1, 2)  # no room for an extra group: exactly two rows
    assert folded(1, (1, 1)) == (1, 1)
    assert folded(70000, (65535, 2)) == (65535, 2)  # already folded past the limit
    plant(
        tmp_path, "wgsl", "Stream_COPY.wgsl", "global_index(wid, nwg, lid)", "wid.x * GROUP + lid"
    )
    row = Runner(RunOptions(check=True, sources=(tmp_path,))).execute(
        Task("Stream_COPY", "wgpu", 0, 40 * 256, "f64")
    )
    assert row["status"] == "fail"
    # Rows of 14 groups: only the first 14 x 256 elements are written.
    assert row["reason"].startswith("c: 6656 of 10240 elements off")


def test_wgpu_verification_catches_a_missing_guard_against_extra_groups(tmp_path: Path) -> None:
    """A launch past 65535 groups, folded into 2-D, has groups past the launch's
    own; a shader that does not guard against them writes past its arrays there.
    Verification folds every launch with such extra groups, so at a size whose
    groups fit one row, that bug fails too: found on a GPU, in the bitonic sort's
    unguarded passes at 2^26 keys."""
    need_backend("wgpu")
    plant(tmp_path, "wgsl", "Stream_COPY.wgsl", "if (i < s.n) {", "{")
    row = Runner(RunOptions(check=True, sources=(tmp_path,))).execute(
        Task("Stream_COPY", "wgpu", 0, 40 * 256, "f64")
    )
    assert row["status"] == "fail"
    assert row["reason"].startswith("c: written past its end: 64 of the 64 guard elements")

"""Hostile-user probes, twelfth round: size factors too small for a kernel's default
size, a resumed run's metadata holding size options the command line refuses
together, RAJAPerf files of two runs' sizes, a reversed --lines range, and a
CUDA architecture the compiler has no cubin for."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, cut_journal, harness, one_error, run_folder

from harness.backends import cuda_compile

QUICK = ["-k", "Stream_TRIAD", "Basic_DAXPY", "-b", "cpu", "--size", "1000"]


def _edit_options(run: Path, **values: object) -> Path:
    """Set ``values`` in the options of the run's metadata; the metadata's path."""
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta["options"].update(values)
    path.write_text(json.dumps(meta))
    return path


def _refused_resume(run: Path, **values: object) -> tuple[Path, str]:
    """Resume the run, its journal cut to one row and its saved options edited with
    ``values``: the metadata's path and the one error line, once the resume has
    exited 2 and left the journal as it was."""
    journal = cut_journal(run, 1)
    before = journal.read_bytes()
    path = _edit_options(run, **values)
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 2, proc.stderr
    assert journal.read_bytes() == before
    return path, one_error(proc.stderr)


def test_a_size_factor_below_every_kernels_size_is_refused(tmp_path: Path) -> None:
    """--size-factor 1e-300 ran Stream_TRIAD at size 1, with no word of it, and passed."""
    out = tmp_path / "out"
    proc = harness("run", "-k", "Stream_TRIAD", "-b", "cpu", "--size-factor", "1", "1e-300",
                   "--reps", "3", "--out", str(out))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "--size-factor 1e-300 gives every selected kernel a size below 1 (the largest default "
        "size, Stream_TRIAD's 1000000, times 1e-300); a factor of at least 1e-06 is accepted"
    )
    assert not out.exists()


def test_a_size_factor_below_some_kernels_size_says_which_run_at_size_1(tmp_path: Path) -> None:
    """--size-factor 1e-6 ran Apps_INTSC_HEXHEX (default size 15625) at size 1 and
    said nothing of it."""
    out = tmp_path / "out"
    proc = harness("run", "--check", "-k", "Stream_TRIAD", "Apps_INTSC_HEXHEX", "-b", "cpu",
                   "--size-factor", "1e-6", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        "note: --size-factor 1e-06 gives Apps_INTSC_HEXHEX (default size 15625) a size below 1; "
        "it runs at size 1"
    ) in proc.stderr.splitlines()
    rows = [json.loads(line) for line in (run_folder(out) / "journal.jsonl").open()]
    assert [(r["kernel"], r["size"]) for r in rows] == [
        ("Stream_TRIAD", 1),
        ("Apps_INTSC_HEXHEX", 1),
    ]


@pytest.mark.parametrize(
    ("values", "said"),
    [
        ({"size": 1000, "sizes": [2000]}, "options.size 1000 and options.sizes [2000]"),
        ({"size": 1000, "size_factors": [0.5]}, "options.size 1000 and options.size_factors [0.5]"),
        (
            {"size": None, "sizes": [2000], "memory": "moved", "budgets": [4096]},
            "options.sizes [2000] and options.budgets [4096]",
        ),
    ],
    ids=["sizes", "factors", "budgets"],
)
def test_a_resume_refuses_size_options_the_command_line_refuses_together(
    values: dict[str, object], said: str, run: Path
) -> None:
    """A run's metadata edited to hold size 1000 beside sizes [2000] (or beside
    size_factors) resumed, ran the sweep alone and passed: size was dropped."""
    path, error = _refused_resume(run, **values)
    assert error == (
        f"--resume: {path}: {said} are given together; harness run takes one of size, sizes "
        "or budgets, and size_factors alone or beside sizes"
    )


def test_a_resume_refuses_a_saved_size_factor_below_every_kernels_size(run: Path) -> None:
    """A run's metadata edited to hold size_factors [1e-300] resumed at size 1."""
    path, error = _refused_resume(run, size=None, size_factors=[1e-300])
    assert error == (
        f"--resume: {path}: options.size_factors 1e-300 gives every selected kernel a size "
        "below 1 (the largest default size, Stream_TRIAD's 1000000, times 1e-300); a factor "
        "of at least 1e-06 is accepted"
    )


def test_a_resume_refuses_budgets_without_their_measure(run: Path) -> None:
    """A run's metadata edited to hold budgets [4096] and memory null resumed at each
    kernel's default size, as if no budget were given, and passed."""
    path, error = _refused_resume(run, size=None, memory=None, budgets=[4096])
    assert error == (
        f"--resume: {path}: options.memory is None but options.budgets [4096]; both (a "
        "measure and its budgets, as --memory-* gives them) or neither is accepted"
    )


def test_an_import_of_run_data_at_another_size_than_its_details_has_no_rates(
    tmp_path: Path,
) -> None:
    """A run-data row at problem size 5000 beside details of size 100000 (files of two
    runs) was imported ok at 80 GB/s: the bytes of 100000 over the time of 5000."""
    folder = shutil.copytree(FIXTURES / "rajaperf_output", tmp_path / "raja")
    data = folder / "RAJAPerf-kernel-run-data.csv"
    lines = data.read_text().splitlines(keepends=True)
    assert lines[2].startswith("Stream_COPY    , Base_Seq ") and "100000 , PASSED" in lines[2]
    lines[2] = lines[2].replace("100000 , PASSED", "5000 , PASSED")
    data.write_text("".join(lines))
    proc = harness("import-rajaperf", str(folder), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"warning: {data}:3: 'Problem size' is 5000, but 100000 in RAJAPerf-kernel-details.csv "
        "(files of two runs?): its bytes and FLOPs are left unknown"
    ) in proc.stderr.splitlines()
    rows = [json.loads(x) for x in (run_folder(tmp_path / "out") / "journal.jsonl").open()]
    copy = [r for r in rows if r["kernel"] == "Stream_COPY"]
    assert [(r["size"], r["status"], r.get("gbytes_per_s")) for r in copy] == [
        (5000, "ok", None),
        (100000, "ok", pytest.approx(160.0)),
    ]


def test_a_reversed_lines_range_says_first_comes_before_last(tmp_path: Path) -> None:
    """--lines Stream_TRIAD.c:9-3 was refused as 'not FILE:LINE or FILE:FIRST-LAST
    ... lines from 1', which 9-3 seems to be."""
    proc = harness("mutants", "-k", "Stream_TRIAD", "-b", "opencl", "--lines",
                   "Stream_TRIAD.c:9-3", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert one_error(proc.stderr) == (
        "argument --lines: 'Stream_TRIAD.c:9-3' is not FILE:LINE or FILE:FIRST-LAST with a "
        "source file's name (as bitonic.h:640-760) and lines from 1, FIRST at most LAST (see "
        "'harness mutants --help')"
    )
    assert not any(tmp_path.iterdir())


def test_cuda_compile_for_an_arch_the_compiler_lacks_says_it_checked_ptx(tmp_path: Path) -> None:
    """cuda-compile --arch 95 printed 'sm_95 f32: ok' and passed, with no word that no
    compiler here builds sm_95: it checked PTX for an older architecture."""
    found = cuda_compile.available()
    if not found:
        pytest.skip("no CUDA compiler here")
    known = cuda_compile.supported_arches(found[0])
    arch = next((a for a in range(known[0] + 1, 200) if a not in known), None) if known else None
    if arch is None:
        pytest.skip(f"{found[0]} lists no architectures, or every one from its first to 200")
    older = max(a for a in known if a < arch)
    (tmp_path / "c").mkdir()
    (tmp_path / "cuda").mkdir()
    shutil.copy(ROOT / "kernels" / "c" / "Stream_TRIAD.c", tmp_path / "c")
    shutil.copy(ROOT / "kernels" / "cuda" / "dialect.cuh", tmp_path / "cuda")
    proc = harness("cuda-compile", "--arch", str(arch), "--precision", "f32",
                   "--sources", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"Stream_TRIAD.c sm_{arch} f32: ok\n"
    assert proc.stderr.splitlines() == [
        f"note: {cuda_compile.version(found[0])} has no sm_{arch} (it builds sm_{known[0]} to "
        f"sm_{known[-1]}), so sm_{arch}'s sources are checked as PTX for compute_{older}, "
        "which a newer device's driver compiles",
        "1 of 1 compiled",
    ]

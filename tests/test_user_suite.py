"""Bring your own kernel: a description and its sources in the user's folder run
like the shipped kernels (every backend, verification, mutants), installed
packages add theirs through an entry point, and a broken description gets one
line naming the file, the kernel and what is wrong."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

from harness.execution import results

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "my_kernels"
#: The line of the example's KERNELS.
KERNELS_LINE = 1 + (EXAMPLE / "kernels.py").read_text().splitlines().index(
    "KERNELS = (SAXPY, STENCIL2D)"
)
BACKENDS = ("cpu", "opencl", "wgpu")


def test_the_example_runs_verified_on_every_backend(tmp_path: Path) -> None:
    for backend in BACKENDS:
        need_backend(backend)
    proc = harness(
        "run", "--suite", str(EXAMPLE / "kernels.py"), "-k", "My", "-b", *BACKENDS,
        "--check", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run_folder(tmp_path))
    assert {(r["kernel"], r["backend"]) for r in rows} == {
        (k, b) for k in ("My_SAXPY", "My_STENCIL2D") for b in BACKENDS
    }
    assert all(r["status"] == "ok" for r in rows), [r["reason"] for r in rows]
    # Their sources are the user's, not the shipped ones.
    assert {r["source"] for r in rows if r["backend"] == "opencl"} == {
        str(EXAMPLE / "c" / "My_SAXPY.c"),
        str(EXAMPLE / "c" / "My_STENCIL2D.c"),
    }


def test_mutants_of_the_example_are_killed(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "mutants", "--suite", str(EXAMPLE / "kernels.py"), "-k", "My_STENCIL2D", "-b", "opencl",
        "--precision", "f64", "--sample", "8", "--fail-under", "100", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "My_STENCIL2D  opencl:0  8        8" in proc.stdout


def _broken(tmp_path: Path, edit: tuple[str, str], source: tuple[str, str] | None = None) -> Path:
    folder = tmp_path / "suite"
    shutil.copytree(EXAMPLE, folder)
    path = folder / "kernels.py"
    text = path.read_text().replace('name="My_', 'name="Your_')
    path.write_text(text.replace(*edit))
    for name in ("My_SAXPY", "My_STENCIL2D"):
        for language, suffix in (("c", ".c"), ("wgsl", ".wgsl")):
            old = folder / language / f"{name}{suffix}"
            new = old.with_name(old.name.replace("My_", "Your_"))
            new.write_text(old.read_text().replace(*(source or ("", ""))))
            old.unlink()
    return path


@pytest.mark.parametrize(
    ("edit", "source", "message"),
    [
        (
            ("KERNELS = (SAXPY, STENCIL2D)", "KERNELS = (SAXPY, STENCIL2D"),
            None,
            f": line {KERNELS_LINE}: SyntaxError: '(' was never closed",
        ),
        (
            ("KERNELS = (SAXPY, STENCIL2D)", "KERNEL = SAXPY"),
            None,
            ": it defines no KERNELS (a tuple of harness.model.spec.KernelSpec)",
        ),
        (
            ("KERNELS = (SAXPY, STENCIL2D)", "KERNELS = (SAXPY, 'STENCIL2D')"),
            None,
            ": KERNELS holds str 'STENCIL2D', not a harness.model.spec.KernelSpec",
        ),
        (
            ('name="Your_SAXPY"', 'name="Stream_COPY"'),
            None,
            ": kernel Stream_COPY: the suite has one so named",
        ),
        (
            ('cpu={"saxpy": _saxpy_cpu}', "cpu={}"),
            None,
            ": kernel Your_SAXPY: no cpu entry for saxpy (its plan launches them",
        ),
        (
            ("", ""),
            ("const REAL a, const uint n", "const uint n, const REAL a"),
            ": kernel Your_SAXPY: Your_SAXPY.c: saxpy: parameter 3 (n) gets a: the arguments "
            "are swapped",
        ),
        (
            ('return [Launch("saxpy"', 'return None and [Launch("saxpy"'),
            None,
            ": kernel Your_SAXPY: its plan at size 10007 returned NoneType None: give a list of "
            "harness.model.spec.Launch",
        ),
        (
            ('return [Launch("saxpy"', 'return [None, Launch("saxpy"'),
            None,
            ": kernel Your_SAXPY: its plan at size 10007 returned list holding NoneType None: "
            "give a list of harness.model.spec.Launch",
        ),
        (("return 0.5 * a", "return 0.5 / 0 * a"), None, None),
    ],
)
def test_a_broken_description_is_one_line(
    tmp_path: Path, edit: tuple[str, str], source: tuple[str, str] | None, message: str | None
) -> None:
    path = _broken(tmp_path, edit, source)
    proc = harness("run", "--suite", str(path), "-k", "Your", "-b", "cpu", "--check",
                   "--out", str(tmp_path / "out"))  # fmt: skip
    if message is None:
        # An error inside the user's numpy code is the row's, naming their file and line.
        assert proc.returncode == 1, proc.stderr
        rows = results.read_journal(run_folder(tmp_path / "out"))
        (bad,) = {r["reason"] for r in rows if r["status"] != "ok"}
        assert bad.startswith("ZeroDivisionError: float division by zero (kernels.py:")
        return
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"harness: error: --suite {path}{message}"), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


_INIT = 'return {"x": rng.uniform(-1, 1, size), "y": rng.uniform(-1, 1, size), "a": 2.5}'
_REFERENCE = 'reference=lambda x: {"y": float(x["a"]) * np.float64(x["x"]) + np.float64(x["y"])},'


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            (_INIT, "return None"),
            "init returned NoneType; it returns a dict of values by array name",
        ),
        (
            (_INIT, 'return {"x": rng.uniform(-1, 1, size), "a": 2.5}'),
            "init made no 'y'; it makes every array (x, y)",
        ),
        (
            (_INIT, _INIT.replace('"x": rng.uniform(-1, 1, size)', '"x": "abc"')),
            "init's x cannot be taken as float64 (could not convert string to float: 'abc')",
        ),
        (
            (_INIT, _INIT.replace('"a": 2.5', '"a": [1, 2]')),
            "init's a has shape (2,); a scalar is one number",
        ),
        (
            (_REFERENCE, "reference=lambda x: None,"),
            "reference returned NoneType; it returns a dict of values by array name",
        ),
        (
            (_REFERENCE, 'reference=lambda x: {"z": x["y"]},'),
            "reference gives 'z', which is none of its arrays (x, y)",
        ),
    ],
)
def test_what_a_description_returns_that_no_row_can_use_is_named(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    """An init or reference of the wrong shape was the row's error as a harness
    line: "TypeError: 'NoneType' object is not subscriptable (runner.py:370)",
    "KeyError: 'y' (runner.py:370)", "KeyError: 'z' (verify.py:71)"."""
    path = _broken(tmp_path, edit)
    proc = harness("run", "--suite", str(path), "-k", "Your_SAXPY", "-b", "cpu", "--check",
                   "--out", str(tmp_path / "out"))  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    (row,) = results.read_journal(run_folder(tmp_path / "out"))
    assert (row["status"], row["reason"]) == ("error", f"description error: Your_SAXPY: {message}")


def test_an_installed_package_adds_its_kernels(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(EXAMPLE, site / "their_kernels")
    (site / "their_kernels" / "kernels.py").rename(site / "their_kernels" / "__init__.py")
    info = site / "their_kernels-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: their-kernels\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[harness.suites]\ntheirs = their_kernels\n")
    proc = harness("list", "-k", "My", env={"PYTHONPATH": str(site)})
    assert proc.returncode == 0, proc.stderr
    assert [line.split()[0] for line in proc.stdout.splitlines()[1:3]] == [
        "My_SAXPY",
        "My_STENCIL2D",
    ]

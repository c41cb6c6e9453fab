"""Bodies with a form of their own on CPU devices (HARNESS_CPU_DEVICE): the GPU
forms verified here on PoCL and lavapipe by HARNESS_FORM=gpu, WGSL's #ifdef
selection, and the one-line error for a bad HARNESS_FORM."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import harness, need_backend, not_ok, run_folder

from harness import suite
from harness.backends import get as get_backend
from harness.backends.opencl import program_text
from harness.model import partition, sources
from harness.model.sources import Expanded, select_branches


def _with_forms(language: str, extension: str) -> list[str]:
    """Kernels whose source for a language (includes expanded) has a CPU form."""
    found = []
    for kernel in suite.ALL:
        path = sources.find(language, extension, kernel.source_name)
        if path is not None and partition.CPU_MACRO in sources.expand(path).text:
            found.append(kernel.name)
    return found


def _rows(out: Path) -> list[dict[str, str]]:
    with (run_folder(out) / "results.csv").open() as f:
        return list(csv.DictReader(f))


@pytest.mark.full
@pytest.mark.parametrize(
    "backend, language, extension", [("opencl", "opencl", ".cl"), ("wgpu", "wgsl", ".wgsl")]
)
def test_gpu_forms_verify_on_cpu_devices(
    backend: str, language: str, extension: str, tmp_path: Path
) -> None:
    """The GPU forms otherwise run only where a GPU is: every such kernel's
    check passes with them on this machine's CPU devices."""
    need_backend(backend)
    kernels = _with_forms(language, extension)
    assert kernels, f"no {language} source has a {partition.CPU_MACRO} form"
    if backend == "opencl":
        assert {"Basic_PI_ATOMIC", "Algorithm_SCAN", "Polybench_GEMM", "Bitonic_U32"} <= set(
            kernels
        )
    done = harness(
        "run", "--check", "-b", backend, "-k", *kernels, "--out", str(tmp_path),
        env={partition.FORM_ENV: "gpu"}, timeout=900,
    )  # fmt: skip
    rows = _rows(tmp_path)
    assert done.returncode == 0, "\n".join(not_ok(rows)) or done.stderr[-2000:]
    assert {r["kernel"] for r in rows} >= set(kernels)


def test_the_form_decides_what_opencl_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = suite.spec_of("Basic_PI_ATOMIC")
    source = sources.find("opencl", ".cl", spec.source_name)
    device = get_backend("cpu").devices()[0]  # kind "cpu"
    define = f"#define {partition.CPU_MACRO} 1"
    assert define in program_text(spec, source, "f64", device)
    monkeypatch.setenv(partition.FORM_ENV, "gpu")
    assert define not in program_text(spec, source, "f64", device)


def test_wgsl_branches_are_selected_in_place() -> None:
    text = "\n".join(
        [
            "a",
            "#ifdef HARNESS_CPU_DEVICE",
            "cpu",
            "#ifndef OTHER",
            "cpu and not other",
            "#endif",
            "#else",
            "gpu",
            "#endif",
            "z",
        ]
    )
    origin = tuple(("k.wgsl", n) for n in range(1, 11))
    on_cpu = select_branches(Expanded(text, origin), frozenset({"HARNESS_CPU_DEVICE"}))
    on_gpu = select_branches(Expanded(text, origin), frozenset())
    assert on_cpu.text.split("\n") == ["a", "", "cpu", "", "cpu and not other", "", "", "", "", "z"]
    assert on_gpu.text.split("\n") == ["a", "", "", "", "", "", "", "gpu", "", "z"]
    assert on_cpu.origin == origin
    with pytest.raises(ValueError, match=r"k.wgsl:2: this #ifdef has no #endif"):
        select_branches(Expanded("a\n#ifdef X\nb", origin[:3]), frozenset())
    with pytest.raises(ValueError, match=r"k.wgsl:2: #endif without #if, #ifdef or #ifndef"):
        select_branches(Expanded("a\n#endif", origin[:2]), frozenset())
    with pytest.raises(ValueError, match=r"k.wgsl:2: '#if X > 1': WGSL sources take only"):
        select_branches(Expanded("a\n#if X > 1\n#endif", origin[:3]), frozenset())


def test_unroll_writes_a_loop_out_with_each_line_s_origin() -> None:
    """naga bounds every loop and clamps each index it cannot see in range; a
    loop under #unroll is written out, one block a turn, its index a constant."""
    text = "a\n#unroll i 2\nx[i]\n#unroll j 2\ny[i][j]\n#endunroll\n#endunroll\nz\n"
    origin = tuple(("k.wgsl", n) for n in range(1, 9))
    out = select_branches(Expanded(text, origin), frozenset())
    turn = ["x[i]", "{ const j = 0;", "y[i][j]", "}", "{ const j = 1;", "y[i][j]", "}"]
    assert out.text.split("\n") == [
        "a",
        *("{ const i = 0;", *turn, "}"),
        *("{ const i = 1;", *turn, "}"),
        "z",
        "",
    ]
    lines = [n for _, n in out.origin]
    assert lines == [1, 2, 3, 4, 5, 6, 4, 5, 6, 7, 2, 3, 4, 5, 6, 4, 5, 6, 7, 8]
    assert len(out.origin) == len(out.text.split("\n")) - 1
    with pytest.raises(ValueError, match=r"k.wgsl:2: this #unroll has no #endunroll"):
        select_branches(Expanded("a\n#unroll i 2\nb", origin[:3]), frozenset())
    with pytest.raises(ValueError, match=r"k.wgsl:2: #endunroll without #unroll"):
        select_branches(Expanded("a\n#endunroll", origin[:2]), frozenset())
    for head in ("#unroll i 0", "#unroll i 257", "#unroll 4", "#unroll i N"):
        with pytest.raises(ValueError, match=rf"k.wgsl:1: '{head}': give #unroll NAME COUNT"):
            select_branches(Expanded(f"{head}\n#endunroll", origin[:2]), frozenset())


def test_a_bad_form_is_one_line_and_exit_2() -> None:
    done = harness("devices", env={partition.FORM_ENV: "xpu"})
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "harness: error: HARNESS_FORM='xpu': expected cpu or gpu (or unset)"
    )

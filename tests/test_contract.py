"""Every kernel source keeps its description's calling convention (no device needed),
and the check catches a mismatch planted in each language."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import suite
from harness.model import contract, sources, wgsl_module

#: The suite's kernels and the harness's own (a cache flush), by name.
EVERY = {k.name: k for k in (*suite.ALL, *suite.INTERNAL)}


@pytest.mark.parametrize("language", list(contract.LANGUAGES))
@pytest.mark.parametrize("kernel", list(EVERY))
def test_every_source_matches_its_description(kernel: str, language: str) -> None:
    assert contract.problems(EVERY[kernel], language) == []


@pytest.mark.parametrize("kernel", [k.name for k in suite.ALL])
def test_every_launch_uses_the_group_size_the_sources_see(kernel: str) -> None:
    assert contract.group_problems(suite.BY_NAME[kernel]) == []


FOLDERS = ("c", *contract.LANGUAGES)


def test_no_source_types_a_constant_of_its_description() -> None:
    """GROUP and every constant of a description (FIR's tap count, a sort's TILE)
    come from the description in every language, never a literal copy."""
    names = {"GROUP"} | {name for spec in suite.ALL for name in spec.constants}
    for folder in FOLDERS:
        for path in (sources.shipped_root() / folder).iterdir():
            text = path.read_text()
            for name in names:
                assert f"#define {name} " not in text, (path.name, name)
                assert f"const {name}:" not in text and f"const {name} " not in text, path.name
            assert "workgroup_size(256)" not in text, path.name


def test_every_kernel_has_a_source_in_every_language() -> None:
    for spec in suite.ALL:
        for language, extension in contract.LANGUAGES.items():
            assert sources.find(language, extension, spec.source_name), (spec.name, language)


def test_opencl_and_cuda_share_every_body(tmp_path: Path) -> None:
    """Where OpenCL and CUDA run the same algorithm the body is written once, in
    kernels/c/; a backend's own file is for a version of its own, sharing few lines."""
    assert contract.written_twice(sources.shipped_root()) == []
    shared = sources.find("cuda", ".cu", "Apps_ENERGY")
    assert shared is not None
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / shared.name).write_text(shared.read_text())
    (tmp_path / "opencl").mkdir()
    copy = shared.read_text().replace("KERNEL void", "__kernel void")
    (tmp_path / "opencl" / "Apps_ENERGY.cl").write_text(copy)
    (found,) = contract.written_twice(tmp_path)
    assert found.startswith("opencl/Apps_ENERGY.cl repeats ")
    assert found.endswith(" lines of c/Apps_ENERGY.c")


def test_repeated_lines_counts_code_not_punctuation() -> None:
    a = "KERNEL void f(GLOBAL REAL* x)\n{\n    x[0] = 1;\n}\n// note\n"
    b = "extern void f(REAL* x)\n{\n    x[0] = 1;\n}\n// note\n"
    assert contract.repeated_lines(a, b) == ["x[0] = 1;"]


def _planted(tmp_path: Path, language: str, kernel: str, old: str, new: str) -> list[str]:
    """The contract problems, in ``language``, of a kernel whose source has ``old``
    replaced by ``new``, planted in a sources folder as ``--sources`` takes one."""
    extension = contract.LANGUAGES[language]
    shipped = sources.find(language, extension, kernel)
    assert shipped is not None
    text = shipped.read_text()
    assert old in text
    folder = tmp_path / shipped.parent.name
    folder.mkdir(exist_ok=True)
    (folder / shipped.name).write_text(text.replace(old, new))
    return contract.problems(suite.BY_NAME[kernel], language, (tmp_path,))


@pytest.mark.parametrize("language", ["opencl", "cuda"])
def test_arguments_swapped_in_a_shared_body_are_found(tmp_path: Path, language: str) -> None:
    found = _planted(
        tmp_path,
        language,
        "Stream_ADD",
        "GLOBAL const REAL* a, GLOBAL const REAL* b",
        "GLOBAL const REAL* b, GLOBAL const REAL* a",
    )
    assert found == [
        "Stream_ADD.c: add: parameter 1 (b) gets a: the arguments are swapped",
        "Stream_ADD.c: add: parameter 2 (a) gets b: the arguments are swapped",
    ]


def test_a_binding_reordered_in_wgsl_is_found(tmp_path: Path) -> None:
    found = _planted(
        tmp_path,
        "wgsl",
        "Algorithm_HISTOGRAM",
        "@binding(0) var<storage, read> bins: array<i32>;\n"
        "@group(0) @binding(1) var<storage, read_write> counts",
        "@binding(1) var<storage, read> bins: array<i32>;\n"
        "@group(0) @binding(0) var<storage, read_write> counts",
    )
    assert found == [
        "Algorithm_HISTOGRAM.wgsl: histogram: parameter 1 (counts@0) gets bins: "
        "the arguments are swapped",
        "Algorithm_HISTOGRAM.wgsl: histogram: parameter 2 (bins@1) gets counts: "
        "the arguments are swapped",
    ]


def test_a_wgsl_body_gets_its_declarations_from_the_description() -> None:
    """A source that declares no binding is checked as the backend compiles it: the
    launch's arrays and scalars declared for it, its other entry points blanked."""
    source = sources.find("wgsl", ".wgsl", "Apps_PRESSURE")
    assert source is not None and "@binding" not in source.read_text()
    pressure = suite.BY_NAME["Apps_PRESSURE"]
    arguments = wgsl_module.arguments(pressure, ("bvc", "compression", "cls", "n"))
    assert wgsl_module.declarations(arguments) == [
        "@group(0) @binding(0) var<storage, read_write> bvc: array<REAL>;",
        "@group(0) @binding(1) var<storage, read> compression: array<REAL>;",
        "struct Scalars { cls: REAL, n: u32, }",
        "@group(0) @binding(2) var<uniform> s: Scalars;",
    ]
    text = source.read_text()
    alone = wgsl_module.for_entry(text, "pressure1")
    assert alone.count("\n") == text.count("\n") and "fn pressure2" not in alone
    assert "fn pressure1" in alone
    assert contract.problems(pressure, "wgsl") == []


def test_a_declaration_wgsl_cannot_write_is_named() -> None:
    keys = wgsl_module.Argument("keys", "u64", read_only=False, array=True)
    with pytest.raises(ValueError, match="keys is u64, which WGSL has no type for here"):
        wgsl_module.declarations([keys])


def test_a_parameter_dropped_in_a_cuda_override_is_found(tmp_path: Path) -> None:
    """A CUDA-only version (kernels/cuda/X.cu) overrides the shared body for CUDA
    alone, and is held to the description like any other source."""
    shared = sources.find("cuda", ".cu", "Stream_TRIAD")
    assert shared is not None and shared.suffix == ".c"
    (tmp_path / "cuda").mkdir()
    (tmp_path / "cuda" / "Stream_TRIAD.cu").write_text(
        shared.read_text().replace("const REAL alpha,", "")
    )
    triad = suite.BY_NAME["Stream_TRIAD"]
    assert contract.problems(triad, "cuda", (tmp_path,)) == [
        "Stream_TRIAD.cu: triad: 4 parameters (a, b, c, n), "
        "the description passes 5 (a, b, c, alpha, n)"
    ]
    assert contract.problems(triad, "opencl", (tmp_path,)) == []


@pytest.mark.parametrize("language", ["opencl", "cuda"])
def test_a_wrong_element_type_and_a_writable_input_are_found(tmp_path: Path, language: str) -> None:
    found = _planted(
        tmp_path,
        language,
        "Stream_TRIAD",
        "GLOBAL REAL* a, GLOBAL const REAL* b",
        "GLOBAL float* a, GLOBAL REAL* b",
    )
    assert found == [
        "Stream_TRIAD.c: triad: parameter 1 (a) gets a of real, but its elements are float",
        "Stream_TRIAD.c: triad: parameter 2 (b) gets b, which it only reads, but is writable",
    ]


def test_a_uniform_field_of_the_wrong_type_is_found(tmp_path: Path) -> None:
    found = _planted(tmp_path, "wgsl", "Algorithm_HISTOGRAM", "chunk: u32,", "chunk: f32,")
    assert found == [
        "Algorithm_HISTOGRAM.wgsl: histogram: parameter 4 (chunk) gets chunk of u32, but is f32"
    ]

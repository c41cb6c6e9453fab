"""Every kernel source keeps its description's calling convention (no device needed),
and the check catches a mismatch planted in each language."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import contract, sources, suite


@pytest.mark.parametrize("language", list(contract.LANGUAGES))
@pytest.mark.parametrize("kernel", [k.name for k in suite.ALL])
def test_every_source_matches_its_description(kernel: str, language: str) -> None:
    assert contract.problems(suite.BY_NAME[kernel], language) == []


@pytest.mark.parametrize("kernel", [k.name for k in suite.ALL])
def test_every_launch_uses_the_group_size_the_sources_see(kernel: str) -> None:
    assert contract.group_problems(suite.BY_NAME[kernel]) == []


def test_no_source_types_its_own_group_size() -> None:
    """GROUP comes from the description in every language, never a literal."""
    for language in contract.LANGUAGES:
        for path in (sources.shipped_root() / language).iterdir():
            text = path.read_text()
            assert "#define GROUP" not in text and "const GROUP" not in text, path.name
            assert "workgroup_size(256)" not in text, path.name


def test_every_kernel_has_a_source_in_every_language() -> None:
    for spec in suite.ALL:
        for language, extension in contract.LANGUAGES.items():
            assert sources.find(language, extension, spec.source_name), (spec.name, language)


def _planted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, language: str, kernel: str, old: str, new: str
) -> list[str]:
    """The contract problems of a kernel whose source has ``old`` replaced by ``new``."""
    extension = contract.LANGUAGES[language]
    shipped = sources.find(language, extension, kernel)
    assert shipped is not None
    text = shipped.read_text()
    assert old in text
    (tmp_path / language).mkdir()
    (tmp_path / language / shipped.name).write_text(text.replace(old, new))
    original = sources.find
    monkeypatch.setattr(
        sources, "find", lambda lang, ext, name, extra=(): original(lang, ext, name, (tmp_path,))
    )
    return contract.problems(suite.BY_NAME[kernel], language)


def test_arguments_swapped_in_opencl_are_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    found = _planted(
        monkeypatch,
        tmp_path,
        "opencl",
        "Stream_ADD",
        "__global const REAL* a, __global const REAL* b",
        "__global const REAL* b, __global const REAL* a",
    )
    assert found == [
        "Stream_ADD.cl: add: parameter 1 (b) gets a: the arguments are swapped",
        "Stream_ADD.cl: add: parameter 2 (a) gets b: the arguments are swapped",
    ]


def test_a_binding_reordered_in_wgsl_is_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    found = _planted(
        monkeypatch,
        tmp_path,
        "wgsl",
        "Stream_TRIAD",
        "@binding(1) var<storage, read> b: array<REAL>;\n@group(0) @binding(2)",
        "@binding(2) var<storage, read> b: array<REAL>;\n@group(0) @binding(1)",
    )
    assert found == [
        "Stream_TRIAD.wgsl: triad: parameter 2 (c@1) gets b: the arguments are swapped",
        "Stream_TRIAD.wgsl: triad: parameter 3 (b@2) gets c: the arguments are swapped",
    ]


def test_a_parameter_dropped_in_cuda_is_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    found = _planted(monkeypatch, tmp_path, "cuda", "Stream_TRIAD", "const REAL alpha,", "")
    assert found == [
        "Stream_TRIAD.cu: triad: 4 parameters (a, b, c, n), "
        "the description passes 5 (a, b, c, alpha, n)"
    ]


def test_a_wrong_element_type_and_a_writable_input_are_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    found = _planted(
        monkeypatch,
        tmp_path,
        "cuda",
        "Stream_TRIAD",
        "REAL* a, const REAL* b",
        "float* a, REAL* b",
    )
    assert found == [
        "Stream_TRIAD.cu: triad: parameter 1 (a) gets a of real, but its elements are float",
        "Stream_TRIAD.cu: triad: parameter 2 (b) gets b, which it only reads, but is writable",
    ]


def test_a_uniform_field_of_the_wrong_type_is_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    found = _planted(monkeypatch, tmp_path, "wgsl", "Stream_TRIAD", "alpha: REAL,", "alpha: u32,")
    assert found == ["Stream_TRIAD.wgsl: triad: parameter 4 (alpha) gets alpha of real, but is u32"]

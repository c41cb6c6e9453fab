"""Mutation testing: the mutants made of a source, the reviewed equivalents, and
``harness mutants`` run for real on PoCL."""

from __future__ import annotations

import collections
import csv
from pathlib import Path

import pytest
from conftest import need_backend

from harness import suite
from harness.backends import get as get_backend
from harness.backends.base import DeviceInfo
from harness.cli import main
from harness.execution.runner import RunOptions
from harness.model import sources
from harness.model.spec import KernelSpec
from harness.mutation import mutants
from harness.mutation.operators import Mutant, live_lines
from harness.mutation.operators import mutants as make_mutants
from harness.mutation.reach import CallGraph, Reach

C_SOURCE = """\
// a comment with a + b and x < y
#include "chunk.h"
#define SCALE ((REAL)0.5)
__kernel void k(__global const REAL* a, __global REAL* c, const uint n)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
        c[i] = -a[i] * SCALE + min(a[i], (REAL)2.0); /* a - b */
        atomic_inc(c);
    }
}
"""

WGSL_SOURCE = """\
@group(0) @binding(1) var<storage, read_write> c: array<REAL>;
@group(0) @binding(2) var<storage, read_write> bits: array<atomic<u32>>;
@compute @workgroup_size(GROUP)
fn k(@builtin(workgroup_id) wid: vec3<u32>) {
    let i = wid.x * 256u;
    if (i >= s.n) {
        return;
    }
    c[i] = bitcast<f32>(i & 7u);
}
"""


def _changes(source: str, name: str) -> set[tuple[str, str, str]]:
    return {(m.operator, m.original.strip(), m.mutated.strip()) for m in make_mutants(name, source)}


def test_c_mutants_cover_each_kind_and_skip_what_cannot_be_a_bug() -> None:
    found = make_mutants("k.cl", C_SOURCE)
    body = "c[i] = -a[i] * SCALE + min(a[i], (REAL)2.0); /* a - b */"
    mutated = {(m.line, m.mutated.strip()) for m in found}
    assert (7, body.replace("* SCALE", "/ SCALE")) in mutated
    assert (7, body.replace("+ min", "- min")) in mutated
    assert (7, body.replace("min(", "max(")) in mutated
    assert (7, body.replace("2.0", "3.0")) in mutated
    assert (7, "; /* a - b */") in mutated
    assert (3, "#define SCALE ((REAL)1.5)") in mutated
    loop = "for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {"
    assert (6, loop.replace("i < n", "i <= n")) in mutated
    assert (6, loop.replace("+=", "-=")) in mutated
    assert (6, loop.replace("(0)", "(1)", 1)) in mutated
    assert (8, ";") in mutated
    lines = {m.line for m in found}
    # Comments, includes and the parameter list (pointer stars) are never mutated;
    # nor is the unary minus of -a[i].
    assert not lines & {1, 2, 4}
    assert all("-a[i]" in m.mutated or m.line != 7 for m in found)
    assert all("/* a - b */" in m.mutated for m in found if m.line == 7)


def test_wgsl_mutants_skip_attributes_and_template_brackets() -> None:
    found = _changes(WGSL_SOURCE, "k.wgsl")
    lines = {original for _, original, _ in found}
    assert not any(line.startswith(("@group", "@compute", "fn k")) for line in lines)
    assert ("comparison", "if (i >= s.n) {", "if (i > s.n) {") in found
    assert ("operator", "let i = wid.x * 256u;", "let i = wid.x / 256u;") in found
    assert ("constant", "let i = wid.x * 256u;", "let i = wid.x * 257u;") in found
    assert ("constant", "let i = wid.x * 256u;", "let i = wid.x * 255u;") in found
    store = "c[i] = bitcast<f32>(i & 7u);"
    assert ("operator", store, store.replace("&", "|")) in found
    assert ("delete", store, ";") in found
    # Code after a nested template list closed by '>>' is still mutated.
    assert {o for _, o, _ in found} >= {"let i = wid.x * 256u;", store}
    # bitcast's template list is not a comparison.
    assert not any(m.startswith("c[i] = bitcast<=") for _, _, m in found)


def test_an_unroll_count_is_mutated_and_its_name_is_not() -> None:
    """A written-out loop's count of copies is code: one copy too few or too many
    is a bug the check should catch, which no mutant planted."""
    found = _changes("#unroll k 4\nx += a[k];\n#endunroll\n", "k.wgsl")
    assert {(kind, mutated) for kind, original, mutated in found if original.startswith("#")} == {
        ("constant", "#unroll k 5"),
        ("constant", "#unroll k 3"),
    }


def test_a_mutant_applies_to_its_own_line_only() -> None:
    mutant = next(m for m in make_mutants("k.cl", C_SOURCE) if m.operator == "min/max")
    changed = mutant.apply(C_SOURCE)
    assert changed.count("max(") == 1 and "min(" not in changed
    assert changed.splitlines()[:6] == C_SOURCE.splitlines()[:6]


def test_a_macro_lines_text_leaves_out_its_continuation() -> None:
    """Equivalents name a line by its text, which a formatter's padding before a
    macro line's backslash would otherwise be part of."""
    source = "#define ADD(a, b)       \\\n    a = a + b;          \\\n    b = 0\n"
    found = [m for m in make_mutants("k.cl", source) if m.line == 2 and m.operator == "operator"]
    assert ("k.cl", "a = a + b;", "a = a - b;") in [m.key for m in found]
    assert "k.cl:2: a = a + b;  ->  a = a - b;" in [m.describe() for m in found]


def test_equivalents_file_parses_and_each_entry_is_still_made() -> None:
    listed = mutants.read_equivalents(sources.shipped_root() / mutants.EQUIVALENTS)
    made = collections.defaultdict(list)  # by the original line, which an entry names
    for language in ("c", "opencl", "wgsl", "cuda"):
        for path in (sources.shipped_root() / language).iterdir():
            for m in make_mutants(path.name, path.read_text()):
                made[m.key[1]].append(m)
    kernels = [k.name for k in suite.ALL]
    stale = [
        e
        for e in listed.values()
        if not any(e.matches(m, k) for m in made[e.original] for k in kernels)
    ]
    assert not stale, f"entries no mutant matches any more: {stale}"
    assert all(e.why for e in listed.values())


def test_a_malformed_equivalents_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "eq.txt"
    path.write_text(
        "# header\nA.cl: x = 1;\n  -> x = 2;\n  why: x is unused\n\nB.cl: y\n  why: no arrow\n"
    )
    with pytest.raises(ValueError, match=r"eq.txt:6: expected 'FILE: original line'"):
        mutants.read_equivalents(path)


def test_every_kernel_source_yields_mutants() -> None:
    for spec in suite.ALL:
        for backend in ("opencl", "wgpu"):
            if get_backend(backend).language is None:
                continue
            assert mutants.all_mutants(spec, backend)[0], f"{spec.name} on {backend}"


#: The kernels whose check the mutation gate holds to 95% in CI, on a fixed sample, by
#: backend: the sort on OpenCL, whose C body CUDA compiles too (its check, every
#: strategy at eleven sizes, is most of the gate's time: on wgpu 92 s of 106); on
#: wgpu a work-group reduction in its place.
GATED = {
    "opencl": ("Apps_ENERGY", "Apps_PRESSURE", "Lcals_HYDRO_1D", "Bitonic_F32"),
    "wgpu": ("Apps_ENERGY", "Apps_PRESSURE", "Lcals_HYDRO_1D", "Basic_REDUCE3_INT"),
}


@pytest.mark.full
@pytest.mark.parametrize("backend", ["opencl", "wgpu"])
def test_a_fixed_sample_of_mutants_is_killed(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CI's mutation gate: 6 mutants of each gated kernel per backend, at f64 (a
    test per backend, so that the two take two test processes at once).

    The sample is drawn from the mutants of the sources as they are, so a change
    to a gated kernel's source draws another. Seed 7's draw after bitonic.h's
    tile layout took two survivors that no check at the check sizes kills on
    PoCL: the CPU form's `!flip || low >= LANES` as `&&` (that branch takes flip
    passes only past 2^28 keys) and `k <= v` in flip_block (a write one past a
    private array, which PoCL lets pass); seed 8's was drawn instead. Once the
    operators stopped making mutants that cannot compile (`LOCAL SCAN_T/ tile`),
    seed 8 drew two survivors on PoCL: Apps_ENERGY's `i <= b + m` in energy6
    (it recomputes the next block's first zone, the same value, and past the
    last block reads a guard value that takes no branch) and bitonic_pass's
    `d << (STEPS - 1)` (not yet explained); seed 9's is drawn instead."""
    need_backend(backend)
    gated = GATED[backend]
    args = ["mutants", "-k", *gated, "-b", backend, "--sample", "6", "--seed", "9"]
    status = main([*args, "--precision", "f64", "--fail-under", "95", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    for kernel in gated:
        assert kernel in out
    folder = next(tmp_path.iterdir())
    with open(folder / "mutants.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6 * len(gated)
    assert {r["status"] for r in rows} <= {"killed", "survived", "stillborn", "equivalent"}
    killed = [r for r in rows if r["status"] == "killed"]
    assert killed and all(r["detail"] for r in killed)
    assert {r["device"] for r in rows} == {f"{backend}:0"}
    assert (folder / "summary.txt").read_text().startswith("kernel")


def test_mutants_refuses_the_numpy_backend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutants", "-k", "Stream_TRIAD", "-b", "cpu"]) == 2
    err = capsys.readouterr().err
    assert "backend 'cpu' runs the descriptions' numpy code" in err
    assert "choose from opencl, wgpu, cuda" in err


def test_a_glob_entry_covers_the_same_line_in_every_file_it_matches() -> None:
    entry = mutants.Equivalent("*.wgsl", "x = 1;", "x = 2;", "x is never read")
    listed = {("a",): entry}
    assert mutants.equivalent(Mutant("A.wgsl", 3, 5, "constant", "  x = 1;", "  x = 2;"), listed)
    assert not mutants.equivalent(Mutant("A.cl", 3, 5, "constant", "x = 1;", "x = 2;"), listed)
    assert not mutants.equivalent(Mutant("A.wgsl", 3, 5, "constant", "x = 1;", "x = 0;"), listed)
    both = mutants.Equivalent("A.cl,B.cl", "x = 1;", "x = 2;", "x is never read")
    listed = {("b",): both}
    for name in ("A.cl", "B.cl"):
        assert mutants.equivalent(Mutant(name, 3, 5, "constant", "x = 1;", "x = 2;"), listed)
    assert not mutants.equivalent(Mutant("C.cl", 3, 5, "constant", "x = 1;", "x = 2;"), listed)


def test_mutants_are_made_only_in_code_the_kernel_compiles() -> None:
    """Bitonic_F32 shares bitonic.h with the pair sorts: their values code is under
    #ifdef WITH_VALUES, which F32 never compiles, so no mutant of it is made."""
    need_backend("opencl")
    device = get_backend("opencl").devices()[0]
    spec = suite.BY_NAME["Bitonic_F32"]
    every, _ = mutants.all_mutants(spec, "opencl")
    kept, dead = mutants.all_mutants(spec, "opencl", device)
    assert dead > 0 and len(kept) + dead == len(every)
    header = sources.find("opencl", ".cl", "Bitonic").parent / "bitonic.h"
    lines = header.read_text().splitlines()
    values = [i + 1 for i, line in enumerate(lines) if "values[" in line]
    assert values and not any(m.file == "bitonic.h" and m.line in values for m in kept)
    assert any(m.file == "bitonic.h" and m.line in values for m in every)
    pairs, _ = mutants.all_mutants(suite.BY_NAME["Bitonic_PAIRS"], "opencl", device)
    assert any(m.file == "bitonic.h" and m.line in values for m in pairs)


def test_an_include_in_a_skipped_group_keeps_the_lines_after_it_numbered(
    tmp_path: Path,
) -> None:
    """cpp ignores a #line inside a group it skips, so the line after an
    #include there was numbered as if the included lines had been counted:
    mutants then went to the wrong lines (a CPU form's GPU-only code made
    mutants that could not die)."""
    (tmp_path / "inc.h").write_text("int a;\nint b;\nint c;\nint d;\n")
    (tmp_path / "main.c").write_text(
        '#ifdef GPU\n#include "inc.h"\n#endif\nint live;\n#ifdef GPU\nint dead;\n#endif\n'
    )
    text = sources.expand(tmp_path / "main.c").with_line_directives()
    assert {line for file, line in live_lines(text) if file == "main.c"} == {4}
    assert {file for file, _ in live_lines("#define GPU 1\n" + text)} >= {"main.c", "inc.h"}


def test_no_mutant_makes_a_declaration_that_cannot_compile() -> None:
    """`LOCAL SCAN_T* tile` became `LOCAL SCAN_T/ tile` and a `GLOBAL const REAL*`
    declaration was deleted: stillborn mutants that filled a --sample's places."""
    source = (
        "KERNEL void f(LOCAL SCAN_T* tile, GLOBAL WORD* keys, const uint n) {\n"
        "    GLOBAL const REAL* row = keys;\n"
        "    tile[0] = keys[1] * n;\n"
        "}\n"
    )
    made = {(m.line, m.mutated.strip()) for m in make_mutants("k.c", source)}
    assert {line for line, _ in made} == {3}
    assert (3, "tile[0] = keys[1] / n;") in made


def test_a_macro_never_expanded_compiles_nothing(tmp_path: Path) -> None:
    """Apps_DIFFUSION3DPA includes mfem.h's EACH_Q and never expands it: mutants of
    its #define were counted as survivors no check could kill."""
    (tmp_path / "main.c").write_text(
        "#define UNUSED(k) for (int k = 0; k < 4; ++k)\n"
        "#define USED(k) for (int k = 0; k < 8; ++k)\n"
        "#define TESTED 1\n"
        "#define INNER 3\n"
        "#define OUTER (INNER + 1)\n"
        "#ifdef TESTED\n"
        "int f(void) { int s = OUTER; USED(i) s += i; return s; }\n"
        "#endif\n"
    )
    text = sources.expand(tmp_path / "main.c").with_line_directives()
    assert {line for file, line in live_lines(text) if file == "main.c"} == {2, 3, 4, 5, 7}


@pytest.mark.parametrize("form", ["cpu", "gpu"])
def test_wgsl_mutants_are_made_only_in_the_branch_the_device_takes(
    form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """WGSL's #ifdef HARNESS_CPU_DEVICE branches: a device's mutants leave the
    other form's lines alone (HARNESS_FORM picks the form here)."""
    need_backend("wgpu")
    monkeypatch.setenv("HARNESS_FORM", form)
    device = get_backend("wgpu").devices()[0]
    spec = suite.BY_NAME["Basic_PI_ATOMIC"]
    source = sources.find("wgsl", ".wgsl", spec.source_name).read_text().splitlines()
    gpu_only = next(i + 1 for i, line in enumerate(source) if "group_sum(lid" in line)
    cpu_only = next(i + 1 for i, line in enumerate(source) if "atomic_add_pi(s.dx" in line)
    kept, dead = mutants.all_mutants(spec, "wgpu", device)
    lines = {m.line for m in kept if m.file == "Basic_PI_ATOMIC.wgsl"}
    assert dead > 0
    assert (gpu_only in lines, cpu_only in lines) == (form == "gpu", form == "cpu")


def test_an_entry_can_hold_for_some_kernels_only() -> None:
    mine = mutants.Equivalent("A.cl", "x = 1;", "x = 2;", "only B reads x", "Kernel_A,Other_*")
    listed = {("c",): mine}
    for kernel, covered in (("Kernel_A", True), ("Other_B", True), ("Kernel_B", False)):
        found = mutants.equivalent(
            Mutant("A.cl", 3, 5, "constant", "x = 1;", "x = 2;"), listed, kernel
        )
        assert bool(found) == covered, kernel
    dead = mutants.Equivalent("A.cl", "x = 1;", "*", "never runs for Kernel_A", "Kernel_A")
    for change in ("x = 2;", "x = 0;", ";"):
        mutant = Mutant("A.cl", 3, 5, "constant", "x = 1;", change)
        assert mutants.equivalent(mutant, {("d",): dead}, "Kernel_A")
        assert not mutants.equivalent(mutant, {("d",): dead}, "Kernel_B")


#: A CPU device to plan mutants' rows for, as `harness mutants` does.
CPU_DEVICE = DeviceInfo("opencl", 0, "a cpu", "v", "cpu", 0, 0, "d", "a", frozenset())


def test_max_size_keeps_the_small_size_and_the_check_sizes_up_to_it() -> None:
    scan = suite.BY_NAME["Algorithm_SCAN"]
    options = RunOptions(check=True)

    def sizes(spec: KernelSpec, max_size: int | None = None) -> list[int]:
        return [t.size for t in mutants.mutant_tasks(spec, CPU_DEVICE, options, max_size)]

    assert scan.sizes_for_check == (10753, 36867, 39937, 65537, 4194305)
    assert sizes(scan) == [mutants.SMALL_SIZE, 10753, 36867, 39937, 65537, 4194305]
    assert sizes(scan, 50000) == [mutants.SMALL_SIZE, 10753, 36867, 39937]
    assert sizes(scan, 10) == [mutants.SMALL_SIZE]


def test_each_variant_is_checked_at_its_own_sizes() -> None:
    """A sort's check sizes follow its tile (past 16 tiles, where the tile merges'
    first steps show): a mutant of a 32 KiB tile's sort is checked at that tile's."""
    chosen = (("strategy", ("global", "local")), ("tile_bytes", ("32768",)))
    options = RunOptions(check=True, params=chosen)
    tasks = mutants.mutant_tasks(suite.BY_NAME["Bitonic_U32"], CPU_DEVICE, options)
    largest = {}
    for t in tasks:
        strategy = dict(t.params)["strategy"]
        largest[strategy] = max(largest.get(strategy, 0), t.size)
    assert largest == {"global": 16 * 2048 + 3, "local": 16 * 8192 + 3}
    assert {t.size for t in tasks[:2]} == {mutants.SMALL_SIZE}


def test_lines_mutate_only_the_lines_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The body's line of Stream_TRIAD.c: its every mutant, and none of the line above.
    That line holds every mutant of the kernel, so the run is not said to be narrowed."""
    need_backend("opencl")
    line = "        a[i] = b[i] + alpha * c[i];"
    at = (sources.shipped_root() / "c" / "Stream_TRIAD.c").read_text().split("\n").index(line) + 1
    args = ["mutants", "-k", "Stream_TRIAD", "-b", "opencl", "--precision", "f64"]
    status = main([*args, "--lines", f"Stream_TRIAD.c:{at}", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    with open(next(tmp_path.iterdir()) / "mutants.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    made = [m for m in make_mutants("Stream_TRIAD.c", line + "\n") if m.line == 1]
    assert len(rows) == len(made) >= 3
    assert {(r["file"], r["line"]) for r in rows} == {("Stream_TRIAD.c", str(at))}
    assert {r["status"] for r in rows} == {"killed"}
    summary = (next(tmp_path.iterdir()) / "summary.txt").read_text()
    assert "narrowed by" not in summary


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ("Stream_TRIAD.c:0", "'Stream_TRIAD.c:0' is not FILE:LINE or FILE:FIRST-LAST"),
        ("Stream_TRIAD.c:9-3", "'Stream_TRIAD.c:9-3' is not FILE:LINE or FILE:FIRST-LAST"),
        ("triad.c:1-9", "--lines triad.c:1-9: no chosen kernel's source is named 'triad.c'"),
    ],
)
def test_lines_that_name_nothing_are_a_usage_error(
    given: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    need_backend("opencl")
    assert main(["mutants", "-k", "Stream_TRIAD", "-b", "opencl", "--lines", given]) == 2
    assert problem in capsys.readouterr().err


def test_run_options_narrow_the_check_a_mutant_must_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mutant of the tiled strategy's tile loop lives through a check of the global
    strategy alone, which never runs it; the loop stopped after its first block
    fails the tiled strategy's check at 2 steps, in a row named with its options."""
    need_backend("opencl")
    line = "    for (uint t = LOCAL_ID(0); t < TILE / PASS_KEYS; t += GROUP) {"
    at = (sources.shipped_root() / "c" / "bitonic.h").read_text().split("\n").index(line) + 1
    args = ["mutants", "-k", "Bitonic_U32", "-b", "opencl", "--precision", "f64"]
    # The survivors stay survivors: checking them again on the simulator (minutes)
    # is another test's.
    args += ["--lines", f"bitonic.h:{at}", "--no-simulator"]
    outcomes = {}
    for options in (["--strategy", "global"], ["--strategy", "tiled", "--steps", "2"]):
        out = tmp_path / options[-1]
        main([*args, *options, "--out", str(out)])
        with open(next(out.iterdir()) / "mutants.csv", newline="") as f:
            outcomes[options[-1]] = {r["mutated"].strip(): r for r in csv.DictReader(f)}
    assert len(outcomes["global"]) >= 4
    assert {r["status"] for r in outcomes["global"].values()} == {"survived"}
    stopped = outcomes["2"][line.replace("+=", "-=").strip()]
    assert stopped["status"] == "killed"
    assert stopped["detail"].startswith("Bitonic_U32[tiled,2,8192,asc,uniform] f64 n=2047: fail:")


def test_a_mutants_check_runs_only_the_rows_that_compile_its_line() -> None:
    """A sort's strategies compile different parts of its shared header: a
    mutant in one strategy's code is checked on that strategy's rows alone (the
    others compile the unmutated program), one in the shared code on every row,
    and every mutant made reaches some row. WGSL has no preprocessor: every row."""
    spec = suite.BY_NAME["Bitonic_F32"]
    tasks = mutants.mutant_tasks(spec, CPU_DEVICE, mutants.check_options())
    every = {dict(t.params)["strategy"] for t in tasks}
    assert every == {"global", "local", "fused", "tiled", "wide"}
    opencl = get_backend("opencl")
    files = mutants.source_files(spec, "opencl", ".cl")
    texts = {path.name: path.read_text(encoding="utf-8") for path in files}
    reach = Reach(opencl, CPU_DEVICE, files[0], texts)
    found, _ = mutants.all_mutants(spec, "opencl", CPU_DEVICE, ("f64",))
    reached = collections.Counter()
    for mutant in found:
        strategies = frozenset(dict(t.params)["strategy"] for t in tasks if reach(t, mutant))
        assert strategies, mutant.describe()
        reached[strategies] += 1
    assert reached[frozenset({"wide"})] > 0
    assert reached[frozenset({"fused"})] > 0
    assert reached[frozenset(every)] > 0
    assert sum(n for s, n in reached.items() if s != every) > len(found) // 2
    wgsl = Reach(get_backend("wgpu"), CPU_DEVICE, files[0], texts)
    assert all(wgsl(t, found[0]) for t in tasks)


def test_the_call_graph_follows_calls_through_macros_and_past_attributes(tmp_path: Path) -> None:
    source = tmp_path / "K.c"
    (tmp_path / "k.h").write_text(
        "DEVICE REAL twice(REAL x) {\n  return 2 * x;\n}\n"
        "#define TWICE(x) twice(x)\n"
        "DEVICE REAL unused(REAL x) { return x; }\n"
    )
    source.write_text(
        '#include "k.h"\n'
        "/* KERNEL void commented(GLOBAL REAL* a) { unused(a[0]); } */\n"
        "KERNEL __attribute__((reqd_work_group_size(GROUP, 1, 1)))\n"
        "void first(GLOBAL REAL* a) {\n"
        "  a[0] = TWICE(a[0]);\n"
        "}\n"
        "KERNEL void second(GLOBAL REAL* a) { a[0] = 1; }\n"
    )
    graph = CallGraph(source)
    assert set(graph.lines) == {"twice", "unused", "first", "second"}
    assert graph.function_at("k.h", 2) == "twice"
    assert graph.function_at("k.h", 4) is None  # the macro: every row that compiles it
    assert graph.function_at("K.c", 3) == graph.function_at("K.c", 5) == "first"
    assert graph.function_at("K.c", 2) is None
    assert graph.reached({"first"}) == {"first", "twice"}
    assert graph.reached({"second"}) == {"second"}
    assert graph.reached({"library:gemm"}) == set()

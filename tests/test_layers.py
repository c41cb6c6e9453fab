"""The package's layers, read from its imports (the README's "Layout" says which
layer may import which), and no function in it longer than a reader can hold."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "harness"

#: Each layer and the layers its modules may import (besides its own).
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "version": set(),
    "model": {"errors", "version"},
    "suite": {"model", "errors", "version"},
    "backends": {"model", "errors", "version"},
    "execution": {"model", "suite", "backends", "errors", "version"},
    "reporting": {"execution", "model", "errors", "version"},
    "mutation": {"execution", "reporting", "model", "suite", "backends", "errors", "version"},
}
#: The faces (the command line, the Python API, the package itself) may import any layer.
FACES = {"cli", "api", "__init__", "__main__"}

LONGEST_FUNCTION = 150


def _layer(module: str) -> str:
    """The layer of a dotted module name inside the package (``harness.cli.run`` -> cli)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _module(path: Path, root: Path) -> str:
    relative = path.relative_to(root.parent).with_suffix("")
    return ".".join(relative.parts)


@functools.cache
def _imports(text: str) -> list[tuple[int, str]]:
    """Every module of the package that a file's text imports, at any depth
    (function-level imports too), with the line; ``from harness import x`` names
    harness.x where x is a module, else harness itself. Kept by text, as the
    planted copies repeat every file but one."""
    tree = ast.parse(text)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("harness")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "harness":
                for alias in node.names:
                    is_module = (PACKAGE / alias.name).is_dir() or (
                        PACKAGE / f"{alias.name}.py"
                    ).is_file()
                    found.append((node.lineno, f"harness.{alias.name}" if is_module else "harness"))
            elif node.module.startswith("harness."):
                found.append((node.lineno, node.module))
    return found


def broken_rules(root: Path = PACKAGE) -> list[str]:
    """Each import that crosses the layers the wrong way, as 'file:line: a -> b'."""
    broken = []
    for path in sorted(root.rglob("*.py")):
        source = _layer(_module(path, root)) if path.parent != root else path.stem
        if source in FACES:
            continue
        assert source in ALLOWED, f"{path}: a module outside every layer; add its layer"
        for line, target in _imports(path.read_text(encoding="utf-8")):
            layer = _layer(target)
            if layer != source and layer not in ALLOWED[source]:
                broken.append(f"{path.relative_to(root.parent)}:{line}: {source} -> {target}")
    return broken


def test_no_layer_imports_one_it_may_not() -> None:
    assert broken_rules() == []


@pytest.mark.parametrize(
    ("planted", "rule"),
    [
        ("reporting/table.py", "from harness.suite import PARAMS"),
        ("backends/cpu.py", "from harness import suite"),
        ("execution/ranks.py", "from harness.reporting.table import format_time"),
        ("execution/peaks.py", "from harness.cli import arguments"),
        ("execution/merge.py", "from harness import __version__"),
        ("model/spec.py", "from harness.execution import results"),
        ("model/spec.py", "import harness.suite"),
        ("suite/stream.py", "from harness.backends import opencl"),
        ("reporting/plot.py", "from harness.backends.base import DeviceInfo"),
    ],
)
def test_a_planted_import_breaks_a_rule(tmp_path: Path, planted: str, rule: str) -> None:
    copy = tmp_path / "harness"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    victim = copy / planted
    victim.write_text(
        victim.read_text(encoding="utf-8") + f"\n\ndef _planted():\n    {rule}\n",
        encoding="utf-8",
    )
    (found,) = set(broken_rules(copy)) - set(broken_rules())
    assert found.startswith(f"harness/{planted}:"), found


def test_no_function_is_longer_than_a_screenful_or_two() -> None:
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST_FUNCTION:
                    long.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}")
    assert long == [], f"over {LONGEST_FUNCTION} lines: {long}"

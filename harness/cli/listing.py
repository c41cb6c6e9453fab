"""`harness list`: the kernels, their groups, backends and files."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness import suite
from harness.backends import BACKENDS
from harness.backends import get as get_backend
from harness.cli import arguments
from harness.cli.run_plan import selected
from harness.errors import UsageError
from harness.model import sources
from harness.model.spec import KernelSpec, numpy_dtype


def _implemented_backends(spec: Any) -> list[str]:
    """The backends that have a source for the kernel (the numpy one always does)."""
    names = []
    for name in BACKENDS:
        backend = get_backend(name)
        if backend.language is None or sources.find(
            backend.language, backend.extension, spec.source_name
        ):
            names.append(name)
    return names


def _description_file(spec: KernelSpec) -> Path:
    """The Python file that holds a kernel's description: a --suite file's (which
    `suite.module_file`, knowing the shipped modules alone, does not), else the
    shipped module's."""
    mine = [path for path, kernels in suite.LOADED.items() if any(k is spec for k in kernels)]
    return mine[0] if mine else suite.module_file(spec)


def _kernel_files(spec: Any) -> list[tuple[str, list[Path]]]:
    """What a kernel is made of: its description's module, then for each group of
    backends that compile the same source, that source with what it includes."""
    found: list[tuple[str, list[Path]]] = [("description", [_description_file(spec)])]
    by_source: dict[Path, list[str]] = {}
    for name in BACKENDS:
        backend = get_backend(name)
        if backend.language is not None:
            path = sources.find(backend.language, backend.extension, spec.source_name)
            if path is not None:
                by_source.setdefault(path, []).append(name)
    for path, names in by_source.items():
        files = sources.with_includes(path)
        for name in names:
            prelude = sources.PRELUDES.get(get_backend(name).language or "")
            if prelude:
                files.append(sources.shipped_root() / (get_backend(name).language or "") / prelude)
        found.append((", ".join(names), files))
    return found


def _si(value: float, unit: str) -> str:
    """A count with an SI prefix and three significant digits (12.6 MB, 2.1 GFLOP)."""
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def _per_rep(spec: KernelSpec) -> tuple[str, str, str]:
    """A kernel's default size, and the bytes and FLOPs one repetition there moves
    and does at f64, as `harness list` shows them (a user's suite whose functions
    raise there was refused as it loaded)."""
    size = spec.default_size
    real = numpy_dtype("real", "f64").itemsize
    moved, flops = float(spec.traffic(size, real).moved), float(spec.flops(size))
    return str(size), _si(moved, "B"), _si(flops, "FLOP") if flops else "-"


def _note_idle_excludes(flag: str, kernels: Sequence[str] | None, exclude: Sequence[str]) -> None:
    """Say which -x values leave out no kernel ``flag`` selects (``-k Stream -x
    Basic_DAXPY``), as harness run says it: the list was taken for one without them."""
    chosen = {k.name for k in suite.select(kernels)}
    idle = [x for x in dict.fromkeys(exclude) if not chosen & {k.name for k in suite.select([x])}]
    if idle:
        print(
            f"note: -x {' '.join(idle)} leaves out no kernel {flag} selects, so it changes nothing",
            file=sys.stderr,
        )


def _cmd_list(args: argparse.Namespace) -> int:
    if args.files:
        if args.kernels:
            raise UsageError(
                f"-k {' '.join(args.kernels)} with --files: --files takes the kernels whose "
                f"files to list itself (harness list --files {' '.join(args.kernels)})"
            )
        _note_idle_excludes("--files", args.files, args.exclude)
        for spec in selected(args.files, args.exclude):
            print(spec.name)
            for label, files in _kernel_files(spec):
                for k, path in enumerate(files):
                    print(f"  {label if k == 0 else '':<14}{path}")
        return 0
    _note_idle_excludes("-k", args.kernels, args.exclude)
    kernels = selected(args.kernels, args.exclude)
    header = (
        "kernel",
        "group",
        "backends",
        "features",
        "complexity",
        "size",
        "bytes/rep",
        "FLOPs/rep",
        "summary",
    )
    rows = [
        (
            k.name,
            k.group,
            ",".join(_implemented_backends(k)),
            ",".join(k.rajaperf_features),
            k.complexity,
            *_per_rep(k),
            k.summary,
        )
        for k in kernels
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    for r in [header, *rows]:
        cells = zip(r[:-1], widths, strict=True)
        print("  ".join(cell.ljust(w) for cell, w in cells) + "  " + r[-1])
    print(
        "\nsize: the default problem size; bytes and FLOPs of one repetition there, "
        "at f64 (RAJAPerf's counts)"
    )
    ours = sum(map(suite.is_rajaperf, kernels))
    print(
        f"\n{len(rows)} kernel{'s' * (len(rows) != 1)}, {ours} of them RAJAPerf's "
        f"(of its {suite.RAJAPERF_SINGLE_PROCESS} that run in one process)"
    )
    return 0


def register(sub: Any) -> None:
    """Add the ``list`` command."""
    listing = sub.add_parser("list", help="list kernels with their group and backends")
    listing.add_argument(
        "-k",
        "--kernels",
        nargs="+",
        metavar="SEL",
        help="kernels to list: names, either half of one, groups or globs, as 'harness run' "
        "selects them (default: all)",
    )
    listing.add_argument(
        "-x",
        "--exclude",
        nargs="+",
        default=[],
        metavar="SEL",
        help="kernels to leave out, selected as -k selects, as 'harness run -x' leaves them out",
    )
    listing.add_argument(
        "--files",
        nargs="+",
        metavar="SEL",
        help="instead of the table, every file the selected kernels are made of: the "
        "module holding the description, and per backend the source it compiles, the "
        "files that includes and the backend's prelude",
    )
    arguments.suite_files(listing)
    listing.set_defaults(handler=_cmd_list)

"""`harness cuda-compile`: every kernel's CUDA source compiled for some GPU
architectures, with no GPU or driver (`harness.backends.cuda_compile`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness import suite
from harness.backends import cuda_compile
from harness.backends.base import CompileError
from harness.cli import arguments
from harness.errors import UsageError
from harness.execution import results
from harness.model import sources
from harness.model.spec import PRECISIONS, KernelSpec, param_choices


def compute_capability(text: str) -> int:
    """A GPU architecture as a number, 10 to 200 (80 for sm_80)."""
    try:
        value = arguments.whole(text)
    except ValueError:
        value = 0
    if not 10 <= value <= 200:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a compute capability; give numbers such as 80 or 90"
        )
    return value


def register(sub: Any) -> None:
    """Add the ``cuda-compile`` command."""
    parser = sub.add_parser(
        "cuda-compile",
        help="compile every kernel's CUDA source for some GPU architectures (no GPU needed)",
        description="Compile every CUDA kernel source (the shipped ones and those of "
        "--suite files; a kernel without one is named) for some GPU architectures, at each "
        "precision. Exit status: 0 when "
        "all compile, 1 on any compile error, 2 without a compiler.",
    )
    parser.add_argument(
        "--arch",
        type=compute_capability,
        nargs="+",
        default=list(cuda_compile.CHECK_ARCHES),
        help="compute capabilities as numbers, e.g. 80 90 (default: "
        f"{' '.join(map(str, cuda_compile.CHECK_ARCHES))})",
    )
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        nargs="+",
        default=list(PRECISIONS),
        help=f"the type of 'real' arrays to compile each source at (default: both, "
        f"{' '.join(PRECISIONS)})",
    )
    parser.add_argument(
        "--compiler",
        choices=cuda_compile.COMPILERS,
        help="NVRTC (the library) or nvcc (a CUDA toolkit's command); default: NVRTC "
        "if it loads, else nvcc",
    )
    parser.add_argument(
        "--sources",
        type=arguments.path,
        metavar="DIR",
        help="check the kernels of a sources folder (DIR/cuda/*.cu, DIR/c/*.c) "
        "instead of the shipped ones",
    )
    arguments.suite_files(parser)
    parser.set_defaults(handler=_cmd_cuda_compile)


def _cmd_cuda_compile(args: argparse.Namespace) -> int:
    if args.sources is not None and not args.sources.is_dir():
        # A folder that is not there was called 'not a folder', as a file is.
        why = "not a folder" if args.sources.exists() else "no such folder"
        raise UsageError(
            f"--sources {str(args.sources)!r}: {why}; give a sources folder laid out as the "
            "shipped kernels/ (cuda/, c/)"
        )
    specs = (*_with_choices(suite.ALL), *suite.INTERNAL)
    if args.sources is not None:
        stems = list(dict.fromkeys(spec.source_name for spec in specs))
        try:
            sources.check_folder(args.sources, sources.places("cuda", ".cu"), stems)
        except ValueError as exc:
            raise UsageError(f"--sources {str(args.sources)!r}: {exc}") from None
        _refuse_stray(args.sources, stems)
    # An architecture or precision given twice would compile (and count) each twice;
    # it compiles once, said as harness run says it.
    arches, precisions = list(dict.fromkeys(args.arch)), list(dict.fromkeys(args.precision))
    for flag, given, kept in (
        ("--arch", args.arch, arches),
        ("--precision", args.precision, precisions),
    ):
        twice = [str(v) for v in kept if given.count(v) > 1]
        if twice:
            print(
                f"note: {flag} {' '.join(twice)} given more than once; each value compiles once",
                file=sys.stderr,
            )
    _note_ptx(arches, args.compiler)
    if args.sources is None:
        _note_sourceless(specs)
    done = failed = 0
    try:
        # Each as it is done (flushed), so that an interrupt keeps those shown; the
        # signal is held while one is counted and shown, as one coming between the
        # two counted a compile it never showed, or showed one it never counted.
        for r in cuda_compile.compile_all(specs, arches, precisions, args.sources, args.compiler):
            with results.stop_signals_held():
                done += 1
                failed += r.error is not None
                status = "ok" if r.error is None else f"error: {r.error}"
                print(f"{r.label} sm_{r.arch} {r.precision}: {status}", flush=True)
    except CompileError as exc:
        print(f"harness: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{done - failed} of {done} compiled before the interrupt", file=sys.stderr)
        raise
    if not done:
        # Nothing compiled is no pass: a gate on it would pass on work not done.
        where = f"--sources {str(args.sources)!r}" if args.sources else "the suite"
        raise UsageError(
            f"{where}: holds no kernel's CUDA source (cuda/NAME.cu or c/NAME.c, NAME a "
            "kernel of the suite); give a sources folder laid out as the shipped kernels/"
        )
    print(f"{done - failed} of {done} compiled", file=sys.stderr)
    return 1 if failed else 0


def _refuse_stray(root: Path, stems: Sequence[str]) -> None:
    """UsageError for a kernel source in a --sources folder that names no kernel
    (c/Stream_COPPY.c, or a kernel of a --suite file not given): it was left out
    unsaid, and the check passed as if the folder had compiled whole."""
    stray = sorted(
        f"{folder}/{path.name}"
        for folder, suffix in sources.places("cuda", ".cu")
        for path in (root / folder).glob(f"*{suffix}")
        if path.stem not in stems
    )
    if stray:
        more = f" (and {len(stray) - 1} more)" if len(stray) > 1 else ""
        raise UsageError(
            f"--sources {str(root)!r}: {stray[0]}{more} is no kernel's source, so it would "
            "not be compiled; name it as its kernel (see 'harness list'), or give the "
            "--suite file that describes it"
        )


def _with_choices(specs: Sequence[KernelSpec]) -> list[KernelSpec]:
    """The kernels, a user suite's also as it is made for each choice of its run
    options (their bind may give it other constants or another source): the kernel
    alone was compiled, and a variant the runs compile failed nowhere here."""
    users = {id(k) for loaded in suite.LOADED.values() for k in loaded}
    found = []
    for spec in specs:
        found.append(spec)
        if id(spec) in users and spec.params:
            choices = {p.name: p.choices for p in spec.params}
            found += [spec.with_params(dict(c)) for c in param_choices(spec, choices)]
    return found


def _note_sourceless(specs: Sequence[KernelSpec]) -> None:
    """A note for each kernel with no CUDA source (a --suite file's kernel without
    cuda/NAME.cu or c/NAME.c): it was left out unsaid, and the count of those
    compiled passed as the whole suite's."""
    for spec in specs:
        if sources.find("cuda", ".cu", spec.source_name, ()) is None:
            print(
                f"note: {spec.name} has no CUDA source (cuda/{spec.source_name}.cu or "
                f"c/{spec.source_name}.c): not compiled",
                file=sys.stderr,
            )


def _note_ptx(arches: list[int], compiler: str | None) -> None:
    """A note for each architecture the compiler builds no cubin for but is newer
    than one it does: its lines say ok for PTX of that older one, not for it. A
    UsageError for one older than any it builds, which no source compiles for:
    every kernel at every precision was an error line of its own, then exit 1."""
    found = cuda_compile.available()
    chosen = compiler or (found[0] if found else None)
    if chosen not in found:
        return  # compile_all says why nothing compiles
    known = cuda_compile.supported_arches(chosen)
    old = [arch for arch in arches if known and arch < known[0]]
    if old:
        raise UsageError(
            f"--arch {old[0]}: {cuda_compile.version(chosen)} cannot compile for sm_{old[0]}; "
            f"give architectures from {known[0]} (it builds sm_{known[0]} to sm_{known[-1]}, "
            "and newer ones as PTX), or install an older CUDA compiler for that device"
        )
    for arch in arches:
        older = [a for a in known if a < arch]
        if known and arch not in known and older:
            print(
                f"note: {cuda_compile.version(chosen)} has no sm_{arch} (it builds sm_{known[0]} "
                f"to sm_{known[-1]}), so sm_{arch}'s sources are checked as PTX for "
                f"compute_{older[-1]}, which a newer device's driver compiles",
                file=sys.stderr,
            )

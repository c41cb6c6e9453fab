"""Compiling kernels' CUDA sources to device code, with or without a GPU.

Two compilers are supported: NVRTC through cuda-python (``cuda.bindings.nvrtc``
with the NVRTC library from PyPI, no CUDA toolkit needed) and ``nvcc`` on PATH.
NVRTC is used when it loads, else nvcc. Neither needs a driver, so CI can check
every source for several architectures on a machine without a GPU::

    harness cuda-compile --arch 80 90

A source is compiled for one kernel description: ``REAL`` and the
description's constants and type aliases become ``#define`` lines in front,
then the shared dialect's CUDA prelude (kernels/cuda/dialect.cuh);
``#include "file"`` lines are expanded from the source's folder, and ``#line``
directives keep compiler messages on the files' own lines
(``Stream_TRIAD.cu(7): error: ...``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from harness.backends.base import CompileError, c_program, takes_files, user_cache
from harness.errors import UsageError
from harness.model import sources
from harness.model.spec import PRECISIONS, KernelSpec

COMPILERS = ("nvrtc", "nvcc")
INSTALL_HINT = "pip install 'harness[cuda]' for NVRTC, or put the CUDA toolkit's nvcc on PATH"
#: Architectures the CI check compiles for: Ampere (A100) and Hopper (H100).
CHECK_ARCHES = (80, 90)

_C_TYPES = {
    "f32": "float",
    "f64": "double",
    "i32": "int",
    "u32": "unsigned int",
    "i64": "long long",
    "u64": "unsigned long long",
}
#: Shared memory a CUDA kernel may declare (static ``__shared__`` arrays); more
#: is given at launch as dynamic shared memory, opted in per function.
STATIC_SHARED_BYTES = 48 * 1024
_MESSAGE = re.compile(r"error|warning", re.IGNORECASE)
_SUMMARY = re.compile(r"^\d+ errors? detected")


@dataclass(frozen=True)
class Binary:
    """Device code for one source: a cubin for an exact architecture, or PTX."""

    image: bytes
    kind: str
    target: str
    compiler: str


@dataclass(frozen=True)
class CheckResult:
    """One compile of the check: which source, for what, and its error if any."""

    source: Path
    arch: int
    precision: str
    error: str | None
    #: The kernel whose constants it was compiled with (a shared source, as
    #: Bitonic.c, is compiled once for each kernel's key type).
    kernel: str = ""

    @property
    def label(self) -> str:
        """The source's name, with the kernel's where the two differ: the four sorts
        of Bitonic.c gave four lines alike, an error in one naming none of them."""
        name = self.source.name
        return (
            name
            if not self.kernel or self.source.stem == self.kernel
            else f"{name} ({self.kernel})"
        )


@cache
def _nvrtc() -> Any:
    """The cuda-python NVRTC module once its library has loaded, else None."""
    try:
        from cuda.bindings import nvrtc

        err, _, _ = nvrtc.nvrtcVersion()
    except Exception:  # not installed, or the binding cannot find libnvrtc
        return None
    return nvrtc if err == nvrtc.nvrtcResult.NVRTC_SUCCESS else None


def available() -> list[str]:
    """The compilers usable here, best first (a subset of `COMPILERS`)."""
    found = []
    if _nvrtc() is not None:
        found.append("nvrtc")
    if shutil.which("nvcc"):
        found.append("nvcc")
    return found


def no_compiler_reason() -> str:
    """Why nothing can be compiled here, with what to install."""
    return f"no CUDA compiler found (neither NVRTC nor nvcc): {INSTALL_HINT}"


def _pick(compiler: str | None) -> str:
    found = available()
    if compiler is None:
        if not found:
            raise CompileError(no_compiler_reason())
        return found[0]
    if compiler not in COMPILERS:
        raise ValueError(f"unknown CUDA compiler {compiler!r}; choose from {', '.join(COMPILERS)}")
    if compiler not in found:
        raise CompileError(f"{compiler} is not available here: {INSTALL_HINT}")
    return compiler


@cache
def version(compiler: str) -> str:
    """The compiler and its version, e.g. ``NVRTC 13.0`` or ``nvcc 12.4``."""
    if compiler == "nvrtc":
        _, major, minor = _nvrtc().nvrtcVersion()
        return f"NVRTC {major}.{minor}"
    out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    found = re.search(r"release (\d+\.\d+)", out)
    return f"nvcc {found.group(1)}" if found else "nvcc"


@cache
def supported_arches(compiler: str) -> tuple[int, ...]:
    """The ``sm_XY`` architectures a compiler can build cubins for (empty if unknown)."""
    if compiler == "nvrtc":
        nvrtc = _nvrtc()
        err, arches = nvrtc.nvrtcGetSupportedArchs()
        return tuple(sorted(arches)) if err == nvrtc.nvrtcResult.NVRTC_SUCCESS else ()
    out = subprocess.run(["nvcc", "--list-gpu-code"], capture_output=True, text=True).stdout
    return tuple(sorted(int(a) for a in re.findall(r"^sm_(\d+)$", out, re.MULTILINE)))


def _target(compiler: str, arch: int) -> tuple[str, int]:
    """A cubin for the device's own architecture, or PTX the driver compiles.

    PTX for the newest older architecture serves a device newer than the
    compiler; a device older than anything it supports cannot be served.
    """
    arches = supported_arches(compiler)
    if not arches or arch in arches:
        return "cubin", arch
    older = [a for a in arches if a < arch]
    if not older:
        raise CompileError(
            f"{version(compiler)} cannot compile for sm_{arch} (it supports sm_{arches[0]} to "
            f"sm_{arches[-1]}): install an older CUDA compiler for this device"
        )
    return "ptx", older[-1]


def _condense(log: str) -> str:
    """The compiler's error and warning lines, joined to fit in one row."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    kept = [line for line in lines if _MESSAGE.search(line) and not _SUMMARY.match(line)]
    return " | ".join(kept or lines)


def _nvrtc_compile(text: bytes, name: str, options: list[str], kind: str) -> bytes:
    nvrtc = _nvrtc()
    ok = nvrtc.nvrtcResult.NVRTC_SUCCESS
    err, program = nvrtc.nvrtcCreateProgram(text, name.encode(), 0, [], [])
    if err != ok:
        raise CompileError(f"{name}: nvrtcCreateProgram failed: {err.name}")
    try:
        encoded = [o.encode() for o in options]
        (err,) = nvrtc.nvrtcCompileProgram(program, len(encoded), encoded)
        if err != ok:
            _, size = nvrtc.nvrtcGetProgramLogSize(program)
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(program, log)
            raise CompileError(_condense(log.rstrip(b"\0").decode(errors="replace")) or err.name)
        size_of, get = (
            (nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN)
            if kind == "cubin"
            else (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX)
        )
        _, size = size_of(program)
        image = b" " * size
        get(program, image)
        return image
    finally:
        nvrtc.nvrtcDestroyProgram(program)


#: Bytes nvcc's scratch folder must take: room for its intermediate files (a
#: preprocessed unit with the CUDA headers is megabytes).
NVCC_SCRATCH_BYTES = 16 << 20


class ScratchError(UsageError):
    """nvcc's scratch folder (TMPDIR) cannot take its files: a full disk, not a source
    that fails to compile."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            f"temporary folder {tempfile.gettempdir()}: nvcc cannot write its files there "
            f"({reason}); free some space there, or point TMPDIR at a folder with room"
        )


def _nvcc_compile(text: bytes, name: str, options: list[str], kind: str) -> bytes:
    try:
        with tempfile.TemporaryDirectory(prefix="harness-nvcc-") as tmp:
            # nvcc picks the language by suffix: a shared body (.c) is CUDA here too.
            unit = f"{Path(name).stem}.cu"
            (Path(tmp) / unit).write_bytes(text)
            out = Path(tmp) / f"{Path(name).stem}.{kind}"
            command = ["nvcc", f"-{kind}", *options, "-o", str(out), unit]
            done = subprocess.run(command, cwd=tmp, capture_output=True, text=True)
            log = done.stderr + done.stdout
            if done.returncode != 0 and not takes_files(Path(tmp), NVCC_SCRATCH_BYTES):
                # nvcc's own words for it vary ("Failed to preprocess host compiler
                # properties"): a folder with no room for them is the cause.
                raise ScratchError(os.strerror(errno.ENOSPC))
            if done.returncode != 0:
                raise CompileError(_condense(log) or f"exit {done.returncode}")
            image = out.read_bytes()
    except OSError as exc:
        raise ScratchError(exc.strerror or str(exc)) from None
    # The driver takes PTX as a NUL-terminated string; NVRTC's already is.
    return image + b"\0" if kind == "ptx" else image


def dynamic_shared_bytes(spec: KernelSpec) -> int:
    """Bytes of dynamic shared memory each launch of ``spec``'s entries gets: its
    work-group memory where that is over what a kernel may declare, else 0."""
    return spec.work_group_bytes if spec.work_group_bytes > STATIC_SHARED_BYTES else 0


def source_text(spec: KernelSpec, source: Path, precision: str) -> bytes:
    """What the compiler sees: the description's defines, the dialect, then the source.
    A kernel whose work-group memory is given at launch sees DYNAMIC_SHARED_BYTES, and
    declares it with the dialect's DYNAMIC_SHARED."""
    dynamic = dynamic_shared_bytes(spec)
    first = [f"#define DYNAMIC_SHARED_BYTES {dynamic}"] if dynamic else []
    return c_program(spec, source, precision, "cuda", _C_TYPES, first).encode()


def compile_source(
    spec: KernelSpec, source: Path, precision: str, arch: int, compiler: str | None = None
) -> Binary:
    """Compile a kernel's .cu for ``sm_<arch>`` at a precision; CompileError with the log.

    ``compiler`` is ``nvrtc`` or ``nvcc``; None takes the first `available`.
    """
    compiler = _pick(compiler)
    kind, target = _target(compiler, arch)
    gpu = f"sm_{target}" if kind == "cubin" else f"compute_{target}"
    options = [f"-arch={gpu}"]
    text = source_text(spec, source, precision)
    kept = _kept_path(version(compiler), kind, options, text)
    image = _read_kept(kept)
    if image is not None:
        return Binary(image, kind, gpu, version(compiler))
    try:
        if compiler == "nvrtc":
            image = _nvrtc_compile(text, source.name, options, kind)
        else:
            image = _nvcc_compile(text, source.name, options, kind)
    except CompileError as exc:
        raise CompileError(
            f"{source.name} failed to compile for {gpu} ({precision}) with "
            f"{version(compiler)}: {exc}"
        ) from None
    _keep(kept, image)
    return Binary(image, kind, gpu, version(compiler))


def kept_folder() -> Path:
    """Where compiled device code is kept: a run, or a ``cuda-compile``, that compiles
    what an earlier one did (each kernel at each precision, up to a second apiece
    with NVRTC, minutes for the suite) loads it from there instead."""
    return user_cache() / "cuda-binaries"


def _kept_path(compiler: str, kind: str, options: Sequence[str], text: bytes) -> Path:
    """A kept image's file: named by a digest of everything it was made from."""
    made_from = "\0".join([compiler, kind, *options]).encode() + b"\0" + text
    return kept_folder() / f"{hashlib.sha256(made_from).hexdigest()}.{kind}"


def _read_kept(path: Path) -> bytes | None:
    """The image kept at ``path``, None where there is none or it is damaged (its
    last 32 bytes are the SHA-256 of the rest)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    image, digest = data[:-32], data[-32:]
    return image if image and hashlib.sha256(image).digest() == digest else None


def _keep(path: Path, image: bytes) -> None:
    """Keep ``image`` at ``path``, whole or not at all; a cache that cannot be written
    costs only the next compile."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(image + hashlib.sha256(image).digest())
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def compile_all(
    specs: Sequence[KernelSpec],
    arches: Sequence[int] = CHECK_ARCHES,
    precisions: Sequence[str] = PRECISIONS,
    root: Path | None = None,
    compiler: str | None = None,
) -> Iterator[CheckResult]:
    """Compile each of ``specs``' CUDA source (its own .cu, else the shared C body)
    for each architecture and precision, once per distinct set of constants;
    one result per compile, errors included. With ``root``, a sources folder
    laid out like ``--sources`` (cuda/, c/), only the kernels it has a source for.

    CompileError (at the first result) when no compiler is available. Compiles
    run in parallel since nvcc takes about a second each; results come one by
    one, in this order, as they are done, so that an interrupted check keeps
    (and can show) those it has.
    """
    compiler = _pick(compiler)
    variants: dict[tuple, tuple[KernelSpec, Path]] = {}
    for spec in specs:
        roots = (root,) if root else ()
        path = sources.find("cuda", ".cu", spec.source_name, roots)
        if path is None or (root is not None and root.resolve() not in path.resolve().parents):
            continue
        key = (path, tuple(spec.constants.items()), tuple(spec.type_aliases.items()))
        variants.setdefault(key, (spec, path))
    jobs = [
        (spec, path, arch, precision)
        for spec, path in variants.values()
        for arch in arches
        for precision in precisions
    ]

    def check(job: tuple[KernelSpec, Path, int, str]) -> CheckResult:
        spec, path, arch, precision = job
        try:
            compile_source(spec, path, precision, arch, compiler)
        except CompileError as exc:
            return CheckResult(path, arch, precision, str(exc), spec.name)
        return CheckResult(path, arch, precision, None, spec.name)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        yield from pool.map(check, jobs)

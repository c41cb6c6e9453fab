"""Built OpenCL programs kept on disk, so that each program text compiles once.

A driver that keeps its own builds (PoCL) still takes tens of milliseconds to
find one from a program's text (65 to 90 ms for a Stream kernel on two cores),
while a program made from the binary that build produced takes about 2 ms. A
row loads its kernel several times (the size probe, each partition of the
trial, the verification), in worker processes that each build what they load,
so those finds were a good part of a row's host cost.

The build-ahead keeps what it builds of one kernel (`build`'s ``keep``,
`KEPT_KERNELS`); every build looks for a kept binary. A binary is kept under
the text, the build options and the platform, device and driver that built
it, and is written whole (to a temporary file renamed into place), so that
workers building at once need no lock. One that cannot be read, or that the
driver will not build, is built again from the text; a cache that cannot be
written costs time, never a result. Deleting the folder (`folder`) is always
safe.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.backends.base import user_cache

#: The most kernels a kept program has. Keeping costs a generic compile of each
#: (over the default suite on two cores: 0.44 s a one-kernel program, 0.9 s a
#: two-kernel one, 16 s a sort's of 13, where a row saves about 80 ms a build),
#: so a first run pays for a one-kernel program's binary about what its rows
#: save, and for larger ones many times more.
KEPT_KERNELS = 1


def folder() -> Path:
    """Where the binaries are kept: under the user's cache folder (`base.user_cache`)."""
    return user_cache() / "opencl-binaries"


def key(device: Any, options: Sequence[str], text: str) -> str:
    """What a binary is kept under: a digest of everything its build depended on."""
    platform = device.platform
    identity = (
        platform.name,
        platform.version,
        device.name,
        device.version,
        device.driver_version,
        *options,
    )
    digest = hashlib.sha256("\0".join(identity).encode())
    digest.update(b"\0")
    digest.update(text.encode())
    return digest.hexdigest()


def build(cl: Any, context: Any, device: Any, text: str, options: Sequence[str], keep: bool) -> Any:
    """The program of ``text`` built for ``device``: from its kept binary where
    there is one the driver takes, else from the text, and then kept if ``keep``.
    A text that does not compile raises the driver's error, as a build from the
    text does.

    Keeping is for programs that other processes will build again (the
    build-ahead's, for the rows), of at most `KEPT_KERNELS` kernels: asking PoCL
    for a program's binary compiles a generic form of each of its kernels, 0.1
    to 0.5 s a kernel the first time and 1 to 2 s for a sort's, which a program
    built once (a mutant's) would only pay for, and a row saves back about 80 ms
    a build."""
    path = folder() / f"{key(device, options, text)}.bin"
    try:
        binary = path.read_bytes()
    except OSError:
        binary = b""
    if binary:
        try:
            return cl.Program(context, [device], [binary]).build(options=list(options))
        except cl.Error:
            pass
    program = from_text(cl, context, text, options)
    if keep and program.num_kernels <= KEPT_KERNELS:
        (built,) = program.get_info(cl.program_info.BINARIES)
        _keep(path, built)
    return program


def from_text(cl: Any, context: Any, text: str, options: Sequence[str] = ()) -> Any:
    """The program of ``text`` built from the text, past pyopencl's own cache of
    built programs (the drivers it does not leave to, as Oclgrind): that cache
    takes a lock file that a process killed while holding it (a worker killed at a
    row's timeout or with its run) leaves behind, and every later build then waited
    a minute on it and failed, each row an error."""
    return cl.Program(context, text).build(options=list(options), cache_dir=False)


def _keep(path: Path, binary: bytes) -> None:
    """Write ``binary`` to ``path`` whole, or not at all."""
    if not binary:
        return
    part = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, part = tempfile.mkstemp(dir=path.parent, suffix=".part")
        with os.fdopen(handle, "wb") as f:
            f.write(binary)
        os.replace(part, path)
    except OSError:
        if part is not None:
            with contextlib.suppress(OSError):
                os.unlink(part)

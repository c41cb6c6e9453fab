"""`harness peak`: the command line of `harness.execution.peaks`."""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import stat
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness import cli
from harness.backends import BACKENDS
from harness.backends import get as get_backend
from harness.backends.base import BackendUnavailable, DeviceInfo
from harness.cli import arguments
from harness.errors import OutputError, UsageError
from harness.execution import peaks
from harness.execution.peaks import LEAST_BANDWIDTH_SIZE, LEAST_FMA_SIZE, SPAN, keep, measure
from harness.execution.runner import (
    Runner,
    RunOptions,
    array_bytes,
    host_available_bytes,
    largest_size,
    largest_size_where,
)
from harness.suite import spec_of

#: A --device value: a backend's name and a device's index, as 'harness devices' lists them.
DEVICE = re.compile(r"([a-z][a-z0-9_]*):([0-9]+)", re.ASCII)


def _devices(backends: Sequence[str] | None, chosen: Sequence[str]) -> list[DeviceInfo]:
    """The devices to measure, as `harness run` chooses them: each --device value's
    (among the -b backends where -b is given), and the defaults of each -b backend
    no --device value names (of every available backend where neither is given)."""
    for name in backends or ():
        if name not in BACKENDS:
            raise UsageError(f"-b {name!r}: no such backend; choose from {', '.join(BACKENDS)}")
    found: list[DeviceInfo] = []
    for text in chosen:
        form = DEVICE.fullmatch(text)
        if not form:
            raise UsageError(
                f"--device {text!r}: not BACKEND:INDEX as 'harness devices' lists it (e.g. cpu:0)"
            )
        backend, index = form.group(1), int(form.group(2))
        if backend not in BACKENDS:
            raise UsageError(
                f"--device {text!r}: no such backend {backend!r}; choose from {', '.join(BACKENDS)}"
            )
        if backends and backend not in backends:
            raise UsageError(
                f"--device {text!r}: {backend} is not among -b {' '.join(backends)}; add it to "
                "-b, or leave -b out"
            )
        try:
            devices = get_backend(backend).devices()
        except BackendUnavailable as exc:
            raise UsageError(f"--device {text!r}: {exc}") from None
        match = [d for d in devices if d.index == index]
        if not match:
            known = ", ".join(d.id for d in devices) or "none here"
            raise UsageError(f"--device {text!r}: no such device (BACKEND:INDEX; {known})")
        found += match
    named = {d.backend for d in found}
    for name in backends or (BACKENDS if not chosen else ()):
        if name in named:
            continue
        try:
            found += get_backend(name).default_devices()
        except BackendUnavailable as exc:
            if backends:
                raise UsageError(f"-b {name}: {exc}") from None
    return list({d.id: d for d in found}.values())


def _line(peak: Mapping[str, Any]) -> str:
    """A device's figures in one line; one that was not measured says so (its note
    says why), where a copy or triad said 'nan GB/s' and an FMA figure was left out."""
    device = peak["device"]
    flops = peak.get("fma_gflops_per_s") or {}
    parts = [
        f"{name} {peak[key]:.3g} GB/s" if key in peak else f"{name} not measured"
        for name, key in (("copy", "copy_gbytes_per_s"), ("triad", "triad_gbytes_per_s"))
    ]
    for precision in ("f64", "f32"):
        if precision in flops:
            parts.append(f"FMA {precision} {flops[precision]:.3g} GFLOP/s")
        elif any(note.startswith(f"{peaks.FMA} {precision}:") for note in peak["notes"]):
            parts.append(f"FMA {precision} not measured")
    return f"{device['id']} ({device['name']}): " + ", ".join(parts)


def _check_sizes(args: argparse.Namespace) -> None:
    """Refuse sizes below those a peak is measured at (one line, exit status 2)."""
    for option, value, least in (
        ("--bandwidth-size", args.bandwidth_size, LEAST_BANDWIDTH_SIZE),
        ("--fma-size", args.fma_size, LEAST_FMA_SIZE),
    ):
        if value is not None and value < least:
            raise UsageError(
                f"{option} {value}: too small to measure a peak at; give at least {least}"
            )


def _check_fit(args: argparse.Namespace, devices: Sequence[DeviceInfo]) -> None:
    """Refuse, before anything is measured, a size whose arrays no chosen device
    (or the host, which holds about three times them) has the memory for."""
    host = host_available_bytes() // 3
    for option, size, kernels in (
        ("--bandwidth-size", args.bandwidth_size, tuple(peaks.BANDWIDTH)),
        ("--fma-size", args.fma_size, (peaks.FMA,)),
    ):
        for info, kernel in ((i, k) for i in devices for k in kernels if size is not None):
            spec = spec_of(kernel)
            room = min(filter(None, (info.memory_bytes, host)), default=0)
            need = array_bytes(spec, size, "f64")
            if room and need > room:
                most = largest_size_where(
                    lambda n, spec=spec, room=room: array_bytes(spec, n, "f64") <= room, low=1
                )
                raise UsageError(
                    f"{option} {size}: {kernel}'s arrays would take {need} bytes, more than "
                    f"{info.id} ({info.name}) has room for; give at most {most}"
                )


def _check_limits(args: argparse.Namespace, devices: Sequence[DeviceInfo], runner: Runner) -> None:
    """Refuse, before anything is measured, a size whose arrays are over a chosen
    device's limit on one array (wgpu's max_storage_buffer_binding_size): the rows
    were skipped once the FMA peak was measured, and the peak printed 'copy nan GB/s'."""
    for option, size, kernels in (
        ("--bandwidth-size", args.bandwidth_size, tuple(peaks.BANDWIDTH)),
        ("--fma-size", args.fma_size, (peaks.FMA,)),
    ):
        for info in devices if size is not None else ():
            limit = runner.session(info.backend, info.index).array_limit()
            if limit is None:
                continue
            name, allowed = limit
            precision = "f64" if "f64" in info.features else "f32"
            for kernel in kernels:
                most = largest_size(spec_of(kernel), precision, allowed)
                if most is None or size > most:
                    fits = f"give at most {most}" if most else "no size fits"
                    raise UsageError(
                        f"{option} {size}: an array of {kernel} would be over {info.id} "
                        f"({info.name})'s {name} of {allowed} bytes; {fits}"
                    )


def _note_twice(args: argparse.Namespace) -> None:
    """Say which values were given more than once: each device is measured once, as
    harness run says it, where the repeat was taken unsaid."""
    for flag, values in (("-b", args.backends or ()), ("--device", args.device)):
        twice = [v for v, n in Counter(values).items() if n > 1]
        if twice:
            print(
                f"note: {flag} {' '.join(twice)} given more than once; each is measured once",
                file=sys.stderr,
            )


def _stopped(said: str, measured: list[dict[str, Any]], as_json: bool) -> int:
    """Say what an interrupted peak kept, and print the devices measured as JSON
    where asked, as a whole run prints them (their figures were lost): status 130,
    or 143 after a second SIGTERM."""
    print(f"\ninterrupted: {said}", file=sys.stderr)
    if as_json:
        print(json.dumps(measured, indent=2))
    # Two SIGTERMs ended 130 here, where every other command ends 143.
    return cli.stopped_status()


def _kept(info: DeviceInfo, peak: Mapping[str, Any], path: Path) -> bool:
    """Whether the store at ``path`` holds this measurement of the device (a signal
    can stop `keep` after its file was replaced)."""
    try:
        entry = peaks.lookup(info.as_dict(), peaks.read_store(path)) or {}
    except peaks.StoreError:
        return False
    return entry.get("measured") == peak["measured"]


def _check_output() -> None:
    """OutputError, before anything is measured, where the standard output cannot
    take the JSON asked for: a device that refuses every write (/dev/full refuses
    one of nothing too), or a file on a disk with no block left. The peaks were
    measured and kept, the JSON lost, and the command exited 0."""
    fd = sys.stdout.fileno()
    try:
        os.write(fd, b"")
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
        if regular and hasattr(os, "fstatvfs") and not os.fstatvfs(fd).f_bfree:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(exc.errno, exc.strerror) from None


def _cmd_peak(args: argparse.Namespace) -> int:
    _check_sizes(args)
    if args.json:
        _check_output()
    devices = _devices(args.backends, args.device)
    _note_twice(args)
    if not devices:
        raise UsageError("no device to measure (see 'harness devices')")
    _check_fit(args, devices)
    runner = Runner(RunOptions(max_time=args.max_time))
    # Before the store is checked, which makes its folder.
    _check_limits(args, devices, runner)
    path = peaks.store_path()
    peaks.check_store(path)
    measured, refused = [], 0
    unshown: OSError | None = None
    for info in devices:
        if isinstance(unshown, BrokenPipeError):
            # The reader went away (``| head -1``): the device shown last is kept, and
            # no other is measured, where the one measured then was lost.
            break
        try:
            # Inside: a signal as the line is written is this device's interrupt too.
            print(f"measuring {info.id} ({info.name}) ...", file=sys.stderr, flush=True)
            peak = measure(info, runner, args.fma_size, args.bandwidth_size, args.span)
        except KeyboardInterrupt:
            return _stopped(
                f"no peak of {info.id} kept (a stored one stays); "
                f"{len(measured) - refused} device(s) measured before it kept theirs",
                measured,
                args.json,
            )
        measured.append(peak)
        unshown = unshown or _show(_line(peak))
        for note in peak["notes"]:
            print(f"  note: {note}", file=sys.stderr)
        stored = peaks.lookup(info.as_dict(), peaks.read_store(path))
        peak["warnings"] += peaks.losses(peak, stored)
        for warning in peak["warnings"]:
            print(f"  warning: {warning}", file=sys.stderr)
        kept = f"the stored peak of {stored.get('measured')} stays" if stored else "none stored"
        if not peaks.has_figures(peak):
            # Kept (with --force too), it was "kept in" the store, and later runs said
            # their rows were placed against it, where none was.
            refused += 1
            print(f"  not kept ({kept}): no figure was measured", file=sys.stderr)
            continue
        if peak["warnings"] and not args.force:
            refused += 1
            print(
                f"  not kept ({kept}): measure again on a quiet machine, or keep it flagged "
                "with --force",
                file=sys.stderr,
            )
            continue
        peak["flagged"] = bool(peak["warnings"])
        try:
            keep(info.as_dict(), peak)
        except KeyboardInterrupt:
            # Stopped as it waited for the store's folder, which another command held
            # (the measured device's JSON was lost), or just after it wrote the store.
            this = "is kept" if _kept(info, peak, path) else "is not kept (a stored one stays)"
            return _stopped(
                f"the peak of {info.id}, measured, {this}; "
                f"{len(measured) - 1 - refused} device(s) measured before it kept theirs",
                measured,
                args.json,
            )
        if peak["flagged"]:
            print("  kept flagged (--force): runs that use it say so", file=sys.stderr)
    gone = isinstance(unshown, BrokenPipeError)
    if args.json and not gone:
        print(json.dumps(measured, indent=2))
    if refused < len(measured):
        print(f"kept in {path}", file=sys.stderr)
    if gone:
        return 141
    if unshown is not None:
        # It said the peaks were kept where none was; with --json, what was asked for
        # is lost, which exited 0.
        kept = f"kept in {path}" if refused < len(measured) else "not kept (see above)"
        said = "error" if args.json else "warning"
        print(
            f"harness: {said}: cannot write the standard output ({unshown.strerror or unshown}); "
            f"the peaks measured are {kept}",
            file=sys.stderr,
        )
    failed = refused or any(p["notes"] for p in measured) or (args.json and unshown)
    return 1 if failed else 0


def _show(line: str) -> OSError | None:
    """Print a device's line; the failure, where the standard output cannot take it (a
    full disk, or a reader gone), which is then sent nowhere: the peak is still
    kept, where an exit on it lost the measurement."""
    try:
        print(line, flush=True)
    except (OutputError, BrokenPipeError) as exc:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return exc
    return None


def register(sub: Any) -> None:
    """Add the ``peak`` command to the command line."""
    parser = sub.add_parser(
        "peak",
        help="measure each device's bandwidth and FMA throughput; runs are placed against them",
        description=(peaks.__doc__ or "").split("\n\n", 1)[1],
    )
    parser.add_argument(
        "-b", "--backends", nargs="+", metavar="BACKEND", help="backends (default: every one)"
    )
    parser.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="BACKEND:INDEX",
        help="a device to measure, as 'harness devices' lists it (repeatable)",
    )
    parser.add_argument(
        "--max-time",
        type=arguments.seconds,
        default=2.0,
        metavar="SECONDS",
        help="time budget of each FMA measurement (default 2)",
    )
    parser.add_argument(
        "--span",
        type=arguments.seconds,
        default=SPAN,
        metavar="SECONDS",
        help=f"how long each bandwidth kernel is sampled for; the best repetition is kept "
        f"(default {SPAN:g})",
    )
    parser.add_argument(
        "--fma-size",
        type=arguments.size,
        metavar="N",
        help="work-items of the FMA kernel (default 2^20, 2^18 on CPU devices, "
        f"{LEAST_FMA_SIZE} on a simulator; at least {LEAST_FMA_SIZE})",
    )
    parser.add_argument(
        "--bandwidth-size",
        type=arguments.size,
        metavar="N",
        help="elements of each bandwidth array (default: four last-level caches of arrays, "
        f"at least 2^25 elements, within the device's limits; {LEAST_BANDWIDTH_SIZE} on a "
        f"simulator; at least {LEAST_BANDWIDTH_SIZE})",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="keep a peak measured under load, or one that loses or lowers a stored figure, "
        "flagged (runs that use it say so)",
    )
    parser.add_argument("--json", action="store_true", help="also print the peaks as JSON")
    parser.set_defaults(handler=_cmd_peak)

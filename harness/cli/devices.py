"""`harness devices`, and how a run picks its devices from -b and --device."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from harness.backends import BACKENDS, Catalog
from harness.backends.base import DeviceInfo
from harness.errors import UsageError
from harness.execution.workers import Workers

#: The words --device takes besides BACKEND:INDEX and a name's part.
DEVICE_WORDS = {
    "all": "every device of every available backend",
    "host": "the host itself, no offload (the cpu backend)",
    "default": "each backend's default devices",
}


def is_index(text: str) -> bool:
    """Whether text is a device index: ASCII digits (str.isdigit takes '²' too, which
    int() does not)."""
    return text.isascii() and text.isdigit()


def _parse_device(text: str) -> tuple[str, int] | None:
    """BACKEND:INDEX as (backend, index); None for a word or a part of a name."""
    name, sep, index = text.partition(":")
    if not sep or name not in BACKENDS:
        if sep and is_index(index):
            raise UsageError(
                f"--device {text!r}: unknown backend {name!r}; choose from {', '.join(BACKENDS)}"
            )
        return None
    if not is_index(index):
        raise UsageError(f"--device {text!r}: expected BACKEND:INDEX such as opencl:0")
    return name, int(index)


#: How a run learns which devices backends have: names in, a catalog per name out.
Catalogs = Callable[[Sequence[str]], dict[str, Catalog]]


def _listing(found: dict[str, Catalog]) -> str:
    listed = [f"{d.id} ({d.name})" for c in found.values() for d in c.devices]
    return ", ".join(listed) or "none"


def _pick(text: str, found: dict[str, Catalog]) -> list[DeviceInfo]:
    """The devices one --device value names among the catalogs' devices."""
    usable = {n: c for n, c in found.items() if c.reason is None}
    if not text.strip():
        # Every name contains the empty string: it would select every device.
        raise UsageError(
            f"--device {text!r}: empty; expected {', '.join(DEVICE_WORDS)}, BACKEND:INDEX "
            f"or part of a name: {_listing(usable)}"
        )
    parsed = _parse_device(text)
    if parsed is not None:
        backend, index = parsed
        catalog = found[backend]
        if catalog.reason is not None:
            raise UsageError(
                f"--device {text!r}: backend {backend} is unavailable: {catalog.reason}"
            )
        if index >= len(catalog.devices):
            listed = ", ".join(d.id for d in catalog.devices)
            raise UsageError(f"--device {text!r}: no such device; {backend} has {listed}")
        return [catalog.devices[index]]
    word = text.lower()
    if word == "all":
        return [d for c in usable.values() for d in c.devices]
    if word == "default":
        return [d for c in usable.values() for d in c.defaults]
    if word == "host":
        if "cpu" not in usable:
            raise UsageError(f"--device host: the cpu backend is not among {', '.join(found)}")
        return list(usable["cpu"].defaults)
    named = [d for c in usable.values() for d in c.devices if word in d.name.lower()]
    if not named:
        words = ", ".join(DEVICE_WORDS)
        raise UsageError(
            f"--device {text!r}: no device's name contains it; expected {words}, "
            f"BACKEND:INDEX or part of a name: {_listing(usable)}"
        )
    return named


def _note_chosen_before(
    text: str, picked: Sequence[DeviceInfo], chosen: Sequence[DeviceInfo], before: Sequence[str]
) -> None:
    """Say where a --device value names only devices earlier values chose, written
    otherwise (``--device host --device cpu:0``, ``cpu:0`` and ``cpu:00``): each runs
    once, where the repeat was merged unsaid. A value given twice as it is written is
    said by the run's note of repeats."""
    earlier = {d.id for d in chosen}
    if text in before or not picked or any(d.id not in earlier for d in picked):
        return
    ids = ", ".join(dict.fromkeys(d.id for d in picked))
    print(
        f"note: --device {text} names {ids}, which an earlier --device chose; "
        "each device runs once",
        file=sys.stderr,
    )


def choose_devices(
    backend_names: Sequence[str] | None,
    device_texts: Sequence[str],
    catalogs: Catalogs,
) -> list[DeviceInfo]:
    """The devices a run uses; a UsageError for anything asked for that is not here.

    Without --device, each backend's defaults (of the -b backends, or of every
    available one); each --device value adds the devices it names, among the
    -b backends where -b is given.
    """
    for name in backend_names or []:
        if name not in BACKENDS:
            raise UsageError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    wanted = [_parse_device(t) for t in device_texts]
    for text, parsed in zip(device_texts, wanted, strict=True):
        if backend_names and parsed is not None and parsed[0] not in backend_names:
            # As a name is looked for among the -b backends, so is an id.
            raise UsageError(
                f"--device {text!r}: {parsed[0]} is not among -b {' '.join(backend_names)}; "
                "add it to -b, or leave -b out"
            )
    if device_texts and all(w is not None for w in wanted):
        # Only BACKEND:INDEX values: no other backend need list its devices.
        names = list(dict.fromkeys([*(backend_names or []), *(w[0] for w in wanted if w)]))
    else:
        names = list(backend_names or BACKENDS)
    found = catalogs(names)
    explicit = bool(backend_names) or bool(device_texts)
    for catalog in found.values():
        if catalog.reason is None:
            continue
        if backend_names and catalog.backend in backend_names:
            raise UsageError(f"backend {catalog.backend} is unavailable: {catalog.reason}")
        if not explicit:
            print(f"note: skipping {catalog.backend}: {catalog.reason}", file=sys.stderr)
    for catalog in found.values():
        # A driver that offered no device: the run goes on without it, and may be
        # left with a backend's simulator alone.
        for note in catalog.backend_notes if catalog.reason is None else ():
            print(f"note: {catalog.backend}: {note}", file=sys.stderr)
    chosen: list[DeviceInfo] = []
    if device_texts:
        for number, text in enumerate(device_texts):
            picked = _pick(text, found)
            _note_chosen_before(text, picked, chosen, device_texts[:number])
            chosen.extend(picked)
        # A -b backend no --device value named runs on its defaults.
        named = {d.backend for d in chosen}
        for name in backend_names or []:
            if name not in named and found[name].reason is None:
                chosen.extend(found[name].defaults)
    else:
        chosen = [d for c in found.values() if c.reason is None for d in c.defaults]
    if not chosen:
        raise UsageError(_nothing_chosen(found))
    return list({d.id: d for d in chosen}.values())


def _nothing_chosen(found: Mapping[str, Catalog]) -> str:
    """Why no device was chosen: each backend that lists devices but runs none by
    default names them (a simulator left alone where the driver found no device)."""
    listed = [c for c in found.values() if c.reason is None and c.devices]
    if not listed:
        return "no backend is available; see 'harness devices'"
    told = []
    for catalog in listed:
        notes = dict(catalog.notes)
        for device in catalog.devices:
            why = notes.get(device.id, "not used by default")
            told.append(f"{device.id} ({device.name}) is {': '.join(why.split(': ')[:2])}")
    return (
        f"no device runs by default here: {'; '.join(told)}; name one with --device "
        "(see 'harness devices')"
    )


def device_report() -> list[dict[str, Any]]:
    """Every backend: whether it is available (and why not), and its devices, each
    with a note where it is not one of the backend's defaults (and why)."""
    report = []
    workers = Workers()
    try:
        catalogs = workers.catalogs(list(BACKENDS))
    finally:
        workers.close()
    for name, found in catalogs.items():
        report.append(
            {
                "backend": name,
                "available": found.reason is None,
                "reason": found.reason,
                "devices": [
                    {**d.as_dict(), "note": dict(found.notes).get(d.id)} for d in found.devices
                ],
                "notes": list(found.backend_notes),
            }
        )
    return report


def _cmd_devices(args: argparse.Namespace) -> int:
    report = device_report()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    for entry in report:
        if not entry["available"]:
            print(f"{entry['backend']}: unavailable: {entry['reason']}")
            continue
        print(f"{entry['backend']}: available, {len(entry['devices'])} device(s)")
        for note in entry["notes"]:
            print(f"  note: {note}")
        for d in entry["devices"]:
            print(f"  {d['id']}  {d['name']}  [{d['kind']}]")
            memory = (
                f"{d['memory_bytes'] / 2**30:.1f} GiB" if d["memory_bytes"] else "memory unknown"
            )
            units = d["compute_units"] or "unknown"
            print(f"      vendor {d['vendor']}; {memory}; {units} compute units")
            print(f"      driver {d['driver']}; {d['api']}")
            print(f"      features: {' '.join(d['features']) or '-'}")
            if d["limits"]:
                print("      limits: " + ", ".join(f"{k} {v}" for k, v in d["limits"].items()))
            if d["note"]:
                print(f"      {d['note']}")
    return 0


def register(sub: Any) -> None:
    """Add the ``devices`` command."""
    devices = sub.add_parser(
        "devices", help="list every backend, whether it is available (and why not), its devices"
    )
    devices.add_argument("--json", action="store_true", help="print JSON instead of text")
    devices.set_defaults(handler=_cmd_devices)

"""Which OpenCL devices a run uses by default, and what `harness devices` says of the others."""

from __future__ import annotations

import json

from conftest import harness, need_backend

from harness.backends import get as get_backend
from harness.backends.opencl import compiler_problem


def test_default_devices_compile_and_share_no_cpu() -> None:
    need_backend("opencl")
    backend = get_backend("opencl")
    defaults = backend.default_devices()
    assert defaults
    assert all(compiler_problem(d.index) is None for d in defaults)
    assert sum("cpu" in d.kind.split("/") for d in defaults) <= 1
    notes = backend.device_notes()
    assert set(notes) == {d.id for d in backend.devices()} - {d.id for d in defaults}
    assert all(note.startswith("not used by default: ") for note in notes.values())


def test_devices_lists_why_a_device_is_not_a_default() -> None:
    need_backend("opencl")
    proc = harness("devices", "--json")
    assert proc.returncode == 0, proc.stderr
    (entry,) = [e for e in json.loads(proc.stdout) if e["backend"] == "opencl"]
    notes = get_backend("opencl").device_notes()
    assert {d["id"]: d["note"] for d in entry["devices"] if d["note"]} == notes

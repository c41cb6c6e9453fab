"""The pycuda wheel that scripts/build_pycuda_wheel.sh builds without a GPU.

The script builds pycuda against cuda.h from NVIDIA's nvidia-cuda-runtime package and a
libcuda.so.1 link stub generated from it (the stub answers every call with "no
CUDA-capable device"). Here the wheel is installed into a plain virtual environment of
its own and imported with the stub as the driver: its extension module links and loads,
and pycuda.driver.init() fails with pycuda's own error, not an ImportError or a missing
symbol. Then the harness, on that interpreter and HARNESS_CUDA_BINDING=pycuda, reports
the CUDA backend unavailable for that reason. Nothing here runs on a GPU.

Building pycuda takes minutes: the full tier. A wheel the script already made is reused.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.full

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "build_pycuda_wheel.sh"
STUB = ROOT / "build" / "pycuda-wheel" / "stub"
WHEELS = ROOT / "wheels"

# What the interpreter of the scratch environment reports, as JSON.
PROBE = """
import json
import pycuda
import pycuda.driver as drv
try:
    drv.init()
    outcome = {"init": "ok"}
except drv.Error as exc:
    outcome = {"init": type(exc).__name__, "message": str(exc)}
outcome["version"] = pycuda.VERSION_TEXT
outcome["built_with"] = list(drv.get_version())
print(json.dumps(outcome))
"""


def _header_missing() -> str | None:
    """What the build needs and this machine lacks: a compiler or the runtime package's cuda.h."""
    if shutil.which("cc") is None or shutil.which("c++") is None:
        return "a C and C++ compiler"
    import importlib.util

    spec = importlib.util.find_spec("nvidia")
    places = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    if not any(any(p.glob("*/include/cuda.h")) for p in places):
        return "cuda.h (pip install nvidia-cuda-runtime, in the dev extra)"
    return None


@pytest.fixture(scope="module")
def wheel() -> Path:
    """The wheel: the script's, built now or reused."""
    missing = _header_missing()
    if missing:
        pytest.skip(f"building pycuda needs {missing}")
    built = subprocess.run(
        ["bash", str(SCRIPT)],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert built.returncode == 0, built.stderr
    path = Path(built.stdout.strip().splitlines()[-1])
    assert path.is_file() and path.suffix == ".whl", built.stdout
    assert (STUB / "libcuda.so.1").is_file()
    return path


@pytest.fixture(scope="module")
def python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plain virtual environment (no system site-packages) holding the wheel and what
    pycuda imports, from the wheels folder or PyPI."""
    venv = tmp_path_factory.mktemp("pycuda-venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--find-links", str(WHEELS)]
    subprocess.run([*pip, "--no-deps", str(wheel)], check=True)
    subprocess.run([*pip, "numpy", "pytools", "platformdirs", "mako"], check=True)
    return python


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    return {**env, **extra}


def test_the_extension_loads_and_init_reports_no_device(wheel: Path, python: Path) -> None:
    probe = subprocess.run(
        [str(python), "-c", PROBE],
        env=_env(LD_LIBRARY_PATH=str(STUB)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    outcome = json.loads(probe.stdout)
    # pycuda's own error from cuInit: the extension imported and every symbol resolved.
    assert outcome["init"] == "RuntimeError", outcome
    assert outcome["message"] == "cuInit failed: no CUDA-capable device is detected"
    assert wheel.name.startswith(f"pycuda-{outcome['version']}-"), outcome
    assert outcome["built_with"][0] >= 12, outcome


def test_the_wheel_asks_for_the_driver_by_soname(python: Path) -> None:
    """Without a libcuda.so.1 to find, the import names it: the wheel is bound to the
    driver's soname, not to the stub it was linked against."""
    probe = subprocess.run(
        [str(python), "-c", "import pycuda.driver"],
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode == 0:
        pytest.skip("this machine has a CUDA driver library")
    assert "libcuda.so.1" in probe.stderr, probe.stderr


def test_harness_devices_through_pycuda(python: Path) -> None:
    """The harness on that interpreter (its own source on the path, its few
    dependencies installed) picks pycuda and reports why CUDA is unavailable."""
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "filelock", "tqdm"], check=True)
    devices = subprocess.run(
        [str(python), "-m", "harness", "devices", "--json"],
        env=_env(LD_LIBRARY_PATH=str(STUB), PYTHONPATH=str(ROOT), HARNESS_CUDA_BINDING="pycuda"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert devices.returncode == 0, devices.stderr
    cuda = next(entry for entry in json.loads(devices.stdout) if entry["backend"] == "cuda")
    assert not cuda["available"], cuda
    assert cuda["reason"] == (
        "the NVIDIA driver found no CUDA device (cuInit failed: no CUDA-capable device is detected)"
    ), cuda

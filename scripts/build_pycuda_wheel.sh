#!/usr/bin/env bash
# Build a wheel of pycuda without a GPU and without a CUDA toolkit, so that it can be
# carried to a GPU machine and installed there with `pip install wheels/pycuda-*.whl`.
#
#   scripts/build_pycuda_wheel.sh            build (or reuse) wheels/pycuda-*.whl
#   scripts/build_pycuda_wheel.sh --force    build it again
#
# Environment:
#   PYTHON          the interpreter the wheel is for (default: .venv/bin/python, else python3);
#                   the wheel only installs on the same Python version (cp311, cp312, ...)
#   PYCUDA_VERSION  the pycuda release to build (default below)
#   JOBS            compilers run at once (default: every core)
#   CUDA_INC_DIR    a folder holding cuda.h (default: the nvidia-cuda-runtime package's)
#   OFFLINE         1: download nothing (a machine without internet, such as a GPU node): the
#                   source archive must be in build/pycuda-wheel/, setuptools and numpy come
#                   from PYTHON's environment rather than an isolated build, and pycuda's
#                   dependencies are not fetched as wheels
#
# pycuda is only published as source on PyPI, and building it needs cuda.h and a libcuda.so
# to link against. cuda.h comes from NVIDIA's nvidia-cuda-runtime package (the `dev` extra).
# No package on PyPI ships the driver's link stub (a CUDA toolkit has it in lib64/stubs), so
# one is generated here from cuda.h: a libcuda.so whose soname is libcuda.so.1 with every
# function cuda.h declares. The wheel records only that soname, and on the GPU machine the
# real driver's libcuda.so.1 is the one loaded. The stub answers every call with "no
# CUDA-capable device", which is also what lets the tests import the wheel without a driver.
#
# Safe to run twice: everything is built under build/pycuda-wheel/ (git-ignored), the source
# archive is downloaded once, and an existing wheel of the same version is reused, as is one
# kept in the user's cache (~/.cache/harness/pycuda-wheels) by an earlier build of the same
# script, pycuda release, cuda.h and Python.
# Prints the wheel's path as its last line.
set -euo pipefail

PYCUDA_VERSION="${PYCUDA_VERSION:-2026.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRATCH="$ROOT/build/pycuda-wheel"
OUT="$ROOT/wheels"
STUB="$SCRATCH/stub"

die() {
    echo "build_pycuda_wheel: $*" >&2
    exit 1
}

force=0
case "${1:-}" in
    --force) force=1 ;;
    "") ;;
    *) die "unknown argument '$1' (the only option is --force)" ;;
esac

if [[ -z "${PYTHON:-}" ]]; then
    if [[ -x "$ROOT/.venv/bin/python" ]]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi
command -v "$PYTHON" >/dev/null || die "no Python interpreter '$PYTHON' (set PYTHON)"
"$PYTHON" -m pip --version >/dev/null 2>&1 || die "$PYTHON has no pip"
command -v cc >/dev/null || die "no C compiler (cc): install gcc and g++"
command -v c++ >/dev/null || die "no C++ compiler (c++): install g++"

# cuda.h: the one NVIDIA's nvidia-cuda-runtime wheel puts under site-packages/nvidia/*/include.
if [[ -z "${CUDA_INC_DIR:-}" ]]; then
    CUDA_INC_DIR="$("$PYTHON" - <<'EOF'
import importlib.util
from pathlib import Path

spec = importlib.util.find_spec("nvidia")
roots = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
found = sorted(h.parent for r in roots for h in r.glob("*/include/cuda.h"))
print(found[-1] if found else "")
EOF
)"
fi
[[ -n "$CUDA_INC_DIR" && -f "$CUDA_INC_DIR/cuda.h" ]] ||
    die "no cuda.h: pip install nvidia-cuda-runtime (or the dev extra), or set CUDA_INC_DIR"

# The CUDA version the headers declare (13020 is 13.2): a driver of that major release or
# newer is needed on the GPU machine.
cuda_version="$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$CUDA_INC_DIR/cuda.h" | head -n 1)"
[[ -n "$cuda_version" ]] || die "$CUDA_INC_DIR/cuda.h has no CUDA_VERSION"
cuda_text="$((cuda_version / 1000)).$((cuda_version % 1000 / 10))"

mkdir -p "$SCRATCH" "$OUT" "$STUB"

# pycuda also includes cudaProfiler.h, which NVIDIA ships in another package
# (nvidia-cuda-profiler-api; -cu12 for CUDA 12): its wheel is downloaded for the headers'
# major release and unpacked here, not installed.
include_dirs="$CUDA_INC_DIR"
if [[ ! -f "$CUDA_INC_DIR/cudaProfiler.h" ]]; then
    major=$((cuda_version / 1000))
    profiler="nvidia-cuda-profiler-api"
    ((major >= 13)) || profiler="nvidia-cuda-profiler-api-cu$major"
    profiler_dir="$SCRATCH/profiler-api-$major"
    if [[ ! -f "$profiler_dir/include/cudaProfiler.h" ]]; then
        rm -rf "$profiler_dir" && mkdir -p "$profiler_dir/include"
        "$PYTHON" -m pip download --quiet --no-deps --only-binary :all: \
            "$profiler>=$major,<$((major + 1))" -d "$profiler_dir" ||
            die "no cudaProfiler.h: cannot download $profiler $major from PyPI"
        "$PYTHON" - "$profiler_dir" <<'EOF'
import sys
import zipfile
from pathlib import Path

folder = Path(sys.argv[1])
for wheel in folder.glob("*.whl"):
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.endswith(".h") and "/include/" in name:
                (folder / "include" / Path(name).name).write_bytes(archive.read(name))
EOF
        [[ -f "$profiler_dir/include/cudaProfiler.h" ]] ||
            die "no cudaProfiler.h in the $profiler wheel"
    fi
    # configure.py takes several folders separated by commas.
    include_dirs="$include_dirs,$profiler_dir/include"
fi

# The link stub (and the tests' stand-in driver): rebuilt each run, it takes a second.
# Preprocessing the driver headers pycuda includes gives the names the driver exports
# (cuMemAlloc is cuMemAlloc_v2, and so on; cuProfilerStart is in cudaProfiler.h).
IFS=, read -ra dirs <<<"$include_dirs"
printf '#include <cuda.h>\n#include <cudaProfiler.h>\n' |
    cc -E -P "${dirs[@]/#/-I}" -x c - >"$SCRATCH/cuda.i" ||
    die "cuda.h and cudaProfiler.h in $include_dirs do not preprocess"
"$PYTHON" - "$SCRATCH/cuda.i" "$STUB/stub.c" <<'EOF'
import re
import sys

text = open(sys.argv[1]).read()
names = sorted(set(re.findall(r"\bCUresult\s+(cu[A-Za-z0-9_]+)\s*\(", text)))
special = {"cuGetErrorString", "cuGetErrorName"}
lines = [
    "/* Generated from cuda.h: a driver without a device. Every call fails with",
    "   CUDA_ERROR_NO_DEVICE (100); error names and strings are answered. */",
    "static const char *message(int e) {",
    '    return e == 100 ? "no CUDA-capable device is detected" : "unknown error";',
    "}",
    "int cuGetErrorString(int e, const char **s) { *s = message(e); return 0; }",
    'int cuGetErrorName(int e, const char **s) { *s = e == 100 ? "CUDA_ERROR_NO_DEVICE" '
    ': "CUDA_ERROR_UNKNOWN"; return 0; }',
]
lines += [f"int {n}(void) {{ return 100; }}" for n in names if n not in special]
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print(f"stub driver: {len(names)} functions", file=sys.stderr)
EOF
cc -shared -fPIC -w -Wl,-soname,libcuda.so.1 -o "$STUB/libcuda.so.1" "$STUB/stub.c" ||
    die "the stub libcuda.so.1 does not compile"
ln -sf libcuda.so.1 "$STUB/libcuda.so"

# What pycuda needs beside numpy, as wheels for this Python, so that a GPU machine without
# internet can install it all: pip install --no-index --find-links wheels wheels/pycuda-*.whl
dependencies() {
    local present=("$OUT"/pytools-*.whl)
    ((${#present[@]} > 0 || ${OFFLINE:-0} == 1)) && return 0
    "$PYTHON" -m pip download --quiet --only-binary :all: --dest "$OUT" pytools platformdirs mako ||
        die "cannot download pycuda's dependencies (pytools, platformdirs, mako) from PyPI"
}

# A wheel built before from the same script, pycuda release, headers and Python is kept
# in the user's cache (XDG_CACHE_HOME where absolute, else ~/.cache), so that a fresh
# clone on this machine need not build it again: minutes of compiling.
cache_home="${XDG_CACHE_HOME:-}"
[[ "$cache_home" == /* ]] || cache_home="$HOME/.cache"
made_from="$(cat "${BASH_SOURCE[0]}" "$CUDA_INC_DIR/cuda.h"; echo "$PYCUDA_VERSION"
    "$PYTHON" -c 'import sys, sysconfig; print(sys.implementation.cache_tag, sysconfig.get_platform())')"
KEPT="$cache_home/harness/pycuda-wheels/$(sha256sum <<<"$made_from" | cut -c1-16)"

shopt -s nullglob
existing=("$OUT"/pycuda-"$PYCUDA_VERSION"-*.whl)
kept=("$KEPT"/pycuda-"$PYCUDA_VERSION"-*.whl)
if ((force == 0 && ${#existing[@]} == 0 && ${#kept[@]} > 0)); then
    cp "${kept[0]}" "$OUT"/ && existing=("$OUT/$(basename "${kept[0]}")")
    echo "copied the wheel kept at ${kept[0]}" >&2
fi
if ((force == 0 && ${#existing[@]} > 0)); then
    dependencies
    echo "reusing ${existing[0]} (--force builds it again)" >&2
    echo "${existing[0]}"
    exit 0
fi

# The source archive, downloaded once (pycuda has no Linux wheels on PyPI).
sdist="$SCRATCH/pycuda-$PYCUDA_VERSION.tar.gz"
if [[ ! -f "$sdist" ]]; then
    [[ "${OFFLINE:-0}" != 1 ]] || die "OFFLINE=1 and no source archive at $sdist"
    "$PYTHON" -m pip download --quiet --no-deps --no-binary pycuda \
        "pycuda==$PYCUDA_VERSION" -d "$SCRATCH" ||
        die "cannot download pycuda $PYCUDA_VERSION's source from PyPI"
fi
[[ -f "$sdist" ]] || die "pip did not leave $sdist"

# A fresh source tree each build, so that no earlier siteconf.py or object is reused.
src="$SCRATCH/pycuda-$PYCUDA_VERSION"
rm -rf "$src"
tar -xzf "$sdist" -C "$SCRATCH"

# siteconf.py: pycuda's bundled Boost.Python (bpl-subset), cuda.h from the package, the stub
# to link against. CURAND is left out: it would need libcurand on the GPU machine, and the
# harness does not use it. No debug information (-g0 after Python's own -g): nothing reads
# it in a wheel, and the template-heavy sources compile in two thirds of the time without.
(cd "$src" && "$PYTHON" configure.py \
    --cuda-root="$(dirname "$CUDA_INC_DIR")" \
    --cuda-inc-dir="$include_dirs" \
    --cudadrv-lib-dir="$STUB" \
    --cudadrv-libname=cuda \
    --cxxflags=-g0 \
    --no-cuda-enable-curand >/dev/null) || die "pycuda's configure.py failed"

# Compile with every core (setuptools reads build_ext's options from setup.cfg); pip's build
# isolation fetches setuptools, wheel and numpy's headers (OFFLINE: PYTHON's own).
printf '\n[build_ext]\nparallel = %s\n' "${JOBS:-$(nproc)}" >>"$src/setup.cfg"
rm -f "$OUT"/pycuda-"$PYCUDA_VERSION"-*.whl
isolation=()
[[ "${OFFLINE:-0}" != 1 ]] || isolation=(--no-build-isolation --no-index)
"$PYTHON" -m pip wheel --no-deps "${isolation[@]}" --wheel-dir "$OUT" "$src" >"$SCRATCH/build.log" 2>&1 ||
    die "the pycuda build failed: see $SCRATCH/build.log"

wheel=("$OUT"/pycuda-"$PYCUDA_VERSION"-*.whl)
((${#wheel[@]} > 0)) || die "pip wheel left no wheel in $OUT (see $SCRATCH/build.log)"

# Kept whole or not at all; a cache that cannot be written costs only the next build.
if mkdir -p "$KEPT" 2>/dev/null && cp "${wheel[0]}" "$KEPT/.partial" 2>/dev/null; then
    mv "$KEPT/.partial" "$KEPT/$(basename "${wheel[0]}")"
fi
dependencies
echo "built pycuda $PYCUDA_VERSION against CUDA $cuda_text headers: needs a CUDA ${cuda_text%%.*} driver or newer" >&2
echo "${wheel[0]}"

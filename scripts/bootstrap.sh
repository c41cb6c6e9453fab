#!/usr/bin/env bash
# Sets up everything the harness needs, then runs it:
#   bash scripts/bootstrap.sh bench [harness run options]   the default benchmark suite
#   bash scripts/bootstrap.sh test  [pytest options]        the fast test tier, one process per core
#   bash scripts/bootstrap.sh test --full [pytest options]  both tiers (-m full: the full tier alone)
# Safe to run again: it installs only what is missing. As root on Debian it also
# installs the system packages (lavapipe for wgpu, Debian's PoCL, CLBlast; for
# the tests, Chromium, Open MPI, a C compiler and the Oclgrind simulator).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  bench | test) shift ;;
  *)
    echo "usage: bash scripts/bootstrap.sh bench|test [options]" >&2
    exit 2
    ;;
esac

venv=${HARNESS_VENV:-.venv}

# Debian's PoCL as well as the one in pyopencl's wheels, whose LLVM 14 cannot
# compile for CPUs newer than it knows (AMD Zen 5); CLBlast for the library
# variant of the BLAS-shaped kernels on OpenCL.
packages=(mesa-vulkan-drivers pocl-opencl-icd libclblast1)
[ "$mode" = test ] && packages+=(chromium)
# The MPI test runs ranks under Open MPI's mpirun (mpi4py comes with the dev extra).
[ "$mode" = test ] && packages+=(openmpi-bin libopenmpi-dev)
# The fault tests build a fake OpenCL driver; the contract test preprocesses C sources.
[ "$mode" = test ] && ! command -v cc >/dev/null && packages+=(gcc)
[ "$mode" = test ] && ! command -v cpp >/dev/null && packages+=(cpp)
# The simulator that finds data races and out-of-bounds accesses in OpenCL kernels.
[ "$mode" = test ] && packages+=(oclgrind)
python3 -c "import ensurepip" 2>/dev/null || packages+=(python3-venv)
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing system packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  # Debian's oclgrind ships the simulator's ICD library but does not register
  # it with the OpenCL loader; the harness lists it after every real device.
  oclgrind_icd=/usr/lib/oclgrind/liboclgrind-rt-icd.so
  if [ -e "$oclgrind_icd" ] && [ ! -e /etc/OpenCL/vendors/oclgrind.icd ]; then
    mkdir -p /etc/OpenCL/vendors
    echo "$oclgrind_icd" >/etc/OpenCL/vendors/oclgrind.icd
  fi
else
  echo "note: not root, so not installing system packages (${packages[*]})" >&2
fi

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
extras=pocl,wgpu,report
[ "$mode" = test ] && extras+=,dev,cuda
"$venv/bin/python" -m pip install -q --disable-pip-version-check -e ".[$extras]"
# pip byte-compiles the packages it installs, but not an editable one: compile
# the harness's own modules here, or every Python that imports them compiles
# them again (a third of a second a command, and the tests start hundreds)
# where PYTHONDONTWRITEBYTECODE keeps Python from caching them itself.
"$venv/bin/python" -m compileall -q harness

if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
  XDG_RUNTIME_DIR=$(mktemp -d)
  export XDG_RUNTIME_DIR
fi

if [ "$mode" = bench ]; then
  exec "$venv/bin/harness" run "$@"
fi

# The test suite fails, rather than skips, when a backend this set-up provides is missing.
required=cpu,opencl
dpkg -s mesa-vulkan-drivers >/dev/null 2>&1 && required+=,wgpu
command -v chromium >/dev/null && required+=,chromium
command -v mpirun >/dev/null && required+=,mpi
[ -e /etc/OpenCL/vendors/oclgrind.icd ] && required+=,oclgrind
required+=,cuda-compile
export HARNESS_REQUIRE_BACKENDS=${HARNESS_REQUIRE_BACKENDS:-$required}
# One test process per core (pytest-xdist): compiling the kernels, which a
# fresh machine has no cache of, is most of the suite's time. A process that
# runs out of tests takes some of another's (worksteal), so a few long tests
# (the mutation gate, the pycuda build) do not leave a core idle at the end.
# Without --full (or a -m expression) pytest leaves out the tests marked full
# (tests/conftest.py): the fast tier, every unit test and every kernel verified
# once per backend.
exec "$venv/bin/python" -m pytest -n auto --dist worksteal "$@"

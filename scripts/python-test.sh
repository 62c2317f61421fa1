#!/usr/bin/env bash
# Builds and installs the Python package into a virtual environment (build/python-venv) and
# runs its tests (pytest python/tests). Called by scripts/test.sh after ctest; runs alone too.
#   IMGHIST_BUILD_DIR         the C++ build whose imghist command the JSON tests compare with (build)
#   IMGHIST_CLI               that command (default: $IMGHIST_BUILD_DIR/src/cli/imghist if built)
#   IMGHIST_REQUIRE_BACKENDS  backends that must run, as for ctest (e.g. cpu,opencl,vulkan)
#   IMGHIST_REQUIRE_IO        1: imghist.read() must exist (default where the command is built)
#   IMGHIST_PYTHON_VENV       the virtual environment (build/python-venv)
# pytest's own exit code is kept: a failure, or no test run at all (5), fails this script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
python=/usr/bin/python3  # Debian's, as in CI; another python3 only where there is none
[ -x "$python" ] || python=$(command -v python3)
venv=${IMGHIST_PYTHON_VENV:-build/python-venv}
build=${IMGHIST_BUILD_DIR:-build}
pip_quiet=(--quiet --disable-pip-version-check)

if [ ! -x "$venv/bin/python" ]; then
  echo "python-test: creating the virtual environment $venv ($("$python" --version))"
  "$python" -m venv "$venv"
fi
echo "python-test: build tools and test dependencies (PyPI)"
"$venv/bin/python" -m pip install "${pip_quiet[@]}" "scikit-build-core>=0.10" "nanobind>=2.2" numpy pytest

# Without build isolation the build tools keep their paths, so the build directory that
# pyproject.toml names (build/python-<tag>) is reused: a second install rebuilds what changed.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CUDA_COMPILER_LAUNCHER=${CMAKE_CUDA_COMPILER_LAUNCHER:-ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
fi
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
echo "python-test: building and installing imghist (pip install .[test])"
start=$SECONDS
"$venv/bin/python" -m pip install "${pip_quiet[@]}" --no-build-isolation ".[test]"
echo "python-test: installed in $((SECONDS - start)) s"

if [ -z "${IMGHIST_CLI:-}" ] && [ -x "$build/src/cli/imghist" ]; then
  IMGHIST_CLI=$(cd "$build" && pwd)/src/cli/imghist
fi
if [ -n "${IMGHIST_CLI:-}" ]; then
  export IMGHIST_CLI
  # The command needs imghist::io, so the package must have the file reader too.
  export IMGHIST_REQUIRE_IO=${IMGHIST_REQUIRE_IO:-1}
  echo "python-test: comparing with the command line $IMGHIST_CLI; imghist.read() required"
else
  echo "python-test: no imghist command built: the JSON comparison tests are skipped"
fi
export IMGHIST_REQUIRE_BACKENDS=${IMGHIST_REQUIRE_BACKENDS:-}
echo "python-test: pytest python/tests (required backends: ${IMGHIST_REQUIRE_BACKENDS:-none})"
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests

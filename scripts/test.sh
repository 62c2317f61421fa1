#!/usr/bin/env bash
# Builds imghist with every backend this machine can run and passes the whole test suite.
# The OpenCL (PoCL) and Vulkan (lavapipe) backends are required: a skipped one fails the run.
# The CUDA backend is compiled whenever nvcc exists (it runs only on a machine with a GPU).
# MPI is required too (IMGHIST_MPI=ON): its tests run under mpirun.
# The Python package is built and tested in a virtual environment (scripts/python-test.sh), then
# as a wheel installed where nothing can build it (scripts/build-wheel.sh, scripts/check-wheel.sh).
# Then the installed package is checked from a separate project (scripts/check-install.sh)
# and each fuzz target runs for IMGHIST_FUZZ_SECONDS (default 90) seconds (scripts/fuzz.sh, and
# scripts/fuzz-python.sh for the Python package).
# It shares build/ with scripts/demo.sh, in either order: every option that decides what is
# tested is set here, so a build/ that demo.sh configured gets its tests back.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
source scripts/cuda-path.sh
cuda=OFF
command -v nvcc >/dev/null && cuda=ON
# With CUDA, GPU JPEG decoding is compiled too: nvImageCodec's header from PyPI's wheel
# (scripts/install-nvimgcodec.sh; the library is loaded at run time, on the GPU machine).
nvimgcodec=OFF
if [ "$cuda" = ON ]; then bash scripts/install-nvimgcodec.sh --quiet >/dev/null; nvimgcodec=ON; fi
build=${IMGHIST_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_TESTS=ON -DIMGHIST_SHARED=ON \
  -DIMGHIST_OPENCL=ON -DIMGHIST_VULKAN=ON -DIMGHIST_CUDA=$cuda -DIMGHIST_NVIMGCODEC=$nvimgcodec -DIMGHIST_CLI=ON -DIMGHIST_MPI=ON -DIMGHIST_BENCH=ON
cmake --build "$build" -j"$(nproc)"
export IMGHIST_REQUIRE_BACKENDS=${IMGHIST_REQUIRE_BACKENDS:-cpu,opencl,vulkan}
export IMGHIST_VULKAN_VALIDATION=${IMGHIST_VULKAN_VALIDATION:-1}
# A test command that runs no test fails.
(cd "$build" && ctest --output-on-failure --no-tests=error -j"$(nproc)" --timeout 1200)
# The Python package: pip install into build/python-venv, then pytest (scripts/python-test.sh),
# its JSON compared with the imghist command just built.
IMGHIST_BUILD_DIR="$build" IMGHIST_CLI="$(cd "$build" && pwd)/src/cli/imghist" bash scripts/python-test.sh
# The Python examples of the README and docs/python.md with that package (ctest ran the documentation's other examples).
# (an absolute path: the runner runs each block in a scratch folder of its own)
venv_python=$(cd "${IMGHIST_PYTHON_VENV:-build/python-venv}" && pwd)/bin/python
"$venv_python" tests/docs/run_doc_examples.py --python "$venv_python" --bin-dir "$build/src/cli" --every-block docs/python.md README.md docs/python.md
# The wheel (scripts/build-wheel.sh: python-test.sh's build directory, relinked, then repaired by
# auditwheel; about 3 min on 2 cores) installed in a fresh virtual environment with no compiler or
# build tree in reach, its libraries audited and the package's tests run there (scripts/check-wheel.sh;
# about 6 min).
bash scripts/build-wheel.sh
bash scripts/check-wheel.sh
# The installed package must work from a separate project: find_package and pkg-config.
bash scripts/check-install.sh "$build"
# The fuzz targets (reader, API on cpu/opencl/vulkan, merge, options) under libFuzzer, ASan and UBSan, in their own clang build.
bash scripts/fuzz.sh "${IMGHIST_FUZZ_SECONDS:-90}"
# The Python package's API under atheris, with the package scripts/python-test.sh installed.
IMGHIST_BUILD_DIR="$build" bash scripts/fuzz-python.sh "${IMGHIST_FUZZ_SECONDS:-90}"

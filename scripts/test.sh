#!/usr/bin/env bash
# Builds imghist with every backend this machine can run and passes the whole test suite.
# The OpenCL (PoCL) and Vulkan (lavapipe) backends are required: a skipped one fails the run.
# The CUDA backend is compiled whenever nvcc exists (it runs only on a machine with a GPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
cuda=OFF
command -v nvcc >/dev/null && cuda=ON
build=${IMGHIST_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DIMGHIST_OPENCL=ON -DIMGHIST_VULKAN=ON -DIMGHIST_CUDA=$cuda -DIMGHIST_CLI=ON -DIMGHIST_BENCH=ON
cmake --build "$build" -j"$(nproc)"
export IMGHIST_REQUIRE_BACKENDS=${IMGHIST_REQUIRE_BACKENDS:-cpu,opencl,vulkan}
export IMGHIST_VULKAN_VALIDATION=${IMGHIST_VULKAN_VALIDATION:-1}
(cd "$build" && ctest --output-on-failure -j"$(nproc)" --timeout 1200)
# The installed package must work from a separate project: find_package and pkg-config.
bash scripts/check-install.sh "$build"

#!/usr/bin/env bash
# Installs the Debian 12 packages imghist builds and tests with, skipping those already there.
# Usage: scripts/install-deps.sh [core|all]   (all: the GPU runtimes for CPU devices too)
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libbenchmark-dev                        # tests and benchmarks
  libopenimageio-dev openimageio-tools libcli11-dev nlohmann-json3-dev libcairo2-dev  # the imghist command
  libopencv-dev                                        # the OpenCV comparison benchmark
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo   # OpenCL, run on the CPU by PoCL
  libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers vulkan-tools  # Vulkan on lavapipe
  clang-14 libclang-rt-14-dev                          # the fuzz targets (libFuzzer, ASan, UBSan)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"

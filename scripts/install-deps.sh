#!/usr/bin/env bash
# Installs the Debian 12 packages imghist builds and tests with, skipping those already there.
# Usage: scripts/install-deps.sh [--print] [core|all]
#   core: what the library, the imghist command and their tests need
#   all:  (the default) core, plus the benchmarks and the GPU APIs with their CPU devices
#         (PoCL for OpenCL, lavapipe for Vulkan): every backend but CUDA builds and runs
#   --print: list the packages of the set, one per line, and install nothing
set -euo pipefail
usage() { echo "usage: $0 [--print] [core|all]" >&2; exit 2; }
print=0
set_name=all
for arg in "$@"; do
  case "$arg" in
    --print) print=1 ;;
    core|all) set_name=$arg ;;
    *) echo "install-deps: unknown argument '$arg' (expected core|all, or --print)" >&2; usage ;;
  esac
done
core=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev                                         # tests
  libopenimageio-dev openimageio-tools libcli11-dev nlohmann-json3-dev libtiff-dev libcairo2-dev  # the imghist command
  libturbojpeg0-dev                                    # imghist::io decodes JPEGs with TurboJPEG (else OpenImageIO does)
  libraw-dev                                           # imghist::io reads camera raw files with LibRaw (else refuses them)
  libheif-dev                                          # imghist::io reads HEIC/AVIF with libheif (else OpenImageIO, 8-bit, untrusted)
  libopenmpi-dev openmpi-bin                           # imghist::mpi and imghist --mpi (Open MPI; tests run mpirun)
  python3-pandas python3-numpy                         # the CLI tests load its CSV with them
  python3-venv python3-dev                             # the Python package (its build tools come from PyPI)
)
extra=(
  libbenchmark-dev                                     # benchmarks
  libopencv-dev                                        # the OpenCV comparison benchmark
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo   # OpenCL, run on the CPU by PoCL
  libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers vulkan-tools  # Vulkan on lavapipe
  clang-14 libclang-rt-14-dev                          # the fuzz targets (libFuzzer, ASan, UBSan)
)
# PyPI packages of the tests, in Debian's Python (the tests run /usr/bin/python3): camera raw
# files written with tifffile and decoded again by rawpy; HEIC and AVIF written by pillow-heif
# (on Pillow). Without their dependencies: numpy stays Debian's (python3-numpy), which Debian's
# pandas is built against (a numpy 2 from PyPI breaks it).
pypi=(tifffile rawpy pillow-heif pillow)
pypi_modules=(tifffile rawpy pillow_heif PIL)
packages=("${core[@]}")
[ "$set_name" = all ] && packages+=("${extra[@]}")
if [ "$print" -eq 1 ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages of '$set_name' present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! /usr/bin/python3 -c "import $(IFS=,; echo "${pypi_modules[*]}")" 2>/dev/null; then
  echo "install-deps: installing ${pypi[*]} (PyPI) for /usr/bin/python3"
  $sudo /usr/bin/python3 -m pip install --quiet --disable-pip-version-check --break-system-packages --no-deps "${pypi[@]}"
fi

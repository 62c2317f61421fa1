#!/usr/bin/env bash
# Builds the GPU machine's test and benchmark programs here, so that a call to it spends its
# device time running them rather than building (a build there took 200-360 s of a session's
# 1800; a call that runs prebuilt programs, 30-150 s).
#
# Usage (from the repository root, after scripts/install-deps.sh, on a machine that also has a
# CUDA toolkit's nvcc, e.g. in /usr/local/cuda, which scripts/cuda-path.sh puts on PATH;
# install-deps.sh does not install one. CUDA_ARCH defaults to 90, the H100's and H200's):
#   bash scripts/gpu-prebuild.sh [BUILD_DIR]      # default build-prebuilt
# It configures every GPU backend with a static libimghist and the CUDA runtime linked in,
# builds the parity suite, each backend's tests and benchmarks, and packs the programs
# (stripped, in the build tree's layout, with REVISION) into .gl/prebuilt.tar.xz: each of the
# seven holds the CUDA kernels (13 MB apiece, 91 MB together), and one xz stream of them is about
# 11 MB, which the device call carries with the loaders (carry [".gl"], 64 MiB at most). There,
# from the repository root:
#   tar -xJf .gl/prebuilt.tar.xz -C /tmp
#   IMGHIST_GPU_BUILD_DIR=/tmp/prebuilt bash scripts/gpu-check.sh parity large
#       (the steps that only run $build's programs: no build step), or the programs directly,
#       e.g. /tmp/prebuilt/bench/cuda/imghist_cuda_bench --masks, after gpu-check.sh has unpacked
#       the loaders (or: for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig) and with
#       VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json for Vulkan.
# The programs hold no path into this checkout. Check REVISION against the tree you meant.
#
# A before/after pair for scripts/gpu-alternate.sh (the same benchmark, two revisions, one call):
#   IMGHIST_PREBUILT_SOURCE   the tree to build (default: this checkout), e.g. a worktree of the
#                             older commit: git worktree add /tmp/before REV
#   IMGHIST_PREBUILT_PROGRAMS the programs to build and pack, by name (default: all eight), e.g.
#                             "imghist_cuda_bench imghist_cuda_tests"
#   IMGHIST_PREBUILT_ARCHIVE  the archive to write (default: .gl/prebuilt.tar.xz)
# e.g. IMGHIST_PREBUILT_SOURCE=/tmp/before IMGHIST_PREBUILT_PROGRAMS=imghist_cuda_bench \
#      IMGHIST_PREBUILT_ARCHIVE=.gl/before.tar.xz bash scripts/gpu-prebuild.sh build-before
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/cuda-path.sh
build=${1:-build-prebuilt}
command -v nvcc >/dev/null || { echo "gpu-prebuild: no nvcc on PATH or in /usr/local/cuda/bin: install a CUDA toolkit first"; exit 2; }

source_tree=$(cd "${IMGHIST_PREBUILT_SOURCE:-$root}" && pwd)
archive=${IMGHIST_PREBUILT_ARCHIVE:-.gl/prebuilt.tar.xz}
cmake -S "$source_tree" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_SHARED=OFF -DIMGHIST_CLI=OFF \
      -DIMGHIST_TESTS=ON -DIMGHIST_BENCH=ON -DIMGHIST_OPENCL=ON -DIMGHIST_VULKAN=ON -DIMGHIST_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}-real" -DCMAKE_CUDA_RUNTIME_LIBRARY=Static > /dev/null
programs=(tests/imghist_tests
          tests/cuda/imghist_cuda_tests tests/opencl/imghist_opencl_tests tests/vulkan/imghist_vulkan_tests
          bench/cuda/imghist_cuda_bench bench/opencl/imghist_opencl_bench bench/vulkan/imghist_vulkan_bench
          bench/vulkan/imghist_vulkan_stats_bench)
if [ -n "${IMGHIST_PREBUILT_PROGRAMS:-}" ]; then
  chosen=()
  for name in $IMGHIST_PREBUILT_PROGRAMS; do
    found=""
    for p in "${programs[@]}"; do [ "$(basename "$p")" = "$name" ] && found=$p; done
    [ -n "$found" ] || { echo "gpu-prebuild: no program $name (one of: ${programs[*]##*/})"; exit 2; }
    chosen+=("$found")
  done
  programs=("${chosen[@]}")
fi
targets=()
for p in "${programs[@]}"; do targets+=("$(basename "$p")"); done
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

stage="$build/prebuilt"
rm -rf "$stage"
for p in "${programs[@]}"; do
  mkdir -p "$stage/$(dirname "$p")"
  strip -o "$stage/$p" "$build/$p"
done
{ git -C "$source_tree" rev-parse HEAD; git -C "$source_tree" status --short --untracked-files=no; } > "$stage/REVISION"
for p in "${programs[@]}"; do
  if ldd "$stage/$p" | grep -E "imghist|not found"; then
    echo "gpu-prebuild: $p needs a library that does not travel"
    exit 1
  fi
done
mkdir -p "$(dirname "$archive")"
tar -C "$build" -cf - prebuilt | xz -T"$(nproc)" -6 > "$archive"
echo "gpu-prebuild: $archive, $(du -h "$archive" | cut -f1) (carry \".gl\": 64 MiB at most a call with the loaders), revision $(head -c 12 "$stage/REVISION")"

#!/usr/bin/env bash
# Everything the GPU machine checks, in one command (see ../shared/device-notes.md):
#   unpack the carried OpenCL/Vulkan loaders and build deps (.gl/*.deb), build every GPU
#   backend, run the parity tests on each, run the benchmarks, and print a short table last.
#
# .gl/ holds Debian 12 .debs the GPU machine lacks (it has no package registry). Fetch them once
# on a Debian machine, from the repository root:
#   o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#   mkdir -p .gl /tmp/amd64/partial && apt-get $o update && (cd .gl && apt-get $o download \
#     ocl-icd-libopencl1 clinfo opencl-headers opencl-c-headers libvulkan1 libvulkan-dev glslc \
#     libshaderc1 vulkan-validationlayers libgtest-dev libbenchmark-dev libbenchmark1debian \
#     libglvnd0 libegl1 libgl1 libglx0 libopengl0 libgles2 libturbojpeg0 libturbojpeg0-dev)
# The jpeg step (scripts/gpu/cuda.sh) also wants .gl/photos/*.jpg, the photos its datasets are cut
# from, and .whl/nvidia (bash scripts/install-nvimgcodec.sh) carried beside .gl:
#   mkdir -p .gl/photos && python3 -c "import skimage.data as d, PIL.Image as I
#   for n in ['astronaut','coffee','chelsea','rocket','hubble_deep_field','immunohistochemistry',
#             'retina','colorwheel','cat','stereo_motorcycle']:
#       a = getattr(d, n)(); a = a[0] if isinstance(a, tuple) else a
#       I.fromarray(a[..., :3]).save(f'.gl/photos/{n}.jpg', quality=95)"
#
# Usage: scripts/gpu-check.sh [STEP...]   steps: build test sanitize large bench (default: all),
#   and parity (the parity suite and the GPU backends' own tests only: quicker than test),
#   python (the Python package's tests with real torch/cupy CUDA tensors) and pybench
#   (scripts/gpu/python.sh)
# Each backend adds its own steps in scripts/gpu/<backend>.sh, defining <backend>_<step>
# functions; a missing function is simply not run. IMGHIST_GPU_BACKENDS=opencl,cuda limits the
# backend steps to those backends (default: opencl,vulkan,cuda); IMGHIST_GPU_CUDA=OFF builds without CUDA;
# IMGHIST_GPU_TESTS=OFF builds without the tests (a benchmark-only call, e.g. build oldbuild compare
# with IMGHIST_GPU_BACKENDS=none, which also skips each backend's own build).
# Output: logs and tables under $OUT (the device tool's folder), else ./out. Exit status: 0 when
# every step passed, 1 when one failed (scripts/gpu/status.sh says how a step's status is read).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build test sanitize large bench)
summary="$OUT/summary.txt"
: > "$summary"
. scripts/gpu/status.sh   # note, run_step: the exit status is the steps' status

# --- loaders and build dependencies -------------------------------------------------------
. scripts/gpu/loaders.sh
if [ -d .gl ]; then
  install_gpu_loaders
  dep=/tmp/imghist-deps
  mkdir -p "$dep"
  for f in .gl/*.deb; do
    case "$f" in *ocl-icd-libopencl1*|*clinfo*|*libvulkan1_*|*libglvnd0_*|*libegl1_*|*libgl1_*|*libglx0_*|*libopengl0_*|*libgles2_*) ;;
      *) dpkg -x "$f" "$dep" ;; esac
  done
  export PATH="$dep/usr/bin:$PATH"
  export LD_LIBRARY_PATH="$dep/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export CMAKE_PREFIX_PATH="$dep/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export CPATH="$dep/usr/include${CPATH:+:$CPATH}"
  export VK_LAYER_PATH="$dep/usr/share/vulkan/explicit_layer.d"
fi
use_nvidia_drivers
command -v clinfo >/dev/null && clinfo -l 2>&1 | tee "$OUT/clinfo.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$OUT/gpu.txt"

# One test process creates and destroys hundreds of Vulkan instances with the validation layer
# while the CUDA and OpenCL runtimes are loaded; NVIDIA's libnvidia-tls then runs out of
# glibc's static TLS surplus ("cannot allocate memory in static TLS block"). Give it more.
export GLIBC_TUNABLES=${GLIBC_TUNABLES:-glibc.rtld.optional_static_tls=65536}

build=${IMGHIST_GPU_BUILD_DIR:-build-gpu}
IMGHIST_GPU_BACKENDS=${IMGHIST_GPU_BACKENDS:-opencl,vulkan,cuda}
export IMGHIST_REQUIRE_BACKENDS=${IMGHIST_REQUIRE_BACKENDS:-cpu,opencl,vulkan,cuda}

step_build() {
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_CLI=OFF -DIMGHIST_BENCH=${IMGHIST_GPU_BENCH:-ON} \
        -DIMGHIST_TESTS=${IMGHIST_GPU_TESTS:-ON} \
        -DIMGHIST_OPENCL=ON -DIMGHIST_VULKAN=ON -DIMGHIST_CUDA=${IMGHIST_GPU_CUDA:-ON} -DCMAKE_CUDA_ARCHITECTURES=90 \
        > "$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; note "configure: FAILED"; return 1; }
  cmake --build "$build" -j"$(nproc)" > "$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -40; note "build: FAILED"; return 1; }
  note "build: ok"
}

step_test() {
  (cd "$build" && ctest -j4 --output-on-failure --timeout 600 > "$OUT/ctest.log" 2>&1)
  local rc=$?
  note "parity tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1) (rc=$rc)"
}

# The parity suite and each GPU backend's own tests, without ctest's other programs (quick).
step_parity() {
  local log="$OUT/parity.log" t0=$SECONDS
  "$build/tests/imghist_tests" --gtest_filter='RequiredBackends.*:AllBackends/*' > "$log" 2>&1
  local rc=$? rcs="" brc
  local status=$rc
  # OpenCL's own tests last: on the H100 they ran past 500 s (OpenClLayouts.*), and a call
  # that hits its time limit should have run the others first.
  for b in cuda vulkan opencl; do
    local bin="$build/tests/$b/imghist_${b}_tests"
    [ -x "$bin" ] || continue
    "$bin" --gtest_filter='-*Large*' >> "$log" 2>&1
    brc=$?
    rcs="$rcs $b=$brc"
    [ "$brc" -eq 0 ] || status=$brc
  done
  note "parity (every backend vs reference): rc=$rc; backend tests:$rcs; $(grep -c '^\[       OK \]' "$log") ok, $(grep -c '^\[  FAILED  \] [A-Za-z]' "$log") failed ($((SECONDS - t0)) s)"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | sort -u | head -20
  return $status
}

step_large() {
  IMGHIST_LARGE_BACKENDS=cpu,opencl,vulkan,cuda "$build/tests/imghist_tests" --gtest_filter='LargeCounts.*' > "$OUT/large.log" 2>&1
  note "large counts (>2^32 px, cpu/opencl/vulkan/cuda): rc=$? $(grep -E 'PASSED|FAILED' "$OUT/large.log" | head -2 | tr '\n' ' ')"
}

for f in scripts/gpu/*.sh; do [ -e "$f" ] && . "$f"; done

for s in "${steps[@]}"; do
  if declare -F "step_$s" >/dev/null; then run_step "step_$s"; fi
  for b in ${IMGHIST_GPU_BACKENDS//,/ }; do
    if declare -F "${b}_$s" >/dev/null; then run_step "${b}_$s"; fi
  done
done

echo
echo "==================== summary ===================="
cat "$summary"
for t in "$OUT"/*table*.txt "$OUT"/*table*.md; do
  if [ -e "$t" ]; then echo "--- $(basename "$t")"; cat "$t"; fi
done
echo "gpu-check: $([ "$gpu_check_failed" = 0 ] && echo 'every step passed' || echo 'a step failed (above)')"
exit "$gpu_check_failed"

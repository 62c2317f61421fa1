# Vulkan steps for scripts/gpu-check.sh (sourced there, after it has unpacked the carried
# loaders and build deps from .gl and set VK_DRIVER_FILES / VK_LAYER_PATH):
#   vulkan_test   builds imghist with only the vulkan backend (its own build dir, so the other
#                 GPU backends need not be ready), runs the test suite with the Khronos
#                 validation layer on and IMGHIST_REQUIRE_BACKENDS=cpu,vulkan, then the >2^32
#                 pixel count test on the vulkan backend;
#   vulkan_bench  runs bench/vulkan (GPU timestamps): $OUT/vulkan_table.txt, $OUT/vulkan_sweep.csv.
# Logs go to $OUT/vulkan_log.txt.
vulkan_build_dir=${IMGHIST_VULKAN_BUILD_DIR:-build-vulkan-gpu}

# The loaders and NVIDIA's driver files (scripts/gpu/loaders.sh), again for a step run alone.
vulkan_driver_setup() {
  install_gpu_loaders
  use_nvidia_drivers
}

vulkan_build() {
  vulkan_driver_setup
  [ -x "$vulkan_build_dir/bench_vulkan/imghist_vulkan_bench" ] && return 0
  local log="$OUT/vulkan_log.txt"
  # The benchmark is not part of bench/CMakeLists.txt yet: a small wrapper project builds
  # imghist (tests on) and bench/vulkan side by side.
  local wrap=/tmp/imghist-vulkan-wrap
  mkdir -p "$wrap"
  cat > "$wrap/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(imghist_vulkan_gpu LANGUAGES C CXX)
enable_testing()
include(${IMGHIST_ROOT}/cmake/ImghistEmbed.cmake)
add_subdirectory(${IMGHIST_ROOT} imghist)
add_subdirectory(${IMGHIST_ROOT}/bench/vulkan bench_vulkan)
CMAKE
  # libvulkan-dev's libvulkan.so is a relative link that does not resolve where it was
  # unpacked: name the loader unpacked into / directly.
  local loader
  loader=$(ls /usr/lib/x86_64-linux-gnu/libvulkan.so.1 2>/dev/null | head -1)
  echo "== configure" >> "$log"
  cmake -S "$wrap" -B "$vulkan_build_dir" -G Ninja -DIMGHIST_ROOT="$PWD" -DCMAKE_BUILD_TYPE=Release \
        -DIMGHIST_TESTS=ON -DIMGHIST_VULKAN=ON -DIMGHIST_OPENCL=OFF -DIMGHIST_CUDA=OFF -DIMGHIST_CLI=OFF \
        ${loader:+-DVulkan_LIBRARY=$loader} >> "$log" 2>&1 || { tail -30 "$log"; note "vulkan configure: FAILED"; return 1; }
  echo "== build" >> "$log"
  cmake --build "$vulkan_build_dir" -j"$(nproc)" >> "$log" 2>&1 || { grep -E "error" "$log" | head -30; note "vulkan build: FAILED"; return 1; }
  note "vulkan build: ok"
}

vulkan_test() {
  vulkan_build || return 1
  local log="$OUT/vulkan_log.txt"
  echo "== ctest (validation on, IMGHIST_REQUIRE_BACKENDS=cpu,vulkan)" >> "$log"
  (cd "$vulkan_build_dir" && IMGHIST_REQUIRE_BACKENDS=cpu,vulkan IMGHIST_VULKAN_VALIDATION=1 \
     ctest -j"$(nproc)" --timeout 600 --output-on-failure -E 'LargeCounts|vulkan_parity_under_validation' >> "$log" 2>&1)
  local rc=$?
  note "vulkan tests (validation layer on): $(grep -E 'tests passed|tests failed' "$log" | tail -1) (rc=$rc)"
  grep -c "imghist vulkan validation:" "$log" | xargs -I{} echo "validation messages: {}" | tee -a "$summary"
  echo "== large counts (> 2^32 pixels) on vulkan" >> "$log"
  IMGHIST_LARGE_BACKENDS=vulkan IMGHIST_VULKAN_VALIDATION=1 \
    "$vulkan_build_dir/imghist/tests/imghist_tests" --gtest_filter='LargeCounts.*' >> "$log" 2>&1
  note "vulkan large counts (65536x65537 gray8): rc=$?"
}

vulkan_bench() {
  # gpu-check's own build (every backend, benchmarks on) has the benchmark too.
  local bin="$build/bench/vulkan/imghist_vulkan_bench"
  if [ ! -x "$bin" ]; then
    vulkan_build || return 1
    bin="$vulkan_build_dir/bench_vulkan/imghist_vulkan_bench"
  fi
  vulkan_driver_setup
  local log="$OUT/vulkan_log.txt"
  echo "== bench" >> "$log"
  # IMGHIST_VULKAN_BENCH_ARGS=--no-sweep times the default tuning only.
  "$bin" --out "$OUT" ${IMGHIST_VULKAN_BENCH_ARGS:-} >> "$log" 2>&1
  note "vulkan bench: rc=$? (table: vulkan_table.txt; command: $bin --out \$OUT ${IMGHIST_VULKAN_BENCH_ARGS:-})"
}

# `scripts/gpu-check.sh gpu`: the vulkan steps alone (no other backend's build or bench);
# IMGHIST_VULKAN_NO_BENCH=1 skips the benchmark.
vulkan_gpu() {
  vulkan_test
  [ "${IMGHIST_VULKAN_NO_BENCH:-0}" = 1 ] || vulkan_bench
}

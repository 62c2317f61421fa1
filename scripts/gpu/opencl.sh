# OpenCL steps of scripts/gpu-check.sh (sourced by it; see ../shared/device-notes.md).
#
#   bash scripts/gpu-check.sh build test bench
#       the whole project: gpu-check's own build (every backend) and ctest; opencl_bench below
#       runs the benchmark from that build.
#   IMGHIST_OPENCL_ONLY=1 IMGHIST_REQUIRE_BACKENDS=cpu,opencl bash scripts/gpu-check.sh build test bench
#       only this backend, in its own build dir (build-gpu-opencl), so the other backends'
#       state cannot stop it (their scripts/gpu/*.sh steps are skipped too): opencl_build,
#       opencl_test (the opencl parity suite, the opencl-specific tests - skipped with
#       IMGHIST_OPENCL_SKIP_EXTRA=1 - and the >2^32-pixel count test), opencl_bench.
# Output: $OUT/opencl_build.log, opencl_test.log, opencl_bench.log, opencl_table.txt.

# The carried ocl-icd-libopencl1 has only libOpenCL.so.1; CMake's FindOpenCL looks for the
# development name libOpenCL.so (which ocl-icd-opencl-dev would add).
for _d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
  if [ -e "$_d/libOpenCL.so.1" ] && [ ! -e "$_d/libOpenCL.so" ]; then ln -s libOpenCL.so.1 "$_d/libOpenCL.so"; fi
done

opencl_dir=build-gpu-opencl

if [ "${IMGHIST_OPENCL_ONLY:-0}" = 1 ]; then
  # Only this backend: gpu-check's all-backend steps are skipped.
  step_build() { :; }
  step_test() { :; }
  step_large() { :; }
  step_sanitize() { :; }

  # Every scripts/gpu/*.sh is sourced before the steps run; drop the other backends' step
  # functions too (they would run for the same step names).
  opencl_only_() {
    local f
    for f in $(declare -F | awk '{print $3}' | grep -E '^(vulkan|cuda)_'); do unset -f "$f"; done
  }

  opencl_build() {
    opencl_only_
    local log="$OUT/opencl_build.log"
    cmake -S bench/opencl -B "$opencl_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_TESTS=ON \
          -DIMGHIST_OPENCL=ON -DIMGHIST_VULKAN=OFF -DIMGHIST_CUDA=OFF -DIMGHIST_CLI=OFF > "$log" 2>&1 &&
      cmake --build "$opencl_dir" -j"$(nproc)" --target imghist_tests imghist_opencl_tests imghist_opencl_bench >> "$log" 2>&1
    local rc=$?
    [ $rc -ne 0 ] && grep -E "error|Error" "$log" | head -30
    note "opencl build (own dir, OpenCL only): $([ $rc -eq 0 ] && echo ok || echo FAILED)"
  }

  opencl_test() {
    opencl_only_
    local log="$OUT/opencl_test.log" t="$opencl_dir/imghist/tests"
    : > "$log"
    IMGHIST_REQUIRE_BACKENDS=${IMGHIST_REQUIRE_BACKENDS:-cpu,opencl} \
      "$t/imghist_tests" --gtest_filter='*opencl*:RequiredBackends.*' >> "$log" 2>&1
    local rc1=$?
    local rc2=skipped
    if [ "${IMGHIST_OPENCL_SKIP_EXTRA:-0}" != 1 ]; then
      "$t/opencl/imghist_opencl_tests" >> "$log" 2>&1
      rc2=$?
    fi
    IMGHIST_LARGE_BACKENDS=opencl "$t/imghist_tests" --gtest_filter='LargeCounts.*' >> "$log" 2>&1
    local rc3=$?
    note "opencl parity vs reference: rc=$rc1 $(grep -cE '^\[       OK \]' "$log") tests ok so far; opencl-specific tests: rc=$rc2; >2^32 px count on opencl: rc=$rc3"
    grep -E "^\[  FAILED  \]" "$log" | sort -u | head -20
  }
fi

opencl_bench() {
  local bin
  if [ "${IMGHIST_OPENCL_ONLY:-0}" = 1 ]; then bin="$opencl_dir/imghist_opencl_bench"
  else bin="$build/bench/opencl/imghist_opencl_bench"; fi
  if [ ! -x "$bin" ]; then note "opencl bench: $bin not built"; return 0; fi
  "$bin" --sweep --runs "${IMGHIST_OPENCL_BENCH_RUNS:-20}" ${IMGHIST_OPENCL_BENCH_ARGS:-} --out "$OUT/opencl_table.txt" > "$OUT/opencl_bench.log" 2>&1
  note "opencl bench: rc=$? (table: opencl_table.txt; command: $bin --sweep --runs ${IMGHIST_OPENCL_BENCH_RUNS:-20})"
}

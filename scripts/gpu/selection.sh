# Issue 17's masks, alpha thresholds and value extremes on the GPU machine (scripts/gpu-check.sh
# masks, after build): their tests on every backend, CUDA included, with the parity of the
# patterns and requests; then the masks/ benchmarks (host images: each backend against its own
# whole-image count, and the mask's read floor).
step_masks() {
  local log="$OUT/masks.log"
  "$build/tests/imghist_tests" \
    --gtest_filter='RequiredBackends.*:Masks*:*MaskedFormats*:AlphaThreshold*:*MasksAndAlpha/*:ValueExtremes*:*FloatFormats*:*PatternsAndRequests/*' > "$log" 2>&1
  note "masks tests: rc=$? $(grep -c '^\[       OK \]' "$log") ok, $(grep -c '^\[  FAILED  \] [A-Za-z]' "$log") failed"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | sort -u | head -20
  # Masks in device memory: every interop API against the test's own selection.
  "$build/tests/cuda/imghist_cuda_tests" --gtest_filter='CudaDevice.*:CudaInterop.*' > "$OUT/masks_cuda.log" 2>&1
  note "cuda interop tests (device masks): rc=$? $(grep -c '^\[       OK \]' "$OUT/masks_cuda.log") ok, $(grep -c '^\[  FAILED  \] [A-Za-z]' "$OUT/masks_cuda.log") failed"
  "$build/tests/opencl/imghist_opencl_tests" --gtest_filter='OpenClInterop.*' > "$OUT/masks_opencl.log" 2>&1
  note "opencl interop tests (device masks): rc=$? $(grep -c '^\[       OK \]' "$OUT/masks_opencl.log") ok, $(grep -c '^\[  FAILED  \] [A-Za-z]' "$OUT/masks_opencl.log") failed"
  "$build/tests/vulkan/imghist_vulkan_tests" --gtest_filter='VulkanInterop.*' > "$OUT/masks_vulkan.log" 2>&1
  note "vulkan interop tests (device masks): rc=$? $(grep -c '^\[       OK \]' "$OUT/masks_vulkan.log") ok, $(grep -c '^\[  FAILED  \] [A-Za-z]' "$OUT/masks_vulkan.log") failed"
  grep -hE '^\[  FAILED  \] [A-Za-z]' "$OUT/masks_cuda.log" "$OUT/masks_opencl.log" "$OUT/masks_vulkan.log" | sort -u | head -20
  "$build/bench/cuda/imghist_cuda_bench" --masks > "$OUT/masks_cuda_bench.txt" 2>&1
  note "cuda device masks bench: rc=$?"
  tee -a "$summary" < "$OUT/masks_cuda_bench.txt"
  "$build/bench/opencl/imghist_opencl_bench" --masks > "$OUT/masks_opencl_bench.txt" 2>&1
  note "opencl device masks bench: rc=$?"
  tee -a "$summary" < "$OUT/masks_opencl_bench.txt"
  "$build/bench/vulkan/imghist_vulkan_bench" --masks > "$OUT/masks_vulkan_bench.txt" 2>&1
  note "vulkan device masks bench: rc=$?"
  tee -a "$summary" < "$OUT/masks_vulkan_bench.txt"
  "$build/bench/imghist_bench" --benchmark_filter='masks/|floor/read-mask' --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true > "$OUT/masks_bench.txt" 2>&1
  note "masks bench (medians, ms): rc=$?"
  grep median "$OUT/masks_bench.txt" | awk '{print "  " $1, $2, $3}' | tee -a "$summary"
}

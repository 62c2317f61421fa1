# Issue 17's edge and EV bins on the GPU machine (scripts/gpu-check.sh edges, after build): the
# edge tests of every backend, CUDA's float code table with edge hints under every knob, then
# CUDA's edge-bin table and Vulkan's default table (its 256 EV bins rows) against uniform bins.
step_edges() {
  local log="$OUT/edges.log"
  "$build/tests/imghist_tests" --gtest_filter='RequiredBackends.*:*Edge*:*Exposure*' > "$log" 2>&1
  local rc=$?
  "$build/tests/cuda/imghist_cuda_tests" --gtest_filter='CudaPacked.Float*' >> "$log" 2>&1
  note "edge tests (every backend vs reference; CUDA's float knobs): rc=$rc, cuda rc=$?; $(grep -c '^\[       OK \]' "$log") ok, $(grep -c '^\[  FAILED  \] [A-Za-z]' "$log") failed"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | sort -u | head -20
  "$build/bench/cuda/imghist_cuda_bench" --edges > "$OUT/edges_cuda_bench.txt" 2>&1
  note "cuda edges bench: rc=$?"
  tee -a "$summary" < "$OUT/edges_cuda_bench.txt"
  mkdir -p "$OUT/edges-vulkan"
  "$build/bench/vulkan/imghist_vulkan_bench" --no-sweep --out "$OUT/edges-vulkan" > "$OUT/edges-vulkan/log.txt" 2>&1
  note "vulkan bench: rc=$?"
  grep -E 'rgba_f32' "$OUT/edges-vulkan/vulkan_table.txt" | tee -a "$summary"
}

# The GPU code window (float edge bins: core/plan.hpp, FloatCodeWindow) and CUDA's proven
# extremes of staged selections (scripts/gpu-check.sh window, after build): their tests on every
# backend, then each benchmark twice, alternated. Both benches time the default and the whole
# table (code_window=0) in the same run and stop if their counts differ.
step_window() {
  local log="$OUT/window.log"
  "$build/tests/imghist_tests" --gtest_filter='RequiredBackends.*:Edges.*:Exposure.*:Clipping.Proven*' > "$log" 2>&1
  local rc=$?
  "$build/tests/vulkan/imghist_vulkan_tests" --gtest_filter='VulkanEngine.FloatEdge*:VulkanLaunchPlan.*' >> "$log" 2>&1
  local vk=$?
  "$build/tests/cuda/imghist_cuda_tests" --gtest_filter='CudaPacked.Float*:CudaShape.*:CudaHost.Masks*' >> "$log" 2>&1
  note "window tests: rc=$rc, vulkan rc=$vk, cuda rc=$?; $(grep -c '^\[       OK \]' "$log") ok, $(grep -c '^\[  FAILED  \] [A-Za-z]' "$log") failed"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | sort -u | head -20
  for round in 1 2; do
    mkdir -p "$OUT/window-vulkan-$round"
    "$build/bench/vulkan/imghist_vulkan_bench" --no-sweep --out "$OUT/window-vulkan-$round" > "$OUT/window-vulkan-$round/log.txt" 2>&1
    note "vulkan bench round $round: rc=$?"
    grep -E 'rgba_f32|^### ' "$OUT/window-vulkan-$round/vulkan_table.txt" | tee -a "$summary"
    "$build/bench/cuda/imghist_cuda_bench" --edges > "$OUT/window-cuda-$round.txt" 2>&1
    note "cuda edges bench round $round: rc=$?"
    tee -a "$summary" < "$OUT/window-cuda-$round.txt"
  done
  "$build/bench/imghist_bench" --benchmark_filter='masks/cuda/(rgba8|rgba_f32)/natural/rgb/|floor/read-mask' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 > "$OUT/window_masks.txt" 2>&1
  note "cuda host masks bench (medians, ms): rc=$?"
  grep median "$OUT/window_masks.txt" | awk '{print "  " $1, $2, $3}' | tee -a "$summary"
}

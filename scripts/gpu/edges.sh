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

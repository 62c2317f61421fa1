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
  "$build/bench/imghist_bench" --benchmark_filter='masks/|floor/read-mask' --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true > "$OUT/masks_bench.txt" 2>&1
  note "masks bench (medians, ms): rc=$?"
  grep median "$OUT/masks_bench.txt" | awk '{print "  " $1, $2, $3}' | tee -a "$summary"
}

# Issue 17's tile grids on the GPU machine (scripts/gpu-check.sh tiles, after build): every
# backend's tile tests (each GPU backend counts a grid in one pass), then the regions/ benchmarks
# of host images and CUDA's device tile grids. With an old tree built by `oldbuild`
# (scripts/gpu/compare.sh), step tilesbench alternates its regions/ benchmark with this tree's.
step_tiles() {
  local log="$OUT/tiles.log"
  "$build/tests/imghist_tests" \
    --gtest_filter='RequiredBackends.*:*TileParity*:*RegionsAndTiles*:Regions*:GpuTileBands*:*MasksAndAlpha/*:*MaskedFormats.*' > "$log" 2>&1
  note "tile tests (every backend vs reference): rc=$? $(grep -c '^\[       OK \]' "$log") ok, $(grep -c '^\[  FAILED  \] [A-Za-z]' "$log") failed"
  "$build/tests/cuda/imghist_cuda_tests" --gtest_filter='CudaHost.Tiles*:CudaHost.Masks*:CudaDevice.*:CudaInterop.*' >> "$log" 2>&1
  local rc_cuda=$?
  "$build/tests/opencl/imghist_opencl_tests" --gtest_filter='OpenClTiles.*:OpenClInterop.*' >> "$log" 2>&1
  local rc_opencl=$?
  IMGHIST_VULKAN_VALIDATION=1 "$build/tests/vulkan/imghist_vulkan_tests" --gtest_filter='VulkanEngine.*:VulkanTiling.*' >> "$log" 2>&1
  note "tile tests of each backend: cuda rc=$rc_cuda, opencl rc=$rc_opencl, vulkan rc=$?; $(grep -c '^\[       OK \]' "$log") ok in all, $(grep -c '^\[  FAILED  \] [A-Za-z]' "$log") failed"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | sort -u | head -20
  "$build/bench/cuda/imghist_cuda_bench" --tiles > "$OUT/tiles_cuda_bench.txt" 2>&1
  note "cuda device tile grids bench: rc=$?"
  tee -a "$summary" < "$OUT/tiles_cuda_bench.txt"
}

step_tilesbench() {
  # masks/*/mask-disc-tiles-32x32: tiles with a mask through cells (src/core/engine.cpp)
  local rounds=${IMGHIST_COMPARE_ROUNDS:-2}
  # IMGHIST_TILESBENCH_FILTER narrows it (e.g. 'masks/' for the masks alone).
  local filter=${IMGHIST_TILESBENCH_FILTER:-'regions/(opencl|vulkan|cuda)/.*/(whole|tiles)|masks/(opencl|vulkan|cuda)/.*/(whole|mask-disc|mask-disc-tiles-32x32)/'}
  for r in $(seq "$rounds"); do
    for side in old new; do
      local bin="$build/bench/imghist_bench"
      [ "$side" = old ] && bin="$old_build/bench/imghist_bench"
      [ -x "$bin" ] || continue
      "$bin" --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
        --benchmark_min_time=0.2 > "$OUT/tilesbench-$side-$r.txt" 2>&1
      note "regions bench $side round $r (medians, ms): rc=$?"
      grep median "$OUT/tilesbench-$side-$r.txt" | awk '{print "  " $1, $2, $3}' | tee -a "$summary"
    done
  done
}

# Vulkan host images staged by the copy threads and copied into device-local memory (branch
# vulkan-host-staging): the old tree's regions/ whole and 8 x 8 tiles, then this tree's under
# chunk sizes, fewer copy threads and the device copy off (the shaders reading the staging
# buffers in place, as before), alternated; CUDA's whole image in the same run for scale.
step_vkhost() {
  local out="$OUT/vkhost.txt" filter='regions/(vulkan|cuda)/.*/(whole|tiles-8x8)/'
  : > "$out"
  for r in 1 2; do
    if [ -x "$old_build/bench/imghist_bench" ]; then
      echo "== old round $r" >> "$out"
      "$old_build/bench/imghist_bench" --benchmark_filter="$filter" --benchmark_repetitions=3 \
        --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 2>&1 | grep median >> "$out"
    fi
    for t in "" device_copy=0 chunk_mb=4 chunk_mb=8 chunk_mb=32 chunk_mb=64 copy_threads=4; do
      echo "== new '$t' round $r" >> "$out"
      IMGHIST_VULKAN_TUNE="$t" "$build/bench/imghist_bench" --benchmark_filter='regions/vulkan/.*/(whole|tiles-8x8)/' \
        --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 2>&1 | grep median >> "$out"
    done
  done
  note "vulkan host staging bench: $(grep -c median "$out") medians in vkhost.txt"
  awk '{print "  " $1, $2, $3}' "$out" | tee -a "$summary"
}

# CUDA steps for scripts/gpu-check.sh (sourced there after the carried .debs are unpacked):
#   cuda_build     the CUDA build (reuses gpu-check's build when it has the CUDA targets,
#                  else builds build-gpu-cuda with the other GPU backends off)
#   cuda_test      CUDA parity + tests/cuda (cuda_test_plain), then the CUDA parity tests under
#                  compute-sanitizer memcheck and racecheck (cuda_run_sanitizers; 0 errors)
#   cuda_large     >2^32-pixel constant images: host path (tests/test_large_counts.cpp) and
#                  device-resident (tests/cuda)
#   cuda_bench     bench/cuda against the read-only floor and CUB -> $OUT/cuda_table.txt
#   cuda_jpeg      GPU JPEG decoding (nvImageCodec from .whl/nvidia, scripts/install-nvimgcodec.sh;
#                  TurboJPEG from .gl): tests/cuda/test_cuda_jpeg.cpp, then JPEG datasets made
#                  from .gl/photos (IMGHIST_JPEG_COUNT files, default 5000, at 500x375 and
#                  1920x1080) through io::histogram_files, GPU and CPU decode -> $OUT/jpeg_*.txt
#   cuda_cudaall   all of the above but cuda_jpeg: `bash scripts/gpu-check.sh cudaall`
# Environment: IMGHIST_CUDA_BENCH_ARGS (e.g. --tune), IMGHIST_CUDA_TUNE (kernel shape).

cuda_dir() {
  if [ -x "$build/tests/cuda/imghist_cuda_tests" ] && [ -x "$build/bench/cuda/imghist_cuda_bench" ]; then
    echo "$build"
  else
    echo "${IMGHIST_CUDA_BUILD_DIR:-build-gpu-cuda}"
  fi
}

cuda_build() {
  local dir
  dir=$(cuda_dir)
  if [ "$dir" = "$build" ]; then note "cuda build: using $build"; return 0; fi
  local t0=$SECONDS
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_CLI=OFF -DIMGHIST_BENCH=ON \
        -DIMGHIST_OPENCL=OFF -DIMGHIST_VULKAN=OFF -DIMGHIST_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="${IMGHIST_CUDA_ARCH:-90}" > "$OUT/cuda_configure.log" 2>&1 \
    || { tail -30 "$OUT/cuda_configure.log"; note "cuda configure: FAILED"; return 1; }
  cmake --build "$dir" -j"$(nproc)" --target imghist_tests imghist_cuda_tests imghist_cuda_bench \
        > "$OUT/cuda_build.log" 2>&1 \
    || { grep -E "error" "$OUT/cuda_build.log" | head -40; note "cuda build: FAILED"; return 1; }
  note "cuda build: ok ($((SECONDS - t0)) s, $dir)"
}

# Parity + CUDA tests, then the same under compute-sanitizer.
cuda_test() {
  cuda_test_plain
  cuda_run_sanitizers
}

cuda_test_plain() {
  local dir t0=$SECONDS
  dir=$(cuda_dir)
  [ -x "$dir/tests/cuda/imghist_cuda_tests" ] || cuda_build || return 1
  local log="$OUT/cuda_test.log"
  : > "$log"
  "$dir/tests/imghist_tests" --gtest_filter='RequiredBackends.*:AllBackends/BackendParity.*/cuda_*' >> "$log" 2>&1
  local rc1=$?
  "$dir/tests/cuda/imghist_cuda_tests" --gtest_filter='-CudaLarge.*' >> "$log" 2>&1
  local rc2=$?
  note "cuda parity: rc=$rc1 $(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | head -1); cuda tests: rc=$rc2 $(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | tail -1) ($((SECONDS - t0)) s)"
  grep -E '^\[  FAILED  \]|Failure|MISMATCH|got .*, want' "$log" | head -20
}

# memcheck and racecheck over the CUDA parity tests and the device-image (every format, packed
# fast paths included), batch and error tests: both must report 0 errors (rc 99 would mean
# they found something).
cuda_run_sanitizers() {
  local dir t0
  dir=$(cuda_dir)
  if command -v compute-sanitizer >/dev/null; then
    local tool
    for tool in memcheck racecheck; do
      t0=$SECONDS
      timeout "${IMGHIST_CUDA_SANITIZE_TIMEOUT:-150}" compute-sanitizer --tool "$tool" --error-exitcode 99 \
        "$dir/tests/imghist_tests" --gtest_filter='AllBackends/BackendParity.*/cuda_*' > "$OUT/cuda_$tool.log" 2>&1
      local rc=$?
      timeout 180 compute-sanitizer --tool "$tool" --error-exitcode 99 \
        "$dir/tests/cuda/imghist_cuda_tests" --gtest_filter='CudaDevice.*:CudaBatch.*:CudaErrors.*' \
        >> "$OUT/cuda_$tool.log" 2>&1
      local rc2=$?
      note "cuda $tool: rc=$rc/$rc2 $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/cuda_$tool.log" | sort | uniq -c | tr '\n' ' ') ($((SECONDS - t0)) s)"
    done
  else
    note "cuda sanitize: compute-sanitizer not found"
  fi
}

cuda_large() {
  local dir t0=$SECONDS
  dir=$(cuda_dir)
  IMGHIST_LARGE_BACKENDS=cuda "$dir/tests/imghist_tests" --gtest_filter='LargeCounts.*' > "$OUT/cuda_large.log" 2>&1
  local rc1=$?
  "$dir/tests/cuda/imghist_cuda_tests" --gtest_filter='CudaLarge.*' >> "$OUT/cuda_large.log" 2>&1
  local rc2=$?
  note "cuda large counts (>2^32 px): host path rc=$rc1, device-resident rc=$rc2 $(grep -cE '^\[       OK \]' "$OUT/cuda_large.log") ok ($((SECONDS - t0)) s)"
  grep -E 'Failure|FAILED|Expected|Which is' "$OUT/cuda_large.log" | head -10
}

cuda_bench() {
  local dir
  dir=$(cuda_dir)
  "$dir/bench/cuda/imghist_cuda_bench" --out "$OUT/cuda_table.txt" ${IMGHIST_CUDA_BENCH_ARGS:-} > "$OUT/cuda_bench.log" 2>&1
  note "cuda bench: rc=$? (table: cuda_table.txt; command: $dir/bench/cuda/imghist_cuda_bench ${IMGHIST_CUDA_BENCH_ARGS:-})"
}

cuda_jpeg() {
  local dir t0=$SECONDS
  dir=$(cuda_dir)
  [ -x "$dir/tests/cuda/imghist_cuda_tests" ] || cuda_build || return 1
  cmake --build "$dir" -j"$(nproc)" --target imghist_cuda_jpeg_tests imghist_jpeg_dataset_bench \
        > "$OUT/jpeg_build.log" 2>&1 \
    || { grep -E "error|CMake" "$OUT/jpeg_build.log" | head -20; note "jpeg build: FAILED (is .whl/nvidia carried?)"; return 1; }
  "$dir/tests/cuda/imghist_cuda_jpeg_tests" > "$OUT/jpeg_tests.log" 2>&1
  note "jpeg tests: rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]|SKIPPED \]' "$OUT/jpeg_tests.log" | head -2 | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]|Failure|got .*, want' "$OUT/jpeg_tests.log" | head -20
  local bench="$dir/bench/cuda/imghist_jpeg_dataset_bench" count=${IMGHIST_JPEG_COUNT:-5000} size
  for size in 500x375 1920x1080; do
    local data="/tmp/imghist-jpeg-$size"
    [ -d "$data" ] || "$bench" make "$data" --photos .gl/photos --count "$count" --size "$size" > "$OUT/jpeg_make_$size.txt" 2>&1
    "$bench" run "$data" --rounds "${IMGHIST_JPEG_ROUNDS:-3}" --check 256 ${IMGHIST_JPEG_ARGS:-} > "$OUT/jpeg_$size.txt" 2>&1
    note "jpeg dataset $size: rc=$? $(grep -E 'median' "$OUT/jpeg_$size.txt" | tr '\n' ' ')"
    # Cold: the page cache dropped first, where the machine lets us.
    if sync && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then
      "$bench" run "$data" --rounds 1 --decode gpu --check 0 > "$OUT/jpeg_${size}_cold.txt" 2>&1
      note "jpeg dataset $size, cold cache: $(grep -E 'median' "$OUT/jpeg_${size}_cold.txt" | tr '\n' ' ')"
    fi
  done
  note "jpeg: $((SECONDS - t0)) s"
}

cuda_cudaall() {
  cuda_build || return 1
  cuda_test_plain
  cuda_large
  cuda_bench
  cuda_run_sanitizers
}

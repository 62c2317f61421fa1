# Before/after benchmarks of a change, on one GPU machine in one sitting (the rule for any change
# to a GPU backend). Sourced by scripts/gpu-check.sh, which sets up the loaders first.
#   git archive <old-commit> | (mkdir -p .old && tar -x -C .old)   # on the development machine
#   scripts/gpu-check.sh oldbuild build      # builds .old/'s benchmarks and this tree (carry .gl and .old)
#   scripts/gpu-check.sh compare             # default cases of every GPU bench, old/new alternately
# IMGHIST_COMPARE_ROUNDS (default 2) rounds of old-then-new; tables go to $OUT/compare/, and
# $OUT/compare-summary.txt has the medians before/after per case (compare_tables.py) and the tables.
# On the device tool: at most 8 files come back per call (cat the tables into one file), and a
# `pgrep -f` on a step name matches the command line itself (wait on a PID instead).
# The old tree's benchmarks only, built outside .old/ (a `carry` of .old replaces that folder).
old_build=build-gpu-old
step_oldbuild() {
  [ -d .old ] || { note "oldbuild: no .old/ tree"; return 1; }
  { cmake -S .old -B "$old_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_CLI=OFF -DIMGHIST_TESTS=OFF \
          -DIMGHIST_BENCH=ON -DIMGHIST_OPENCL=ON -DIMGHIST_VULKAN=ON -DIMGHIST_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 &&
    cmake --build "$old_build" -j"$(nproc)" --target imghist_cuda_bench imghist_opencl_bench imghist_vulkan_bench imghist_bench
  } > "$OUT/oldbuild.log" 2>&1
  note "old tree build: rc=$?"
}

compare_one() {  # <tree root> <build dir> <label>
  local root=$1 dir=$2 label=$3 d="$OUT/compare"
  mkdir -p "$d"
  "$root/$dir/bench/cuda/imghist_cuda_bench" --out "$d/cuda-$label.txt" > "$d/cuda-$label.log" 2>&1
  "$root/$dir/bench/opencl/imghist_opencl_bench" --runs 20 --out "$d/opencl-$label.txt" > "$d/opencl-$label.log" 2>&1
  mkdir -p "$d/vulkan-$label"
  "$root/$dir/bench/vulkan/imghist_vulkan_bench" --no-sweep --out "$d/vulkan-$label" > "$d/vulkan-$label.log" 2>&1
  cp "$d/vulkan-$label/vulkan_table.txt" "$d/vulkan-$label.txt" 2>/dev/null
  note "compare $label: cuda, opencl, vulkan benches done (rc of the last: $?)"
}

step_compare() {
  local rounds=${IMGHIST_COMPARE_ROUNDS:-2}
  for r in $(seq "$rounds"); do
    compare_one "$root" "$old_build" "old-$r"
    compare_one "$root" "$build" "new-$r"
  done
  # One file back: the medians old/new per case (compare_tables.py), then every raw table.
  python3 "$root/scripts/gpu/compare_tables.py" "$OUT/compare" > "$OUT/compare/medians.md" 2>&1
  { cat "$OUT/compare/medians.md"
    for f in "$OUT"/compare/*.txt; do [ -e "$f" ] && { echo; echo "=== $f"; cat "$f"; }; done
  } > "$OUT/compare-summary.txt" 2>&1
  note "compare: $(tail -1 "$OUT/compare/medians.md")"
}

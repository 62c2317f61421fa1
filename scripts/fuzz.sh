#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan, UBSan; OpenCL and Vulkan on, as PoCL
# and lavapipe run them) and runs each for a bounded time on corpora seeded from the project's
# test images, reports and command lines. A crash, sanitizer report, leak, more than 2 GiB
# resident or an input slower than 25 s fails the run; the input that did it is left in
# BUILD/findings/ (replay it: BUILD/fuzz/imghist_fuzz_NAME FILE).
#   api      the library API: reference against cpu, opencl and vulkan, every request field
#   reader   the command's file reader
#   merge    imghist merge's reading of reports and the report writers (round trip)
#   options  the command's options, --edges @FILE, --mask, --files-from and stdin lists
# Usage: scripts/fuzz.sh [SECONDS_EACH]   (default 90; IMGHIST_FUZZ_BUILD_DIR, default build-fuzz)
# The targets run two at a time, one core each, SECONDS_EACH each: the 4 targets take twice
# SECONDS_EACH of wall time (3 minutes by default), plus the build.
# IMGHIST_FUZZ_SEED: libFuzzer's random seed, 1 by default so that a CI run explores the same
# inputs in the same order each time (a failure then belongs to the commit, not to chance);
# 0 lets libFuzzer pick one, for longer runs that look further.
# IMGHIST_REQUIRE_BACKENDS (scripts/test.sh sets it; default cpu,opencl,vulkan): the API target
# must have compared these with reference, or the run fails (a device that did not open is not
# skipped silently).
# scripts/test.sh runs it; scripts/install-deps.sh installs clang, libFuzzer, PoCL and lavapipe.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-90}
fuzz_seed=${IMGHIST_FUZZ_SEED:-1}
build=${IMGHIST_FUZZ_BUILD_DIR:-build-fuzz}
targets=(api reader merge options)

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DIMGHIST_FUZZ=ON \
  -DIMGHIST_TESTS=OFF -DIMGHIST_CLI=OFF -DIMGHIST_OPENCL=ON -DIMGHIST_VULKAN=ON -DIMGHIST_CUDA=OFF > /dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/imghist_fuzz_}"

# --- seed corpora -----------------------------------------------------------------------------
seeds="$build/seeds"
rm -rf "$seeds" "$build/corpus" "$build/findings" "$build/tmp"
mkdir -p "$seeds/generated" "$build/findings" "$build/tmp"
for name in "${targets[@]}"; do mkdir -p "$seeds/$name" "$build/corpus/$name"; done
# Small files of every sample type in the formats the reader trusts, written by OpenImageIO
# (camera raw: the DNG among tests/data/repro).
gen() { oiiotool --pattern checker:width=3:height=2:color1=0.9,0.2,0.6:color2=0.1,0.7,0.3 "$1" 3 "${@:3}" \
          -o "$seeds/generated/$2" > /dev/null; }
gen 7x5 rgb8.png -d uint8
gen 7x5 rgb16.png -d uint16
gen 7x5 gray8.png --ch R -d uint8
gen 7x5 rgba8.png --ch R,G,B,A=1.0 -d uint8
gen 9x4 rgb8.jpg -d uint8                                # JPEG: baseline, progressive, gray
gen 9x4 rgb8p.jpg -d uint8 --attrib jpeg:progressive 1
gen 9x4 gray8.jpg --ch R -d uint8
gen 7x5 rgb8.tif -d uint8
gen 7x5 rgb16.tif -d uint16 --compression lzw
gen 7x5 rgbf.tif -d float --compression zip
gen 7x5 rgbd.tif -d double
gen 7x5 rgbh.exr -d half --compression piz
gen 7x5 rgbaf.exr --ch R,G,B,A=0.5 -d float --compression zip
gen 7x5 rgb8.ppm -d uint8
gen 7x5 gray16.pgm --ch R -d uint16
gen 7x5 rgb.hdr
gen 7x5 rgb8.bmp -d uint8
gen 7x5 rgb8.webp -d uint8
gen 7x5 rgb8.gif -d uint8
gen 8x6 rgb8.heic -d uint8                               # libheif (HEVC and AV1), where built with it
gen 8x6 rgb8.avif -d uint8
inputs=(examples/sample.png $(ls tests/data/repro/* | grep -v README.md) "$seeds"/generated/*)
for f in "${inputs[@]}"; do
  name=$(basename "$f")
  cp "$f" "$seeds/api/$name"
  # The reader's input names the file's extension first ("png\n<bytes>"; fuzz_reader.cpp).
  { printf '%s\n' "${name##*.}" | tr 'A-Z' 'a-z'; cat "$f"; } > "$seeds/reader/$name"
done
# The API target's input starts with the format's index (fuzz_api.cpp; layout in
# fuzz/seeds/api/README.md): one seed per format and request field, and the requests of the
# reproducers that have no file of their own.
find fuzz/seeds/api -type f ! -name README.md ! -name '*.py' -exec cp {} "$seeds/api/" \;
python3 fuzz/seeds/api/make_seeds.py --formats "$seeds/api"
# Reports of the command's current schema, written by the merge target itself.
IMGHIST_FUZZ_WRITE_SEEDS="$seeds/merge" "$build/fuzz/imghist_fuzz_merge"
find fuzz/seeds/merge -type f ! -name README.md -exec cp {} "$seeds/merge/" \;
cp fuzz/seeds/options/* "$seeds/options/"

# --- run two at a time, one core each ---------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp:print_suppressions=0}
export TMPDIR="$root/$build/tmp"
# The reader's real memory is bounded (-rss_limit_mb), not the size of one allocation:
# OpenImageIO reserves buffers from header fields and touches little of them (a 414-byte EXR
# asks for 3.5 GB while the command's resident memory stays near 200 MB).
declare -A extra=([api]="-dict=fuzz/api.dict" [reader]="-malloc_limit_mb=16384" [merge]="-dict=fuzz/merge.dict"
                  [options]="-dict=fuzz/options.dict")
run_target() {
  "$build/fuzz/imghist_fuzz_$1" ${extra[$1]} -max_total_time="$seconds" -seed="$fuzz_seed" -timeout=25 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$root/$build/findings/$1-" \
    "$build/corpus/$1" "$seeds/$1" < /dev/null > "$build/fuzz-$1.log" 2>&1
}
# LeakSanitizer's own tracer (the thread that stops the others for a leak check) can die with a
# signal while the backends' driver threads (PoCL, llvmpipe) start: "Tracer caught signal 11",
# then "LeakSanitizer has encountered a fatal error", with no report about the code under test
# and an empty input kept. Such a run is run once more, and says so; a second failure stands.
run_target_checked() {
  local rc=0 log="$build/fuzz-$1.log"
  run_target "$1" || rc=$?
  if [ "$rc" -ne 0 ] && grep -q "^Tracer caught signal" "$log" &&
     grep -q "LeakSanitizer has encountered a fatal error" "$log" &&
     ! grep -qE "ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error|deadly signal" "$log"; then
    mv "$log" "$build/fuzz-$1.tracer-fault.log"
    echo "fuzz $1: LeakSanitizer's tracer failed, not the target (log: $build/fuzz-$1.tracer-fault.log); once more" >&2
    rc=0
    run_target "$1" || rc=$?
  fi
  return "$rc"
}
status=0
report() {  # NAME: one line for a run that passed, the end of the log for one that did not
  local log="$build/fuzz-$1.log"
  if [ "$2" -eq 0 ]; then
    echo "fuzz $1: ok, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs" \
         "in ${seconds} s, corpus $(ls "$build/corpus/$1" | wc -l) files"
  else
    status=1
    echo "fuzz $1: FAILED (input kept in $build/findings/); the end of its log:" >&2
    tail -n 60 "$log" >&2
  fi
}
for pair in "api reader" "merge options"; do
  set -- $pair
  pids=()
  for name in "$@"; do run_target_checked "$name" & pids+=($!); done
  for i in 0 1; do
    rc=0
    wait "${pids[$i]}" || rc=$?
    report "${@:$((i + 1)):1}" "$rc"
  done
done
# The API target names each backend it compared, or why it could not open one.
for backend in $(echo "${IMGHIST_REQUIRE_BACKENDS:-cpu,opencl,vulkan}" | tr ',' ' '); do
  case "$backend" in cpu|opencl|vulkan) ;; *) continue ;; esac
  if line=$(grep -m1 "^fuzz_api: backend $backend on " "$build/fuzz-api.log"); then
    echo "  ${line#fuzz_api: }"
  else
    status=1
    echo "fuzz api: $backend was not compared with reference: $(grep -m1 "^fuzz_api: backend $backend" \
      "$build/fuzz-api.log" || echo 'no line about it')" >&2
  fi
done
exit $status

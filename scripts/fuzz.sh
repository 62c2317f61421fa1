#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan, UBSan) and runs each for a bounded
# time, both at once, on corpora seeded from the project's test images. A crash, sanitizer
# report, leak, more than 2 GiB resident or an input slower than 25 s fails the run; the input
# that did it is left in BUILD/findings/ (replay it: BUILD/fuzz/imghist_fuzz_NAME FILE).
# Usage: scripts/fuzz.sh [SECONDS_EACH]   (default 90; IMGHIST_FUZZ_BUILD_DIR, default build-fuzz)
# IMGHIST_FUZZ_SEED: libFuzzer's random seed, 1 by default so that a CI run explores the same
# inputs in the same order each time (a failure then belongs to the commit, not to chance);
# 0 lets libFuzzer pick one, for longer runs that look further.
# scripts/test.sh runs it; scripts/install-deps.sh installs clang and libFuzzer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-90}
fuzz_seed=${IMGHIST_FUZZ_SEED:-1}
build=${IMGHIST_FUZZ_BUILD_DIR:-build-fuzz}

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DIMGHIST_FUZZ=ON \
  -DIMGHIST_TESTS=OFF -DIMGHIST_CLI=OFF -DIMGHIST_OPENCL=OFF -DIMGHIST_VULKAN=OFF -DIMGHIST_CUDA=OFF > /dev/null
cmake --build "$build" -j"$(nproc)" --target imghist_fuzz_api imghist_fuzz_reader

# --- seed corpora -----------------------------------------------------------------------------
seeds="$build/seeds"
rm -rf "$seeds" "$build/corpus" "$build/findings" "$build/tmp"
mkdir -p "$seeds/generated" "$seeds/reader" "$seeds/api" "$build/corpus/reader" "$build/corpus/api" \
         "$build/findings" "$build/tmp"
# Small files of every sample type in the formats the reader trusts, written by OpenImageIO.
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
inputs=(examples/sample.png $(ls tests/data/repro/* | grep -v README.md) "$seeds"/generated/*)
for f in "${inputs[@]}"; do
  name=$(basename "$f")
  cp "$f" "$seeds/api/$name"
  # The reader's input names the file's extension first ("png\n<bytes>"; fuzz_reader.cpp).
  { printf '%s\n' "${name##*.}" | tr 'A-Z' 'a-z'; cat "$f"; } > "$seeds/reader/$name"
done
# The API target's input starts with the format's index (fuzz_api.cpp): one seed per format,
# and the requests of the reproducers that have no file of their own (fuzz/seeds/api/README.md).
find fuzz/seeds/api -type f ! -name README.md -exec cp {} "$seeds/api/" \;
for i in $(seq 0 12); do
  { printf "\\x$(printf %02x "$i")\\x00\\x0f\\x0b\\x03\\x00\\x00\\x00\\x00\\x00"; head -c 2048 examples/sample.png; } \
    > "$seeds/api/format-$i"
done

# --- run both at once, one core each ----------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp:print_suppressions=0}
export TMPDIR="$root/$build/tmp"
pids=()
# The reader's real memory is bounded (-rss_limit_mb), not the size of one allocation:
# OpenImageIO reserves buffers from header fields and touches little of them (a 414-byte EXR
# asks for 3.5 GB while the command's resident memory stays near 200 MB).
declare -A extra=([api]="-dict=fuzz/api.dict" [reader]="-malloc_limit_mb=16384")
for name in api reader; do
  "$build/fuzz/imghist_fuzz_$name" ${extra[$name]} -max_total_time="$seconds" -seed="$fuzz_seed" -timeout=25 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/findings/$name-" \
    "$build/corpus/$name" "$seeds/$name" > "$build/fuzz-$name.log" 2>&1 &
  pids+=($!)
done
status=0
for i in 0 1; do
  name=$([ $i -eq 0 ] && echo api || echo reader)
  if wait "${pids[$i]}"; then
    echo "fuzz $name: ok, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/fuzz-$name.log" |
      grep -o '[0-9]*$') inputs in ${seconds} s, corpus $(ls "$build/corpus/$name" | wc -l) files"
  else
    status=1
    echo "fuzz $name: FAILED (input kept in $build/findings/); the end of its log:" >&2
    tail -n 60 "$build/fuzz-$name.log" >&2
  fi
done
exit $status

#!/usr/bin/env bash
# Installs what is missing, builds imghist, and runs it on a real sample image:
# prints the per-channel table and writes the histogram plot to sample-histogram.png.
# It shares build/ with scripts/test.sh, in either order: it builds only the command and
# leaves the tests, backends and benchmarks as configured (tests on by default).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
source scripts/cuda-path.sh
build=${IMGHIST_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_CLI=ON > /dev/null
cmake --build "$build" -j"$(nproc)" --target imghist_cli
"$build/src/cli/imghist" --list-backends
"$build/src/cli/imghist" examples/sample.png --plot sample-histogram.png
echo "plot written to $root/sample-histogram.png"

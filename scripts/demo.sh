#!/usr/bin/env bash
# Installs what is missing, builds imghist, and runs it on a real sample image:
# prints the per-channel table and writes the histogram plot to sample-histogram.png.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
build=${IMGHIST_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIMGHIST_CLI=ON -DIMGHIST_TESTS=OFF > /dev/null
cmake --build "$build" -j"$(nproc)" --target imghist_cli
"$build/src/cli/imghist" --list-backends
"$build/src/cli/imghist" examples/sample.png --plot sample-histogram.png
echo "plot written to $root/sample-histogram.png"

#!/usr/bin/env bash
# Installs a build into a scratch prefix and builds tests/consumer against it twice: through
# find_package(imghist) and through pkg-config. Usage: scripts/check-install.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
cmake -S "$root/tests/consumer" -B "$prefix/consumer-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$prefix/consumer-build" > /dev/null
"$prefix/consumer-build/consumer"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig" \
  c++ -std=c++20 "$root/tests/consumer/main.cpp" -o "$prefix/consumer-pc" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig" pkg-config --cflags --libs --static imghist)
"$prefix/consumer-pc"
echo "check-install: ok (find_package(imghist) and pkg-config consumers built and ran)"

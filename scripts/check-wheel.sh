#!/usr/bin/env bash
# Installs the wheel of scripts/build-wheel.sh into a fresh virtual environment and runs the
# package's tests there, as a user without a compiler would: PATH holds only that environment
# and /usr/bin without compilers, linkers, CMake, ninja or nvcc; no build tree (IMGHIST_CLI,
# PYTHONPATH and LD_LIBRARY_PATH unset). Before the tests, ldd on the installed extension must
# resolve every library into the wheel or to a library the wheel's manylinux policy allows.
# The wheel must be under PyPI's size limit. It prints the import time and the first call's
# time. Usage: scripts/check-wheel.sh [WHEEL]
#   IMGHIST_REQUIRE_BACKENDS  backends that must run from the wheel (e.g. cpu,opencl,vulkan)
#   IMGHIST_WHEEL_TESTS       the pytest arguments (default: python/tests, all of them, with the
#                             packages of the test extra; those that compare with the imghist
#                             command skip, since the build tree is out of reach)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
wheel=${1:-$(ls dist/imghist-*.whl)}
# PyPI refuses files over 100 MiB (warehouse's MAX_FILESIZE) unless a project is granted more.
pypi_limit=$((100 * 1024 * 1024))
size=$(stat -c %s "$wheel")
if [ "$size" -ge "$pypi_limit" ]; then
  echo "check-wheel: $(basename "$wheel") is $size bytes, over PyPI's limit of $pypi_limit" >&2
  exit 1
fi
echo "check-wheel: $(basename "$wheel"): $size bytes ($((size * 100 / pypi_limit))% of PyPI's limit)"
builder=$(cd "${IMGHIST_PYTHON_VENV:-build/python-venv}" && pwd)  # has auditwheel (build-wheel.sh), for the policy
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
venv="$scratch/venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel[test]"  # the test extra's packages

# /usr/bin without the tools that could build anything.
bin="$scratch/bin"
mkdir "$bin"
for tool in /usr/bin/*; do
  case "$(basename "$tool")" in
    cc|c++|gcc*|g++*|cpp*|clang*|ld|ld.*|as|cmake|ctest|cpack|ninja|make|nvcc|x86_64-linux-gnu-*) ;;
    *) ln -s "$tool" "$bin/" ;;
  esac
done
export PATH="$venv/bin:$bin"
unset IMGHIST_CLI PYTHONPATH LD_LIBRARY_PATH CMAKE_PREFIX_PATH
for tool in cc c++ cmake nvcc; do
  if command -v "$tool" >/dev/null; then echo "check-wheel: $tool is still reachable" >&2; exit 1; fi
done

extension=$("$venv/bin/python" -c 'import imghist._imghist as m; print(m.__file__)')
site=$(dirname "$(dirname "$extension")")
tag=$(basename "$wheel" .whl | awk -F- '{print $NF}')
# The policy's libraries, from auditwheel's own list for the wheel's tag.
allowed=$("$builder/bin/python" - "$tag" <<'PY'
import json, pathlib, sys, auditwheel
tags = sys.argv[1].split(".")  # manylinux_2_35_x86_64: the policy manylinux_2_35 for x86_64
policies = json.loads((pathlib.Path(auditwheel.__file__).parent / "policy" / "manylinux-policy.json").read_text())
names = set()
for p in policies:
    if any(tag.startswith(name + "_") for tag in tags for name in [p["name"], *p.get("aliases", [])]):
        names.update(p["lib_whitelist"])
print("\n".join(sorted(names)))
PY
)
[ -n "$allowed" ] || { echo "check-wheel: no manylinux policy named by the tag $tag" >&2; exit 1; }
# Every library resolves; each that the extension or a library of the wheel names is in the wheel
# or the policy's (what the policy's own libraries need, libX11's libxcb say, is the system's).
bad=0
if ldd "$extension" | grep -q "not found"; then ldd "$extension" | grep "not found" >&2; bad=1; fi
libs="$site/imghist.libs"
for object in "$extension" "$libs"/*; do
  while read -r name; do
    case "$name" in ld-linux*) continue ;; esac
    if [ ! -e "$libs/$name" ] && ! grep -qxF "$name" <<<"$allowed"; then
      echo "check-wheel: $(basename "$object") needs $name, which is neither in the wheel nor the policy's" >&2
      bad=1
    fi
  done < <(readelf -d "$object" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
[ "$bad" = 0 ] || exit 1
echo "check-wheel: $(basename "$extension") and the $(ls "$libs" | wc -l) libraries of the wheel need only each other and the policy's libraries"

"$venv/bin/python" - <<'PY'
import time
start = time.perf_counter()
import imghist
imported = time.perf_counter()
import numpy as np
image = np.zeros((1080, 1920, 4), dtype=np.uint8)
called = time.perf_counter()
imghist.histogram(image)
done = time.perf_counter()
print(f"check-wheel: imghist {imghist.__version__}: import {1000 * (imported - start):.0f} ms, "
      f"first histogram() of 1080p RGBA8 {1000 * (done - called):.0f} ms; backends available: "
      + ", ".join(b["name"] for b in imghist.backends() if b["available"]))
PY

# The tests and the checkout's files they read (the version's, the reviewers' reproducers),
# without the checkout's python/imghist.
mkdir -p "$scratch/checkout/python" "$scratch/checkout/tests/data"
cp -r "$root/python/tests" "$scratch/checkout/python/"
cp -r "$root/tests/data/repro" "$scratch/checkout/tests/data/"
cp "$root/CMakeLists.txt" "$root/CHANGELOG.md" "$scratch/checkout/"
cd "$scratch/checkout"
export IMGHIST_REQUIRE_IO=1 IMGHIST_REQUIRE_BACKENDS=${IMGHIST_REQUIRE_BACKENDS:-}
read -r -a tests <<<"${IMGHIST_WHEEL_TESTS:-python/tests}"
echo "check-wheel: pytest ${tests[*]} (required backends: ${IMGHIST_REQUIRE_BACKENDS:-none})"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "${tests[@]}"

#!/usr/bin/env bash
# Fetches Intel IPP (headers and static libraries) from PyPI into the checkout, for the optional
# IPP anchor of the comparison benchmark (bench/compare.cpp). Nothing else in imghist uses IPP.
# Usage: bash scripts/install-ipp.sh [--quiet]
#   Downloads the wheels ipp-include and ipp-static (IPP_VERSION, default 2026.1.0) into .whl/
#   and unpacks their data (include/, lib/) into .whl/ipp/; both are git-ignored. Run again, it
#   reuses what is there. The last line printed is the prefix to give CMake:
#     cmake -B build -DIMGHIST_BENCH=ON -DIMGHIST_IPP_ROOT=<prefix>
#   (.whl/ipp is also the default IMGHIST_IPP_ROOT, so a plain configure finds it).
# Needs python3 with pip, and PyPI reachable. IPP is under the Intel Simplified Software License
# (.whl/ipp/LICENSE.txt).
set -euo pipefail
source "$(dirname "$0")/wheels.sh"
wheel_setup install-ipp "$@"
version=${IPP_VERSION:-2026.1.0}
prefix="$wheels/ipp"
for pkg in ipp-include ipp-static; do fetch_wheel "$pkg" "$version"; done

stamp="$prefix/.installed-$version"
if [ -f "$stamp" ] && [ -f "$prefix/include/ipp.h" ] && [ -f "$prefix/lib/libippi.a" ]; then
  say "already unpacked in $prefix"
else
  say "unpacking into $prefix"
  rm -rf "$prefix"
  mkdir -p "$prefix"
  # A wheel is a zip; its files for the install prefix are under <name>-<version>.data/data/.
  python3 - "$prefix" "$wheels"/ipp_include-"$version"-*.whl "$wheels"/ipp_static-"$version"-*.whl <<'EOF'
import os, shutil, sys, zipfile
prefix = sys.argv[1]
for wheel in sys.argv[2:]:
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            parts = info.filename.split("/")
            if info.is_dir():
                continue
            if len(parts) > 2 and parts[0].endswith(".data") and parts[1] == "data":
                rel = os.path.join(*parts[2:])
            elif parts[-1] == "LICENSE.txt":
                rel = "LICENSE.txt"
            else:
                continue
            dest = os.path.join(prefix, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with z.open(info) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
EOF
  for f in include/ipp.h lib/libippi.a lib/libipps.a lib/libippcore.a; do
    [ -f "$prefix/$f" ] || { echo "install-ipp: $f missing after unpacking" >&2; exit 1; }
  done
  touch "$stamp"
fi
say "configure with -DIMGHIST_IPP_ROOT=$prefix (the default when it exists)"
echo "$prefix"

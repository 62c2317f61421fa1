#!/usr/bin/env bash
# Fetches nvImageCodec and nvJPEG from PyPI into the checkout, for the CUDA backend's GPU JPEG
# decoding (include/imghist/cuda_decode.hpp; `imghist --decode gpu`). imghist compiles against
# nvImageCodec's header and loads the library at run time, so nothing here is needed to run
# imghist without GPU decoding.
# Usage: bash scripts/install-nvimgcodec.sh [--quiet]
#   Downloads the wheels nvidia-nvimgcodec-cu13 and nvidia-nvjpeg into .whl/ and unpacks what
#   GPU decoding uses into .whl/nvidia/, in the wheels' own layout (nvimgcodec/ finds its codec
#   modules and ../cu13/lib/libnvjpeg.so.13 from there); both are git-ignored. Run again, it
#   reuses what is there. The last line printed is the folder to give CMake:
#     cmake -B build -DIMGHIST_CUDA=ON -DIMGHIST_NVIMGCODEC_ROOT=<folder>
#   (.whl/nvidia/nvimgcodec is also the default IMGHIST_NVIMGCODEC_ROOT).
# Needs python3 (with pip, or python3-venv) and PyPI reachable. The wheels are under NVIDIA's licences
# (.whl/nvidia/*/LICENSE*).
set -euo pipefail
source "$(dirname "$0")/wheels.sh"
wheel_setup install-nvimgcodec "$@"
codec_version=${NVIMGCODEC_VERSION:-0.9.0.20}
nvjpeg_version=${NVJPEG_VERSION:-13.3.2.43}
prefix="$wheels/nvidia"
fetch_wheel nvidia-nvimgcodec-cu13 "$codec_version"
fetch_wheel nvidia-nvjpeg "$nvjpeg_version"

stamp="$prefix/.installed-$codec_version-$nvjpeg_version"
if [ -f "$stamp" ] && [ -f "$prefix/nvimgcodec/include/nvimgcodec.h" ]; then
  say "already unpacked in $prefix"
else
  say "unpacking into $prefix"
  rm -rf "$prefix"
  mkdir -p "$prefix"
  # Only what JPEG decoding loads: the header, the library, its nvJPEG module and nvJPEG
  # (about 15 MB, small enough to carry to a machine without PyPI).
  python3 - "$wheels" "$prefix" "$codec_version" "$nvjpeg_version" <<'PY'
import glob, os, sys, zipfile
wheels, prefix, codec, nvjpeg = sys.argv[1:]
keep = ("nvidia/nvimgcodec/include/", "nvidia/nvimgcodec/libnvimgcodec.so.0",
        "nvidia/nvimgcodec/extensions/libnvjpeg_ext.so", "nvidia/cu13/lib/libnvjpeg.so", "nvidia/cu13/include/nvjpeg.h")
for pattern in (f"nvidia_nvimgcodec_cu13-{codec}-*.whl", f"nvidia_nvjpeg-{nvjpeg}-*.whl"):
    wheel = glob.glob(os.path.join(wheels, pattern))[0]
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            name = info.filename
            if name.endswith("/") or not (name.startswith(keep) or "LICENSE" in name.upper()):
                continue
            if "LICENSE" in name.upper() and ".dist-info/" in name:
                target = os.path.join(prefix, name.split("-")[0].replace("nvidia_", "") + "-" + os.path.basename(name))
            else:
                target = os.path.join(prefix, "..", name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(info) as src, open(target, "wb") as dst:
                dst.write(src.read())
            os.chmod(target, 0o755 if ".so" in name else 0o644)
PY
  touch "$stamp"
fi
[ -f "$prefix/nvimgcodec/include/nvimgcodec.h" ] || { echo "install-nvimgcodec: nvimgcodec.h missing in $prefix" >&2; exit 1; }
echo "$prefix/nvimgcodec"

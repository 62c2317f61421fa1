#!/usr/bin/env bash
# Installs a build into a scratch prefix and builds tests/consumer against it twice, with the
# README's lines: find_package(imghist) + imghist::imghist, and `pkg-config --cflags --libs
# imghist`; runs both. Usage: scripts/check-install.sh BUILD_DIR
#
# The consumers must need no GPU toolkit even when the build has every backend. Without a
# container, this machine's toolkits are hidden from them and what they read is audited:
#   - PATH holds only cmake, ninja, the compiler and pkg-config; CMake may not find OpenCL, Vulkan or CUDAToolkit (a find_dependency()
#     of one in imghistConfig.cmake fails the configure); pkg-config sees only the prefix
#     (a Requires: of OpenCL or Vulkan fails the pkg-config line);
#   - every header the compiler read (its depfile) and every file the linker opened (--trace)
#     must lie in the prefix or the consumer's folders, or belong to a Debian package that
#     is not a GPU one. The OpenCL and Vulkan loaders (ocl-icd-libopencl1, libvulkan1) are the
#     one exception: libimghist.so loads them at run time, as any program using OpenCL or
#     Vulkan does; they are runtime libraries, not toolkits.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
pc_file=$(find "$prefix" -path '*/pkgconfig/imghist.pc' -print -quit)
[ -n "$pc_file" ] || { echo "check-install: no imghist.pc installed" >&2; exit 1; }
libdir=$(dirname "$(dirname "$pc_file")")

fail() { echo "check-install: $*" >&2; exit 1; }

# The files a consumer's build read (one path per line on stdin) must come from no GPU toolkit.
audit() {
  local what=$1 path line pkg bad=()
  local -A owner=()
  local -a paths asked
  mapfile -t paths < <(while read -r path; do [ -e "$path" ] && realpath "$path"; done | sort -u |
                       grep -v -e "^$prefix/" -e "^$root/tests/consumer/")
  # dpkg records some files under /lib and others under /usr/lib (merged /usr): ask for both.
  mapfile -t asked < <(printf '%s\n' "${paths[@]}" | sed -n 'p; s#^/usr/lib/#/lib/#p')
  while IFS= read -r line; do  # "pkg[:arch][, pkg...]: /path"
    [[ $line == diversion* ]] || owner[${line#*: }]=${line%%: *}
  done < <(dpkg -S "${asked[@]}" 2>/dev/null || true)
  for path in "${paths[@]}"; do
    pkg=${owner[$path]:-${owner[${path/#\/usr\/lib\///lib/}]:-}}
    if [ -z "$pkg" ]; then
      bad+=("$path (no Debian package)")
    elif [[ $pkg =~ opencl|vulkan|cuda|nvidia|pocl|spirv|glslang|shaderc ]] &&
         [[ ! $pkg =~ ^(ocl-icd-libopencl1|libvulkan1)(:amd64)?$ ]]; then
      bad+=("$path ($pkg)")
    fi
  done
  [ ${#paths[@]} -gt 0 ] || fail "$what: no file to audit (the depfile or --trace output is missing)"
  [ ${#bad[@]} -eq 0 ] || fail "$what read files of a GPU toolkit, or of no package: ${bad[*]}"
  echo "check-install: $what read ${#paths[@]} files outside the prefix, none of a GPU toolkit"
}
# Paths of a Make-style depfile (target: dep dep \ ...).
depfile_paths() { sed -e 's/^[^:]*://' -e 's/\\$//' "$@" | tr ' ' '\n' | grep -v '^$'; }
# Paths of ld --trace output (lines such as "/usr/lib/.../crt1.o" or "-lc (/usr/lib/.../libc.so)").
trace_paths() { grep -oE '/[^ ()]+' "$@"; }

# 1. What is installed names no GPU toolkit: no find_dependency() of one, no GPU library to link.
gpu_names='CUDA|cudart|OpenCL|Vulkan|vulkan'
# (imghist::io's own find_dependency of OpenImageIO, libtiff, libpng and TurboJPEG, and of PkgConfig for
# LibRaw and libheif, asked for by its component only, is not a GPU toolkit.)
grep -nE "find_dependency|$gpu_names" "$libdir"/cmake/imghist/imghist{Config,Targets}*.cmake |
  grep -v -e 'set(IMGHIST_BACKENDS' -e 'find_dependency(OpenImageIO CONFIG)' -e 'find_dependency(TIFF)' \
         -e 'find_dependency(PNG)' -e 'find_dependency(TurboJPEG)' -e 'find_dependency(MPI COMPONENTS C)' \
         -e 'find_dependency(PkgConfig)' &&
  fail "the installed CMake package needs a GPU toolkit (above)"
grep -nE "^(Requires|Libs|Cflags).*($gpu_names)" "$pc_file" &&
  fail "imghist.pc needs a GPU toolkit (above)"

# 2. The consumers, with the toolkits hidden.
# PATH: a folder holding only the build tools a consumer uses (/usr/local/bin holds nvcc here).
tools="$prefix/consumer-tools"
mkdir "$tools"
for t in cmake ninja c++ g++ cc gcc as ld pkg-config; do ln -s "$(command -v "$t")" "$tools/$t"; done
consumer_env=(env -u CUDA_PATH -u CUDA_HOME -u CPATH -u LIBRARY_PATH PATH="$tools"
              PKG_CONFIG_LIBDIR="$libdir/pkgconfig" PKG_CONFIG_PATH=)
# imghist::io finds LibRaw and libheif with pkg-config, as its build did: its consumers see the
# system's .pc files after the prefix's (the audits still refuse any file of a GPU toolkit).
io_env=(env -u CUDA_PATH -u CUDA_HOME -u CPATH -u LIBRARY_PATH PATH="$tools"
        PKG_CONFIG_LIBDIR="$libdir/pkgconfig:$(pkg-config --variable pc_path pkg-config)" PKG_CONFIG_PATH=)

"${consumer_env[@]}" cmake -S "$root/tests/consumer" -B "$prefix/consumer-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--trace" --no-warn-unused-cli > "$prefix/consumer-configure.log" ||
  { cat "$prefix/consumer-configure.log"; fail "find_package(imghist) consumer: configure failed"; }
"${consumer_env[@]}" cmake --build "$prefix/consumer-build" > "$prefix/consumer-build.log" ||
  { cat "$prefix/consumer-build.log"; fail "find_package(imghist) consumer: build failed"; }
# Ninja keeps the compiler's depfiles in its own log: `ninja -t deps` prints them.
{ ninja -C "$prefix/consumer-build" -t deps | grep '^ ' ; trace_paths "$prefix/consumer-build.log"; } | audit "find_package(imghist) consumer"
"$prefix/consumer-build/consumer"

# The README's pkg-config line, as written (no --static); the library is found at run time
# through LD_LIBRARY_PATH because the prefix is not a system directory.
pc_flags=$("${consumer_env[@]}" pkg-config --cflags --libs imghist)
"${consumer_env[@]}" c++ -std=c++20 -MD -MF "$prefix/consumer-pc.d" "$root/tests/consumer/main.cpp" \
  -o "$prefix/consumer-pc" $pc_flags -Wl,--trace > "$prefix/consumer-pc.log"
{ depfile_paths "$prefix/consumer-pc.d"; trace_paths "$prefix/consumer-pc.log"; } | audit "pkg-config consumer"
LD_LIBRARY_PATH="$libdir" "$prefix/consumer-pc"

# 3. imghist::io, where the build has it: find_package(imghist COMPONENTS io) reads a file.
io_text=""
if [ -f "$libdir/cmake/imghist/imghistIoTargets.cmake" ]; then
  "${io_env[@]}" cmake -S "$root/tests/consumer_io" -B "$prefix/consumer-io-build" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    --no-warn-unused-cli > "$prefix/consumer-io-configure.log" ||
    { cat "$prefix/consumer-io-configure.log"; fail "find_package(imghist COMPONENTS io) consumer: configure failed"; }
  "${io_env[@]}" cmake --build "$prefix/consumer-io-build" > "$prefix/consumer-io-build.log" ||
    { cat "$prefix/consumer-io-build.log"; fail "find_package(imghist COMPONENTS io) consumer: build failed"; }
  "$prefix/consumer-io-build/consumer_io" "$prefix/consumer-io.pgm"
  io_text=", find_package(imghist COMPONENTS io) too"
fi

# 4. imghist::mpi, where the build has it: find_package(imghist COMPONENTS io mpi), run as one
# MPI process (a singleton: no mpirun) over a missing file. FindMPI finds MPI by its compiler
# wrapper, so mpicc joins the tools in view; Open MPI refuses root without the two variables.
if [ -f "$libdir/cmake/imghist/imghistMpiTargets.cmake" ]; then
  ln -s "$(command -v mpicc)" "$tools/mpicc"
  "${io_env[@]}" cmake -S "$root/tests/consumer_mpi" -B "$prefix/consumer-mpi-build" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    --no-warn-unused-cli > "$prefix/consumer-mpi-configure.log" ||
    { cat "$prefix/consumer-mpi-configure.log"; fail "find_package(imghist COMPONENTS io mpi) consumer: configure failed"; }
  "${io_env[@]}" cmake --build "$prefix/consumer-mpi-build" > "$prefix/consumer-mpi-build.log" ||
    { cat "$prefix/consumer-mpi-build.log"; fail "find_package(imghist COMPONENTS io mpi) consumer: build failed"; }
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$prefix/consumer-mpi-build/consumer_mpi" "$prefix/missing.pgm"
  io_text="$io_text, and COMPONENTS io mpi"
fi

echo "check-install: ok (find_package(imghist) and pkg-config --cflags --libs consumers built without" \
     "any GPU toolkit in view, and ran$io_text)"

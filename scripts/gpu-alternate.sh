#!/usr/bin/env bash
# Before/after on the GPU machine in one call: runs the same program from two archives of
# scripts/gpu-prebuild.sh, alternated, so that both sets of figures come from one machine and one
# warm-up (docs/performance.md takes a GPU change's figures this way).
#
# Usage (on the GPU machine, from the repository root, carry [".gl"]; output to stdout):
#   bash scripts/gpu-alternate.sh [--gpu TEXT] [--rounds N] BEFORE.tar.xz AFTER.tar.xz PROGRAM [ARG...]
#     --gpu TEXT   stop at once (status 3) unless nvidia-smi's GPU name contains TEXT, e.g. H200:
#                  a call that got another machine then costs seconds, not the whole run
#     --rounds N   before, after, before, after, ... N times each (default 2)
#     PROGRAM      a path inside the archives' prebuilt/ tree, e.g. bench/cuda/imghist_cuda_bench
# e.g. bash scripts/gpu-alternate.sh --gpu H200 .gl/before.tar.xz .gl/after.tar.xz \
#        bench/cuda/imghist_cuda_bench --edges > "$OUT/edges.log" 2>&1
# Each run is headed by its side, round and the archive's REVISION; a run's non-zero status is
# printed and the rounds go on. The status is 1 when any run failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
usage() { sed -n '6,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
gpu="" rounds=2
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu=${2:?--gpu needs a name}; shift 2 ;;
    --rounds) rounds=${2:?--rounds needs a count}; shift 2 ;;
    -h|--help) usage ;;
    *) break ;;
  esac
done
[ $# -ge 3 ] || usage
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "gpu-alternate: --rounds must be a positive count, not '$rounds'"; exit 2; }
before=$1 after=$2 program=$3
shift 3
for a in "$before" "$after"; do
  [ -f "$a" ] || { echo "gpu-alternate: no archive $a (scripts/gpu-prebuild.sh writes one)"; exit 2; }
done

name=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)
echo "GPU: $name"
if [ -n "$gpu" ] && [[ "$name" != *"$gpu"* ]]; then
  echo "gpu-alternate: the GPU is not a $gpu: stopping before any run"
  exit 3
fi
. scripts/gpu/loaders.sh
install_gpu_loaders
use_nvidia_drivers

unpacked=$(mktemp -d /tmp/gpu-alternate.XXXXXX)
for side in before after; do
  archive=$before; [ "$side" = after ] && archive=$after
  mkdir -p "$unpacked/$side"
  tar -xJf "$archive" -C "$unpacked/$side" || { echo "gpu-alternate: cannot unpack $archive"; exit 2; }
  [ -x "$unpacked/$side/prebuilt/$program" ] || { echo "gpu-alternate: $archive holds no prebuilt/$program"; exit 2; }
done

failed=0
for ((round = 1; round <= rounds; round++)); do
  for side in before after; do
    dir=$unpacked/$side/prebuilt
    echo "=== $side, round $round: $(head -c 12 "$dir/REVISION") $program $*  ($(date -u +%H:%M:%S) UTC)"
    "$dir/$program" "$@"
    rc=$?
    [ $rc -eq 0 ] || { echo "=== $side, round $round: status $rc"; failed=1; }
  done
done
exit $failed

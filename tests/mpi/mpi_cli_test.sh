#!/usr/bin/env bash
# imghist --mpi under mpirun against the single-process imghist over the same files, good and
# bad mixed, 8-bit, 16-bit, half and float: the same report (sums, sample statistics and
# errors) byte for byte, and the same exit status.
# Usage: mpi_cli_test.sh IMGHIST MPIEXEC RANKS
set -euo pipefail
imghist=$1 mpiexec=$2 ranks=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# Real images of three kinds (so three sums), sizes growing along the list.
for i in $(seq 1 12); do
  oiiotool --pattern noise:type=uniform:min=0:max=1:seed=$i $((8 * i))x$((5 + i)) 3 -d uint8 -o rgb$i.png
  oiiotool --pattern noise:type=uniform:min=0:max=1:seed=$((100 + i)) $((3 * i))x7 1 -d uint8 -o gray$i.pgm
done
for i in 1 2 3; do
  oiiotool --pattern noise:type=uniform:min=0:max=1:seed=$((200 + i)) 20x$((10 * i)) 3 -d uint16 -o deep$i.png
  oiiotool --pattern noise:type=uniform:min=0:max=1:seed=$((210 + i)) 9x$((4 * i)) 3 -d uint16 -o deep$i.tif
  # Float data past the bins' [0, 1] (and below 0): the sample statistics see every value.
  oiiotool --pattern noise:type=uniform:min=-0.5:max=3:seed=$((300 + i)) 11x$((3 + i)) 3 -d float -o float$i.exr
  oiiotool --pattern noise:type=gaussian:mean=1:stddev=2:seed=$((310 + i)) 7x$((2 + i)) 3 -d half -o half$i.exr
  oiiotool --pattern noise:type=uniform:min=0:max=40:seed=$((320 + i)) 6x$((5 + i)) 3 -d float -o float$i.tif
done
# The bad: truncated, not an image, missing, 2 channels.
head -c 100 rgb12.png > truncated.png
echo "not an image" > text.png
oiiotool --pattern constant:color=0.5,0.2 4x4 2 -d uint8 -o two_channels.tif
ls rgb*.png gray*.pgm deep*.png deep*.tif float*.exr half*.exr float*.tif > list.txt
{ echo truncated.png; echo text.png; echo missing.png; echo two_channels.tif; } >> list.txt
sort -R --random-source=list.txt list.txt -o list.txt  # bad files among the good, always alike

# Open MPI refuses to run as root (CI containers) without both. Shared memory (vader) with plain
# copies: its default single copy (CMA, process_vm_readv) is refused where ptrace is (Docker's
# seccomp profile), and a rank then fails on a large message. Not needed on this machine (Open
# MPI 4.1.4 runs clean without), but harmless.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
status=0
# --bins 65536: every 16-bit bin holds one value, so the 16-bit sum has its percentiles too.
for run in "json --sum-only" "csv --sum-only" "json --sum" "jsonl --sum" "table --sum" \
           "json --sum-only --bins 65536 --percentiles 0,0.5,25,50,99.9,100"; do
  read -r format what <<< "$run"
  set +e
  "$imghist" --files-from list.txt -j 2 --format $format $what > one.out 2> one.err; one_rc=$?
  "$mpiexec" --allow-run-as-root --oversubscribe -np "$ranks" \
    "$imghist" --mpi --files-from list.txt -j 2 --format $format $what > mpi.out 2> mpi.err; mpi_rc=$?
  set -e
  if ! cmp -s one.out mpi.out; then
    echo "FAIL ($run, $ranks ranks): reports differ"; diff <(tr ',' '\n' < one.out) <(tr ',' '\n' < mpi.out) | head -20; head -20 mpi.err
    status=1
  fi
  if [ "$one_rc" != "$mpi_rc" ]; then echo "FAIL ($run): exit $one_rc alone, $mpi_rc under mpirun"; cat mpi.err; status=1; fi
  [ "$run" = "json --sum-only" ] && cp one.out one.json
  [ "${run#json --sum-only --bins}" != "$run" ] && cp one.out one_65536.json
done
# The report holds the four errors and three sums (of 27 files).
grep -q '"file":"two_channels.tif"' one.json && grep -q '"file":"missing.png"' one.json &&
  grep -q '"file":"truncated.png"' one.json && grep -q '"file":"text.png"' one.json ||
  { echo "FAIL: an error is missing from the report"; status=1; }
[ "$(grep -o '"pixels":' one.json | wc -l)" = 4 ] || { echo "FAIL: not four sums"; status=1; }
# What the reports compared hold: every sum's exact sums; percentiles where every bin holds one
# value (8-bit always, 16-bit with --bins 65536), absent elsewhere (a float sum's, never guessed).
percentiles_per_sum() {
  python3 -c 'import json, sys
for s in json.load(open(sys.argv[1]))["sums"]:
    channels = list(s["histograms"].values())
    assert all(c["sample_stats"]["sum"] for c in channels), "an exact sum is missing"
    print(",".join(s["formats"]), len(channels[0]["sample_stats"]["percentiles"]))' "$1" | sort | tr '\n' ' '
}
[ "$(percentiles_per_sum one.json)" = "gray8 3 rgb16 0 rgb8 3 rgb_f32,rgb_f16 0 " ] ||
  { echo "FAIL: percentiles per sum: $(percentiles_per_sum one.json)"; status=1; }
# With 65,536 bins an 8-bit bin is no longer one value: only the 16-bit sum has them.
[ "$(percentiles_per_sum one_65536.json)" = "gray8 0 rgb16 6 rgb8 0 rgb_f32,rgb_f16 0 " ] ||
  { echo "FAIL: percentiles per sum with --bins 65536: $(percentiles_per_sum one_65536.json)"; status=1; }
[ "$one_rc" = 1 ] || { echo "FAIL: bad files should exit 1, got $one_rc"; status=1; }
# Into a file first: grep -q stops reading at the first match, and under pipefail the SIGPIPE
# that imghist then gets while still writing the help failed this check now and then.
"$imghist" --help > help.txt
grep -q -- '--mpi' help.txt || { echo "FAIL: --help does not document --mpi"; status=1; }
[ $status = 0 ] && echo "imghist --mpi on $ranks ranks: the same reports as one process, sample statistics and all (json, csv --sum-only; json, jsonl, table --sum; json --sum-only --bins 65536 --percentiles)"
exit $status

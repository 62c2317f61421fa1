#!/usr/bin/env bash
# imghist --mpi under mpirun against the single-process imghist over the same files, good and
# bad mixed: the same report (sums and errors) byte for byte, and the same exit status.
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
done
# The bad: truncated, not an image, missing, 2 channels.
head -c 100 rgb12.png > truncated.png
echo "not an image" > text.png
oiiotool --pattern constant:color=0.5,0.2 4x4 2 -d uint8 -o two_channels.tif
ls rgb*.png gray*.pgm deep*.png > list.txt
{ echo truncated.png; echo text.png; echo missing.png; echo two_channels.tif; } >> list.txt
sort -R --random-source=list.txt list.txt -o list.txt  # bad files among the good, always alike

# Open MPI refuses to run as root (CI containers) without both. Shared memory (vader) with plain
# copies: its default single copy (CMA, process_vm_readv) is refused where ptrace is (Docker's
# seccomp profile), and a rank then fails on a large message. Not needed on this machine (Open
# MPI 4.1.4 runs clean without), but harmless.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
status=0
for run in "json --sum-only" "csv --sum-only" "json --sum" "jsonl --sum" "table --sum"; do
  read -r format what <<< "$run"
  set +e
  # --mpi carries no sample statistics yet (the ranks' encoding has no exact sums): the one
  # process leaves them out too.
  "$imghist" --no-sample-stats --files-from list.txt -j 2 --format $format $what > one.out 2> one.err; one_rc=$?
  "$mpiexec" --allow-run-as-root --oversubscribe -np "$ranks" \
    "$imghist" --mpi --files-from list.txt -j 2 --format $format $what > mpi.out 2> mpi.err; mpi_rc=$?
  set -e
  if ! cmp -s one.out mpi.out; then
    echo "FAIL ($run, $ranks ranks): reports differ"; diff <(tr ',' '\n' < one.out) <(tr ',' '\n' < mpi.out) | head -20; head -20 mpi.err
    status=1
  fi
  if [ "$one_rc" != "$mpi_rc" ]; then echo "FAIL ($run): exit $one_rc alone, $mpi_rc under mpirun"; cat mpi.err; status=1; fi
  [ "$run" = "json --sum-only" ] && cp one.out one.json
done
# The report holds the four errors and three sums (of 27 files).
grep -q '"file":"two_channels.tif"' one.json && grep -q '"file":"missing.png"' one.json &&
  grep -q '"file":"truncated.png"' one.json && grep -q '"file":"text.png"' one.json ||
  { echo "FAIL: an error is missing from the report"; status=1; }
[ "$(grep -o '"pixels":' one.json | wc -l)" = 3 ] || { echo "FAIL: not three sums"; status=1; }
[ "$one_rc" = 1 ] || { echo "FAIL: bad files should exit 1, got $one_rc"; status=1; }
# Into a file first: grep -q stops reading at the first match, and under pipefail the SIGPIPE
# that imghist then gets while still writing the help failed this check now and then.
"$imghist" --help > help.txt
grep -q -- '--mpi' help.txt || { echo "FAIL: --help does not document --mpi"; status=1; }
[ $status = 0 ] && echo "imghist --mpi on $ranks ranks: the same reports as one process (json, csv --sum-only; json, jsonl, table --sum)"
exit $status

#!/usr/bin/env bash
# Fuzzes the Python package's public API (fuzz/python/fuzz_python.py, atheris on libFuzzer) for a
# bounded time: histogram() on arrays of every dtype, shape and stride with every keyword,
# histogram_batch(), Histogram.from_dict() on changed documents and on JSON, pickling, +,
# histogram_file() / read() / histogram_files() on fuzzed files. A crash, an abort, an exception
# of an undocumented type, a broken round trip or a backend that counts differently from
# "reference" fails the run; the input is left in BUILD/fuzz-python/findings/ (replay it:
# VENV/bin/python fuzz/python/fuzz_python.py FILE).
# It uses the package scripts/python-test.sh installed (IMGHIST_PYTHON_VENV, default
# build/python-venv) and installs atheris there from PyPI.
# Usage: scripts/fuzz-python.sh [SECONDS]   (default 90)
#   IMGHIST_FUZZ_SEED       libFuzzer's random seed (1, as scripts/fuzz.sh; 0: libFuzzer picks)
#   IMGHIST_FUZZ_PY_BACKENDS  backends compared with reference (default cpu)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-90}
venv=${IMGHIST_PYTHON_VENV:-build/python-venv}
work=${IMGHIST_BUILD_DIR:-build}/fuzz-python
python="$venv/bin/python"
"$python" -c "import imghist" 2>/dev/null || { echo "fuzz python: imghist is not installed in $venv (run scripts/python-test.sh first)" >&2; exit 1; }
"$python" -m pip install --quiet --disable-pip-version-check "atheris==2.3.0"

rm -rf "$work"
mkdir -p "$work/seeds" "$work/corpus" "$work/findings" "$work/tmp"
export TMPDIR="$root/$work/tmp"  # the files the target writes, removed with the next run
# Seeds of every action; the image files of the other fuzz targets' seeds (scripts/fuzz.sh makes
# them) where that build exists.
images=(examples/sample.png $(ls tests/data/repro/* | grep -v README.md))
generated=${IMGHIST_FUZZ_BUILD_DIR:-build-fuzz}/seeds/generated
[ -d "$generated" ] && images+=("$generated"/*)
"$python" fuzz/python/make_seeds.py "$work/seeds" "${images[@]}" > "$work/seeds.log" 2>&1 || { cat "$work/seeds.log" >&2; exit 1; }

log="$work/fuzz.log"
status=0
"$python" fuzz/python/fuzz_python.py -dict=fuzz/python/python.dict -max_total_time="$seconds" \
  -seed="${IMGHIST_FUZZ_SEED:-1}" -timeout=25 -rss_limit_mb=3072 -print_final_stats=1 \
  -artifact_prefix="$root/$work/findings/" "$work/corpus" "$work/seeds" < /dev/null > "$log" 2>&1 || status=$?
if [ "$status" -eq 0 ]; then
  echo "fuzz python: ok, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs" \
       "in ${seconds} s, corpus $(ls "$work/corpus" | wc -l) files"
else
  echo "fuzz python: FAILED (input kept in $work/findings/); the end of its log:" >&2
  tail -n 60 "$log" >&2
fi
exit $status

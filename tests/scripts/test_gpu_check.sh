#!/usr/bin/env bash
# scripts/gpu-check.sh without a GPU: its scripts parse, a step's summary line decides its
# status, the Python step leaves out exactly the test files this interpreter cannot import,
# and the whole script exits 0 when every step passed (tables or not) and 1 when one failed.
# Usage: test_gpu_check.sh [REPOSITORY ROOT]   (ctest: Scripts.GpuCheck)
set -uo pipefail
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
cd "$root"
failures=0
check() {  # check DESCRIPTION COMMAND...: the command must succeed
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for f in scripts/gpu-check.sh scripts/gpu/*.sh; do check "bash -n $f" bash -n "$f"; done

# A step's summary line is its status.
summary=$scratch/summary.txt
. scripts/gpu/status.sh
for line in "cuda bench: rc=1 (table: cuda_table.txt)" "cuda memcheck: rc=0/1 ERROR SUMMARY" \
            "window tests: rc=0, vulkan rc=0, cuda rc=2; 4 ok" "build: FAILED" "rc=10" \
            "python tests, whole (required: cpu,cuda): rc=5 no tests ran"; do
  check "fails: $line" summary_line_failed "$line"
done
for line in "build: ok" "cuda bench: rc=0 (table: cuda_table.txt)" "cuda memcheck: rc=0/0" \
            "opencl parity: rc=0; opencl-specific tests: rc=skipped; rc=0" "12 ok, 0 failed" \
            "python tests: test_dask.py: left out, this machine lacks distributed (CI runs it)"; do
  if summary_line_failed "$line"; then echo "FAIL: passes: $line"; failures=$((failures + 1)); else echo "ok: passes: $line"; fi
done
gpu_check_failed=0; note "cuda bench: rc=0" > /dev/null
check "note of a passed step leaves the status 0" test "$gpu_check_failed" = 0
note "cuda bench: rc=3" > /dev/null
check "note of a failed step sets it" test "$gpu_check_failed" = 1
gpu_check_failed=0; run_step false
check "a step function returning non-zero sets it" test "$gpu_check_failed" = 1

# The Python step's selection: files whose unguarded imports are missing, and only those.
tests=$scratch/tests
mkdir -p "$tests"
printf 'import os\nimport numpy\nimport pytest\nimport imghist.dask\n' > "$tests/test_present.py"
printf 'import os\nimport no_such_module_for_gpu_check\n' > "$tests/test_missing.py"
printf 'from no_such_package_for_gpu_check.sub import x\n' > "$tests/test_missing_from.py"
printf 'try:\n    import no_such_module_for_gpu_check\nexcept ImportError:\n    pass\n' > "$tests/test_guarded.py"
printf 'import helpers_beside\n' > "$tests/test_helper.py"
printf 'X = 1\n' > "$tests/helpers_beside.py"
printf 'import no_such_module_for_gpu_check\n' > "$tests/not_a_test.py"
got=$(python3 scripts/gpu/unimportable_tests.py "$tests" 2> "$scratch/left_out.log" | xargs -n1 basename | sort | tr '\n' ' ')
check "left out: test_missing.py test_missing_from.py (got: $got)" test "$got" = "test_missing.py test_missing_from.py "
check "each file left out is named with what is missing" \
  grep -q 'test_missing.py: left out, this machine lacks no_such_module_for_gpu_check' "$scratch/left_out.log"

# step_python passes every file the helper names to both pytest runs, whatever
# IMGHIST_PYTEST_ARGS holds (the build and pytest themselves stubbed out).
OUT=$scratch/out-python
mkdir -p "$OUT"
(
  . scripts/gpu/python.sh
  python_install() { :; }
  python_pytest() { echo "$*" >> "$OUT/pytest_calls.txt"; }
  IMGHIST_PYTEST_ARGS="-k cuda python/tests" step_python
)
calls=$OUT/pytest_calls.txt
check "step_python ran pytest twice" test "$(wc -l < "$calls")" = 2
check "the first run keeps IMGHIST_PYTEST_ARGS" grep -q -- '^whole -k cuda python/tests' "$calls"
while read -r path; do
  check "both runs leave out $(basename "$path")" test "$(grep -c -- "--ignore=$path" "$calls")" = 2
done < <(python3 scripts/gpu/unimportable_tests.py python/tests 2> /dev/null)

# The whole script, without a GPU: no step fails -> 0, even with no table written; a step
# that fails (its test program is missing) -> 1.
OUT=$scratch/out-none IMGHIST_GPU_BACKENDS=none bash scripts/gpu-check.sh no_such_step > "$scratch/none.log" 2>&1
check "every step passed, no table written: exit status 0" test $? = 0
OUT=$scratch/out-large IMGHIST_GPU_BUILD_DIR=$scratch/no-build IMGHIST_GPU_BACKENDS=none \
  bash scripts/gpu-check.sh large > "$scratch/large.log" 2>&1
check "a failed step: exit status 1" test $? = 1

[ "$failures" = 0 ] && echo "all passed" || echo "$failures failed"
[ "$failures" = 0 ]

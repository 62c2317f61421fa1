# Python steps for scripts/gpu-check.sh (sourced there after the carried .debs are unpacked):
#   python     builds the package against the GPU machine's python3 (which has torch, cupy,
#              nanobind, scikit-build-core and pytest: it has no package registry) into a
#              folder put on PYTHONPATH, then runs python/tests with every backend required
#              and real torch and cupy CUDA tensors (IMGHIST_REQUIRE_CUDA_ARRAYS=torch,cupy:
#              test_cuda_tensors.py fails rather than skips without them), then the CUDA
#              selection alone (-k cuda) in a fresh interpreter; logs python_test_{whole,cuda}.log
#   pybench    bench/python/bench_cuda.py: torch CUDA tensors against torch.bincount,
#              torch.histc, cupy.histogram and the C++ call (imghist_cuda_bench --sync of the
#              build step) -> $OUT/python_cuda_table.md
# Environment: IMGHIST_PYTHON_TARGET (/tmp/imghist-python), IMGHIST_PYTEST_ARGS (default python/tests;
# e.g. "-k cuda python/tests").

python_target() { echo "${IMGHIST_PYTHON_TARGET:-/tmp/imghist-python}"; }

# pip --target rather than a venv: a venv made from the machine's python3 (itself a venv) would
# not see torch and cupy.
python_install() {
  local target t0=$SECONDS
  target=$(python_target)
  rm -rf "$target"
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) python3 -m pip install --no-index --no-build-isolation --no-deps \
      --target "$target" -C cmake.define.CMAKE_CUDA_ARCHITECTURES="${IMGHIST_CUDA_ARCH:-90}" . \
      > "$OUT/python_install.log" 2>&1 \
    || { grep -E "error|Error" "$OUT/python_install.log" | head -30; note "python install: FAILED"; return 1; }
  export PYTHONPATH="$target${PYTHONPATH:+:$PYTHONPATH}"
  note "python install: ok ($((SECONDS - t0)) s; available: $(python3 -c 'import imghist; print(",".join(b["name"] for b in imghist.backends() if b["available"]))'))"
}

# One pytest run of `$@` in a fresh interpreter; faulthandler prints the Python stack of a
# crash, and the kernel's last lines are kept beside the log when the run dies of a signal.
python_pytest() {
  local name=$1 t0=$SECONDS rc
  shift
  IMGHIST_REQUIRE_CUDA_ARRAYS=${IMGHIST_REQUIRE_CUDA_ARRAYS:-torch,cupy} \
    python3 -X faulthandler -m pytest -q -p no:cacheprovider -rfE "$@" > "$OUT/python_test_$name.log" 2>&1
  rc=$?
  note "python tests, $name (required: $IMGHIST_REQUIRE_BACKENDS; torch,cupy tensors): rc=$rc $(tail -1 "$OUT/python_test_$name.log") ($((SECONDS - t0)) s)"
  grep -E "^(FAILED|ERROR) |Fatal Python error|terminate called" "$OUT/python_test_$name.log" | head -20
  if [ "$rc" -gt 5 ]; then dmesg 2> /dev/null | tail -20 > "$OUT/dmesg_$name.txt"; fi
  return $rc
}

# The whole suite (or IMGHIST_PYTEST_ARGS), then the CUDA selection alone: a run of one
# backend's tests in a row is what once exhausted the driver, not the whole suite.
step_python() {
  python_install || return 1
  local ignore=() rc=0 path line
  # The GPU machine has no package registry: test files importing what it lacks (dask and
  # distributed, matplotlib, ...) are left out, whatever IMGHIST_PYTEST_ARGS selects, since
  # one failed import stops pytest's whole collection. CI runs them.
  python3 scripts/gpu/unimportable_tests.py python/tests > "$OUT/python_left_out.txt" 2> "$OUT/python_left_out.log"
  while read -r path; do ignore+=("--ignore=$path"); done < "$OUT/python_left_out.txt"
  while read -r line; do note "python tests: $line (CI runs it)"; done < "$OUT/python_left_out.log"
  # shellcheck disable=SC2086
  python_pytest whole ${IMGHIST_PYTEST_ARGS:-python/tests} "${ignore[@]}" || rc=1
  python_pytest cuda -k cuda python/tests "${ignore[@]}" || rc=1
  return $rc
}

step_pybench() {
  if [ -d "$(python_target)/imghist" ]; then
    export PYTHONPATH="$(python_target)${PYTHONPATH:+:$PYTHONPATH}"
  else
    python_install || return 1
  fi
  python3 bench/python/bench_cuda.py --cxx-bench "$build/bench/cuda/imghist_cuda_bench" \
    --out "$OUT/python_cuda_table.md" --json "$OUT/python_cuda.json" ${IMGHIST_PYBENCH_ARGS:-} \
    > "$OUT/python_bench.log" 2>&1
  note "python bench: rc=$? (table: python_cuda_table.md; command: PYTHONPATH=$(python_target) python3 bench/python/bench_cuda.py --cxx-bench $build/bench/cuda/imghist_cuda_bench ${IMGHIST_PYBENCH_ARGS:-})"
}

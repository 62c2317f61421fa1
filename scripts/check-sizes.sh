#!/usr/bin/env bash
# Runs scripts/check-sizes.py (the size rules: files within 500 lines, functions within 80) with
# lizard: the python3 that has it, else a virtual environment it is installed into from PyPI.
#   scripts/check-sizes.sh [ARGS...]       the script's arguments (--self-test, or paths)
#   IMGHIST_LINT_VENV                      that environment (default: build/lint-venv)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=python3
if ! python3 -c 'import lizard' 2>/dev/null; then
  venv=${IMGHIST_LINT_VENV:-$root/build/lint-venv}
  # Two tests may start at once: one of them creates the environment, the other waits for it.
  exec 9>"$venv.lock" 2>/dev/null || exec 9>"/tmp/imghist-lint-venv.lock"
  flock 9
  if ! "$venv/bin/python" -c 'import lizard' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check lizard
  fi
  flock -u 9
  python="$venv/bin/python"
fi
exec "$python" "$root/scripts/check-sizes.py" "$@"

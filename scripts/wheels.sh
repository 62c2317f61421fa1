# Sourced by the scripts that fetch PyPI wheels into .whl/ for optional build inputs
# (install-ipp.sh, install-nvimgcodec.sh): their one option, their messages, and the download.
#   wheel_setup NAME "$@"   parses [--quiet]; sets root (the checkout) and wheels (.whl/)
#   say TEXT...             a line on stderr, unless --quiet
#   fetch_wheel PKG VERSION downloads PKG==VERSION into .whl/ unless it is there
wheel_setup() {
  wheel_script=$1
  shift
  quiet=0
  for arg in "$@"; do
    case "$arg" in
      --quiet) quiet=1 ;;
      *) echo "usage: $wheel_script [--quiet]" >&2; exit 2 ;;
    esac
  done
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  wheels="$root/.whl"
  mkdir -p "$wheels"
  # Debian's python3 has no pip without python3-pip: a virtual environment brings its own.
  pip=(python3 -m pip)
  if ! python3 -m pip --version >/dev/null 2>&1; then
    [ -x "$wheels/.pip-venv/bin/pip" ] || python3 -m venv "$wheels/.pip-venv"
    pip=("$wheels/.pip-venv/bin/pip")
  fi
}

say() { [ "$quiet" = 1 ] || echo "$wheel_script: $*" >&2; }

fetch_wheel() {
  if compgen -G "$wheels/${1//-/_}-$2-*.whl" >/dev/null; then
    say "$1 $2 already downloaded"
  else
    say "downloading $1 $2 from PyPI"
    "${pip[@]}" download --quiet --no-deps --only-binary=:all: -d "$wheels" "$1==$2"
  fi
}

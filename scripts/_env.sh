# Shared by scripts/demo.sh and scripts/test.sh: a project virtualenv and the system packages tests need.

PYTHON=${PYTHON:-python3}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "boardcast: need root (or sudo) to run: $* / root yetkisi gerekli" >&2; return 1; fi
}

apt_install() {
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

ensure_venv() {
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "boardcast: Python 3.11 or newer is needed; $PYTHON is $("$PYTHON" --version 2>&1) / Python 3.11+ gerekli" >&2
    exit 2
  fi
  if [ ! -x .venv/bin/python ]; then
    if ! "$PYTHON" -m venv .venv 2>/dev/null; then
      rm -rf .venv
      apt_install python3-venv
      "$PYTHON" -m venv .venv
    fi
  fi
}

ensure_chromium() {
  if ! command -v chromium >/dev/null && [ ! -x /usr/bin/chromium ]; then
    echo "== installing Chromium for the page tests (Debian package 'chromium')"
    apt_install chromium
  fi
}

ensure_gnubg() {
  # GNU Backgammon, the oracle of the backgammon agreement tests: the Debian CLI (`gnubg -t -p script.py`,
  # run for XGID/Match ID, .mat import and hint lists) and PyPI gnubg-nn (its move generator from Python,
  # in the `test` extra; wheels for CPython 3.11/3.12 on x86_64). The tests fail, never skip, without them.
  if ! command -v gnubg >/dev/null && [ ! -x /usr/games/gnubg ]; then
    echo "== installing GNU Backgammon for the backgammon tests (Debian package 'gnubg')"
    apt_install gnubg
  fi
  if ! .venv/bin/python -c 'import gnubg_nn' 2>/dev/null; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check 'gnubg-nn==1.1.0a11' ||
      echo "boardcast: PyPI gnubg-nn could not be installed for $(.venv/bin/python --version); the backgammon agreement tests will fail / gnubg-nn kurulamadı" >&2
  fi
}

ensure_redis() {
  # A real redis-server for the bus tests (several halls over Redis Streams); they start it themselves on a
  # free port and fail, never skip, without it.
  if ! command -v redis-server >/dev/null && [ ! -x /usr/bin/redis-server ]; then
    echo "== installing Redis for the bus tests (Debian package 'redis-server')"
    apt_install redis-server
  fi
}

# Shared by scripts/demo.sh and scripts/test.sh: a project virtualenv and the system packages tests need.

# The interpreter: $PYTHON if set; else the distribution's own CPython. Debian's and Ubuntu's python3 is built
# with profile-guided and link-time optimisation and libpython linked into the executable; a source build
# without --enable-optimizations (pyenv's default: a shared libpython, no PGO) ran the hub's ingest path 25-30 %
# slower on the same machine (README, Running a venue). `python3` from PATH only where neither is there.
PYTHON_CHOSEN=${PYTHON:-}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "boardcast: need root (or sudo) to run: $* / root yetkisi gerekli" >&2; return 1; fi
}

apt_install() {
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

new_enough() {
  "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null
}

choose_python() {
  if [ -n "$PYTHON_CHOSEN" ]; then
    PYTHON=$PYTHON_CHOSEN
    return
  fi
  if ! new_enough /usr/bin/python3 && command -v apt-get >/dev/null; then
    echo "== installing the distribution's Python (Debian packages 'python3', 'python3-venv')"
    apt_install python3 python3-venv || true
  fi
  if new_enough /usr/bin/python3; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
}

ensure_venv() {
  choose_python
  if ! new_enough "$PYTHON"; then
    echo "boardcast: Python 3.11 or newer is needed; $PYTHON is $("$PYTHON" --version 2>&1) / Python 3.11+ gerekli" >&2
    exit 2
  fi
  local wanted
  wanted=$("$PYTHON" -c 'import os, sys; print(os.path.realpath(sys.executable))')
  if [ -x .venv/bin/python ] &&
    [ "$(.venv/bin/python -c 'import os, sys; print(os.path.realpath(sys._base_executable))' 2>/dev/null)" != "$wanted" ]; then
    echo "== .venv was made with another Python; making it again with $wanted / .venv yeniden kuruluyor"
    rm -rf .venv
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

ensure_stockfish() {
  # Stockfish, the chess evaluation bar's engine (Debian package 'stockfish', /usr/games/stockfish): the engine
  # tests fail, never skip, without it; a hub without it runs and says so.
  if ! command -v stockfish >/dev/null && [ ! -x /usr/games/stockfish ]; then
    echo "== installing Stockfish for the chess evaluation tests (Debian package 'stockfish')"
    apt_install stockfish
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

ensure_ss() {
  # `ss`, which the scaling benchmark reads the hub's socket buffers with (Debian package 'iproute2'); the
  # benchmark smoke test fails, never skips, without it.
  if ! command -v ss >/dev/null && [ ! -x /bin/ss ]; then
    echo "== installing iproute2 for the scaling benchmark's socket figures (Debian package 'iproute2')"
    apt_install iproute2
  fi
}

ensure_nginx() {
  # nginx in front of two spectator edges (deploy/nginx/boardcast.conf); the test runs it as the current user
  # on a free loopback port and fails, never skips, without it. Debian puts it in /usr/sbin.
  if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    echo "== installing nginx for the load-balancer test (Debian package 'nginx')"
    apt_install nginx
    # Debian starts the installed nginx on port 80 where systemd runs; the tests start their own
    if command -v systemctl >/dev/null && systemctl is-active --quiet nginx 2>/dev/null; then
      as_root systemctl disable --now nginx || true
    fi
  fi
}

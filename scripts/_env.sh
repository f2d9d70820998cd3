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

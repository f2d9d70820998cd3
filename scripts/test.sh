#!/usr/bin/env bash
# Install everything the test suite needs, then run it: lint, format check, types, and the whole pytest suite.
#   bash scripts/test.sh            # everything
#   bash scripts/test.sh -k demo    # extra arguments go to pytest
# Needs Python >= 3.11 (python3, or set PYTHON). Installs Chromium from Debian's packages when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_env.sh

ensure_venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
ensure_chromium
ensure_gnubg
ensure_stockfish
ensure_redis
ensure_nginx
ensure_ss

echo "== ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "== mypy"
.venv/bin/mypy
echo "== pytest"
# two processes (this is a 2-core machine): see ONE_AT_A_TIME in tests/conftest.py for what never runs beside itself
.venv/bin/python -m pytest -n 2 --dist loadfile "$@"

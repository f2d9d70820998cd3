#!/usr/bin/env bash
# Install Boardcast and run the demo: four simulated table-tennis tables on http://127.0.0.1:8000/
#   bash scripts/demo.sh                    # extra arguments go to `boardcast demo`, e.g. --speed 5
# Needs Python >= 3.11 (python3, or set PYTHON).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_env.sh

ensure_venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
exec .venv/bin/boardcast demo "$@"

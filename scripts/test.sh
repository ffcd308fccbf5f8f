#!/usr/bin/env bash
# Set up the environment, then run the test suite (unit + integration over ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh
. .venv/bin/activate
python -m pytest "$@"

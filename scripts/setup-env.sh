#!/usr/bin/env bash
# Create .venv with everything the pipeline and the tests need. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  "${PYTHON:-python3}" -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip
# torch first and pinned: on the build machines 2.13.0 is a local CPU wheel, and an unpinned torch
# would pull gigabytes of CUDA packages. On a GPU cluster set TORCH_SPEC (e.g. "torch>=2.1") to get
# your site's CUDA build; pyproject.toml only asks for a range.
python -m pip install -q "${TORCH_SPEC:-torch==2.13.0}"
python -m pip install -q -e ".[pipeline,dev,reference,docs]"

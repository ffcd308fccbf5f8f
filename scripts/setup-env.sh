#!/usr/bin/env bash
# Create .venv with everything the pipeline and the tests need. Safe to re-run: a complete environment takes seconds.
# It says what it does on standard error (pip itself runs quietly): the first run downloads and installs for a few
# minutes, which would otherwise pass without a line on the screen.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
say() { printf 'setup: %s\n' "$*" >&2; }
if [ ! -x .venv/bin/python ]; then
  say "creating the environment .venv (the first run only)"
  "${PYTHON:-python3}" -m venv .venv
  first=1
fi
. .venv/bin/activate
if [ -n "${first:-}" ]; then
  say "installing pip, torch and the package with its dependencies into .venv: a few minutes, once"
fi
python -m pip install -q --upgrade pip
# torch first and pinned: on the build machines 2.13.0 is a local CPU wheel, and an unpinned torch
# would pull gigabytes of CUDA packages. On a GPU cluster set TORCH_SPEC (e.g. "torch>=2.1") to get
# your site's CUDA build; pyproject.toml only asks for a range.
say "torch (${TORCH_SPEC:-torch==2.13.0})"
python -m pip install -q "${TORCH_SPEC:-torch==2.13.0}"
say "the package and its dependencies (pyproject.toml: pipeline, dev, reference, docs)"
python -m pip install -q -e ".[pipeline,dev,reference,docs]"
say "ready in $((SECONDS - started)) s"

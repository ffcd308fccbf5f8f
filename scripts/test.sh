#!/usr/bin/env bash
# Set up the environment, then run the test suite (unit + integration over ../shared/data).
# With no arguments (the whole suite, as CI runs it) the tests run on two pytest-xdist workers, a file to a
# worker, the two longest files first (tests/conftest.py), and the run has a time budget: past it (wall time,
# set-up included) the suite fails at its end, and what it measured is written to logs/test-suite.json
# (PARAPHRASTIC_TEST_RECORD overrides the path: benchmarks/results/test_suite.json is the committed record).
# Arguments go to pytest as they are (`bash scripts/test.sh tests/data -x`): one process, no budget.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
bash scripts/setup-env.sh
. .venv/bin/activate
if [ "$#" -eq 0 ]; then
  export PARAPHRASTIC_SETUP_S=$((SECONDS - started))
  mkdir -p logs
  # The aim is 25 minutes; the suite does not reach it yet (README, "The test suite's time"), so the budget holds
  # it at 40 until the remaining cuts land, well inside CI's 90.
  export PARAPHRASTIC_TEST_BUDGET_S="${PARAPHRASTIC_TEST_BUDGET_S:-2400}"
  export PARAPHRASTIC_TEST_RECORD="${PARAPHRASTIC_TEST_RECORD:-logs/test-suite.json}"
  set -- -n "${PARAPHRASTIC_TEST_WORKERS:-2}" --dist loadfile --no-loadscope-reorder
fi
python -m pytest "$@"

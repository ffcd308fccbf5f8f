#!/usr/bin/env bash
# Set up the environment, then run the test suite (unit + integration over ../shared/data).
# With no arguments (the whole suite, as CI runs it) the tests run on two pytest-xdist workers, a file to a
# worker, the two longest files first (tests/conftest.py), and the run has a time budget: past it (wall time,
# set-up included) the suite fails at its end, and what it measured is written to logs/test-suite.json
# (PARAPHRASTIC_TEST_RECORD overrides the path: benchmarks/results/test_suite.json is the committed record).
# Arguments go to pytest as they are (`bash scripts/test.sh tests/data -x`): one process, no budget.
set -euo pipefail
here="$PWD"
cd "$(dirname "$0")/.."
# a test path typed relative to where the command was typed (tests/data, ../tests/x.py::name) is read from there
args=()
for arg in "$@"; do
  if [[ "$arg" != -* && "$arg" != /* && -e "$here/${arg%%::*}" ]]; then args+=("$here/$arg"); else args+=("$arg"); fi
done
set -- ${args[@]+"${args[@]}"}
started=$SECONDS
bash scripts/setup-env.sh
. .venv/bin/activate
if [ "$#" -eq 0 ]; then
  export PARAPHRASTIC_SETUP_S=$((SECONDS - started))
  mkdir -p logs
  # 25 minutes, set-up included (docs/performance.md, "The test suite's time"): a change that adds test time takes it back elsewhere.
  export PARAPHRASTIC_TEST_BUDGET_S="${PARAPHRASTIC_TEST_BUDGET_S:-1500}"
  export PARAPHRASTIC_TEST_RECORD="${PARAPHRASTIC_TEST_RECORD:-logs/test-suite.json}"
  set -- -n "${PARAPHRASTIC_TEST_WORKERS:-2}" --dist loadfile --no-loadscope-reorder
fi
python -m pytest "$@"

#!/usr/bin/env bash
# The main job: set up the environment, then run the whole pipeline (offline profile) and write
# data/report/report.{md,html}. Extra arguments go to snakemake (e.g. --cores 8).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh
. .venv/bin/activate
snakemake --cores 2 "$@"  # the workflow profile (profiles/default) gives the rerun policy; --cores N overrides
for arg in "$@"; do  # a plan (-n, -np, --dry-run) writes no report
  case "$arg" in -n | -n? | -?n | --dry-run | --dryrun) exit 0 ;; esac
done
echo "report: data/report/report.md (and report.html)"

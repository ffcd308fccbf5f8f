#!/usr/bin/env bash
# The main job: set up the environment, then run the whole pipeline (offline profile) and write
# data/report/report.{md,html}. Extra arguments go to snakemake (e.g. --cores 8).
set -euo pipefail
here="$PWD"
cd "$(dirname "$0")/.."
. scripts/typed-paths.sh
typed_paths "$here" "$@"  # a --configfile typed relative to where the command was typed is read from there
bash scripts/setup-env.sh
. .venv/bin/activate
snakemake --cores 2 ${TYPED[@]+"${TYPED[@]}"}  # the workflow profile (profiles/default) gives the rerun policy; --cores N overrides
for arg in "$@"; do  # a plan (-n, -np, --dry-run) writes no report
  case "$arg" in -n | -n? | -?n | --dry-run | --dryrun) exit 0 ;; esac
done
echo "report: data/report/report.md (and report.html)"

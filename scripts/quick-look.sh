#!/usr/bin/env bash
# The quick look: set up the environment, then run the whole graph on the tiny config (params.test.yaml: a few
# thousand pairs, one epoch, three STS sets) to a complete report whose headings say "tiny config", in a folder of
# its own (quick/, or $QUICK_LOOK_DIR) so that its results never mix with the offline run's in data/. The folder
# links to this checkout's Snakefile, workflow, library and profiles, and its params.yaml is the tiny config (its
# relative paths made absolute), written again at each run: after an edit, a second run reruns what the edit
# changed, as in data/, and Snakemake's own commands work there as in the checkout (cd quick && snakemake -n).
# Extra arguments go to snakemake, after the script's own (--cores 4; -n for the plan alone; --config KEY=VALUE
# over the tiny config), but --configfile FILE, read from where it was typed, replaces the tiny config as the
# folder's params.yaml (its relative paths, like the tiny config's, are the checkout's).
# benchmarks/quick_look.py times it (benchmarks/results/quick_look.json; the README quotes it).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
. "$repo/scripts/typed-paths.sh"
typed_paths "$PWD" "$@"  # a --configfile typed relative to here is read from here, not from the folder below
# A --configfile replaces the tiny config as the folder's params.yaml (its relative paths made absolute the same way)
source_config="$repo/params.test.yaml"
args=()
for ((i = 0; i < ${#TYPED[@]}; i++)); do
  case "${TYPED[i]}" in
    --configfile) source_config="${TYPED[i + 1]:-}"; i=$((i + 1)) ;;
    --configfile=*) source_config="${TYPED[i]#*=}" ;;
    *) args+=("${TYPED[i]}") ;;
  esac
done
if [ -z "$source_config" ]; then  # (typed_paths has named a file that is not there)
  echo "error: --configfile names no file" >&2
  exit 2
fi
folder="$(realpath -m "${QUICK_LOOK_DIR:-$repo/quick}")"  # a relative one from where it was typed
if [ -e "$folder" ] && [ ! -d "$folder" ]; then
  echo "error: $folder is not a folder (QUICK_LOOK_DIR names the quick look's folder)" >&2
  exit 2
fi
for name in Snakefile workflow src profiles; do
  if [ -e "$folder/$name" ] && [ ! -L "$folder/$name" ]; then
    echo "error: $folder/$name exists and is not a link this script made; choose another QUICK_LOOK_DIR" >&2
    exit 2
  fi
done
header="# Written by scripts/quick-look.sh at each run: the tiny config or a --configfile, its relative paths made absolute."
earlier="# Written by scripts/quick-look.sh at each run: params.test.yaml, its relative paths made absolute."
if [ -e "$folder/params.yaml" ] && [ "$(head -n 1 "$folder/params.yaml")" != "$header" ] \
  && [ "$(head -n 1 "$folder/params.yaml")" != "$earlier" ]; then  # (the header before --configfile was read)
  echo "error: $folder/params.yaml exists and is not the config this script writes; choose another QUICK_LOOK_DIR" >&2
  exit 2
fi
cd "$repo"
bash scripts/setup-env.sh
. .venv/bin/activate
mkdir -p "$folder"
for name in Snakefile workflow src profiles; do ln -sfn "$repo/$name" "$folder/$name"; done
# The tiny config, with its relative paths (the mirror, the papers' tables) made absolute: they are relative to the
# checkout, not to the folder. Written as the folder's params.yaml, which the Snakefile reads as in the checkout.
python - "$folder/params.yaml" "$header" "$source_config" <<'EOF'
import os
import sys

import yaml

from paraphrastic.atomic import write_text
from paraphrastic.configuration.params import read_yaml

target, header, source = sys.argv[1:]
config = read_yaml(source)
for key in ("mirror", "paper_tables"):
    if config.get(key) and not os.path.isabs(config[key]):
        config[key] = os.path.abspath(config[key])
write_text(target, f"{header}\n# Edit {os.path.relpath(source)}, not this file.\n"
           + yaml.safe_dump(config, sort_keys=False))
EOF
cd "$folder"
snakemake --cores 2 ${args[@]+"${args[@]}"}
for arg in "$@"; do  # a plan (-n, -np, --dry-run) writes no report
  case "$arg" in -n | -n? | -?n | --dry-run | --dryrun) exit 0 ;; esac
done
echo "report: $folder/data/report/report.md (and report.html); its metrics: cd $folder && dvc metrics show data/report/metrics.json"
echo "training curves: cd $folder && dvc plots show data/models/*/seed*/history.csv -x epoch -y selection_pearson"

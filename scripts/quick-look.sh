#!/usr/bin/env bash
# The quick look: set up the environment, then run the whole graph on the tiny config (params.test.yaml: a few
# thousand pairs, one epoch, three STS sets) to a complete report whose headings say "tiny config", in a folder of
# its own (quick/, or $QUICK_LOOK_DIR) so that its results never mix with the offline run's in data/. The folder
# links to this checkout's Snakefile, workflow, library and profiles: after an edit, a second run reruns what the
# edit changed, as in data/. Extra arguments go to snakemake (--cores 4; -n for the plan alone).
# benchmarks/quick_look.py times it (benchmarks/results/quick_look.json; the README quotes it).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
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
cd "$repo"
bash scripts/setup-env.sh
. .venv/bin/activate
mkdir -p "$folder"
for name in Snakefile workflow src profiles; do ln -sfn "$repo/$name" "$folder/$name"; done
# The config's relative paths (the mirror, the papers' tables) are relative to the checkout, not to the folder.
config=()
while IFS= read -r setting; do config+=("$setting"); done < <(python - <<'EOF'
import os
import yaml
config = yaml.safe_load(open("params.test.yaml", encoding="utf-8"))
for key in ("mirror", "paper_tables"):
    if config.get(key) and not os.path.isabs(config[key]):
        print(f"{key}={os.path.abspath(config[key])}")
EOF
)
if [ "${#config[@]}" -gt 0 ]; then config=(--config "${config[@]}"); fi
cd "$folder"
snakemake --cores 2 "$@" --configfile "$repo/params.test.yaml" "${config[@]}"
echo "report: $folder/data/report/report.md (and report.html)"

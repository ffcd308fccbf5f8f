#!/usr/bin/env bash
# Installs profiles/slurm/config.yaml as your Snakemake profile `slurm`, where
# `snakemake --cores 8 --profile slurm` finds it (Snakemake's user config folder, ~/.config/snakemake on
# Linux), for you to edit for your site (account, partitions). Never overwrites a profile you have.
set -euo pipefail
cd "$(dirname "$0")/.."
python=python3
[ -x .venv/bin/python ] && python=.venv/bin/python
# the folder Snakemake searches for `--profile NAME` (besides the working directory and the site folder)
folder="$("$python" -c 'from platformdirs import user_config_dir; print(user_config_dir("snakemake", "snakemake"))')/slurm"
for name in config.yaml profile.yaml; do
    if [ -e "$folder/$name" ]; then
        echo "kept: $folder/$name is already there (compare it with profiles/slurm/config.yaml)"
        exit 0
    fi
done
mkdir -p "$folder"
tmp="$(mktemp "$folder/.config.yaml.XXXXXX")"
cp profiles/slurm/config.yaml "$tmp"
chmod 644 "$tmp"
mv -n "$tmp" "$folder/config.yaml"
rm -f "$tmp"
echo "installed: $folder/config.yaml (edit slurm_account and the partitions for your site)"
echo "run: snakemake --cores 8 --profile slurm"

# Paraphrastic sentence embeddings (Wieting & Gimpel, ACL 2017): data -> tokens -> train ->
# STS evaluation -> report. Every rule is a thin call into the `paraphrastic` library; dvc.yaml
# runs the same commands.
#
#   snakemake --cores 2                               # offline profile, params.yaml
#   snakemake --cores 2 --configfile params.test.yaml # the tiny test config
#   snakemake -n --config data_profile=paper          # the paper's data, from upstream URLs
import os
import re
import sys

import yaml
from snakemake.utils import min_version, validate

sys.path.insert(0, str(Path(workflow.basedir) / "src"))
from paraphrastic import config as pconfig  # noqa: E402

min_version("9.0")


# `--configfile X` replaces params.yaml rather than being merged into it, so that
# `--configfile params.test.yaml` means exactly the tiny config.
if not workflow.overwrite_configfiles:

    configfile: "params.yaml"


validate(config, "workflow/schemas/params.schema.yaml")

# Jobs read the config Snakemake resolved (config files plus any --config overrides), so a rule and
# its job never disagree. Rewritten only when it changes, so its mtime triggers nothing.
RESOLVED_PARAMS = Path(".snakemake/paraphrastic/params.yaml")


def write_resolved_params(path, text):
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


write_resolved_params(RESOLVED_PARAMS, yaml.safe_dump(config, sort_keys=False))
CLI = f"python -m paraphrastic --params {RESOLVED_PARAMS}"
EXPERIMENTS = list(config["experiments"])  # explicit runs, also scored by `evaluate`
RUN_TABLE = pconfig.runs(config)  # every training run (experiments + grid points), expanded once
RUNS = list(RUN_TABLE)


wildcard_constraints:
    experiment="|".join(re.escape(r) for r in RUNS) or "^$",


# On a cluster these run on the submit host: compute nodes often have no internet (fetch), and
# the report is seconds of work.
localrules:
    all,
    fetch,
    report,


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        "data/report/report.md",
        "data/report/report.html",
